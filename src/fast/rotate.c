/* SPDX-License-Identifier: MIT */
/* Rotation, the fast CPU path: at angles other than right ones, the
 * reference's own row loop (src/cpu/rotate.c, gf_rotate_rows) on bands of
 * output rows over up to `threads` threads, each output pixel computed
 * alone as there; right angles are the fast moves (src/fast/orient.c). */
#include "config.h"

#include "../cpu/sample.h"
#include "../parallel.h"

struct rotate {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    int rows; /* per task */
};

static void band(void *ctx, int k)
{
    const struct rotate *r = ctx;
    const int y1 = (k + 1) * r->rows < r->out->height ? (k + 1) * r->rows : r->out->height;
    gf_rotate_rows(r->s, r->in, r->out, k * r->rows, y1);
}

gf_fast_fn gf_fast_rotate;

gf_status gf_fast_rotate(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    if (s->rotate.right) {
        gf_fast_orient_image(s->rotate.orient, in, out, threads);
        return GF_OK;
    }
    struct rotate r = {s, in, out, (out->height + 4 * threads - 1) / (4 * threads)};
    gf_parallel_for((out->height + r.rows - 1) / r.rows, threads, band, &r);
    return GF_OK;
}
