/* SPDX-License-Identifier: MIT */
/* THE op table: one entry per operation.  Adding an op means its entry here
 * (and its argument struct in ops.h), src/ops/<op>/: <op>_ref.c, <op>.cu,
 * tests/<op>.test and its section of the man page; see CONTRIBUTING.md. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec.h"
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
IMPLEMENTATIONS(crop)
IMPLEMENTATIONS(grayscale)
IMPLEMENTATIONS(resize)
IMPLEMENTATIONS(rank)
IMPLEMENTATIONS(unsharp)
IMPLEMENTATIONS(stats)
IMPLEMENTATIONS(convolve)
IMPLEMENTATIONS(median)
gf_fast_fn gf_fast_blur, gf_fast_box, gf_fast_laplacian, gf_fast_orient, gf_fast_rotate, gf_fast_histogram,
    gf_fast_equalize, gf_fast_unsharp, gf_fast_resize, gf_fast_convolve, gf_fast_median, gf_fast_rank,
    gf_fast_grayscale; /* src/ops/<op>/<op>_fast.c */
#ifdef HAVE_CUDA
#define CUDA(op) &gf_cuda_##op
#else
#define CUDA(op) NULL
#endif
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define LIST0 ((const char *const[]){NULL}) /* none */

#define GF_MAX_RADIUS 2000000 /* twice the largest side: any more only repeats the border */

static int geometry(const char *a, double *w, double *h, int *flags, long *x, long *y);

/* Parses a finite number taking the whole string. */
static int number(const char *s, double *v)
{
    char *end;
    if (!s || !*s)
        return -1;
    *v = strtod(s, &end);
    return (*end || !isfinite(*v)) ? -1 : 0;
}

/* A decimal number without a sign or exponent at *p (digits and a point:
 * not strtod's hexadecimal, which would read 0x5 as five), *p moved past
 * it; 0 if there is none. */
static int unsigned_number(const char **p, double *v)
{
    char text[64], *end;
    const size_t n = strspn(*p, "0123456789.");
    if (!n || n >= sizeof text)
        return 0;
    memcpy(text, *p, n);
    text[n] = '\0';
    *v = strtod(text, &end);
    *p += n;
    return *end == '\0' && isfinite(*v);
}

static gf_status parse_blur(gf_step *s, const char *arg)
{
    double r = 0, sigma;
    const char *whole = arg, *x = strpbrk(arg, "xX");
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
    if (x && (number(arg, &sigma) || !(sigma > 0)))
        return gf_error(GF_EINVAL, "invalid -blur '%s' (want RxSIGMA, SIGMA a number > 0)", whole);
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

/* RxSIGMA+AMOUNT+THRESHOLD as ImageMagick's: R 0 (or absent) for ceil(3 SIGMA); SIGMA 1, AMOUNT 1,
 * THRESHOLD 0.05 where absent */
static gf_status parse_unsharp(gf_step *s, const char *arg)
{
    double r, sigma = 1, amount = 1, threshold = 0.05;
    const char *p = arg;
    int ok = unsigned_number(&p, &r);
    if (ok && (*p == 'x' || *p == 'X'))
        p++, ok = unsigned_number(&p, &sigma);
    if (ok && *p == '+')
        p++, ok = unsigned_number(&p, &amount);
    if (ok && *p == '+')
        p++, ok = unsigned_number(&p, &threshold);
    if (!ok || *p || r != floor(r) || r > GF_MAX_RADIUS || !(sigma > 0) || sigma > GF_MAX_RADIUS / 3.0 ||
        amount > 1000 || threshold > 1)
        return gf_error(GF_EINVAL,
                        "invalid -unsharp '%s' (want RxSIGMA+AMOUNT+THRESHOLD: R 0 or more, SIGMA > 0, AMOUNT 0 to "
                        "1000, THRESHOLD 0 to 1)",
                        arg);
    s->unsharp.blur.sigma = sigma;
    s->unsharp.blur.radius = r > 0 ? (int)r : gf_blur_radius(sigma);
    s->unsharp.gain = llround(amount * 65536);
    s->unsharp.threshold = threshold;
    return GF_OK;
}

gf_step gf_unsharp_blur(const gf_step *s)
{
    gf_step b = *s;
    b.op = gf_op_find("blur");
    b.blur = s->unsharp.blur;
    return b;
}

int64_t gf_unsharp_threshold(const gf_step *s, int depth)
{
    return (int64_t)ceil(s->unsharp.threshold * gf_maxval(depth));
}

/* ImageMagick's kernel syntax: a name, or [WxH[+X+Y]:] and the values
 * row by row (a square count without the size), commas or spaces apart. */
static gf_status parse_convolve(gf_step *s, const char *arg)
{
    static const struct {
        const char *name;
        int8_t k[9];
    } named[] = {{"sobel", {1, 0, -1, 2, 0, -2, 1, 0, -1}},      {"prewitt", {1, 0, -1, 1, 0, -1, 1, 0, -1}},
                 {"sharpen", {0, -1, 0, -1, 5, -1, 0, -1, 0}},   {"emboss", {-2, -1, 0, -1, 1, 1, 0, 1, 2}},
                 {"laplacian", {-1, -1, -1, -1, 8, -1, -1, -1, -1}},
                 {"laplacian:0", {-1, -1, -1, -1, 8, -1, -1, -1, -1}},
                 {"laplacian:1", {0, -1, 0, -1, 4, -1, 0, -1, 0}}, {"laplacian:2", {-2, 1, -2, 1, 4, 1, -2, 1, -2}},
                 {"laplacian:3", {1, -2, 1, -2, 4, -2, 1, -2, 1}}};
    enum { N = GF_KERNEL_MAX * GF_KERNEL_MAX };
    double k[N];
    int n = 0, w = 0, h = 0, ox = -1, oy = -1;
    struct gf_convolve_args *c = &s->convolve;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (!strcasecmp(arg, named[i].name)) {
            for (n = 0; n < 9; n++)
                k[n] = named[i].k[n];
            w = h = 3;
        }
    const char *p = arg, *colon = strchr(arg, ':');
    if (!n && colon && isdigit((unsigned char)*arg)) { /* WxH[+X+Y]: */
        double dw, dh;
        int flags;
        long x, y;
        char head[64];
        if ((size_t)(colon - arg) >= sizeof head)
            goto bad;
        memcpy(head, arg, (size_t)(colon - arg));
        head[colon - arg] = '\0';
        const int offset = strpbrk(head, "+-") != NULL;
        if (geometry(head, &dw, &dh, &flags, &x, &y) || flags || dw < 1 || dh < 1 || dw > GF_KERNEL_MAX ||
            dh > GF_KERNEL_MAX || dw != floor(dw) || dh != floor(dh))
            goto bad;
        w = (int)dw, h = (int)dh;
        if (offset) {
            if (x < 0 || y < 0 || x >= w || y >= h)
                goto bad;
            ox = (int)x, oy = (int)y;
        }
        p = colon + 1;
    }
    if (!n) {
        for (;;) {
            while (*p == ' ' || *p == ',')
                p++;
            if (!*p)
                break;
            char *end;
            if (n == N || (!isdigit((unsigned char)*p) && !strchr("+-.", *p)))
                goto bad;
            k[n] = strtod(p, &end);
            if (end == p || !isfinite(k[n]) || (*end && *end != ' ' && *end != ','))
                goto bad;
            p = end, n++;
        }
        if (!w) { /* a square count: its side */
            w = h = (int)lround(sqrt(n));
            if (w * w != n)
                goto bad;
        }
        if (n != w * h)
            goto bad;
    }
    c->w = w, c->h = h, c->ox = ox < 0 ? (w - 1) / 2 : ox, c->oy = oy < 0 ? (h - 1) / 2 : oy, c->edge = 0;
    /* normalised where the sum is not 0 (as ImageMagick's -convolve), into 2^-16 summing exactly to the
     * rounded total: the rounding's remainder goes to the largest weight */
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += k[i];
    const double scale = fabs(sum) > 1e-9 ? 1 / sum : 1;
    int64_t total = 0;
    int big = 0;
    for (int i = 0; i < n; i++) {
        const double v = k[i] * scale * (1 << GF_CONVOLVE_BITS);
        if (fabs(v) > 2147483647.0 / N)
            return gf_error(GF_EINVAL, "invalid -convolve '%s' (a weight is too large after normalisation)", arg);
        c->q[i] = (int32_t)llround(v);
        total += c->q[i];
        big = fabs(k[i]) > fabs(k[big]) ? i : big;
    }
    c->q[big] += (int32_t)(llround(sum * scale * (1 << GF_CONVOLVE_BITS)) - total);
    return GF_OK;
bad:
    return gf_error(GF_EINVAL,
                    "invalid -convolve '%s' (want a name, or [WxH[+X+Y]:] and W*H values, sides up to %d)", arg,
                    GF_KERNEL_MAX);
}

static gf_status parse_edge(gf_step *s, const char *arg)
{
    static const int32_t sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1}, prewitt[9] = {1, 0, -1, 1, 0, -1, 1, 0, -1};
    if (strcasecmp(arg, "sobel") && strcasecmp(arg, "prewitt"))
        return gf_error(GF_EINVAL, "invalid -edge '%s' (want sobel or prewitt)", arg);
    struct gf_convolve_args *c = &s->convolve;
    c->w = c->h = 3, c->ox = c->oy = 1, c->edge = 1;
    memcpy(c->q, strcasecmp(arg, "sobel") ? prewitt : sobel, sizeof sobel);
    return GF_OK;
}

int64_t gf_convolve_bias(const gf_step *s, int depth)
{
    return llround(s->bias * gf_maxval(depth) * (1 << GF_CONVOLVE_BITS));
}

int gf_convolve_narrow(const struct gf_convolve_args *k, int depth)
{
    int64_t sum = 0;
    for (int i = 0; i < k->w * k->h; i++)
        sum += k->q[i] < 0 ? -(int64_t)k->q[i] : k->q[i];
    return sum * gf_maxval(depth) < ((int64_t)1 << 31);
}

/* An integer radius 1 to most for -op. */
static gf_status radius(const char *op, const char *arg, int most, int *r)
{
    double v;
    if (number(arg, &v) || v < 1 || v != floor(v) || v > most)
        return gf_error(GF_EINVAL, "invalid -%s radius '%s' (want an integer 1 to %d)", op, arg, most);
    *r = (int)v;
    return GF_OK;
}

static gf_status parse_box(gf_step *s, const char *arg)
{
    return radius("box", arg, GF_MAX_RADIUS, &s->box.radius);
}

static gf_status parse_rank(gf_step *s, const char *arg, int max)
{
    s->rank.max = max;
    return radius(max ? "dilate" : "erode", arg, GF_MAX_RADIUS, &s->rank.radius);
}
static gf_status parse_median(gf_step *s, const char *arg)
{
    return radius("median", arg, GF_MEDIAN_MAX, &s->rank.radius);
}
static gf_status parse_erode(gf_step *s, const char *arg)
{
    return parse_rank(s, arg, 0);
}
static gf_status parse_dilate(gf_step *s, const char *arg)
{
    return parse_rank(s, arg, 1);
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

static gf_status parse_report(gf_step *s, const char *arg)
{
    if (!*arg)
        return gf_error(GF_EINVAL, "-%s needs a file name ('-' for standard output)", s->op->name);
    s->report.path = arg;
    return GF_OK;
}

/* An ImageMagick geometry, [W][xH][%!^<>...][{+-}X{+-}Y]: sides as
 * numbers (0 where absent), the flags, and the offset (0 where absent).
 * Returns -1 on anything else. */
static int geometry(const char *a, double *w, double *h, int *flags, long *x, long *y)
{
    *w = *h = 0;
    *flags = 0;
    *x = *y = 0;
    for (int k = 0; k < 2; k++) {
        if (k && *a != 'x' && *a != 'X')
            break;
        a += k;
        if (!unsigned_number(&a, k ? h : w) && k)
            return -1;
        for (; *a && strchr("%!^<>", *a); a++)
            *flags |= *a == '%' ? GF_GEOM_PERCENT : *a == '!' ? GF_GEOM_EXACT : *a == '^' ? GF_GEOM_FILL
                      : *a == '>'                   ? GF_GEOM_SHRINK
                                                    : GF_GEOM_ENLARGE;
    }
    for (int k = 0; k < 2 && (*a == '+' || *a == '-'); k++) {
        char *end;
        if (!isdigit((unsigned char)a[1]))
            return -1;
        const long long v = strtoll(a, &end, 10);
        if (v > GF_MAX_DIM || v < -GF_MAX_DIM)
            return -1;
        *(k ? y : x) = (long)v;
        a = end;
    }
    return *a || *w > 1e9 || *h > 1e9 ? -1 : 0;
}

static gf_status parse_crop(gf_step *s, const char *arg)
{
    double w, h;
    int flags;
    if (geometry(arg, &w, &h, &flags, &s->crop.x, &s->crop.y) || flags || w < 1 || h < 1 || w != floor(w) ||
        h != floor(h) || w > GF_MAX_DIM || h > GF_MAX_DIM)
        return gf_error(GF_EINVAL, "invalid -crop '%s' (want WxH+X+Y)", arg);
    s->crop.width = (int)w;
    s->crop.height = (int)h;
    return GF_OK;
}

static gf_status parse_grayscale(gf_step *s, const char *arg)
{
    static const char *const names[] = {"rec601", "rec709", "average"};
    for (int i = 0; i < 3; i++)
        if (!arg || !strcasecmp(arg, names[i])) {
            s->grayscale.weights = (enum gf_gray_weights)i;
            return GF_OK;
        }
    return gf_error(GF_EINVAL, "invalid -grayscale variant '%s' (want rec601, rec709 or average)", arg);
}

static gf_status parse_resize(gf_step *s, const char *arg)
{
    double w, h;
    int flags;
    long x, y;
    if (geometry(arg, &w, &h, &flags, &x, &y) || x || y || (w <= 0 && h <= 0) || w < 0 || h < 0 ||
        (!(flags & GF_GEOM_PERCENT) && (w != floor(w) || h != floor(h) || w > GF_MAX_DIM || h > GF_MAX_DIM)) ||
        ((flags & GF_GEOM_EXACT) && (w <= 0 || h <= 0) && !(flags & GF_GEOM_PERCENT)))
        return gf_error(GF_EINVAL, "invalid -resize '%s' (want WxH, WxH!, WxH^, WxH>, WxH<, N%%, W or xH)", arg);
    s->resize = (struct gf_resize_args){w, h, flags};
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

static gf_status shape_crop(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    const long x0 = s->crop.x > 0 ? s->crop.x : 0, y0 = s->crop.y > 0 ? s->crop.y : 0;
    const long x1 = s->crop.x + s->crop.width < in->width ? s->crop.x + s->crop.width : in->width;
    const long y1 = s->crop.y + s->crop.height < in->height ? s->crop.y + s->crop.height : in->height;
    if (x1 <= x0 || y1 <= y0)
        return gf_error(GF_EINVAL, "-crop %dx%d%+ld%+ld lies outside the %dx%d image", s->crop.width,
                        s->crop.height, s->crop.x, s->crop.y, in->width, in->height);
    *out = *in;
    out->width = (int)(x1 - x0);
    out->height = (int)(y1 - y0);
    return GF_OK;
}

static gf_status shape_grayscale(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    (void)s;
    *out = *in;
    out->channels = gf_has_alpha(in->channels) ? 2 : 1;
    return GF_OK;
}

/* ImageMagick's arithmetic: a side from a scale is floor(scale * side + 1/2), at least 1. */
static double side(double scale, int n)
{
    const double v = floor(scale * n + 0.5);
    return v < 1 ? 1 : v;
}

static gf_status shape_resize(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    const struct gf_resize_args *r = &s->resize;
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
static double ns_count(const gf_step *s) /* histogram, equalize, grayscale */
{
    return 3.0;
}
static double ns_rank(const gf_step *s) /* the reference: 2 (2R + 1) comparisons a sample */
{
    return 2.0 + 1.5 * (s->rank.radius < 1000 ? s->rank.radius : 1000);
}
static double ns_unsharp(const gf_step *s)
{
    return 4.0 + 0.15 * s->unsharp.blur.radius;
}
static double ns_convolve(const gf_step *s) /* the reference: a multiply-add a tap */
{
    return 2.0 + 1.0 * s->convolve.w * s->convolve.h * (s->convolve.edge ? 2 : 1);
}
static double ns_median(const gf_step *s) /* the reference counts each 8-bit window into bins */
{
    const double n = (2.0 * s->rank.radius + 1) * (2.0 * s->rank.radius + 1);
    return 100.0 + 2.0 * n;
}
static double ns_resize(const gf_step *s)
{
    return 30.0; /* the fast path, rows and columns passes, per output sample */
}

/* The tests' first fragment is the op as typically used: gpucheck also runs
 * it on a photo-sized image.  The others reach every kernel path. */
const gf_op gf_ops[] = {
    {.name = "blur",
     .arg = GF_ARG_REQUIRED,
     .metavar = "SIGMA|RxSIGMA",
     .help = "Gaussian blur; radius R = ceil(3*SIGMA) when 0 or omitted",
     .parse = parse_blur,
     .cpu = gf_cpu_blur,
     .fast = gf_fast_blur,
     .cuda = CUDA(blur),
     .cpu_ns = ns_blur,
     .tests = LIST("-blur 2", "-blur 0.2", "-blur 1", "-blur 5", "-blur 16x5", "-blur 17x6", "-blur 40x13",
                   "-blur 41x14", "-blur 152x50", "-blur 153x50", "-blur 600x200"),
     .bench = LIST("-blur 1", "-blur 2", "-blur 5", "-blur 20", "-blur 50"),
     .in_place = 1},
    {.name = "box",
     .arg = GF_ARG_REQUIRED,
     .metavar = "R",
     .help = "mean over the (2R+1)x(2R+1) window",
     .parse = parse_box,
     .cpu = gf_cpu_box,
     .fast = gf_fast_box,
     .cuda = CUDA(box),
     .cpu_ns = ns_box,
     .tests = LIST("-box 5", "-box 1", "-box 2", "-box 7", "-box 8", "-box 16", "-box 17", "-box 35", "-box 127",
                   "-box 128"),
     .bench = LIST("-box 1", "-box 5", "-box 15", "-box 50")},
    {.name = "laplacian",
     .arg = GF_ARG_OPTIONAL,
     .metavar = "[=4]",
     .help = "Laplacian edges, |8-neighbour| (=4: 4-neighbour) response",
     .parse = parse_laplacian,
     .cpu = gf_cpu_laplacian,
     .fast = gf_fast_laplacian,
     .cuda = CUDA(laplacian),
     .cpu_ns = ns_laplacian,
     .tests = LIST("-laplacian", "-laplacian=4"),
     .bench = LIST("-laplacian", "-laplacian=4")},
    {.name = "transpose",
     .arg = GF_ARG_NONE,
     .help = "mirror along the top-left to bottom-right diagonal",
     .parse = parse_transpose,
     .shape = shape_orient,
     .cpu = gf_cpu_orient,
     .fast = gf_fast_orient,
     .cuda = CUDA(orient),
     .cpu_ns = ns_move,
     .tests = LIST("-transpose"),
     .bench = LIST("-transpose")},
    {.name = "transverse",
     .arg = GF_ARG_NONE,
     .help = "mirror along the top-right to bottom-left diagonal",
     .parse = parse_transverse,
     .shape = shape_orient,
     .cpu = gf_cpu_orient,
     .fast = gf_fast_orient,
     .cuda = CUDA(orient),
     .cpu_ns = ns_move,
     .tests = LIST("-transverse"),
     .bench = LIST("-transverse")},
    {.name = "flip",
     .arg = GF_ARG_NONE,
     .help = "mirror top-bottom",
     .parse = parse_flip,
     .shape = shape_orient,
     .cpu = gf_cpu_orient,
     .fast = gf_fast_orient,
     .cuda = CUDA(orient),
     .cpu_ns = ns_move,
     .tests = LIST("-flip"),
     .bench = LIST("-flip")},
    {.name = "flop",
     .arg = GF_ARG_NONE,
     .help = "mirror left-right",
     .parse = parse_flop,
     .shape = shape_orient,
     .cpu = gf_cpu_orient,
     .fast = gf_fast_orient,
     .cuda = CUDA(orient),
     .cpu_ns = ns_move,
     .tests = LIST("-flop"),
     .bench = LIST("-flop")},
    {.name = "rotate",
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
     .bench = LIST("-rotate 90", "-rotate 180", "-rotate 30")},
    {.name = "histogram",
     .arg = GF_ARG_REQUIRED,
     .metavar = "FILE",
     .help = "write the histogram here (.csv, .json, .png chart, else text; - stdout); image unchanged",
     .parse = parse_report,
     .cpu = gf_cpu_histogram,
     .fast = gf_fast_histogram,
     .cuda = CUDA(histogram),
     .passthrough = 1,
     .cpu_ns = ns_count,
     .tests = LIST("-histogram h.csv", "-bins 16 -histogram h.txt", "-bins 1024 -histogram h.json",
                   "-bins 65536 -histogram h.csv"),
     .bench = LIST("-histogram /dev/null")},
    {.name = "stats",
     .arg = GF_ARG_REQUIRED,
     .metavar = "FILE",
     .help = "write each channel's min, max, mean, standard deviation and sum here (.csv, .json, else text; - stdout)",
     .parse = parse_report,
     .cpu = gf_cpu_stats,
     .cuda = CUDA(stats),
     .passthrough = 1,
     .cpu_ns = ns_count,
     .tests = LIST("-stats s.txt", "-stats s.json", "-stats s.csv"),
     .bench = LIST("-stats /dev/null")},
    {.name = "equalize",
     .arg = GF_ARG_NONE,
     .help = "histogram equalisation, each colour channel on its own",
     .cpu = gf_cpu_equalize,
     .fast = gf_fast_equalize,
     .cuda = CUDA(equalize),
     .cpu_ns = ns_count,
     .tests = LIST("-equalize"),
     .bench = LIST("-equalize")},
    {.name = "unsharp",
     .arg = GF_ARG_REQUIRED,
     .metavar = "RxSIGMA+AMOUNT+THRESHOLD",
     .help = "sharpen: v + AMOUNT (v - blur) where 2|v - blur| > THRESHOLD max (1, 0.05 by default)",
     .parse = parse_unsharp,
     .cpu = gf_cpu_unsharp,
     .fast = gf_fast_unsharp,
     .cuda = CUDA(unsharp),
     .cpu_ns = ns_unsharp,
     .tests = LIST("-unsharp 0x2+1.5+0.02", "-unsharp 0x1", "-unsharp 3x1+2+0", "-unsharp 0x5+0.5+0.2", "-unsharp 2",
                   "-unsharp 20x7+3"),
     .bench = LIST("-unsharp 0x1", "-unsharp 0x5")},
    {.name = "convolve",
     .arg = GF_ARG_REQUIRED,
     .metavar = "KERNEL",
     .help = "weighted sum over a kernel: [WxH[+X+Y]:] values, or sobel, prewitt, sharpen, emboss, laplacian[:0-3]",
     .parse = parse_convolve,
     .cpu = gf_cpu_convolve,
     .fast = gf_fast_convolve,
     .cuda = CUDA(convolve),
     .cpu_ns = ns_convolve,
     .tests = LIST("-convolve 3x3:1,2,1,2,4,2,1,2,1", "-convolve sobel", "-bias 50% -convolve laplacian:2",
                   "-convolve 5x3+0+2:1,-2,3,-4,5,6,-7,8,-9,10,11,12,13,14,15", "-convolve 2x2:1,1,1,1",
                   "-convolve 1x7:1,1,1,1,1,1,1", "-convolve 0.5,0,0,0,0,0,0,0,0.5", "-convolve emboss"),
     .bench = LIST("-convolve 3x3:1,2,1,2,4,2,1,2,1", "-convolve sobel")},
    {.name = "edge",
     .arg = GF_ARG_REQUIRED,
     .metavar = "sobel|prewitt",
     .help = "gradient magnitude sqrt(gx^2 + gy^2) of the two directions",
     .parse = parse_edge,
     .cpu = gf_cpu_convolve,
     .fast = gf_fast_convolve,
     .cuda = CUDA(convolve),
     .cpu_ns = ns_convolve,
     .tests = LIST("-edge sobel", "-edge prewitt"),
     .bench = LIST("-edge sobel")},
    {.name = "erode",
     .arg = GF_ARG_REQUIRED,
     .metavar = "R",
     .help = "minimum over the (2R+1)x(2R+1) window",
     .parse = parse_erode,
     .cpu = gf_cpu_rank,
     .fast = gf_fast_rank,
     .cuda = CUDA(rank),
     .cpu_ns = ns_rank,
     .tests = LIST("-erode 2", "-erode 1", "-erode 7", "-erode 40", "-erode 120"),
     .bench = LIST("-erode 1", "-erode 5", "-erode 15")},
    {.name = "dilate",
     .arg = GF_ARG_REQUIRED,
     .metavar = "R",
     .help = "maximum over the (2R+1)x(2R+1) window",
     .parse = parse_dilate,
     .cpu = gf_cpu_rank,
     .fast = gf_fast_rank,
     .cuda = CUDA(rank),
     .cpu_ns = ns_rank,
     .tests = LIST("-dilate 2", "-dilate 1", "-dilate 16", "-dilate 60"),
     .bench = LIST("-dilate 5")},
    {.name = "thumbnail",
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
     .keeps = GF_KEEP_ICC},
    {.name = "median",
     .arg = GF_ARG_REQUIRED,
     .metavar = "R",
     .help = "median over the (2R+1)x(2R+1) window, R up to 15",
     .parse = parse_median,
     .cpu = gf_cpu_median,
     .fast = gf_fast_median,
     .cuda = CUDA(median),
     .cpu_ns = ns_median,
     .tests = LIST("-median 1", "-median 2", "-median 5", "-median 8"),
     .bench = LIST("-median 1", "-median 2", "-median 7")},
    {.name = "crop",
     .arg = GF_ARG_REQUIRED,
     .metavar = "WxH+X+Y",
     .help = "the region of W x H pixels from (X, Y), clipped to the image",
     .parse = parse_crop,
     .shape = shape_crop,
     .cpu = gf_cpu_crop,
     .cuda = CUDA(crop),
     .cpu_ns = ns_move,
     .tests = LIST("-crop 100x50+10+5", "-crop 7x3+1+2", "-crop 5000x5000-3-2", "-crop 1x1+0+0", "-crop 64x300+0+1"),
     .bench = LIST("-crop 4096x4096+1024+1024")},
    {.name = "grayscale",
     .arg = GF_ARG_OPTIONAL,
     .metavar = "[=rec601|rec709|average]",
     .help = "colour to one channel: Rec.601 luma (default), Rec.709 luma or the mean; alpha kept",
     .parse = parse_grayscale,
     .shape = shape_grayscale,
     .cpu = gf_cpu_grayscale,
     .fast = gf_fast_grayscale,
     .cuda = CUDA(grayscale),
     .cpu_ns = ns_count,
     .tests = LIST("-grayscale", "-grayscale=rec709", "-grayscale=average"),
     .bench = LIST("-grayscale")},
    {.name = "resize",
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
     .bench = LIST("-resize 50%", "-filter box -resize 25%", "-resize 140%")},
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
