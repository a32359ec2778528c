/* SPDX-License-Identifier: MIT */
/* Histogram equalisation, the reference: each colour channel through its own
 * curve (numeric.h, gf_equalize_value); alpha unchanged. */
#include "config.h"

#include <stdlib.h>

#include "histogram.h"
#include "sample.h"

void gf_equalize_luts(const gf_image *img, const uint64_t *counts, uint32_t *lut)
{
    const uint32_t max = gf_maxval(img->depth);
    const uint64_t n = (uint64_t)img->width * img->height;
    for (int c = 0; c < img->channels; c++) {
        const uint64_t *h = counts + (size_t)c * (max + 1);
        uint32_t *l = lut + (size_t)c * (max + 1);
        if (gf_has_alpha(img->channels) && c == img->channels - 1) {
            for (uint32_t v = 0; v <= max; v++)
                l[v] = v;
            continue;
        }
        uint64_t cdf = 0, cmin = 0;
        for (uint32_t v = 0; v <= max; v++)
            if (h[v]) {
                cmin = h[v];
                break;
            }
        for (uint32_t v = 0; v <= max; v++) {
            cdf += h[v];
            l[v] = gf_equalize_value(cdf, cmin, n, max, v);
        }
    }
}

gf_cpu_fn gf_cpu_equalize;

gf_status gf_cpu_equalize(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int C = in->channels, d = in->depth;
    const size_t levels = (size_t)gf_maxval(d) + 1;
    uint64_t *counts = NULL;
    uint32_t *lut = NULL;
    gf_status st;
    if ((st = alloc_array((size_t)C * levels, sizeof *counts, (void **)&counts)) ||
        (st = alloc_array((size_t)C * levels, sizeof *lut, (void **)&lut)))
        goto out;
    gf_histogram_count(in, (int)levels, counts);
    gf_equalize_luts(in, counts, lut);
    const size_t n = (size_t)in->width * in->height;
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < C; c++)
            put(out->data, p * C + c, d, lut[c * levels + ld(in->data, p * C + c, d)]);
out:
    free(counts);
    free(lut);
    return st;
}
