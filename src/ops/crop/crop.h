/* SPDX-License-Identifier: MIT */
/* -crop's arguments. */
#ifndef GF_OPS_CROP_H
#define GF_OPS_CROP_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -crop WxH+X+Y: the region's size and its top-left corner (which may lie
 * left of or above the image); clipped to the image by the shape. */
struct gf_crop_args {
    int width, height;
    long x, y;
};
GF_ARGS_FIT(struct gf_crop_args);
#define GF_CROP_ARGS(step) GF_ARGS(step, struct gf_crop_args)

#ifdef __cplusplus
}
#endif
#endif
