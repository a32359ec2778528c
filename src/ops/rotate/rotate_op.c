/* SPDX-License-Identifier: MIT */
/* The descriptor of -rotate: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"
#include "rotate.h"

gf_cpu_fn gf_cpu_rotate;
gf_fast_fn gf_fast_rotate;
GF_CUDA_OP(rotate);

static gf_status parse_rotate(gf_step *s, const char *arg)
{
    double a;
    if (gf_arg_number(arg, &a) || fabs(a) > 1e9)
        return gf_error(GF_EINVAL, "invalid -rotate angle '%s' (want degrees)", arg);
    a = fmod(a, 360.0);
    if (a < 0)
        a += 360.0;
    GF_ROTATE_ARGS(s).angle = a == 360.0 ? 0 : a;
    /* right angles are exact moves: decided here, once, for the shape and both back ends */
    static const enum gf_orient right[4] = {GF_ORIENT_NONE, GF_ORIENT_ROT90, GF_ORIENT_ROT180, GF_ORIENT_ROT270};
    GF_ROTATE_ARGS(s).right = fmod(GF_ROTATE_ARGS(s).angle, 90.0) == 0;
    GF_ROTATE_ARGS(s).orient = GF_ROTATE_ARGS(s).right ? right[(int)(GF_ROTATE_ARGS(s).angle / 90.0)] : GF_ORIENT_NONE;
    return GF_OK;
}

static gf_status shape_rotate(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    if (GF_ROTATE_ARGS(s).right) {
        gf_swap_sides(GF_ROTATE_ARGS(s).orient, in, out);
        return GF_OK;
    }
    *out = *in;
    gf_rotate_shape(GF_ROTATE_ARGS(s).angle, in->width, in->height, &out->width, &out->height);
    out->channels = gf_rotate_channels(s, in->channels);
    return GF_OK;
}

static double ns_rotate(const gf_step *s)
{
    return GF_ROTATE_ARGS(s).right ? 3.0 : 8.0;
}

const gf_op gf_op_rotate = {
    .name = "rotate",
    .arg = GF_ARG_REQUIRED,
    .metavar = "DEG",
    .help = "rotate clockwise; multiples of 90 exact, others bilinear on an enlarged canvas",
    .parse = parse_rotate,
    .shape = shape_rotate,
    .cpu = gf_cpu_rotate,
    .fast = gf_fast_rotate,
    .cuda = CUDA(rotate),
    .cpu_ns = ns_rotate,
    .tests = LIST("-rotate 30", "-background none -rotate 80", "-rotate 135.7", "-rotate 1", "-rotate 359",
                  "-background #ff000080 -rotate 200.5", "-rotate 90", "-rotate 180", "-rotate 270"),
    .bench = LIST("-rotate 90", "-rotate 180", "-rotate 30"),
};
