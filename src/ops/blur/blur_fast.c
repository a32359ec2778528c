/* SPDX-License-Identifier: MIT */
/* Gaussian blur, the fast CPU path: the reference's arithmetic (src/ops/blur/blur_ref.c,
 * numeric.h) bit for bit, arranged for the compiler's vectoriser and split
 * over up to `threads` threads by bands of rows.
 *
 * Horizontal pass, a row at a time: the row is copied with its border into a
 * padded line of W + 2R pixels (each outside position holding the sample the
 * border map names, 0 where it names none), so that every tap runs over
 * contiguous memory without a branch: acc[e] += q[i] * (p[e + (R+i)C] +
 * p[e + (R-i)C]) for the W*C samples e of the row, the taps being symmetric.
 * Vertical pass, an output row at a time: the 2R + 1 intermediate rows its
 * window names are added in the same pairs.  Both passes go CHUNK samples at
 * a time through every tap, the sums in registers.  The sums are the
 * reference's: integer additions in another order.  8-bit images stay in
 * 32-bit lanes (the horizontal sums reach 255 << 16, the vertical ones
 * 65280 << 16, both under 2^32 with the rounding); 16-bit images take 64-bit
 * lanes.
 *
 * Where the window is shorter than the image, a band keeps the intermediate
 * rows of its window in a ring of 2R + 1 rows, made as the window moves down
 * (the rows it shares with the band above are made twice), so that they are
 * read back from the cache; beyond, the whole intermediate is made first,
 * then the output rows read it.
 *
 * In place (out is in): the whole intermediate is made before any output
 * row is written, or, with rings, a band writes output row y once every
 * source row it still needs lies at or below y in its own band; the source
 * rows it reads that another band writes (its neighbours' R rows, the
 * border's reflections) or that it wrote itself before reading them (the
 * bottom border's reflections) are copied first, before any band runs. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "blur.h"
#include "line.h"
#include "parallel.h"
#include "sample.h"

#if defined(__GNUC__) && !defined(__clang__)
/* jamming the taps' loop into the samples' loop would leave the latter scalar */
#pragma GCC optimize("no-loop-unroll-and-jam")
#endif

struct blur {
    const gf_image *in;
    gf_image *out;
    const uint32_t *q; /* taps q[0..R] */
    const long *mx, *my;
    int R, sh1, sh2, rows; /* rows per task */
    uint32_t max;
    void *t;           /* no ring: the whole intermediate, W*H*C of uint16 (8-bit) or uint32 (16-bit) */
    void **saved;      /* in place with rings: per source row, its copy where a band needs one, else NULL */
    atomic_int failed; /* a task ran out of memory */
};

enum { CHUNK = 32 }; /* samples through every tap at a time */

/* The passes, for each lane width: TL the padded line's lanes, TM the
 * intermediate's, TA the sums', TO the output samples'.
 *
 * hchunk: samples e0..e0+len-1 (len <= CHUNK) of a row through the
 * horizontal taps, mid the padded line from the row's first pixel.  hrow:
 * a row through them, p the padded line (W + 2R pixels), t the row's n =
 * W*C results.  vchunk: samples e0..e0+len-1 of an output row from the
 * intermediate rows r[0..2R] of its window (r[R] its own).  vrow: the
 * whole output row. */
#define BLUR_PASSES(S, TL, TM, TA, TO)                                                                                 \
    static inline void hchunk##S(const TL *mid, TM *t, size_t e0, size_t len, const uint32_t *q, int R, size_t c,      \
                                 int sh1)                                                                              \
    {                                                                                                                  \
        TA acc[CHUNK];                                                                                                 \
        for (size_t k = 0; k < len; k++)                                                                               \
            acc[k] = (TA)q[0] * mid[e0 + k];                                                                           \
        for (int i = 1; i <= R; i++) {                                                                                 \
            const TA w = q[i];                                                                                         \
            const TL *a = mid + e0 + (size_t)i * c, *b = mid + e0 - (size_t)i * c;                                     \
            for (size_t k = 0; k < len; k++)                                                                           \
                acc[k] += w * (a[k] + b[k]);                                                                           \
        }                                                                                                              \
        const TA half = (TA)1 << (sh1 - 1);                                                                            \
        for (size_t k = 0; k < len; k++)                                                                               \
            t[e0 + k] = (TM)((acc[k] + half) >> sh1);                                                                  \
    }                                                                                                                  \
    VECTOR_CLONES static void hrow##S(const TL *p, TM *t, size_t n, const uint32_t *q, int R, int C, int sh1)          \
    {                                                                                                                  \
        const size_t c = (size_t)C, whole = n / CHUNK * CHUNK;                                                         \
        const TL *mid = p + (size_t)R * c;                                                                             \
        for (size_t e = 0; e < whole; e += CHUNK)                                                                      \
            hchunk##S(mid, t, e, CHUNK, q, R, c, sh1);                                                                 \
        if (whole < n)                                                                                                 \
            hchunk##S(mid, t, whole, n - whole, q, R, c, sh1);                                                         \
    }                                                                                                                  \
    static inline void vchunk##S(const TM *const *r, TO *o, size_t e0, size_t len, const uint32_t *q, int R, int sh2,  \
                                 uint32_t max)                                                                         \
    {                                                                                                                  \
        TA acc[CHUNK];                                                                                                 \
        const TM *m = r[R] + e0;                                                                                       \
        for (size_t k = 0; k < len; k++)                                                                               \
            acc[k] = (TA)q[0] * m[k];                                                                                  \
        for (int i = 1; i <= R; i++) {                                                                                 \
            const TA w = q[i];                                                                                         \
            const TM *a = r[R - i] + e0, *b = r[R + i] + e0;                                                           \
            for (size_t k = 0; k < len; k++)                                                                           \
                acc[k] += w * ((TA)a[k] + b[k]);                                                                       \
        }                                                                                                              \
        const TA half = (TA)1 << (sh2 - 1);                                                                            \
        for (size_t k = 0; k < len; k++) {                                                                             \
            const TA v = (acc[k] + half) >> sh2;                                                                       \
            o[e0 + k] = (TO)(v > max ? max : v);                                                                       \
        }                                                                                                              \
    }                                                                                                                  \
    VECTOR_CLONES static void vrow##S(const TM *const *r, TO *o, size_t n, const uint32_t *q, int R, int sh2,          \
                                      uint32_t max)                                                                    \
    {                                                                                                                  \
        const size_t whole = n / CHUNK * CHUNK;                                                                        \
        for (size_t e = 0; e < whole; e += CHUNK)                                                                      \
            vchunk##S(r, o, e, CHUNK, q, R, sh2, max);                                                                 \
        if (whole < n)                                                                                                 \
            vchunk##S(r, o, whole, n - whole, q, R, sh2, max);                                                         \
    }
BLUR_PASSES(8, uint32_t, uint16_t, uint32_t, uint8_t)   /* 8-bit images */
BLUR_PASSES(16, uint64_t, uint32_t, uint64_t, uint16_t) /* 16-bit images */
#undef BLUR_PASSES

/* Source row sy (-1: none, a row of 0) through the horizontal taps into dst,
 * by way of the padded line p. */
static void horizontal_row(const struct blur *b, long sy, void *p, void *dst)
{
    const gf_image *in = b->in;
    gf_image copy;
    if (sy >= 0 && b->saved && b->saved[sy]) { /* the row as it was, kept aside */
        copy = *in;
        copy.height = 1;
        copy.data = b->saved[sy];
        in = &copy;
        sy = 0;
    }
    const size_t n = (size_t)in->width * (size_t)in->channels;
    if (in->depth == 16) {
        if (sy < 0)
            memset(dst, 0, n * sizeof(uint32_t));
        else {
            gf_pad_line(in, sy, b->mx, b->R, p, 8);
            hrow16(p, dst, n, b->q, b->R, in->channels, b->sh1);
        }
    } else if (sy < 0)
        memset(dst, 0, n * sizeof(uint16_t));
    else {
        gf_pad_line(in, sy, b->mx, b->R, p, 4);
        hrow8(p, dst, n, b->q, b->R, in->channels, b->sh1);
    }
}

/* Output row y from the intermediate rows r[0..2R] of its window. */
static void vertical_row(const struct blur *b, const void *const *r, long y)
{
    const size_t n = (size_t)b->in->width * (size_t)b->in->channels;
    if (b->in->depth == 16)
        vrow16((const uint32_t *const *)r, (uint16_t *)b->out->data + (size_t)y * n, n, b->q, b->R, b->sh2, b->max);
    else
        vrow8((const uint16_t *const *)r, (uint8_t *)b->out->data + (size_t)y * n, n, b->q, b->R, b->sh2, b->max);
}

/* Band k of the output rows.  With a ring (b->t NULL), padded row position
 * j (source row my[j]) lives in ring slot j mod (2R + 1); without, the
 * rows are read from the whole intermediate, a row of zeros standing for
 * those the border leaves out.  The padded line's lanes are twice the
 * intermediate's. */
static void band(void *ctx, int k)
{
    struct blur *b = ctx;
    const gf_image *in = b->in;
    const long H = in->height, R = b->R, span = 2 * R + 1;
    const size_t n = (size_t)in->width * (size_t)in->channels, lane = in->depth == 16 ? 4 : 2, bytes = n * lane;
    const long y0 = (long)k * b->rows, y1 = y0 + b->rows < H ? y0 + b->rows : H;
    const void **r = malloc((size_t)span * sizeof *r);
    char *p = malloc(((size_t)in->width + 2 * (size_t)R) * (size_t)in->channels * lane * 2);
    char *ring = b->t ? NULL : malloc((size_t)span * bytes), *zero = b->t ? calloc(n ? n : 1, lane) : NULL;
    if (!r || !p || (b->t ? !zero : !ring)) {
        atomic_store(&b->failed, 1);
        goto out;
    }
    for (long y = y0; y < y1; y++) {
        if (ring) {
            for (long j = y == y0 ? y : y + 2 * R; j <= y + 2 * R; j++)
                horizontal_row(b, b->my[j], p, ring + (size_t)(j % span) * bytes);
            for (long j = 0; j < span; j++)
                r[j] = ring + (size_t)((y + j) % span) * bytes;
        } else
            for (long j = 0; j < span; j++)
                r[j] = b->my[y + j] < 0 ? zero : (const char *)b->t + (size_t)b->my[y + j] * bytes;
        vertical_row(b, r, y);
    }
out:
    free(r);
    free(p);
    free(ring);
    free(zero);
}

/* Without a ring: the horizontal pass over the source rows of band k. */
static void horizontal(void *ctx, int k)
{
    struct blur *b = ctx;
    const gf_image *in = b->in;
    const long H = in->height, y0 = (long)k * b->rows, y1 = y0 + b->rows < H ? y0 + b->rows : H;
    const size_t n = (size_t)in->width * (size_t)in->channels, lane = in->depth == 16 ? 4 : 2;
    void *p = malloc(((size_t)in->width + 2 * (size_t)b->R) * (size_t)in->channels * lane * 2);
    if (!p) {
        atomic_store(&b->failed, 1);
        return;
    }
    for (long y = y0; y < y1; y++)
        horizontal_row(b, y, p, (char *)b->t + (size_t)y * n * lane);
    free(p);
}

/* In place with rings: copies each source row that some band reads after
 * it may have been written (see the head of this file) into *block, and
 * points b->saved at the copies. */
static gf_status save_rows(struct blur *b, int bands, void **block)
{
    const gf_image *in = b->in;
    const long H = in->height, R = b->R;
    const size_t bytes = (size_t)in->width * (size_t)in->channels * (size_t)(in->depth / 8);
    unsigned char *need = calloc((size_t)H, 1);
    b->saved = calloc((size_t)H, sizeof *b->saved);
    if (!need || !b->saved) {
        free(need);
        return gf_error(GF_ENOMEM, "out of memory for the blur's rows");
    }
    size_t n = 0;
    for (int k = 0; k < bands; k++) {
        const long y0 = (long)k * b->rows, y1 = y0 + b->rows < H ? y0 + b->rows : H;
        for (long j = y0; j < y1 + 2 * R; j++) { /* padded row j is read as row max(y0, j - 2R) is made */
            const long sy = b->my[j], at = j - 2 * R > y0 ? j - 2 * R : y0;
            if (sy >= 0 && !(sy >= at && sy < y1) && !need[sy]) {
                need[sy] = 1;
                n++;
            }
        }
    }
    gf_status st = n ? alloc_array(n, bytes, block) : GF_OK;
    for (long sy = 0, i = 0; !st && sy < H; sy++)
        if (need[sy]) {
            b->saved[sy] = (char *)*block + (size_t)i++ * bytes;
            memcpy(b->saved[sy], (const char *)in->data + (size_t)sy * bytes, bytes);
        }
    free(need);
    return st;
}

gf_fast_fn gf_fast_blur;

gf_status gf_fast_blur(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const int d = in->depth, R = GF_BLUR_ARGS(s).radius, H = in->height;
    struct blur b = {.in = in,
                     .out = out,
                     .R = R,
                     .sh1 = GF_BLUR_SHIFT1(d),
                     .sh2 = GF_BLUR_SHIFT2(d),
                     .max = (uint32_t)gf_maxval(d)};
    uint32_t *q = NULL;
    long *mx = NULL, *my = NULL;
    void *block = NULL; /* in place: the copied rows */
    gf_status st;
    const int ring = 2 * (long)R + 1 <= H; /* else the whole intermediate is the smaller */
    if ((st = gf_blur_taps(GF_BLUR_ARGS(s).sigma, R, GF_BLUR_BITS(d), &q)) ||
        (!ring && (st = alloc_array((size_t)in->width * (size_t)H, (size_t)in->channels * (d == 16 ? 4 : 2), &b.t))) ||
        (st = border_map(in->width, R, s->border, &mx)) || (st = border_map(H, R, s->border, &my)))
        goto out;
    b.q = q, b.mx = mx, b.my = my;
    threads = threads < 1 ? 1 : threads;
    b.rows = (int)gf_band_rows(H, R, threads);
    const int bands = (H + b.rows - 1) / b.rows;
    if (!ring)
        gf_parallel_for(bands, threads, horizontal, &b);
    else if (out->data == in->data && (st = save_rows(&b, bands, &block)))
        goto out;
    if (!atomic_load(&b.failed))
        gf_parallel_for(bands, threads, band, &b);
    if (atomic_load(&b.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the blur's rows");
out:
    free(q);
    free(b.t);
    free(b.saved);
    free(block);
    free(mx);
    free(my);
    return st;
}
