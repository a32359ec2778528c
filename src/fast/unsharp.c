/* SPDX-License-Identifier: MIT */
/* -unsharp, the fast CPU path: the fast blur (bit for bit the reference's),
 * then the reference's combination on bands of rows over `threads` threads. */
#include "config.h"

#include "../cpu/sample.h"
#include "../parallel.h"

gf_fast_fn gf_fast_unsharp, gf_fast_blur;

struct combine {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    int rows; /* per task */
};

static void band(void *ctx, int k)
{
    const struct combine *m = ctx;
    const size_t W = (size_t)m->in->width, y0 = (size_t)k * m->rows;
    const size_t y1 = y0 + m->rows < (size_t)m->in->height ? y0 + m->rows : (size_t)m->in->height;
    gf_unsharp_combine(m->s, m->in, m->out, y0 * W, y1 * W);
}

gf_status gf_fast_unsharp(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const gf_step b = gf_unsharp_blur(s);
    gf_status st = gf_fast_blur(&b, in, out, threads);
    if (!st) {
        struct combine m = {s, in, out, (in->height + 4 * threads - 1) / (4 * threads)};
        gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, band, &m);
    }
    return st;
}
