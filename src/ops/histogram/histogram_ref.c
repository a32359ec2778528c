/* SPDX-License-Identifier: MIT */
/* Histogram, the reference: exact counts per channel; the image passes on. */
#include "config.h"

#include <stdlib.h>

#include "histogram.h"
#include "sample.h"

int gf_histogram_bins(const gf_step *s, int depth)
{
    int bins = GF_HISTOGRAM_ARGS(s).bins ? GF_HISTOGRAM_ARGS(s).bins : 256;
    return depth == 8 && bins > 256 ? 256 : bins;
}

gf_status gf_histogram_count(const gf_image *img, int bins, uint64_t *counts)
{
    const int C = img->channels, d = img->depth;
    int shift = 0;
    while ((1 << (d - shift)) > bins)
        shift++;
    for (size_t i = 0; i < (size_t)C * bins; i++)
        counts[i] = 0;
    const size_t n = (size_t)img->width * img->height;
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < C; c++)
            counts[(size_t)c * bins + (ld(img->data, p * C + c, d) >> shift)]++;
    return GF_OK;
}

gf_cpu_fn gf_cpu_histogram;

gf_status gf_cpu_histogram(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int bins = gf_histogram_bins(s, in->depth);
    uint64_t *counts = NULL;
    gf_status st = alloc_array((size_t)in->channels * bins, sizeof *counts, (void **)&counts);
    if (st)
        return st;
    if (!(st = gf_histogram_count(in, bins, counts)))
        st = gf_histogram_write(GF_REPORT_ARGS(s).path, in, bins, counts);
    free(counts);
    return st;
}
