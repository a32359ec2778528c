/* SPDX-License-Identifier: MIT */
/* The eight symmetries of the rectangle (flip, flop, transpose, transverse,
 * rotations by multiples of 90 degrees): exact pixel moves. */
#include "config.h"

#include <string.h>

#include "orient.h"
#include "sample.h"

gf_cpu_fn gf_cpu_orient;

void gf_orient_image(enum gf_orient o, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height;
    const size_t px = (size_t)in->channels * (in->depth / 8);
    const uint8_t *src = in->data;
    uint8_t *dst = out->data;
    for (int y = 0; y < out->height; y++)
        for (int x = 0; x < out->width; x++) {
            int sx, sy;
            gf_orient_source(o, W, H, x, y, &sx, &sy);
            memcpy(dst + ((size_t)y * out->width + x) * px, src + ((size_t)sy * W + sx) * px, px);
        }
}

gf_status gf_cpu_orient(const gf_step *s, const gf_image *in, gf_image *out)
{
    gf_orient_image(GF_ORIENT_ARGS(s).orient, in, out);
    return GF_OK;
}
