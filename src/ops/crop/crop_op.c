/* SPDX-License-Identifier: MIT */
/* The descriptor of -crop: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "crop.h"
#include "op.h"

gf_cpu_fn gf_cpu_crop;
GF_CUDA_OP(crop);

static gf_status parse_crop(gf_step *s, const char *arg)
{
    double w, h;
    int flags;
    if (gf_arg_geometry(arg, &w, &h, &flags, &GF_CROP_ARGS(s).x, &GF_CROP_ARGS(s).y) || flags || w < 1 || h < 1 ||
        w != floor(w) || h != floor(h) || w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_error(GF_EINVAL, "invalid -crop '%s' (want WxH+X+Y)", arg);
    GF_CROP_ARGS(s).width = (int)w;
    GF_CROP_ARGS(s).height = (int)h;
    return GF_OK;
}

static gf_status shape_crop(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    const long x0 = GF_CROP_ARGS(s).x > 0 ? GF_CROP_ARGS(s).x : 0, y0 = GF_CROP_ARGS(s).y > 0 ? GF_CROP_ARGS(s).y : 0;
    const long x1 =
        GF_CROP_ARGS(s).x + GF_CROP_ARGS(s).width < in->width ? GF_CROP_ARGS(s).x + GF_CROP_ARGS(s).width : in->width;
    const long y1 = GF_CROP_ARGS(s).y + GF_CROP_ARGS(s).height < in->height ? GF_CROP_ARGS(s).y + GF_CROP_ARGS(s).height
                                                                            : in->height;
    if (x1 <= x0 || y1 <= y0)
        return gf_error(GF_EINVAL, "-crop %dx%d%+ld%+ld lies outside the %dx%d image", GF_CROP_ARGS(s).width,
                        GF_CROP_ARGS(s).height, GF_CROP_ARGS(s).x, GF_CROP_ARGS(s).y, in->width, in->height);
    *out = *in;
    out->width = (int)(x1 - x0);
    out->height = (int)(y1 - y0);
    return GF_OK;
}

const gf_op gf_op_crop = {
    .name = "crop",
    .arg = GF_ARG_REQUIRED,
    .metavar = "WxH+X+Y",
    .help = "the region of W x H pixels from (X, Y), clipped to the image",
    .parse = parse_crop,
    .shape = shape_crop,
    .cpu = gf_cpu_crop,
    .cuda = CUDA(crop),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-crop 100x50+10+5", "-crop 7x3+1+2", "-crop 5000x5000-3-2", "-crop 1x1+0+0", "-crop 64x300+0+1"),
    .bench = LIST("-crop 4096x4096+1024+1024"),
};
