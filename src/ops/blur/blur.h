/* SPDX-License-Identifier: MIT */
/* -blur's arguments, and its taps, which -unsharp shares. */
#ifndef GF_OPS_BLUR_H
#define GF_OPS_BLUR_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_blur_args {
    double sigma;
    int radius;
}; /* radius resolved: ceil(3 sigma) unless given */
GF_ARGS_FIT(struct gf_blur_args);
#define GF_BLUR_ARGS(step) GF_ARGS(step, struct gf_blur_args)
/* Integer blur taps q[0..radius] (q[i] for offsets +-i), summing to 2^bits. */
gf_status gf_blur_taps(double sigma, int radius, int bits, uint32_t **taps);
int gf_blur_radius(double sigma);

#ifdef __cplusplus
}
#endif
#endif
