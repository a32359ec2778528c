/* SPDX-License-Identifier: MIT */
/* -erode and -dilate, the fast CPU path: the reference's minimum (maximum)
 * over the square, exact, separable, in contiguous loops over whole rows
 * the compiler vectorises.  Where both axes' radii are at most DIRECT, each
 * output takes the extreme of its window directly, band by band: extremes
 * of shifted lines, then of neighbouring rows (direct_band).  Beyond, van
 * Herk / Gil-Werman, so the cost does not grow with R: a line padded by R
 * samples each side (the border rule's) is cut into segments of K = 2R +
 * 1; g holds each segment's running extreme from its start, h from its
 * end, and output i is op(h[i], g[i + 2R]).  Its rows pass runs line by
 * line over bands of rows into a 16-bit intermediate, its columns pass on
 * strips of S samples, whole padded rows of a strip at a time; the threads
 * share the bands and the strips. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "line.h"
#include "parallel.h"
#include "rank.h"
#include "sample.h"

enum { S = 512, DIRECT = 8 }; /* samples a strip of the columns pass; the direct windows' largest radius */

struct rank {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    uint16_t *mid;  /* van Herk / Gil-Werman's rows pass: H rows of W C samples */
    const long *mx; /* direct windows: the border map of a row, padded by the radius */
    long R, per;    /* the radius on this axis; rows or strips a task */
    atomic_int failed;
};

/* d[i] = the larger (max) or smaller of a[i] and b[i], in lanes of T. */
#define RANK_EXTREME(NAME, T)                                                                                          \
    VECTOR_CLONES static void NAME(T *d, const T *a, const T *b, size_t n, int max)                                    \
    {                                                                                                                  \
        if (max)                                                                                                       \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] > b[i] ? a[i] : b[i];                                                                      \
        else                                                                                                           \
            for (size_t i = 0; i < n; i++)                                                                             \
                d[i] = a[i] < b[i] ? a[i] : b[i];                                                                      \
    }
RANK_EXTREME(rank_extreme, uint16_t)
RANK_EXTREME(rank_extreme8, uint8_t)
#undef RANK_EXTREME

/* d[i] = the extreme of a[i] and b[i], n samples in lanes of `lane` bytes (1 or 2). */
static void extreme(void *d, const void *a, const void *b, size_t n, int max, size_t lane)
{
    if (lane == 1)
        rank_extreme8(d, a, b, n, max);
    else
        rank_extreme(d, a, b, n, max);
}

/* Rows [y0, y1) of the input into mid. */
static void rows_band(void *ctx, int k)
{
    struct rank *m = ctx;
    const gf_image *in = m->in;
    const long W = in->width, C = in->channels, R = m->R, K = 2 * R + 1, P = W + 2 * R;
    const long y0 = k * m->per, y1 = y0 + m->per < in->height ? y0 + m->per : in->height;
    const int max = GF_RANK_ARGS(m->s).max;
    uint16_t *line = malloc((size_t)P * C * 3 * sizeof *line), *g = line + P * C, *h = g + P * C;
    if (!line) {
        atomic_store(&m->failed, 1);
        return;
    }
    for (long y = y0; y < y1; y++) {
        /* the padded line: the row itself in one widening loop, the 2R border pixels through the rule */
        const size_t row = (size_t)y * W * C;
        if (in->depth == 8)
            for (long j = 0; j < W * C; j++)
                line[R * C + j] = ((const uint8_t *)in->data)[row + j];
        else
            for (long j = 0; j < W * C; j++)
                line[R * C + j] = ((const uint16_t *)in->data)[row + j];
        for (long i = 0; i < P; i = i + 1 == R ? W + R : i + 1) {
            const long sx = gf_border_index(i - R, W, m->s->border);
            for (long c = 0; c < C; c++)
                line[i * C + c] = sx < 0 ? 0 : line[(R + sx) * C + c];
        }
        /* each segment [a, b): prefixes forward, suffixes back, C samples a pixel */
        for (long a = 0; a < P; a += K) {
            const long b = a + K < P ? a + K : P;
            for (long c = 0; c < C; c++) {
                uint16_t v = line[a * C + c];
                for (long i = a; i < b; i++) {
                    const uint16_t x = line[i * C + c];
                    g[i * C + c] = v = max ? (x > v ? x : v) : (x < v ? x : v);
                }
                v = line[(b - 1) * C + c];
                for (long i = b - 1; i >= a; i--) {
                    const uint16_t x = line[i * C + c];
                    h[i * C + c] = v = max ? (x > v ? x : v) : (x < v ? x : v);
                }
            }
        }
        rank_extreme(m->mid + row, h, g + 2 * R * C, (size_t)(W * C), max);
    }
    free(line);
}

/* The columns of strip k of mid into the output. */
static void strip(void *ctx, int k)
{
    struct rank *m = ctx;
    gf_image *out = m->out;
    const long H = out->height, N = (long)out->width * out->channels, R = m->R, K = 2 * R + 1, P = H + 2 * R;
    const long j0 = k * S, n = j0 + S < N ? S : N - j0;
    const int max = GF_RANK_ARGS(m->s).max;
    uint16_t *g = malloc((size_t)P * n * 2 * sizeof *g), *h = g ? g + P * n : NULL;
    if (!g) {
        atomic_store(&m->failed, 1);
        return;
    }
    for (long p = 0; p < P; p++) { /* padded row p: mid row p - R by the border rule, or zeros */
        const long sy = gf_border_index(p - R, H, m->s->border);
        uint16_t *gp = g + p * n;
        if (sy < 0)
            for (long j = 0; j < n; j++)
                gp[j] = 0;
        else
            for (long j = 0; j < n; j++)
                gp[j] = m->mid[(size_t)sy * N + j0 + j];
    }
    for (long p = P - 1; p >= 0; p--) /* suffixes back (h), from the rows themselves */
        if ((p + 1) % K && p + 1 < P)
            rank_extreme(h + p * n, h + (p + 1) * n, g + p * n, (size_t)n, max);
        else
            for (long j = 0; j < n; j++)
                h[p * n + j] = g[p * n + j];
    for (long p = 1; p < P; p++) /* then the prefixes in place of the rows */
        if (p % K)
            rank_extreme(g + p * n, g + (p - 1) * n, g + p * n, (size_t)n, max);
    for (long y = 0; y < H; y++) {
        const uint16_t *a = h + y * n, *b = g + (y + 2 * R) * n;
        for (long j = 0; j < n; j++) {
            const uint16_t v = max ? (a[j] > b[j] ? a[j] : b[j]) : (a[j] < b[j] ? a[j] : b[j]);
            put(out->data, (size_t)y * N + j0 + j, out->depth, v);
        }
    }
    free(g);
}

/* Both radii up to DIRECT: output rows [y0, y1) of band k directly, in
 * lanes of the sample's size.  Each source row's extremes over 2Rx + 1
 * pixels go into a ring of 2Ry + 1 rows (slot (row + Ry) mod K; a row
 * outside the image under the zero border is zeros), each row once; an
 * output row is the extreme of the ring.  A row's windows come by doubling:
 * the padded line's extremes over 2, 4, ... m pixels (m the largest power
 * of two in the window), then two such windows that overlap to cover it. */
static void direct_band(void *ctx, int k)
{
    struct rank *m = ctx;
    const gf_image *in = m->in;
    const long W = in->width, H = in->height, C = in->channels, n = W * C;
    const long Rx = gf_rank_radius(GF_RANK_ARGS(m->s).radius, W), Ry = gf_rank_radius(GF_RANK_ARGS(m->s).radius, H),
               K = 2 * Ry + 1;
    const long y0 = k * m->per, y1 = y0 + m->per < H ? y0 + m->per : H, span = 2 * Rx + 1;
    const int max = GF_RANK_ARGS(m->s).max;
    const size_t lane = in->depth == 8 ? 1 : 2, L = (size_t)(n + 2 * Rx * C);
    uint8_t *line = malloc((L + (size_t)(K + 1) * (size_t)n) * lane);
    if (!line) {
        atomic_store(&m->failed, 1);
        return;
    }
    uint8_t *ring = line + L * lane, *d = ring + (size_t)(K * n) * lane;
    long pow = 1;
    while (2 * pow <= span)
        pow *= 2;
    for (long y = y0; y < y1; y++) {
        for (long r = y == y0 ? y - Ry : y + Ry; r <= y + Ry; r++) {
            uint8_t *h = ring + (size_t)(((r + Ry) % K) * n) * lane;
            const long sy = gf_border_index(r, H, m->s->border);
            if (sy < 0) {
                memset(h, 0, (size_t)n * lane);
                continue;
            }
            gf_pad_line(in, sy, m->mx, (int)Rx, line, (int)lane);
            for (long w = 1; w < pow; w *= 2) /* windows of 2w from two of w */
                extreme(line, line, line + (size_t)(w * C) * lane, L - (size_t)((2 * w - 1) * C), max, lane);
            extreme(h, line, line + (size_t)((span - pow) * C) * lane, (size_t)n, max, lane);
        }
        memcpy(d, ring, (size_t)n * lane);
        for (long q = 1; q < K; q++)
            extreme(d, d, ring + (size_t)(q * n) * lane, (size_t)n, max, lane);
        gf_store_line(m->out, y, d, (int)lane);
    }
    free(line);
}

gf_fast_fn gf_fast_rank;

gf_status gf_fast_rank(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    const size_t N = (size_t)in->width * in->channels;
    struct rank m = {.s = s, .in = in, .out = out};
    atomic_init(&m.failed, 0);
    const long rx = gf_rank_radius(GF_RANK_ARGS(s).radius, in->width),
               ry = gf_rank_radius(GF_RANK_ARGS(s).radius, in->height);
    const int direct = rx <= DIRECT && ry <= DIRECT;
    m.per = direct ? gf_band_rows(in->height, ry, threads) : (in->height + 4L * threads - 1) / (4L * threads);
    const int tasks = (int)((in->height + m.per - 1) / m.per);
    gf_status st;
    if (direct) {
        long *mx = NULL;
        if ((st = border_map(in->width, rx, s->border, &mx)))
            return st;
        m.mx = mx;
        gf_parallel_for(tasks, threads, direct_band, &m);
        free(mx);
    } else {
        if ((st = alloc_array(N * (size_t)in->height, sizeof *m.mid, (void **)&m.mid)))
            return st;
        m.R = rx;
        gf_parallel_for(tasks, threads, rows_band, &m);
        m.R = ry;
        gf_parallel_for((int)((N + S - 1) / S), threads, strip, &m);
        free(m.mid);
    }
    return atomic_load(&m.failed) ? gf_error(GF_ENOMEM, "out of memory for erode/dilate lines") : GF_OK;
}
