/* SPDX-License-Identifier: MIT */
/* The arguments of -transpose, -transverse, -flip and -flop. */
#ifndef GF_OPS_ORIENT_H
#define GF_OPS_ORIENT_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_orient_args {
    enum gf_orient orient;
}; /* -transpose, -transverse, -flip, -flop */
GF_ARGS_FIT(struct gf_orient_args);
#define GF_ORIENT_ARGS(step) GF_ARGS(step, struct gf_orient_args)

#ifdef __cplusplus
}
#endif
#endif
