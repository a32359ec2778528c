/* SPDX-License-Identifier: MIT */
/* The arguments of -resize and -thumbnail, and their taps. */
#ifndef GF_OPS_RESIZE_H
#define GF_OPS_RESIZE_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -filter, -resize's setting: GF_FILTER_DEFAULT is Lanczos where the area
 * shrinks or stays, Mitchell where it grows (as ImageMagick). */
enum gf_filter {
    GF_FILTER_DEFAULT,
    GF_FILTER_POINT,
    GF_FILTER_BOX,
    GF_FILTER_LINEAR,
    GF_FILTER_CATROM,
    GF_FILTER_MITCHELL,
    GF_FILTER_LANCZOS
};
/* -resize GEOMETRY as ImageMagick's: WxH with its flags (GF_GEOM_* of op.h);
 * a side not given is 0 (then kept in proportion); the -filter setting. */
struct gf_resize_args {
    double width, height;
    int flags;
    enum gf_filter filter;
};
GF_ARGS_FIT(struct gf_resize_args);
#define GF_RESIZE_ARGS(step) GF_ARGS(step, struct gf_resize_args)
/* -resize: the taps of the rows (tx) and of the columns (ty), the filter
 * chosen; a resize to the input's size is a copy and needs none. */
gf_status gf_resize_plan(const gf_step *s, const gf_shape *in, const gf_shape *out, gf_resize_taps *tx,
                         gf_resize_taps *ty);
void gf_resize_taps_free(gf_resize_taps *t);

#ifdef __cplusplus
}
#endif
#endif
