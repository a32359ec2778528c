/* SPDX-License-Identifier: MIT */
/* -resize, the fast CPU path: the reference's taps and fixed point
 * (src/ops/resize/resize_ref.c, numeric.h) bit for bit, on bands of rows over up to
 * `threads` threads.  The rows pass sums 8-bit samples in 32 bits (at most
 * 255 times the weights' absolute sum, below 2^23); the columns pass adds
 * whole intermediate rows, each times one weight, into a row of 64-bit
 * sums, contiguous loops the compiler vectorises. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "parallel.h"
#include "resize.h"
#include "sample.h"

struct resize {
    const gf_image *in;
    gf_image *out;
    gf_resize_taps tx, ty;
    int32_t *mid; /* OW C x H */
    int32_t *run; /* gray 8-bit rows: find_runs's, or NULL */
    int rows;     /* per task */
    atomic_int failed;
};

/* Output samples [0, OW) of an 8-bit row p into t: each pixel's n taps
 * times its window's samples, all C channels a tap (C a constant where
 * inlined). */
static inline void row8(const uint8_t *p, int32_t *t, const gf_resize_taps *tx, int OW, int C)
{
    const int n = tx->n;
    for (int x = 0; x < OW; x++) {
        const int32_t *w = tx->w + (size_t)x * n;
        const uint8_t *q = p + (size_t)tx->start[x] * C;
        int32_t sum[4] = {0, 0, 0, 0};
        for (int k = 0; k < n; k++)
            for (int c = 0; c < C; c++)
                sum[c] += w[k] * q[k * C + c];
        for (int c = 0; c < C; c++)
            t[x * C + c] = gf_resize_mid(sum[c]);
    }
}

/* Gray 8-bit rows: where consecutive outputs' windows step by the same S
 * (2 or 4) samples with the same weights (the inside of a shrink by a
 * whole factor), a run of at least CHUNK outputs goes CHUNK at a time
 * through every tap, the sums in registers.  run[x]: the end of the run
 * that starts at output x, else 0; NULL (no memory) leaves every output to
 * row8. */
enum { CHUNK = 32 };

static int32_t *find_runs(const gf_resize_taps *t, int OW)
{
    int32_t *run = calloc((size_t)OW, sizeof *run);
    const size_t n = (size_t)t->n;
    for (int x = 0; run && x + 1 < OW;) {
        const int32_t S = t->start[x + 1] - t->start[x];
        int e = x + 1;
        if (S == 2 || S == 4)
            while (e < OW && t->start[e] - t->start[e - 1] == S &&
                   !memcmp(t->w + e * n, t->w + x * n, n * sizeof *t->w))
                e++;
        if (e - x >= CHUNK)
            run[x] = e;
        x = e - x >= CHUNK ? e : x + 1;
    }
    return run;
}

/* len <= CHUNK outputs of a run from q (its first window) with weights w;
 * the sums below 2^23, so gf_resize_mid's rounding in 32 bits. */
static inline void run_chunk(const uint8_t *q, int32_t *t, const int32_t *w, int n, int len, int S)
{
    int32_t acc[CHUNK];
    for (int j = 0; j < len; j++)
        acc[j] = 0;
    for (int k = 0; k < n; k++) {
        const int32_t wk = w[k];
        for (int j = 0; j < len; j++)
            acc[j] += wk * q[S * j + k];
    }
    for (int j = 0; j < len; j++)
        t[j] = (acc[j] + (1 << (GF_RESIZE_BITS - 9))) >> (GF_RESIZE_BITS - 8);
}

VECTOR_CLONES static void resize_run(const uint8_t *q, int32_t *t, const int32_t *w, int n, int len, int S)
{
    for (int j = 0; j < len; j += CHUNK) {
        const int m = len - j < CHUNK ? len - j : CHUNK;
        if (S == 2)
            run_chunk(q + 2 * j, t + j, w, n, m, 2);
        else
            run_chunk(q + 4 * j, t + j, w, n, m, 4);
    }
}

/* Rows y0 .. y1 of the input into the intermediate. */
static void rows_pass(const struct resize *m, int y0, int y1)
{
    const gf_image *in = m->in;
    const int W = in->width, C = in->channels, OW = m->out->width, n = m->tx.n;
    for (int y = y0; y < y1; y++) {
        int32_t *t = m->mid + (size_t)y * OW * C;
        if (in->depth == 8) {
            const uint8_t *p = (const uint8_t *)in->data + (size_t)y * W * C;
            switch (C) {
            case 1:
                for (int x = 0; x < OW;) { /* the runs, and row8 between them */
                    int e = x;
                    while (e < OW && !(m->run && m->run[e]))
                        e++;
                    row8(p, t + x, &(gf_resize_taps){n, m->tx.start + x, m->tx.w + (size_t)x * n}, e - x, 1);
                    if (e < OW)
                        resize_run(p + m->tx.start[e], t + e, m->tx.w + (size_t)e * n, n, m->run[e] - e,
                                   m->tx.start[e + 1] - m->tx.start[e]);
                    x = e < OW ? m->run[e] : OW;
                }
                break;
            case 2: row8(p, t, &m->tx, OW, 2); break;
            case 3: row8(p, t, &m->tx, OW, 3); break;
            default: row8(p, t, &m->tx, OW, 4); break;
            }
            continue;
        }
        for (int x = 0; x < OW; x++) {
            const int32_t *w = m->tx.w + (size_t)x * n;
            const uint16_t *p = (const uint16_t *)in->data + ((size_t)y * W + (size_t)m->tx.start[x]) * C;
            for (int c = 0; c < C; c++) {
                int64_t sum = 0;
                for (int k = 0; k < n; k++)
                    sum += (int64_t)w[k] * p[k * C + c];
                t[x * C + c] = gf_resize_mid(sum);
            }
        }
    }
}

VECTOR_CLONES static void resize_add_row(int64_t *acc, const int32_t *t, int32_t w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += (int64_t)w * t[i];
}

/* Output rows y0 .. y1 from the intermediate, through acc (OW C sums). */
static void columns_pass(const struct resize *m, int y0, int y1, int64_t *acc)
{
    gf_image *out = m->out;
    const size_t row = (size_t)out->width * out->channels;
    const uint32_t max = gf_maxval(out->depth);
    for (int y = y0; y < y1; y++) {
        memset(acc, 0, row * sizeof *acc);
        for (int k = 0; k < m->ty.n; k++)
            resize_add_row(acc, m->mid + ((size_t)m->ty.start[y] + k) * row, m->ty.w[(size_t)y * m->ty.n + k], row);
        for (size_t i = 0; i < row; i++)
            put(out->data, (size_t)y * row + i, out->depth, gf_resize_out(acc[i], max));
    }
}

static void rows_band(void *ctx, int k)
{
    const struct resize *m = ctx;
    const int y1 = (k + 1) * m->rows < m->in->height ? (k + 1) * m->rows : m->in->height;
    rows_pass(m, k * m->rows, y1);
}

static void columns_band(void *ctx, int k)
{
    struct resize *m = ctx;
    const int y1 = (k + 1) * m->rows < m->out->height ? (k + 1) * m->rows : m->out->height;
    int64_t *acc = malloc((size_t)m->out->width * m->out->channels * sizeof *acc);
    if (!acc) {
        atomic_store(&m->failed, 1);
        return;
    }
    columns_pass(m, k * m->rows, y1, acc);
    free(acc);
}

gf_fast_fn gf_fast_resize;

gf_status gf_fast_resize(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    if (out->width == in->width && out->height == in->height) { /* the geometry left the size as it is */
        memcpy(out->data, in->data, in->stride * (size_t)in->height);
        return GF_OK;
    }
    threads = threads < 1 ? 1 : threads;
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    struct resize m = {.in = in, .out = out};
    gf_status st = gf_resize_plan(s, &is, &os, &m.tx, &m.ty);
    if (st)
        return st;
    if (in->depth == 8 && in->channels == 1)
        m.run = find_runs(&m.tx, out->width);
    if (!(st = alloc_array((size_t)out->width * in->channels * (size_t)in->height, sizeof *m.mid, (void **)&m.mid))) {
        m.rows = (in->height + 4 * threads - 1) / (4 * threads);
        gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, rows_band, &m);
        m.rows = (out->height + 4 * threads - 1) / (4 * threads);
        gf_parallel_for((out->height + m.rows - 1) / m.rows, threads, columns_band, &m);
        if (atomic_load(&m.failed))
            st = gf_error(GF_ENOMEM, "out of memory for a resize row");
    }
    free(m.mid);
    free(m.run);
    gf_resize_taps_free(&m.tx);
    gf_resize_taps_free(&m.ty);
    return st;
}
