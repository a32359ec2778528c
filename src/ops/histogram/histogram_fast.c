/* SPDX-License-Identifier: MIT */
/* Histogram and equalisation, the fast CPU path: the references' counts and
 * curves (src/ops/histogram/histogram_ref.c, src/ops/histogram/equalize_ref.c) on up to `threads`
 * threads.  Each band of rows counts into counts of its own, added up after
 * (integer sums: the same counts); equalisation then maps the bands through
 * the references' lookup tables. */
#include "config.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "histogram.h"
#include "parallel.h"
#include "sample.h"

struct count {
    const gf_image *img;
    int bins, shift, rows; /* rows per task */
    uint64_t *part;        /* counts per band, C * bins each */
};

/* 8-bit samples count into four copies of 32-bit counts, pixel p into
 * copy p mod 4, so that runs of one value do not wait on one counter; the
 * copies are added into the band's counts every FLUSH pixels, before a
 * 32-bit count could wrap.  C is a constant where count8 is inlined. */
enum { FLUSH = 1 << 28 };

static inline void count8(const uint8_t *d, size_t a, size_t b, size_t C, size_t bins, int shift, uint32_t *c0)
{
    uint32_t *c1 = c0 + C * bins, *c2 = c1 + C * bins, *c3 = c2 + C * bins;
    size_t p = a;
    for (; p + 4 <= b; p += 4)
        for (size_t ch = 0; ch < C; ch++) {
            c0[ch * bins + (d[p * C + ch] >> shift)]++;
            c1[ch * bins + (d[(p + 1) * C + ch] >> shift)]++;
            c2[ch * bins + (d[(p + 2) * C + ch] >> shift)]++;
            c3[ch * bins + (d[(p + 3) * C + ch] >> shift)]++;
        }
    for (; p < b; p++)
        for (size_t ch = 0; ch < C; ch++)
            c0[ch * bins + (d[p * C + ch] >> shift)]++;
}

static void count_band(void *ctx, int k)
{
    const struct count *c = ctx;
    const gf_image *img = c->img;
    const size_t C = (size_t)img->channels, bins = (size_t)c->bins;
    uint64_t *h = c->part + (size_t)k * C * bins;
    const int y1 = (k + 1) * c->rows < img->height ? (k + 1) * c->rows : img->height;
    const size_t p0 = (size_t)k * (size_t)c->rows * (size_t)img->width, p1 = (size_t)y1 * (size_t)img->width;
    if (img->depth == 8) {
        uint32_t copy[4 * 4 * 256]; /* four copies; C <= 4, bins <= 256 */
        for (size_t a = p0; a < p1; a += FLUSH) {
            const size_t b = p1 - a > FLUSH ? a + FLUSH : p1;
            memset(copy, 0, 4 * C * bins * sizeof *copy);
            switch (C) {
            case 1: count8(img->data, a, b, 1, bins, c->shift, copy); break;
            case 2: count8(img->data, a, b, 2, bins, c->shift, copy); break;
            case 3: count8(img->data, a, b, 3, bins, c->shift, copy); break;
            default: count8(img->data, a, b, 4, bins, c->shift, copy); break;
            }
            for (size_t i = 0; i < 4 * C * bins; i++)
                h[i % (C * bins)] += copy[i];
        }
    } else {
        const uint16_t *d = img->data;
        for (size_t p = p0; p < p1; p++)
            for (size_t ch = 0; ch < C; ch++)
                h[ch * bins + (d[p * C + ch] >> c->shift)]++;
    }
}

/* gf_histogram_count on up to `threads` threads. */
static gf_status count(const gf_image *img, int bins, uint64_t *counts, int threads)
{
    struct count c = {img, bins, 0, 0, NULL};
    while ((1 << (img->depth - c.shift)) > bins)
        c.shift++;
    threads = threads < 1 ? 1 : threads;
    /* a band a thread: each band's counts are C * bins words to add up */
    c.rows = (img->height + threads - 1) / threads;
    const int bands = (img->height + c.rows - 1) / c.rows;
    const size_t each = (size_t)img->channels * (size_t)bins;
    gf_status st = alloc_array((size_t)bands, each * sizeof *c.part, (void **)&c.part);
    if (st)
        return st;
    memset(c.part, 0, (size_t)bands * each * sizeof *c.part);
    gf_parallel_for(bands, threads, count_band, &c);
    memset(counts, 0, each * sizeof *counts);
    for (int k = 0; k < bands; k++)
        for (size_t i = 0; i < each; i++)
            counts[i] += c.part[(size_t)k * each + i];
    free(c.part);
    return GF_OK;
}

gf_fast_fn gf_fast_histogram;

gf_status gf_fast_histogram(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    (void)out;
    const int bins = gf_histogram_bins(s, in->depth);
    uint64_t *counts = NULL;
    gf_status st = alloc_array((size_t)in->channels * bins, sizeof *counts, (void **)&counts);
    if (!st && !(st = count(in, bins, counts, threads)))
        st = gf_histogram_write(GF_REPORT_ARGS(s).path, in, bins, counts);
    free(counts);
    return st;
}

struct map {
    const gf_image *in;
    gf_image *out;
    const uint32_t *lut;
    int rows;
};

static void map_band(void *ctx, int k)
{
    const struct map *m = ctx;
    const size_t C = (size_t)m->in->channels, levels = (size_t)gf_maxval(m->in->depth) + 1;
    const int y1 = (k + 1) * m->rows < m->in->height ? (k + 1) * m->rows : m->in->height;
    const size_t p0 = (size_t)k * (size_t)m->rows * (size_t)m->in->width, p1 = (size_t)y1 * (size_t)m->in->width;
    if (m->in->depth == 8) {
        const uint8_t *in = m->in->data;
        uint8_t *out = m->out->data;
        for (size_t p = p0; p < p1; p++)
            for (size_t ch = 0; ch < C; ch++)
                out[p * C + ch] = (uint8_t)m->lut[ch * levels + in[p * C + ch]];
    } else {
        const uint16_t *in = m->in->data;
        uint16_t *out = m->out->data;
        for (size_t p = p0; p < p1; p++)
            for (size_t ch = 0; ch < C; ch++)
                out[p * C + ch] = (uint16_t)m->lut[ch * levels + in[p * C + ch]];
    }
}

gf_fast_fn gf_fast_equalize;

gf_status gf_fast_equalize(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    (void)s;
    const size_t levels = (size_t)gf_maxval(in->depth) + 1, C = (size_t)in->channels;
    uint64_t *counts = NULL;
    uint32_t *lut = NULL;
    gf_status st;
    if ((st = alloc_array(C * levels, sizeof *counts, (void **)&counts)) ||
        (st = alloc_array(C * levels, sizeof *lut, (void **)&lut)) || (st = count(in, (int)levels, counts, threads)))
        goto out;
    gf_equalize_luts(in, counts, lut);
    threads = threads < 1 ? 1 : threads;
    struct map m = {in, out, lut, (in->height + 4 * threads - 1) / (4 * threads)};
    gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, map_band, &m);
out:
    free(counts);
    free(lut);
    return st;
}
