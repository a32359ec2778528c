/* SPDX-License-Identifier: MIT */
/* Box stencil, the fast CPU path: the reference's exact integer mean
 * (src/cpu/box.c) bit for bit, with running sums, split over up to `threads`
 * threads by bands of rows.
 *
 * Horizontal pass, a row at a time: the row is copied with its border into a
 * padded line of W + 2R pixels (0 where the border map names no sample), and
 * each channel's window sum slides along it, one sample in and one out.
 * Vertical pass, a band of output rows at a time: the band's first row adds
 * its 2R + 1 intermediate rows, each next row adds the row entering the
 * window and takes away the one leaving it (whole rows: the compiler
 * vectorises these).  The mean (sum + n/2) / n, n = (2R + 1)^2, is the
 * quotient a double's reciprocal gives, corrected by one where it is off:
 * the sums stay below 2^64 and the quotients below 2^16, so one step
 * suffices. */
#include "config.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the row loops are written for the vectoriser; -O2 leaves them scalar */
#endif

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/sample.h"
#include "../parallel.h"

struct box {
    const gf_image *in;
    gf_image *out;
    const long *mx, *my;
    int R, rows; /* rows per task */
    uint64_t *t; /* the horizontal sums, W*H*C */
    atomic_int failed;
};

static void horizontal(void *ctx, int k)
{
    struct box *b = ctx;
    const gf_image *in = b->in;
    const int W = in->width, C = in->channels, R = b->R;
    const size_t n = (size_t)W * (size_t)C, c = (size_t)C, span = 2 * (size_t)R + 1;
    uint64_t *p = malloc(((size_t)W + 2 * (size_t)R) * c * sizeof *p);
    if (!p) {
        atomic_store(&b->failed, 1);
        return;
    }
    const int y1 = (k + 1) * b->rows < in->height ? (k + 1) * b->rows : in->height;
    for (int y = k * b->rows; y < y1; y++) {
        const size_t row = (size_t)y * n;
        for (int x = 0; x < W + 2 * R; x++) { /* the padded line */
            const long sx = b->mx[x];
            for (size_t ch = 0; ch < c; ch++)
                p[(size_t)x * c + ch] = sx >= 0 ? ld(in->data, row + (size_t)sx * c + ch, in->depth) : 0;
        }
        uint64_t *t = b->t + row;
        for (size_t ch = 0; ch < c; ch++) {
            uint64_t s = 0;
            for (size_t i = 0; i < span; i++)
                s += p[i * c + ch];
            t[ch] = s;
            for (size_t x = 1; x < (size_t)W; x++) {
                s += p[(x - 1 + span) * c + ch] - p[(x - 1) * c + ch];
                t[x * c + ch] = s;
            }
        }
    }
    free(p);
}

static void vertical(void *ctx, int k)
{
    struct box *b = ctx;
    const gf_image *in = b->in;
    const int H = in->height, R = b->R, d = in->depth;
    const size_t n = (size_t)in->width * (size_t)in->channels;
    const uint64_t count = (uint64_t)(2 * R + 1) * (uint64_t)(2 * R + 1), half = count / 2;
    const double inverse = 1.0 / (double)count;
    uint64_t *acc = calloc(n ? n : 1, sizeof *acc);
    if (!acc) {
        atomic_store(&b->failed, 1);
        return;
    }
    const int y0 = k * b->rows, y1 = (k + 1) * b->rows < H ? (k + 1) * b->rows : H;
    for (int j = 0; j <= 2 * R; j++) /* my[y + j]: the source row of window position j */
        if (b->my[y0 + j] >= 0) {
            const uint64_t *r = b->t + (size_t)b->my[y0 + j] * n;
            for (size_t e = 0; e < n; e++)
                acc[e] += r[e];
        }
    for (int y = y0; y < y1; y++) {
        if (y > y0) {
            const long in_row = b->my[y + 2 * R], out_row = b->my[y - 1];
            if (in_row >= 0) {
                const uint64_t *r = b->t + (size_t)in_row * n;
                for (size_t e = 0; e < n; e++)
                    acc[e] += r[e];
            }
            if (out_row >= 0) {
                const uint64_t *r = b->t + (size_t)out_row * n;
                for (size_t e = 0; e < n; e++)
                    acc[e] -= r[e];
            }
        }
        for (size_t e = 0; e < n; e++) {
            const uint64_t a = acc[e] + half;
            uint64_t q = (uint64_t)((double)a * inverse);
            if (q * count > a)
                q--;
            else if ((q + 1) * count <= a)
                q++;
            put(b->out->data, (size_t)y * n + e, d, (uint32_t)q);
        }
    }
    free(acc);
}

gf_fast_fn gf_fast_box;

gf_status gf_fast_box(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    struct box b = {.in = in, .out = out, .R = s->box.radius};
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = alloc_array((size_t)in->width * (size_t)in->height, (size_t)in->channels * sizeof *b.t,
                          (void **)&b.t)) ||
        (st = border_map(in->width, b.R, s->border, &mx)) || (st = border_map(in->height, b.R, s->border, &my)))
        goto out;
    b.mx = mx, b.my = my;
    threads = threads < 1 ? 1 : threads;
    b.rows = (in->height + 4 * threads - 1) / (4 * threads);
    const int bands = (in->height + b.rows - 1) / b.rows;
    gf_parallel_for(bands, threads, horizontal, &b);
    if (!atomic_load(&b.failed))
        gf_parallel_for(bands, threads, vertical, &b);
    if (atomic_load(&b.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the box's rows");
out:
    free(b.t);
    free(mx);
    free(my);
    return st;
}
