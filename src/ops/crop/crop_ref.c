/* SPDX-License-Identifier: MIT */
/* -crop, the reference: out(x, y) = in(x + X', y + Y'), where (X', Y') is the
 * region's top-left corner clipped to the image (the shape clips the size). */
#include "config.h"

#include <string.h>

#include "crop.h"
#include "sample.h"

gf_cpu_fn gf_cpu_crop;

gf_status gf_cpu_crop(const gf_step *s, const gf_image *in, gf_image *out)
{
    const size_t px = (size_t)in->channels * (in->depth / 8);
    const long x0 = GF_CROP_ARGS(s).x > 0 ? GF_CROP_ARGS(s).x : 0, y0 = GF_CROP_ARGS(s).y > 0 ? GF_CROP_ARGS(s).y : 0;
    for (int y = 0; y < out->height; y++)
        memcpy((uint8_t *)out->data + (size_t)y * out->stride,
               (const uint8_t *)in->data + (size_t)(y + y0) * in->stride + (size_t)x0 * px, (size_t)out->width * px);
    return GF_OK;
}
