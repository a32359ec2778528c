/* SPDX-License-Identifier: MIT */
/* Box stencil, the fast CPU path: the reference's exact integer mean
 * (src/ops/box/box_ref.c) bit for bit, split over up to `threads` threads by bands
 * of rows.
 *
 * Horizontal pass, a row at a time, over the row copied with its border into
 * a padded line of W + 2R pixels (0 where the border map names no sample).
 * Vertical pass, an output row at a time: the band's first row adds its 2R +
 * 1 intermediate rows, each next row adds the row entering the window and
 * takes away the one leaving it, and makes its means in the same loop.  The
 * mean (sum + n/2) / n, n = (2R + 1)^2, is the quotient a reciprocal gives,
 * corrected by one where it is off.
 *
 * 8-bit images up to radius 127 take narrow lanes: a row's window sums (at
 * most 255 * 255) in 16 bits, made by doubling over whole lines (sums of 2,
 * 4, 8, ... neighbours, those the window's length has in binary added up),
 * and the vertical sums, under 2^24, in 32 (exact in a float, so one
 * correction step suffices, in float and 32-bit lanes the vectoriser takes
 * whole).  The others slide 64-bit sums along the line and take a double's
 * reciprocal (the sums below 2^64, the quotients below 2^16: one step too).
 *
 * Where the window is shorter than the image, a band keeps the intermediate
 * rows of its window in a ring of 2R + 2 rows, made as the window moves down
 * (the rows it shares with the band above are made twice), so that they are
 * read back from the cache; beyond, the whole intermediate is made first. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"
#include "line.h"
#include "parallel.h"
#include "sample.h"

enum { NARROW_RADIUS = 127 }; /* 8-bit images up to this radius take 16- and 32-bit lanes */

struct box {
    const gf_image *in;
    gf_image *out;
    const long *mx, *my;
    long R, rows; /* rows per task */
    int narrow;   /* the intermediate holds uint16 sums, else uint64 */
    void *t;      /* no ring: the whole intermediate, W*H*C */
    atomic_int failed;
};

/* d[e] = (keep ? d[e] : 0) + s[e + off], e < n. */
VECTOR_CLONES static void add16(uint16_t *d, const uint16_t *s, size_t off, size_t n, int keep)
{
    if (keep)
        for (size_t e = 0; e < n; e++)
            d[e] = (uint16_t)(d[e] + s[e + off]);
    else
        memcpy(d, s + off, n * sizeof *d);
}

/* s[e] += s[e + off], e < n: sums of m neighbours into sums of 2m. */
VECTOR_CLONES static void double16(uint16_t *s, size_t off, size_t n)
{
    for (size_t e = 0; e < n; e++)
        s[e] = (uint16_t)(s[e] + s[e + off]);
}

/* The narrow lanes' horizontal pass: t[e] = p[e] + p[e + C] + ... + p[e +
 * 2R C] for the n samples of a row, p the padded line (destroyed).  While
 * p holds sums of m neighbours (m = 1, 2, 4, ...), the window's length
 * having bit m adds them at offset `off`, the bits below it. */
static void hrow_narrow(uint16_t *p, uint16_t *t, size_t n, long R, size_t C)
{
    const size_t span = 2 * (size_t)R + 1, L = n + (span - 1) * C;
    size_t off = 0;
    for (size_t m = 1; m <= span; m *= 2) {
        if (span & m) {
            add16(t, p, off * C, n, off > 0);
            off += m;
        }
        if (2 * m <= span)
            double16(p, m * C, L - (2 * m - 1) * C); /* valid sums of 2m from here */
    }
}

/* The wide lanes' horizontal pass: each channel's sum slides along p. */
static void hrow_wide(const uint64_t *p, uint64_t *t, size_t W, long R, size_t c)
{
    const size_t span = 2 * (size_t)R + 1;
    for (size_t ch = 0; ch < c; ch++) {
        uint64_t s = 0;
        for (size_t i = 0; i < span; i++)
            s += p[i * c + ch];
        for (size_t x = 0; x < W; x++) {
            if (x)
                s += p[(x - 1 + span) * c + ch] - p[(x - 1) * c + ch];
            t[x * c + ch] = s;
        }
    }
}

/* acc[e] += r[e]: a band's first window. */
VECTOR_CLONES static void gather32(uint32_t *acc, const uint16_t *r, size_t n)
{
    for (size_t e = 0; e < n; e++)
        acc[e] += r[e];
}

VECTOR_CLONES static void gather64(uint64_t *acc, const uint64_t *r, size_t n)
{
    for (size_t e = 0; e < n; e++)
        acc[e] += r[e];
}

/* The narrow lanes' output row: acc += add - sub, then (acc + count/2) / count. */
VECTOR_CLONES static void slide_mean8(uint32_t *acc, const uint16_t *add, const uint16_t *sub, uint8_t *o, size_t n,
                                      uint32_t count)
{
    const uint32_t half = count / 2;
    const float inverse = 1.0f / (float)count;
    for (size_t e = 0; e < n; e++) {
        const uint32_t s = acc[e] + add[e] - sub[e];
        acc[e] = s;
        const int32_t a = (int32_t)(s + half), c = (int32_t)count;
        int32_t q = (int32_t)((float)a * inverse);
        q -= q * c > a;
        q += (q + 1) * c <= a;
        o[e] = (uint8_t)q;
    }
}

static void slide_mean_wide(uint64_t *acc, const uint64_t *add, const uint64_t *sub, gf_image *out, size_t at, size_t n,
                            uint64_t count)
{
    const uint64_t half = count / 2;
    const double inverse = 1.0 / (double)count;
    for (size_t e = 0; e < n; e++) {
        acc[e] += add[e] - sub[e];
        const uint64_t a = acc[e] + half;
        uint64_t q = (uint64_t)((double)a * inverse);
        if (q * count > a)
            q--;
        else if ((q + 1) * count <= a)
            q++;
        put(out->data, at + e, out->depth, (uint32_t)q);
    }
}

/* Source row sy (-1: none, a row of 0) through the horizontal pass into
 * dst, by way of the padded line p. */
static void horizontal_row(const struct box *b, long sy, void *p, void *dst)
{
    const gf_image *in = b->in;
    const size_t n = (size_t)in->width * (size_t)in->channels;
    if (sy < 0)
        memset(dst, 0, n * (b->narrow ? sizeof(uint16_t) : sizeof(uint64_t)));
    else if (b->narrow) {
        gf_pad_line(in, sy, b->mx, (int)b->R, p, 2);
        hrow_narrow(p, dst, n, b->R, (size_t)in->channels);
    } else {
        gf_pad_line(in, sy, b->mx, (int)b->R, p, 8);
        hrow_wide(p, dst, (size_t)in->width, b->R, (size_t)in->channels);
    }
}

/* Band k of the output rows.  With a ring (b->t NULL), padded row position
 * j (source row my[j]) lives in ring slot j mod (2R + 2); without, the rows
 * are read from the whole intermediate, a row of zeros standing for those
 * the border leaves out. */
static void band(void *ctx, int k)
{
    struct box *b = ctx;
    const gf_image *in = b->in;
    const long H = in->height, R = b->R, slots = 2 * R + 2;
    const size_t n = (size_t)in->width * (size_t)in->channels, lane = b->narrow ? 2 : 8, bytes = n * lane;
    const uint64_t count = (uint64_t)(2 * R + 1) * (uint64_t)(2 * R + 1);
    const long y0 = k * b->rows, y1 = y0 + b->rows < H ? y0 + b->rows : H;
    char *p = malloc(((size_t)in->width + 2 * (size_t)R) * (size_t)in->channels * lane), *ring = NULL;
    char *zero = calloc(n ? n : 1, lane), *acc = calloc(n ? n : 1, b->narrow ? 4 : 8);
    if (!p || !zero || !acc || (!b->t && !(ring = malloc((size_t)slots * bytes)))) {
        atomic_store(&b->failed, 1);
        goto out;
    }
    /* padded row position j's intermediate row, made where it enters the window */
#define ROW(j)                                                                                                         \
    (ring ? ring + (size_t)((j) % slots) * bytes : b->my[j] < 0 ? zero : (char *)b->t + (size_t)b->my[j] * bytes)
    for (long j = y0; j < y0 + 2 * R; j++) { /* the first window but its last row */
        if (ring)
            horizontal_row(b, b->my[j], p, ROW(j));
        if (b->narrow)
            gather32((uint32_t *)acc, (const uint16_t *)ROW(j), n);
        else
            gather64((uint64_t *)acc, (const uint64_t *)ROW(j), n);
    }
    for (long y = y0; y < y1; y++) { /* the window of y is rows y .. y + 2R: y + 2R enters, y - 1 leaves */
        if (ring)
            horizontal_row(b, b->my[y + 2 * R], p, ROW(y + 2 * R));
        const char *enter = ROW(y + 2 * R), *leave = y > y0 ? ROW(y - 1) : zero;
        if (b->narrow)
            slide_mean8((uint32_t *)acc, (const uint16_t *)enter, (const uint16_t *)leave,
                        (uint8_t *)b->out->data + (size_t)y * n, n, (uint32_t)count);
        else
            slide_mean_wide((uint64_t *)acc, (const uint64_t *)enter, (const uint64_t *)leave, b->out, (size_t)y * n, n,
                            count);
    }
#undef ROW
out:
    free(p);
    free(zero);
    free(acc);
    free(ring);
}

/* Without a ring: the horizontal pass over the source rows of band k. */
static void horizontal(void *ctx, int k)
{
    struct box *b = ctx;
    const gf_image *in = b->in;
    const long H = in->height, y0 = k * b->rows, y1 = y0 + b->rows < H ? y0 + b->rows : H;
    const size_t n = (size_t)in->width * (size_t)in->channels, lane = b->narrow ? 2 : 8;
    void *p = malloc(((size_t)in->width + 2 * (size_t)b->R) * (size_t)in->channels * lane);
    if (!p) {
        atomic_store(&b->failed, 1);
        return;
    }
    for (long y = y0; y < y1; y++)
        horizontal_row(b, y, p, (char *)b->t + (size_t)y * n * lane);
    free(p);
}

gf_fast_fn gf_fast_box;

gf_status gf_fast_box(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const long H = in->height, R = GF_BOX_ARGS(s).radius;
    struct box b = {.in = in, .out = out, .R = R};
    b.narrow = in->depth == 8 && R <= NARROW_RADIUS;
    long *mx = NULL, *my = NULL;
    gf_status st;
    const int ring = 2 * R + 2 <= H; /* else the whole intermediate is the smaller */
    if ((!ring && (st = alloc_array((size_t)in->width * (size_t)H,
                                    (size_t)in->channels * (b.narrow ? sizeof(uint16_t) : sizeof(uint64_t)), &b.t))) ||
        (st = border_map(in->width, R, s->border, &mx)) || (st = border_map(H, R, s->border, &my)))
        goto out;
    b.mx = mx, b.my = my;
    threads = threads < 1 ? 1 : threads;
    b.rows = gf_band_rows(H, R, threads);
    const int bands = (int)((H + b.rows - 1) / b.rows);
    if (!ring)
        gf_parallel_for(bands, threads, horizontal, &b);
    if (!atomic_load(&b.failed))
        gf_parallel_for(bands, threads, band, &b);
    if (atomic_load(&b.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the box's rows");
out:
    free(b.t);
    free(mx);
    free(my);
    return st;
}
