/* SPDX-License-Identifier: MIT */
/* -unsharp's arguments (the blur it subtracts among them), and its arithmetic. */
#ifndef GF_OPS_UNSHARP_H
#define GF_OPS_UNSHARP_H

#include "blur/blur.h"
#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -unsharp RxSIGMA+AMOUNT+THRESHOLD: gain = round(AMOUNT 2^16) */
struct gf_unsharp_args {
    struct gf_blur_args blur;
    int64_t gain;
    double threshold;
};
GF_ARGS_FIT(struct gf_unsharp_args);
#define GF_UNSHARP_ARGS(step) GF_ARGS(step, struct gf_unsharp_args)
/* -unsharp: the blur it subtracts, as a -blur step; the threshold t of gf_unsharp_value at `depth`. */
gf_step gf_unsharp_blur(const gf_step *s);
int64_t gf_unsharp_threshold(const gf_step *s, int depth);

#ifdef __cplusplus
}
#endif
#endif
