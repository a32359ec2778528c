/* SPDX-License-Identifier: MIT */
/* The arguments of -erode, -dilate and -median (a radius, and whether the maximum). */
#ifndef GF_OPS_RANK_H
#define GF_OPS_RANK_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -erode R (min), -dilate R (max); -median R */
struct gf_rank_args {
    int radius;
    int max;
};
GF_ARGS_FIT(struct gf_rank_args);
#define GF_RANK_ARGS(step) GF_ARGS(step, struct gf_rank_args)

#ifdef __cplusplus
}
#endif
#endif
