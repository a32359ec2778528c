/* SPDX-License-Identifier: MIT */
/* THE op table: one entry per operation.  Adding an op means its entry here
 * (and its argument struct in ops.h), src/cpu/<op>.c, kernels/<op>.cu,
 * tests/<op>.test and its section of the man page; see CONTRIBUTING.md. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"

/* Each op's two implementations: gf_cpu_<op> and the gf_cuda_<op> object. */
#define IMPLEMENTATIONS(op)                                                                                           \
    gf_cpu_fn gf_cpu_##op;                                                                                            \
    extern const gf_cuda_op gf_cuda_##op;
IMPLEMENTATIONS(blur)
IMPLEMENTATIONS(box)
IMPLEMENTATIONS(laplacian)
IMPLEMENTATIONS(orient)
IMPLEMENTATIONS(rotate)
IMPLEMENTATIONS(histogram)
IMPLEMENTATIONS(equalize)
gf_fast_fn gf_fast_blur, gf_fast_box, gf_fast_laplacian, gf_fast_orient, gf_fast_rotate, gf_fast_histogram,
    gf_fast_equalize; /* src/fast/ */
#ifdef HAVE_CUDA
#define CUDA(op) &gf_cuda_##op
#else
#define CUDA(op) NULL
#endif
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})

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
    s->blur.sigma = sigma;
    s->blur.radius = (int)r;
    return GF_OK;
}

static gf_status parse_box(gf_step *s, const char *arg)
{
    double r;
    if (number(arg, &r) || r < 1 || r != floor(r) || r > GF_MAX_RADIUS)
        return gf_error(GF_EINVAL, "invalid -box radius '%s' (want an integer 1 to %d)", arg, GF_MAX_RADIUS);
    s->box.radius = (int)r;
    return GF_OK;
}

static gf_status parse_laplacian(gf_step *s, const char *arg)
{
    if (!arg || !strcmp(arg, "8"))
        s->laplacian.neighbours = 8;
    else if (!strcmp(arg, "4"))
        s->laplacian.neighbours = 4;
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
    s->rotate.angle = a == 360.0 ? 0 : a;
    /* right angles are exact moves: decided here, once, for the shape and both back ends */
    static const enum gf_orient right[4] = {GF_ORIENT_NONE, GF_ORIENT_ROT90, GF_ORIENT_ROT180, GF_ORIENT_ROT270};
    s->rotate.right = fmod(s->rotate.angle, 90.0) == 0;
    s->rotate.orient = s->rotate.right ? right[(int)(s->rotate.angle / 90.0)] : GF_ORIENT_NONE;
    return GF_OK;
}

static gf_status parse_histogram(gf_step *s, const char *arg)
{
    if (!*arg)
        return gf_error(GF_EINVAL, "-histogram needs a file name ('-' for standard output)");
    s->histogram.path = arg;
    return GF_OK;
}

#define ORIENT_PARSER(name, value)                                                                                    \
    static gf_status parse_##name(gf_step *s, const char *arg)                                                        \
    {                                                                                                                 \
        (void)arg;                                                                                                    \
        s->orient.orient = value;                                                                                     \
        return GF_OK;                                                                                                 \
    }
ORIENT_PARSER(transpose, GF_ORIENT_TRANSPOSE)
ORIENT_PARSER(transverse, GF_ORIENT_TRANSVERSE)
ORIENT_PARSER(flip, GF_ORIENT_FLIP)
ORIENT_PARSER(flop, GF_ORIENT_FLOP)

static void swap_sides(enum gf_orient o, const gf_shape *in, gf_shape *out)
{
    *out = *in;
    if (o & GF_OR_SWAP) {
        out->width = in->height;
        out->height = in->width;
    }
}

static gf_status shape_orient(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    swap_sides(s->orient.orient, in, out);
    return GF_OK;
}

static gf_status shape_rotate(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    if (s->rotate.right) {
        swap_sides(s->rotate.orient, in, out);
        return GF_OK;
    }
    *out = *in;
    gf_rotate_shape(s->rotate.angle, in->width, in->height, &out->width, &out->height);
    out->channels = gf_rotate_channels(s, in->channels);
    return GF_OK;
}

/* CPU time per output sample (ns, one core), measured on a 12 MP RGB8 photo
 * with x86-64 cores of 2020-2024, of the fast path where the op has one: a
 * blur costs (AVX2) 3 ns a sample and 0.15 ns a tap, a box about 7 ns
 * whatever its radius (running sums), a Laplacian 3.5 ns; the estimate only
 * needs to be right within a factor of two. */
static double ns_blur(const gf_step *s)
{
    return 3.0 + 0.15 * s->blur.radius;
}
static double ns_box(const gf_step *s)
{
    return 7.0;
}
static double ns_laplacian(const gf_step *s)
{
    return 4.0;
}
static double ns_move(const gf_step *s) /* the mirrors, rotate by right angles */
{
    return 3.0;
}
static double ns_rotate(const gf_step *s)
{
    return s->rotate.right ? 3.0 : 8.0;
}
static double ns_count(const gf_step *s) /* histogram, equalize */
{
    return 3.0;
}

/* The tests' first fragment is the op as typically used: gpucheck also runs
 * it on a photo-sized image.  The others reach every kernel path. */
const gf_op gf_ops[] = {
    {"blur", GF_ARG_REQUIRED, "SIGMA|RxSIGMA", "Gaussian blur; radius R = ceil(3*SIGMA) when 0 or omitted", parse_blur,
     NULL, gf_cpu_blur, gf_fast_blur, CUDA(blur), 0, ns_blur,
     LIST("-blur 2", "-blur 0.2", "-blur 1", "-blur 5", "-blur 16x5", "-blur 17x6", "-blur 40x13", "-blur 41x14",
          "-blur 152x50", "-blur 153x50", "-blur 600x200"),
     LIST("-blur 1", "-blur 2", "-blur 5", "-blur 20", "-blur 50")},
    {"box", GF_ARG_REQUIRED, "R", "mean over the (2R+1)x(2R+1) window", parse_box, NULL, gf_cpu_box, gf_fast_box,
     CUDA(box), 0, ns_box,
     LIST("-box 5", "-box 1", "-box 2", "-box 7", "-box 8", "-box 16", "-box 17", "-box 35", "-box 127", "-box 128"),
     LIST("-box 1", "-box 5", "-box 15", "-box 50")},
    {"laplacian", GF_ARG_OPTIONAL, "[=4]", "Laplacian edges, |8-neighbour| (=4: 4-neighbour) response", parse_laplacian,
     NULL, gf_cpu_laplacian, gf_fast_laplacian, CUDA(laplacian), 0, ns_laplacian, LIST("-laplacian", "-laplacian=4"),
     LIST("-laplacian", "-laplacian=4")},
    {"transpose", GF_ARG_NONE, NULL, "mirror along the top-left to bottom-right diagonal", parse_transpose,
     shape_orient, gf_cpu_orient, gf_fast_orient, CUDA(orient), 0, ns_move, LIST("-transpose"), LIST("-transpose")},
    {"transverse", GF_ARG_NONE, NULL, "mirror along the top-right to bottom-left diagonal", parse_transverse,
     shape_orient, gf_cpu_orient, gf_fast_orient, CUDA(orient), 0, ns_move, LIST("-transverse"), LIST("-transverse")},
    {"flip", GF_ARG_NONE, NULL, "mirror top-bottom", parse_flip, shape_orient, gf_cpu_orient, gf_fast_orient,
     CUDA(orient), 0, ns_move, LIST("-flip"), LIST("-flip")},
    {"flop", GF_ARG_NONE, NULL, "mirror left-right", parse_flop, shape_orient, gf_cpu_orient, gf_fast_orient,
     CUDA(orient), 0, ns_move, LIST("-flop"), LIST("-flop")},
    {"rotate", GF_ARG_REQUIRED, "DEG", "rotate clockwise; multiples of 90 exact, others bilinear on an enlarged canvas",
     parse_rotate, shape_rotate, gf_cpu_rotate, gf_fast_rotate, CUDA(rotate), 0, ns_rotate,
     LIST("-rotate 30", "-background none -rotate 80", "-rotate 135.7", "-rotate 1", "-rotate 359",
          "-background #ff000080 -rotate 200.5", "-rotate 90", "-rotate 180", "-rotate 270"),
     LIST("-rotate 90", "-rotate 180", "-rotate 30")},
    {"histogram", GF_ARG_REQUIRED, "FILE",
     "write the histogram here (.csv, .json, .png chart, else text; - stdout); image unchanged", parse_histogram, NULL,
     gf_cpu_histogram, gf_fast_histogram, CUDA(histogram), 1, ns_count,
     LIST("-histogram h.csv", "-bins 16 -histogram h.txt", "-bins 1024 -histogram h.json",
          "-bins 65536 -histogram h.csv"),
     LIST("-histogram /dev/null")},
    {"equalize", GF_ARG_NONE, NULL, "histogram equalisation, each colour channel on its own", NULL, NULL,
     gf_cpu_equalize, gf_fast_equalize, CUDA(equalize), 0, ns_count, LIST("-equalize"), LIST("-equalize")},
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

double gf_chain_cpu_ms(const gf_step *steps, int nsteps, gf_shape shape, int threads)
{
    double ms = 0;
    for (int i = 0; i < nsteps; i++) {
        gf_shape next = shape;
        if (gf_step_shape(&steps[i], &shape, &next))
            return HUGE_VAL;
        const int share = steps[i].op->fast && threads > 1 ? threads : 1;
        ms += steps[i].op->cpu_ns(&steps[i]) * next.width * next.height * next.channels / 1e6 / share;
        shape = next;
    }
    return ms;
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
