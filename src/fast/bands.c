/* SPDX-License-Identifier: MIT */
/* The fast CPU paths of the operations whose reference runs by bands of
 * output rows (src/cpu/convolve.c, median.c): the same code, bit for bit,
 * on bands over up to `threads` threads. */
#include "config.h"

#include <stdatomic.h>

#include "../cpu/sample.h"
#include "../parallel.h"

struct bands {
    gf_status (*fn)(const struct bands *b, long l0, long l1);
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    long n, per;
    atomic_int failed; /* the first failure's status */
};

static void band(void *ctx, int k)
{
    struct bands *b = ctx;
    const long l0 = k * b->per, l1 = l0 + b->per < b->n ? l0 + b->per : b->n;
    const gf_status st = b->fn(b, l0, l1);
    int none = GF_OK;
    if (st)
        atomic_compare_exchange_strong(&b->failed, &none, (int)st);
}

/* fn over lines [0, n) in about 4 bands a thread. */
static gf_status run(struct bands *b, long n, int threads)
{
    threads = threads < 1 ? 1 : threads;
    b->n = n;
    b->per = (n + 4L * threads - 1) / (4L * threads);
    b->per = b->per < 1 ? 1 : b->per;
    atomic_init(&b->failed, GF_OK);
    gf_parallel_for((int)((n + b->per - 1) / b->per), threads, band, b);
    return (gf_status)atomic_load(&b->failed);
}

static gf_status convolve_rows(const struct bands *b, long y0, long y1)
{
    return gf_convolve_rows(b->s, b->in, b->out, y0, y1);
}

static gf_status median_rows(const struct bands *b, long y0, long y1)
{
    return gf_median_rows(b->s, b->in, b->out, y0, y1);
}

gf_fast_fn gf_fast_convolve, gf_fast_median;

gf_status gf_fast_convolve(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    struct bands b = {.fn = convolve_rows, .s = s, .in = in, .out = out};
    return run(&b, in->height, threads);
}

gf_status gf_fast_median(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    struct bands b = {.fn = median_rows, .s = s, .in = in, .out = out};
    return run(&b, in->height, threads);
}
