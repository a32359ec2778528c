/* SPDX-License-Identifier: MIT */
/* -box's arguments. */
#ifndef GF_OPS_BOX_H
#define GF_OPS_BOX_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gf_box_args {
    int radius;
};
GF_ARGS_FIT(struct gf_box_args);
#define GF_BOX_ARGS(step) GF_ARGS(step, struct gf_box_args)

#ifdef __cplusplus
}
#endif
#endif
