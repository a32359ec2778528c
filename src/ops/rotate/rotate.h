/* SPDX-License-Identifier: MIT */
/* -rotate's arguments, and its geometry and sampling plan. */
#ifndef GF_OPS_ROTATE_H
#define GF_OPS_ROTATE_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -rotate ANGLE */
struct gf_rotate_args {
    double angle; /* clockwise degrees in [0, 360) */
    int right;    /* a multiple of 90: an exact move by `orient` */
    enum gf_orient orient;
};
GF_ARGS_FIT(struct gf_rotate_args);
#define GF_ROTATE_ARGS(step) GF_ARGS(step, struct gf_rotate_args)
/* -rotate at other angles: the output shape and channels, the background in
 * the output's depth, and the fixed-point sampling plan (numeric.h). */
void gf_rotate_shape(double angle, int w, int h, int *ow, int *oh);
int gf_rotate_channels(const gf_step *s, int channels);
void gf_rotate_background(const gf_step *s, int out_channels, int depth, uint32_t bg[4]);
gf_rotation gf_rotate_plan(const gf_step *s, const gf_shape *in, const gf_shape *out);

#ifdef __cplusplus
}
#endif
#endif
