/* SPDX-License-Identifier: MIT */
/* -laplacian's arguments. */
#ifndef GF_OPS_LAPLACIAN_H
#define GF_OPS_LAPLACIAN_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_laplacian_args {
    int neighbours;
}; /* 8 or 4 */
GF_ARGS_FIT(struct gf_laplacian_args);
#define GF_LAPLACIAN_ARGS(step) GF_ARGS(step, struct gf_laplacian_args)

#ifdef __cplusplus
}
#endif
#endif
