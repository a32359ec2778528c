/* SPDX-License-Identifier: MIT */
/* The arguments of -convolve and -edge, and the arithmetic both back ends share. */
#ifndef GF_OPS_CONVOLVE_H
#define GF_OPS_CONVOLVE_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -convolve KERNEL: W x H weights in 2^-16 (normalised where they sum to
 * other than 0), row by row, and the origin, and its -bias setting (a
 * fraction of the maximum sample); -edge sobel|prewitt: the integer kernel
 * of the x direction (the y direction is its transpose). */
struct gf_convolve_args {
    int w, h, ox, oy, edge;
    int32_t q[GF_KERNEL_MAX * GF_KERNEL_MAX];
    double bias;
};
GF_ARGS_FIT(struct gf_convolve_args);
#define GF_CONVOLVE_ARGS(step) GF_ARGS(step, struct gf_convolve_args)
/* -convolve: -bias in 2^-16 of a sample at `depth`. */
int64_t gf_convolve_bias(const gf_step *s, int depth);
/* -convolve, -edge: whether every partial sum fits 32 bits (the weights'
 * absolute sum times the largest sample at `depth` below 2^31); the CUDA
 * kernel's launch makes the same test. */
int gf_convolve_narrow(const struct gf_convolve_args *k, int depth);

#ifdef __cplusplus
}
#endif
#endif
