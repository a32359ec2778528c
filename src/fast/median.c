/* SPDX-License-Identifier: MIT */
/* -median, the fast CPU path: its reference (src/cpu/median.c) run by
 * bands of output rows over up to `threads` threads, bit for bit. */
#include "config.h"

#include <stdatomic.h>

#include "../cpu/sample.h"
#include "../parallel.h"

struct median {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    long per;          /* rows a task */
    atomic_int failed; /* the first failure's status */
};

static void band(void *ctx, int k)
{
    struct median *m = ctx;
    const long y0 = k * m->per, y1 = y0 + m->per < m->in->height ? y0 + m->per : m->in->height;
    const gf_status st = gf_median_rows(m->s, m->in, m->out, y0, y1);
    int none = GF_OK;
    if (st)
        atomic_compare_exchange_strong(&m->failed, &none, (int)st);
}

gf_fast_fn gf_fast_median;

gf_status gf_fast_median(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    struct median m = {.s = s, .in = in, .out = out};
    m.per = (in->height + 4L * threads - 1) / (4L * threads);
    atomic_init(&m.failed, GF_OK);
    gf_parallel_for((int)((in->height + m.per - 1) / m.per), threads, band, &m);
    return (gf_status)atomic_load(&m.failed);
}
