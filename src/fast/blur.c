/* SPDX-License-Identifier: MIT */
/* Gaussian blur, the fast CPU path: the reference's arithmetic (src/cpu/blur.c,
 * numeric.h) bit for bit, arranged for the compiler's vectoriser and split
 * over up to `threads` threads by bands of rows.
 *
 * Horizontal pass, a row at a time: the row is copied with its border into a
 * padded line of W + 2R pixels (each outside position holding the sample the
 * border map names, 0 where it names none), so that every tap runs over
 * contiguous memory without a branch: acc[e] += q[i] * (p[e + (R+i)C] +
 * p[e + (R-i)C]) for the W*C samples e of the row, the taps being symmetric
 * (an 8-bit row CHUNK samples at a time, every tap, the sums in registers).
 * Vertical pass, an output row at a time: the intermediate rows the taps name
 * are added whole, in the same pairs.  The sums are the reference's: integer
 * additions in another order.  8-bit images stay in 32-bit lanes (the
 * horizontal sums reach 255 << 16, the vertical ones 65280 << 16, both under
 * 2^32 with the rounding); 16-bit images take 64-bit lanes. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../cpu/sample.h"
#include "../parallel.h"
#include "line.h"

struct blur {
    const gf_image *in;
    gf_image *out;
    const uint32_t *q; /* taps q[0..R] */
    const long *mx, *my;
    int R, sh1, sh2, rows; /* rows per task */
    uint32_t max;
    void *t;           /* the horizontal pass: W*H*C of uint16 (8-bit) or uint32 (16-bit) */
    atomic_int failed; /* a task ran out of memory */
};

/* 8-bit rows go through the horizontal taps CHUNK samples at a time, the
 * sums in registers rather than in memory. */
enum { CHUNK = 32 };

/* Samples e0..e0+len-1 (len <= CHUNK) of an 8-bit row through the
 * horizontal taps; mid is the padded line from the row's first pixel. */
static inline void chunk8(const uint32_t *mid, uint16_t *t, size_t e0, size_t len, const uint32_t *q, int R, size_t c,
                          int sh1)
{
    uint32_t acc[CHUNK];
    for (size_t k = 0; k < len; k++)
        acc[k] = q[0] * mid[e0 + k];
    for (int i = 1; i <= R; i++) {
        const uint32_t w = q[i], *a = mid + e0 + (size_t)i * c, *b = mid + e0 - (size_t)i * c;
        for (size_t k = 0; k < len; k++)
            acc[k] += w * (a[k] + b[k]);
    }
    const uint32_t half = 1u << (sh1 - 1);
    for (size_t k = 0; k < len; k++)
        t[e0 + k] = (uint16_t)((acc[k] + half) >> sh1);
}

/* One row of 8-bit samples through the horizontal taps: p is the padded
 * line (W + 2R pixels), t the row's n = W*C results. */
VECTOR_CLONES static void row8(const uint32_t *p, uint16_t *t, size_t n, const uint32_t *q, int R, int C, int sh1)
{
    const size_t c = (size_t)C, whole = n / CHUNK * CHUNK;
    const uint32_t *mid = p + (size_t)R * c;
    for (size_t e = 0; e < whole; e += CHUNK)
        chunk8(mid, t, e, CHUNK, q, R, c, sh1);
    if (whole < n)
        chunk8(mid, t, whole, n - whole, q, R, c, sh1);
}

VECTOR_CLONES static void row16(const uint64_t *p, uint64_t *acc, uint32_t *t, size_t n, const uint32_t *q, int R,
                                int C, int sh1)
{
    const size_t c = (size_t)C;
    for (size_t e = 0; e < n; e++)
        acc[e] = q[0] * p[e + (size_t)R * c];
    for (int i = 1; i <= R; i++) {
        const uint64_t w = q[i];
        const uint64_t *a = p + (size_t)(R + i) * c, *b = p + (size_t)(R - i) * c;
        for (size_t e = 0; e < n; e++)
            acc[e] += w * (a[e] + b[e]);
    }
    const uint64_t half = 1ull << (sh1 - 1);
    for (size_t e = 0; e < n; e++)
        t[e] = (uint32_t)((acc[e] + half) >> sh1);
}

/* acc[e] += w * (a[e] + b[e]) (b may be NULL: a alone), 8-bit images' vertical pass. */
VECTOR_CLONES static void add8(uint32_t *acc, const uint16_t *a, const uint16_t *b, uint32_t w, size_t n)
{
    if (b)
        for (size_t e = 0; e < n; e++)
            acc[e] += w * ((uint32_t)a[e] + b[e]);
    else
        for (size_t e = 0; e < n; e++)
            acc[e] += w * a[e];
}

VECTOR_CLONES static void add16(uint64_t *acc, const uint32_t *a, const uint32_t *b, uint64_t w, size_t n)
{
    if (b)
        for (size_t e = 0; e < n; e++)
            acc[e] += w * ((uint64_t)a[e] + b[e]);
    else
        for (size_t e = 0; e < n; e++)
            acc[e] += w * a[e];
}

VECTOR_CLONES static void out8(const uint32_t *acc, uint8_t *o, size_t n, int sh2, uint32_t max)
{
    const uint32_t half = 1u << (sh2 - 1);
    for (size_t e = 0; e < n; e++) {
        const uint32_t v = (acc[e] + half) >> sh2;
        o[e] = (uint8_t)(v > max ? max : v);
    }
}

VECTOR_CLONES static void out16(const uint64_t *acc, uint16_t *o, size_t n, int sh2, uint32_t max)
{
    const uint64_t half = 1ull << (sh2 - 1);
    for (size_t e = 0; e < n; e++) {
        const uint64_t v = (acc[e] + half) >> sh2;
        o[e] = (uint16_t)(v > max ? max : v);
    }
}

/* Horizontal pass over the rows of band k. */
static void horizontal(void *ctx, int k)
{
    struct blur *b = ctx;
    const gf_image *in = b->in;
    const int W = in->width, C = in->channels, R = b->R, wide = in->depth == 16;
    const size_t n = (size_t)W * (size_t)C, lane = wide ? 8 : 4;
    void *p = malloc(((size_t)W + 2 * (size_t)R) * (size_t)C * lane), *acc = wide ? malloc(n * lane) : NULL;
    if (!p || (wide && !acc)) { /* (8-bit rows keep their sums in registers) */
        atomic_store(&b->failed, 1);
        goto out;
    }
    const int y1 = (k + 1) * b->rows < in->height ? (k + 1) * b->rows : in->height;
    for (int y = k * b->rows; y < y1; y++) {
        const size_t row = (size_t)y * n;
        gf_pad_line(in, y, b->mx, R, p, (int)lane);
        if (wide)
            row16(p, acc, (uint32_t *)b->t + row, n, b->q, R, C, b->sh1);
        else
            row8(p, (uint16_t *)b->t + row, n, b->q, R, C, b->sh1);
    }
out:
    free(p);
    free(acc);
}

/* Vertical pass over the output rows of band k. */
static void vertical(void *ctx, int k)
{
    struct blur *b = ctx;
    const gf_image *in = b->in;
    const int W = in->width, H = in->height, R = b->R, wide = in->depth == 16;
    const size_t n = (size_t)W * (size_t)in->channels;
    void *acc = malloc(n * (wide ? 8 : 4));
    if (!acc) {
        atomic_store(&b->failed, 1);
        return;
    }
    const int y1 = (k + 1) * b->rows < H ? (k + 1) * b->rows : H;
    for (int y = k * b->rows; y < y1; y++) {
        const long *m = b->my + y + R; /* m[j]: the source row of tap j, -1 for none */
        memset(acc, 0, n * (wide ? 8 : 4));
        for (int j = 0; j <= R; j++) {
            const long up = m[-j], down = j ? m[j] : -1;
            if (up < 0 && down < 0)
                continue;
            const long a = up >= 0 ? up : down, other = up >= 0 ? down : -1;
            if (wide)
                add16(acc, (const uint32_t *)b->t + (size_t)a * n,
                      other >= 0 ? (const uint32_t *)b->t + (size_t)other * n : NULL, b->q[j], n);
            else
                add8(acc, (const uint16_t *)b->t + (size_t)a * n,
                     other >= 0 ? (const uint16_t *)b->t + (size_t)other * n : NULL, b->q[j], n);
        }
        if (wide)
            out16(acc, (uint16_t *)b->out->data + (size_t)y * n, n, b->sh2, b->max);
        else
            out8(acc, (uint8_t *)b->out->data + (size_t)y * n, n, b->sh2, b->max);
    }
    free(acc);
}

gf_fast_fn gf_fast_blur;

gf_status gf_fast_blur(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const int d = in->depth, R = s->blur.radius;
    struct blur b = {.in = in,
                     .out = out,
                     .R = R,
                     .sh1 = GF_BLUR_SHIFT1(d),
                     .sh2 = GF_BLUR_SHIFT2(d),
                     .max = (uint32_t)gf_maxval(d)};
    uint32_t *q = NULL;
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = gf_blur_taps(s->blur.sigma, R, GF_BLUR_BITS(d), &q)) ||
        (st = alloc_array((size_t)in->width * (size_t)in->height, (size_t)in->channels * (d == 16 ? 4 : 2), &b.t)) ||
        (st = border_map(in->width, R, s->border, &mx)) || (st = border_map(in->height, R, s->border, &my)))
        goto out;
    b.q = q, b.mx = mx, b.my = my;
    threads = threads < 1 ? 1 : threads;
    /* bands of rows, a few per thread so that uneven cores even out */
    b.rows = (in->height + 4 * threads - 1) / (4 * threads);
    const int bands = (in->height + b.rows - 1) / b.rows;
    gf_parallel_for(bands, threads, horizontal, &b);
    if (!atomic_load(&b.failed))
        gf_parallel_for(bands, threads, vertical, &b);
    if (atomic_load(&b.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the blur's rows");
out:
    free(q);
    free(b.t);
    free(mx);
    free(my);
    return st;
}
