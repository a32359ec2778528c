/* SPDX-License-Identifier: MIT */
/* -median, the fast CPU path, bit for bit the reference (src/ops/median/median_ref.c),
 * by bands of output rows over up to `threads` threads, in loops over whole
 * padded rows the compiler vectorises.  Radius 1: each padded source line's
 * triples (samples x - 1, x, x + 1 of each channel) sorted into three rows
 * (least, middle, largest), each line once; an output row is then the
 * median of (the largest of its three lines' least, the median of their
 * middles, the least of their largest).  Larger radii: selection a bit at
 * a time, as the GPU's kernel. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "line.h"
#include "parallel.h"
#include "rank/rank.h"

#if defined(__GNUC__) && !defined(__clang__)
/* jamming the offsets' loops into the samples' loop would leave the latter scalar */
#pragma GCC optimize("no-loop-unroll-and-jam")
#endif

struct median {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    const long *mx, *my; /* border maps, padded by the radius */
    long per;            /* rows a task */
    atomic_int failed;   /* the first failure's status (running out of memory) */
};

static inline uint16_t lo2(uint16_t a, uint16_t b)
{
    return a < b ? a : b;
}

static inline uint16_t hi2(uint16_t a, uint16_t b)
{
    return a > b ? a : b;
}

static inline uint16_t med3(uint16_t a, uint16_t b, uint16_t c)
{
    return hi2(lo2(a, b), lo2(hi2(a, b), c));
}

/* Sample j's triple l[j], l[j + C], l[j + 2C], sorted into lo, mi, hi. */
VECTOR_CLONES static void median_sort3(uint16_t *lo, uint16_t *mi, uint16_t *hi, const uint16_t *l, size_t n, size_t C)
{
    for (size_t j = 0; j < n; j++) {
        const uint16_t a = l[j], b = l[j + C], c = l[j + 2 * C];
        const uint16_t ab = lo2(a, b), AB = hi2(a, b);
        lo[j] = lo2(ab, c);
        hi[j] = hi2(AB, c);
        mi[j] = hi2(ab, lo2(AB, c));
    }
}

VECTOR_CLONES static void median_rows3(uint16_t *d, uint16_t *const lo[3], uint16_t *const mi[3], uint16_t *const hi[3],
                                       size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const uint16_t least = hi2(hi2(lo[0][j], lo[1][j]), lo[2][j]);
        const uint16_t most = lo2(lo2(hi[0][j], hi[1][j]), hi[2][j]);
        d[j] = med3(least, med3(mi[0][j], mi[1][j], mi[2][j]), most);
    }
}

/* Output row y from its medians d (lanes of `lane` bytes), alpha the source's. */
static void store_row(const struct median *m, long y, const void *d, int lane)
{
    gf_store_line(m->out, y, d, lane);
    gf_copy_alpha(m->in, m->out, (size_t)y * (size_t)m->in->width, (size_t)(y + 1) * (size_t)m->in->width);
}

static void band3(struct median *m, long y0, long y1)
{
    const gf_image *in = m->in;
    const size_t C = (size_t)in->channels, n = (size_t)in->width * C;
    uint16_t *buf = malloc((n + 2 * C + 10 * n) * sizeof *buf);
    int none = GF_OK;
    if (!buf) {
        atomic_compare_exchange_strong(&m->failed, &none, (int)GF_ENOMEM);
        return;
    }
    uint16_t *line = buf, *d = buf + n + 2 * C, *lo[3], *mi[3], *hi[3];
    for (int q = 0; q < 3; q++)
        lo[q] = d + n * (1 + 3 * q), mi[q] = lo[q] + n, hi[q] = mi[q] + n;
    for (long y = y0; y < y1; y++) {
        /* source rows y - 1 .. y + 1 sit in slots (row + 1) % 3: a new band fills all three, a new row one */
        for (long r = y == y0 ? y - 1 : y + 1; r <= y + 1; r++) {
            const int q = (int)((r + 1) % 3);
            gf_pad_line(in, m->my[r + 1], m->mx, 1, line, 2);
            median_sort3(lo[q], mi[q], hi[q], line, n, C);
        }
        median_rows3(d, lo, mi, hi, n);
        store_row(m, y, d, 2);
    }
    free(buf);
}

/* The selection, CHUNK samples at a time with the counts in registers:
 * for each bit from the top, t = res | bit, below counts the window's
 * samples under t (its K x K offsets: K source lines, each shifted by
 * multiples of C), and res = t where below <= k.  Lanes of the sample's
 * size: 8-bit images up to radius 7 count in bytes (K * K <= 225). */
enum { CHUNK = 64 };

#define MEDIAN_SELECT(NAME, T)                                                                                         \
    static inline void NAME##_chunk(T *const *rows, T *res, size_t e0, size_t len, long K, size_t C, int bits, T k)    \
    {                                                                                                                  \
        T r[CHUNK] = {0}, t[CHUNK], below[CHUNK];                                                                      \
        for (int b = bits - 1; b >= 0; b--) {                                                                          \
            for (size_t j = 0; j < len; j++)                                                                           \
                t[j] = (T)(r[j] | (1u << b)), below[j] = 0;                                                            \
            for (long q = 0; q < K; q++)                                                                               \
                for (long i = 0; i < K; i++) {                                                                         \
                    const T *l = rows[q] + e0 + (size_t)i * C;                                                         \
                    for (size_t j = 0; j < len; j++)                                                                   \
                        below[j] = (T)(below[j] + (l[j] < t[j]));                                                      \
                }                                                                                                      \
            for (size_t j = 0; j < len; j++)                                                                           \
                r[j] = below[j] <= k ? t[j] : r[j];                                                                    \
        }                                                                                                              \
        memcpy(res + e0, r, len * sizeof *r);                                                                          \
    }                                                                                                                  \
    VECTOR_CLONES static void NAME(T *const *rows, T *res, size_t n, long K, size_t C, int bits, T k)                  \
    {                                                                                                                  \
        const size_t whole = n / CHUNK * CHUNK;                                                                        \
        for (size_t e = 0; e < whole; e += CHUNK)                                                                      \
            NAME##_chunk(rows, res, e, CHUNK, K, C, bits, k);                                                          \
        if (whole < n)                                                                                                 \
            NAME##_chunk(rows, res, whole, n - whole, K, C, bits, k);                                                  \
    }
MEDIAN_SELECT(median_select8, uint8_t)
MEDIAN_SELECT(median_select16, uint16_t)
#undef MEDIAN_SELECT

/* Radius 2 and more: output j is the largest m with at most k = n / 2 of
 * the window's n samples below it, found a bit at a time from the top (the
 * k-th smallest, as the reference's sort gives), over the 2R + 1 padded
 * source lines of the row, kept in a ring. */
static void band_select(struct median *m, long y0, long y1)
{
    const gf_image *in = m->in;
    const long R = GF_RANK_ARGS(m->s).radius, K = 2 * R + 1;
    const size_t C = (size_t)in->channels, n = (size_t)in->width * C, pad = n + 2 * (size_t)R * C;
    const size_t lane = in->depth == 8 && K * K < 256 ? 1 : 2;
    const unsigned k = (unsigned)(K * K / 2);                   /* K * K <= 961: counts fit 16 bits */
    uint8_t *ring = malloc(((size_t)K * pad + n) * lane), *res; /* the ring, then the result row */
    void **rows = malloc((size_t)K * sizeof *rows);
    int none = GF_OK;
    if (!ring || !rows) {
        atomic_compare_exchange_strong(&m->failed, &none, (int)GF_ENOMEM);
        goto out;
    }
    res = ring + (size_t)K * pad * lane;
    for (long q = 0; q < K; q++)
        rows[q] = ring + (size_t)q * pad * lane;
    for (long y = y0; y < y1; y++) {
        /* source rows y - R .. y + R sit in slots (row + R) % K: a new band fills all, a new row one */
        for (long r = y == y0 ? y - R : y + R; r <= y + R; r++)
            gf_pad_line(in, m->my[r + R], m->mx, (int)R, rows[(r + R) % K], (int)lane);
        if (lane == 1)
            median_select8((uint8_t *const *)rows, res, n, K, C, 8, (uint8_t)k);
        else
            median_select16((uint16_t *const *)rows, (uint16_t *)res, n, K, C, in->depth, (uint16_t)k);
        store_row(m, y, res, (int)lane);
    }
out:
    free(ring);
    free(rows);
}

static void band(void *ctx, int k)
{
    struct median *m = ctx;
    const long y0 = k * m->per, y1 = y0 + m->per < m->in->height ? y0 + m->per : m->in->height;
    if (GF_RANK_ARGS(m->s).radius == 1)
        band3(m, y0, y1);
    else
        band_select(m, y0, y1);
}

gf_fast_fn gf_fast_median;

gf_status gf_fast_median(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    struct median m = {.s = s, .in = in, .out = out};
    long *mx = NULL, *my = NULL;
    gf_status st = GF_OK;
    if ((st = border_map(in->width, GF_RANK_ARGS(s).radius, s->border, &mx)) ||
        (st = border_map(in->height, GF_RANK_ARGS(s).radius, s->border, &my)))
        goto out;
    m.mx = mx, m.my = my;
    m.per = gf_band_rows(in->height, GF_RANK_ARGS(s).radius, threads);
    atomic_init(&m.failed, GF_OK);
    gf_parallel_for((int)((in->height + m.per - 1) / m.per), threads, band, &m);
    st = (gf_status)atomic_load(&m.failed);
    if (st) /* a worker's message stays in its thread: say it here */
        st = gf_error(st, "out of memory for median rows");
out:
    free(mx);
    free(my);
    return st;
}
