/* SPDX-License-Identifier: MIT */
/* THE op table: one entry per operation, with its argument parser, its output
 * shape and its two implementations.  Adding an op means one entry here plus
 * src/cpu/<op>.c, kernels/<op>.cu and tests/<op>.test. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "ops.h"

#ifdef HAVE_CUDA
#define CUDA(fn) fn
#else
#define CUDA(fn) NULL
#endif

#define GF_MAX_RADIUS 2000000 /* twice the largest side: any more only repeats the border */

/* Parses a finite number taking the whole string. */
static int number(const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return -1;
    *v = strtod(s, &end);
    return (*end || !isfinite(*v)) ? -1 : 0;
}

static gf_status parse_blur(gf_step *s, const char *arg)
{
    double r = 0, sigma;
    const char *x = strpbrk(arg, "xX");
    if (x) {
        char head[64];
        size_t k = (size_t)(x - arg);
        if (k == 0 || k >= sizeof head)
            return gf_error(GF_EINVAL, "invalid -blur '%s' (want SIGMA or RxSIGMA)", arg);
        memcpy(head, arg, k);
        head[k] = '\0';
        if (number(head, &r) || r < 0 || r != floor(r) || r > GF_MAX_RADIUS)
            return gf_error(GF_EINVAL, "invalid -blur radius '%s' (want an integer 0 to %d)", head, GF_MAX_RADIUS);
        arg = x + 1;
    }
    if (number(arg, &sigma) || !(sigma > 0))
        return gf_error(GF_EINVAL, "invalid -blur sigma '%s' (want a number > 0)", arg);
    if (r == 0) {
        if (sigma > GF_MAX_RADIUS / 3.0)
            return gf_error(GF_EINVAL, "-blur sigma %g is too large (at most %g)", sigma, GF_MAX_RADIUS / 3.0);
        r = gf_blur_radius(sigma);
    }
    s->sigma = sigma;
    s->radius = (int)r;
    return GF_OK;
}

static gf_status parse_box(gf_step *s, const char *arg)
{
    double r;
    if (number(arg, &r) || r < 1 || r != floor(r) || r > GF_MAX_RADIUS)
        return gf_error(GF_EINVAL, "invalid -box radius '%s' (want an integer 1 to %d)", arg, GF_MAX_RADIUS);
    s->radius = (int)r;
    return GF_OK;
}

static gf_status parse_laplacian(gf_step *s, const char *arg)
{
    if (!arg || !strcmp(arg, "8"))
        s->variant = 8;
    else if (!strcmp(arg, "4"))
        s->variant = 4;
    else
        return gf_error(GF_EINVAL, "invalid -laplacian variant '%s' (want 4 or 8)", arg);
    return GF_OK;
}

static gf_status parse_rotate(gf_step *s, const char *arg)
{
    double a;
    if (number(arg, &a) || fabs(a) > 1e9)
        return gf_error(GF_EINVAL, "invalid -rotate angle '%s' (want degrees)", arg);
    a = fmod(a, 360.0);
    if (a < 0)
        a += 360.0;
    s->angle = a == 360.0 ? 0 : a;
    /* right angles are exact moves: decided here, once, for the shape and both back ends */
    static const int right[4] = {0, GF_ORIENT_ROT90, GF_ORIENT_ROT180, GF_ORIENT_ROT270};
    s->variant = fmod(s->angle, 90.0) == 0 ? right[(int)(s->angle / 90.0)] : -1;
    return GF_OK;
}

static gf_status parse_histogram(gf_step *s, const char *arg)
{
    if (!*arg)
        return gf_error(GF_EINVAL, "-histogram needs a file name ('-' for standard output)");
    s->path = arg;
    return GF_OK;
}

#define ORIENT_PARSER(name, value)                                                                                    \
    static gf_status parse_##name(gf_step *s, const char *arg)                                                        \
    {                                                                                                                 \
        (void)arg;                                                                                                    \
        s->variant = value;                                                                                           \
        return GF_OK;                                                                                                 \
    }
ORIENT_PARSER(transpose, GF_ORIENT_TRANSPOSE)
ORIENT_PARSER(transverse, GF_ORIENT_TRANSVERSE)
ORIENT_PARSER(flip, GF_ORIENT_FLIP)
ORIENT_PARSER(flop, GF_ORIENT_FLOP)

static gf_status shape_orient(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    *out = *in;
    if (s->variant & GF_OR_SWAP) {
        out->width = in->height;
        out->height = in->width;
    }
    return GF_OK;
}

static gf_status shape_rotate(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    if (s->variant >= 0)
        return shape_orient(s, in, out);
    *out = *in;
    gf_rotate_shape(s->angle, in->width, in->height, &out->width, &out->height);
    out->channels = gf_rotate_channels(s, in->channels);
    return GF_OK;
}

const gf_op gf_ops[] = {
    {"blur", GF_ARG_REQUIRED, "SIGMA|RxSIGMA",
     "Gaussian blur; radius R = ceil(3*SIGMA) when 0 or omitted", parse_blur, NULL, gf_cpu_blur,
     CUDA(gf_cuda_blur), 0},
    {"box", GF_ARG_REQUIRED, "R", "mean over the (2R+1)x(2R+1) window", parse_box, NULL, gf_cpu_box,
     CUDA(gf_cuda_box), 0},
    {"laplacian", GF_ARG_OPTIONAL, "[=4]", "Laplacian edges, |8-neighbour| (=4: 4-neighbour) response",
     parse_laplacian, NULL, gf_cpu_laplacian, CUDA(gf_cuda_laplacian), 0},
    {"transpose", GF_ARG_NONE, NULL, "mirror along the top-left to bottom-right diagonal", parse_transpose,
     shape_orient, gf_cpu_orient, CUDA(gf_cuda_orient), 0},
    {"transverse", GF_ARG_NONE, NULL, "mirror along the top-right to bottom-left diagonal", parse_transverse,
     shape_orient, gf_cpu_orient, CUDA(gf_cuda_orient), 0},
    {"flip", GF_ARG_NONE, NULL, "mirror top-bottom", parse_flip, shape_orient, gf_cpu_orient,
     CUDA(gf_cuda_orient), 0},
    {"flop", GF_ARG_NONE, NULL, "mirror left-right", parse_flop, shape_orient, gf_cpu_orient,
     CUDA(gf_cuda_orient), 0},
    {"rotate", GF_ARG_REQUIRED, "DEG",
     "rotate clockwise; multiples of 90 exact, others bilinear on an enlarged canvas", parse_rotate,
     shape_rotate, gf_cpu_rotate, CUDA(gf_cuda_rotate), 0},
    {"histogram", GF_ARG_REQUIRED, "FILE",
     "write the histogram here (.csv, .json, .png chart, else text; - stdout); image unchanged",
     parse_histogram, NULL, gf_cpu_histogram, CUDA(gf_cuda_histogram), 1},
    {"equalize", GF_ARG_NONE, NULL, "histogram equalisation, each colour channel on its own", NULL, NULL,
     gf_cpu_equalize, CUDA(gf_cuda_equalize), 0},
};
const int gf_nops = (int)(sizeof gf_ops / sizeof gf_ops[0]);

const gf_op *gf_op_find(const char *name)
{
    for (int i = 0; i < gf_nops; i++)
        if (!strcmp(gf_ops[i].name, name))
            return &gf_ops[i];
    return NULL;
}

gf_status gf_step_shape(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    if (s->op->shape)
        return s->op->shape(s, in, out);
    *out = *in;
    return GF_OK;
}

gf_status gf_chain_shape(const gf_step *steps, int nsteps, gf_shape *shape, uint64_t limit, size_t *most)
{
    gf_status st = gf_image_bytes(shape->width, shape->height, shape->channels, shape->depth, most);
    for (int i = 0; !st && i < nsteps; i++) {
        if (steps[i].op->passthrough)
            continue;
        gf_shape next;
        size_t bytes;
        if (!(st = gf_step_shape(&steps[i], shape, &next)) && !(st = gf_shape_check(&next, limit)) &&
            !(st = gf_image_bytes(next.width, next.height, next.channels, next.depth, &bytes))) {
            *shape = next;
            if (bytes > *most)
                *most = bytes;
        }
    }
    return st;
}
