/* SPDX-License-Identifier: MIT */
/* The descriptors of -thumbnail, -resize: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec.h"
#include "op.h"
#include "resize.h"

gf_cpu_fn gf_cpu_resize;
gf_fast_fn gf_fast_resize;
GF_CUDA_OP(resize);

static gf_status parse_resize(gf_step *s, const char *arg)
{
    double w, h;
    int flags;
    long x, y;
    if (gf_arg_geometry(arg, &w, &h, &flags, &x, &y) || x || y || (w <= 0 && h <= 0) || w < 0 || h < 0 ||
        (!(flags & GF_GEOM_PERCENT) && (w != floor(w) || h != floor(h) || w > GF_MAX_DIM || h > GF_MAX_DIM)) ||
        ((flags & GF_GEOM_EXACT) && (w <= 0 || h <= 0) && !(flags & GF_GEOM_PERCENT)))
        return gf_error(GF_EINVAL, "invalid -resize '%s' (want WxH, WxH!, WxH^, WxH>, WxH<, N%%, W or xH)", arg);
    GF_RESIZE_ARGS(s) = (struct gf_resize_args){.width = w, .height = h, .flags = flags};
    return GF_OK;
}

/* -filter NAME: -resize's (and -thumbnail's) resampling filter. */
static gf_status apply_filter(gf_step *s, const char *a)
{
    static const char *const names[] = {"point", "box", "linear", "catrom", "mitchell", "lanczos"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcasecmp(a, names[i])) {
            GF_RESIZE_ARGS(s).filter = GF_FILTER_POINT + i;
            return GF_OK;
        }
    return gf_error(GF_EINVAL, "invalid -filter '%s' (want point, box, linear, catrom, mitchell or lanczos)", a);
}

static const gf_op_setting filter = {
    .name = "filter",
    .metavar = "NAME",
    .help = "-resize's filter: point, box, linear, catrom, mitchell, lanczos (lanczos shrinking, mitchell enlarging)",
    .apply = apply_filter,
};

/* ImageMagick's arithmetic: a side from a scale is floor(scale * side + 1/2), at least 1. */
static double side(double scale, int n)
{
    const double v = floor(scale * n + 0.5);
    return v < 1 ? 1 : v;
}

static gf_status shape_resize(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    const struct gf_resize_args *r = &GF_RESIZE_ARGS(s);
    double w, h;
    if (r->flags & GF_GEOM_PERCENT) { /* one percentage serves both sides */
        const double pw = r->width > 0 ? r->width : r->height, ph = r->height > 0 ? r->height : pw;
        w = side(pw / 100, in->width), h = side(ph / 100, in->height);
    } else if (r->flags & GF_GEOM_EXACT)
        w = r->width, h = r->height;
    else if (r->width <= 0)
        w = side(r->height / in->height, in->width), h = r->height;
    else if (r->height <= 0)
        w = r->width, h = side(r->width / in->width, in->height);
    else {
        const double sx = r->width / in->width, sy = r->height / in->height;
        const double k = (r->flags & GF_GEOM_FILL) ? fmax(sx, sy) : fmin(sx, sy);
        w = side(k, in->width), h = side(k, in->height);
    }
    *out = *in;
    if (!(r->flags & GF_GEOM_PERCENT)) { /* > and <: resize only an image larger (smaller) than the geometry */
        const int larger = (r->width > 0 && in->width > r->width) || (r->height > 0 && in->height > r->height);
        const int smaller = (r->width <= 0 || in->width < r->width) && (r->height <= 0 || in->height < r->height);
        if (((r->flags & GF_GEOM_SHRINK) && !larger) || ((r->flags & GF_GEOM_ENLARGE) && !smaller))
            return GF_OK;
    }
    if (w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_error(GF_EINVAL, "-resize to %.0fx%.0f is too large (at most %d a side)", w, h, GF_MAX_DIM);
    out->width = (int)w;
    out->height = (int)h;
    return GF_OK;
}

static double ns_resize(const gf_step *s)
{
    return 30.0; /* the fast path, rows and columns passes, per output sample */
}

const gf_op gf_op_thumbnail = {
    .name = "thumbnail",
    .arg = GF_ARG_REQUIRED,
    .metavar = "GEOMETRY",
    .help = "-resize, and outputs keep no metadata but the colour profile (as ImageMagick's -thumbnail)",
    .parse = parse_resize,
    .shape = shape_resize,
    .cpu = gf_cpu_resize,
    .fast = gf_fast_resize,
    .cuda = CUDA(resize),
    .cpu_ns = ns_resize,
    .tests = LIST("-thumbnail 20%"),
    .bench = LIST0,
    .keeps = GF_KEEP_ICC,
    .settings = SETTINGS(&filter),
};
const gf_op gf_op_resize = {
    .name = "resize",
    .arg = GF_ARG_REQUIRED,
    .metavar = "GEOMETRY",
    .help = "resample to WxH (fit), WxH! (exact), WxH^ (fill), WxH> (only shrink), WxH< (only enlarge), N%, W or xH",
    .parse = parse_resize,
    .shape = shape_resize,
    .cpu = gf_cpu_resize,
    .fast = gf_fast_resize,
    .cuda = CUDA(resize),
    .cpu_ns = ns_resize,
    .tests = LIST("-resize 50%", "-resize 200%", "-filter point -resize 33%", "-filter box -resize 25%",
                  "-filter linear -resize 150x40!", "-filter catrom -resize 77%x130%", "-filter mitchell -resize 3x3!",
                  "-resize 1x1!", "-filter box -resize 300%x20%"),
    .bench = LIST("-resize 50%", "-filter box -resize 25%", "-resize 140%"),
    .settings = SETTINGS(&filter),
};
