/* SPDX-License-Identifier: MIT */
/* -grayscale's arguments. */
#ifndef GF_OPS_GRAYSCALE_H
#define GF_OPS_GRAYSCALE_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gf_gray_weights { GF_GRAY_REC601, GF_GRAY_REC709, GF_GRAY_AVERAGE };
struct gf_grayscale_args {
    enum gf_gray_weights weights;
};
GF_ARGS_FIT(struct gf_grayscale_args);
#define GF_GRAYSCALE_ARGS(step) GF_ARGS(step, struct gf_grayscale_args)

#ifdef __cplusplus
}
#endif
#endif
