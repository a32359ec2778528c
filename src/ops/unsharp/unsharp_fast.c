/* SPDX-License-Identifier: MIT */
/* -unsharp, the fast CPU path: the fast blur (bit for bit the reference's),
 * then the reference's combination (gf_unsharp_value) on bands of rows over
 * `threads` threads.  8-bit images whose gain keeps |v - b| gain + 2^15
 * below 2^31 combine whole rows in 32-bit lanes the compiler vectorises
 * (the threshold clamped to 0 .. 511, which decides alike for differences
 * of at most 255), alpha copied back after; the others sample by sample as
 * the reference. */
#include "config.h"

#include "vector.h"

#include "line.h"
#include "parallel.h"
#include "sample.h"
#include "unsharp.h"

gf_fast_fn gf_fast_unsharp, gf_fast_blur;

struct combine {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    int rows; /* per task */
};

enum { GAIN32 = (INT32_MAX - 32768) / 255 }; /* the largest gain 32-bit lanes take */

/* o (the blur) becomes the sharpened v, n samples (alpha too). */
VECTOR_CLONES static void combine8(const uint8_t *v, uint8_t *o, size_t n, int32_t gain, int32_t t)
{
    for (size_t e = 0; e < n; e++) {
        const int32_t d = (int32_t)v[e] - (int32_t)o[e], r = v[e] + ((d * gain + 32768) >> 16);
        o[e] = (uint8_t)(2 * (d < 0 ? -d : d) < t ? v[e] : r < 0 ? 0 : r > 255 ? 255 : r);
    }
}

static void band(void *ctx, int k)
{
    const struct combine *m = ctx;
    const gf_image *in = m->in;
    const size_t W = (size_t)in->width, C = (size_t)in->channels, y0 = (size_t)k * m->rows;
    const size_t y1 = y0 + m->rows < (size_t)in->height ? y0 + m->rows : (size_t)in->height;
    const int64_t gain = GF_UNSHARP_ARGS(m->s).gain;
    if (in->depth != 8 || gain < 0 || gain > GAIN32) {
        gf_unsharp_combine(m->s, in, m->out, y0 * W, y1 * W);
        return;
    }
    const int64_t t = gf_unsharp_threshold(m->s, 8);
    const uint8_t *v = (const uint8_t *)in->data + y0 * W * C;
    uint8_t *o = (uint8_t *)m->out->data + y0 * W * C;
    combine8(v, o, (y1 - y0) * W * C, (int32_t)gain, (int32_t)(t < 0 ? 0 : t > 511 ? 511 : t));
    gf_copy_alpha(in, m->out, y0 * W, y1 * W);
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
