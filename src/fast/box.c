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
 * quotient a reciprocal gives, corrected by one where it is off.  8-bit
 * images up to radius 127 take narrow lanes: row sums of at most
 * 255 * 255 in 16 bits, window sums under 2^24 in 32 (exact in a float, so
 * one correction step suffices, in float and 32-bit lanes the vectoriser
 * takes whole); the others 64-bit sums and a double's reciprocal (the sums
 * below 2^64, the quotients below 2^16: one step too). */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/sample.h"
#include "../parallel.h"
#include "line.h"


enum { NARROW_RADIUS = 127 }; /* 8-bit images up to this radius take 16- and 32-bit lanes */

struct box {
    const gf_image *in;
    gf_image *out;
    const long *mx, *my;
    int R, rows; /* rows per task */
    int narrow;  /* t holds uint16 sums, else uint64 */
    void *t;     /* the horizontal sums, W*H*C */
    atomic_int failed;
};

/* The narrow lanes' vertical pass: acc += add (- sub), each may be NULL. */
VECTOR_CLONES static void slide32(uint32_t *acc, const uint16_t *add, const uint16_t *sub, size_t n)
{
    if (add)
        for (size_t e = 0; e < n; e++)
            acc[e] += add[e];
    if (sub)
        for (size_t e = 0; e < n; e++)
            acc[e] -= sub[e];
}

/* The narrow lanes' means: (acc + count/2) / count into 8-bit samples. */
VECTOR_CLONES static void mean8(const uint32_t *acc, uint8_t *o, size_t n, uint32_t count)
{
    const uint32_t half = count / 2;
    const float inverse = 1.0f / (float)count;
    for (size_t e = 0; e < n; e++) {
        const int32_t a = (int32_t)(acc[e] + half), c = (int32_t)count;
        int32_t q = (int32_t)((float)a * inverse);
        q -= q * c > a;
        q += (q + 1) * c <= a;
        o[e] = (uint8_t)q;
    }
}

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
        gf_pad_line(in, y, b->mx, R, p, 8);
        uint64_t *t = b->narrow ? NULL : (uint64_t *)b->t + row;
        uint16_t *t16 = b->narrow ? (uint16_t *)b->t + row : NULL;
        for (size_t ch = 0; ch < c; ch++) {
            uint64_t s = 0;
            for (size_t i = 0; i < span; i++)
                s += p[i * c + ch];
            for (size_t x = 0; x < (size_t)W; x++) {
                if (x)
                    s += p[(x - 1 + span) * c + ch] - p[(x - 1) * c + ch];
                if (t16)
                    t16[x * c + ch] = (uint16_t)s;
                else
                    t[x * c + ch] = s;
            }
        }
    }
    free(p);
}

/* The vertical pass in narrow lanes, over the output rows of band k. */
static void vertical_narrow(void *ctx, int k)
{
    struct box *b = ctx;
    const int H = b->in->height, R = b->R;
    const size_t n = (size_t)b->in->width * (size_t)b->in->channels;
    const uint16_t *t = b->t;
    uint32_t *acc = calloc(n ? n : 1, sizeof *acc);
    if (!acc) {
        atomic_store(&b->failed, 1);
        return;
    }
    const int y0 = k * b->rows, y1 = (k + 1) * b->rows < H ? (k + 1) * b->rows : H;
    for (int j = 0; j <= 2 * R; j++) /* my[y + j]: the source row of window position j */
        if (b->my[y0 + j] >= 0)
            slide32(acc, t + (size_t)b->my[y0 + j] * n, NULL, n);
    for (int y = y0; y < y1; y++) {
        if (y > y0) {
            const long in_row = b->my[y + 2 * R], out_row = b->my[y - 1];
            slide32(acc, in_row >= 0 ? t + (size_t)in_row * n : NULL, out_row >= 0 ? t + (size_t)out_row * n : NULL, n);
        }
        mean8(acc, (uint8_t *)b->out->data + (size_t)y * n, n, (uint32_t)((2 * R + 1) * (2 * R + 1)));
    }
    free(acc);
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
            const uint64_t *r = (const uint64_t *)b->t + (size_t)b->my[y0 + j] * n;
            for (size_t e = 0; e < n; e++)
                acc[e] += r[e];
        }
    for (int y = y0; y < y1; y++) {
        if (y > y0) {
            const long in_row = b->my[y + 2 * R], out_row = b->my[y - 1];
            if (in_row >= 0) {
                const uint64_t *r = (const uint64_t *)b->t + (size_t)in_row * n;
                for (size_t e = 0; e < n; e++)
                    acc[e] += r[e];
            }
            if (out_row >= 0) {
                const uint64_t *r = (const uint64_t *)b->t + (size_t)out_row * n;
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
    b.narrow = in->depth == 8 && b.R <= NARROW_RADIUS;
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = alloc_array((size_t)in->width * (size_t)in->height,
                          (size_t)in->channels * (b.narrow ? sizeof(uint16_t) : sizeof(uint64_t)), &b.t)) ||
        (st = border_map(in->width, b.R, s->border, &mx)) || (st = border_map(in->height, b.R, s->border, &my)))
        goto out;
    b.mx = mx, b.my = my;
    threads = threads < 1 ? 1 : threads;
    b.rows = (in->height + 4 * threads - 1) / (4 * threads);
    const int bands = (in->height + b.rows - 1) / b.rows;
    gf_parallel_for(bands, threads, horizontal, &b);
    if (!atomic_load(&b.failed))
        gf_parallel_for(bands, threads, b.narrow ? vertical_narrow : vertical, &b);
    if (atomic_load(&b.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the box's rows");
out:
    free(b.t);
    free(mx);
    free(my);
    return st;
}
