/* SPDX-License-Identifier: MIT */
/* The descriptors of -convolve, -edge: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "convolve.h"
#include "op.h"

gf_cpu_fn gf_cpu_convolve;
gf_fast_fn gf_fast_convolve;
GF_CUDA_OP(convolve);

/* ImageMagick's kernel syntax: a name, or [WxH[+X+Y]:] and the values
 * row by row (a square count without the size), commas or spaces apart. */
static gf_status parse_convolve(gf_step *s, const char *arg)
{
    static const struct {
        const char *name;
        int8_t k[9];
    } named[] = {
        {"sobel", {1, 0, -1, 2, 0, -2, 1, 0, -1}},          {"prewitt", {1, 0, -1, 1, 0, -1, 1, 0, -1}},
        {"sharpen", {0, -1, 0, -1, 5, -1, 0, -1, 0}},       {"emboss", {-2, -1, 0, -1, 1, 1, 0, 1, 2}},
        {"laplacian", {-1, -1, -1, -1, 8, -1, -1, -1, -1}}, {"laplacian:0", {-1, -1, -1, -1, 8, -1, -1, -1, -1}},
        {"laplacian:1", {0, -1, 0, -1, 4, -1, 0, -1, 0}},   {"laplacian:2", {-2, 1, -2, 1, 4, 1, -2, 1, -2}},
        {"laplacian:3", {1, -2, 1, -2, 4, -2, 1, -2, 1}}};
    enum { N = GF_KERNEL_MAX * GF_KERNEL_MAX };
    double k[N];
    int n = 0, w = 0, h = 0, ox = -1, oy = -1;
    struct gf_convolve_args *c = &GF_CONVOLVE_ARGS(s);
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
        if (gf_arg_geometry(head, &dw, &dh, &flags, &x, &y) || flags || dw < 1 || dh < 1 || dw > GF_KERNEL_MAX ||
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
    return gf_error(GF_EINVAL, "invalid -convolve '%s' (want a name, or [WxH[+X+Y]:] and W*H values, sides up to %d)",
                    arg, GF_KERNEL_MAX);
}

static gf_status parse_edge(gf_step *s, const char *arg)
{
    static const int32_t sobel[9] = {1, 0, -1, 2, 0, -2, 1, 0, -1}, prewitt[9] = {1, 0, -1, 1, 0, -1, 1, 0, -1};
    if (strcasecmp(arg, "sobel") && strcasecmp(arg, "prewitt"))
        return gf_error(GF_EINVAL, "invalid -edge '%s' (want sobel or prewitt)", arg);
    struct gf_convolve_args *c = &GF_CONVOLVE_ARGS(s);
    c->w = c->h = 3, c->ox = c->oy = 1, c->edge = 1;
    memcpy(c->q, strcasecmp(arg, "sobel") ? prewitt : sobel, sizeof sobel);
    return GF_OK;
}

int64_t gf_convolve_bias(const gf_step *s, int depth)
{
    return llround(GF_CONVOLVE_ARGS(s).bias * gf_maxval(depth) * (1 << GF_CONVOLVE_BITS));
}

int gf_convolve_narrow(const struct gf_convolve_args *k, int depth)
{
    int64_t sum = 0;
    for (int i = 0; i < k->w * k->h; i++)
        sum += k->q[i] < 0 ? -(int64_t)k->q[i] : k->q[i];
    return sum * gf_maxval(depth) < ((int64_t)1 << 31);
}

static double ns_convolve(const gf_step *s) /* the reference: a multiply-add a tap */
{
    return 2.0 + 1.0 * GF_CONVOLVE_ARGS(s).w * GF_CONVOLVE_ARGS(s).h * (GF_CONVOLVE_ARGS(s).edge ? 2 : 1);
}

/* -bias N|N%: added to each -convolve result, in 8-bit units or a
 * percentage of the maximum; kept as a fraction of the maximum. */
static gf_status apply_bias(gf_step *s, const char *a)
{
    char *end;
    const double v = strtod(a, &end);
    const int pct = *end == '%';
    if (end == a || (*end && !(pct && !end[1])) || !isfinite(v) || fabs(v) > (pct ? 100 : 255))
        return gf_error(GF_EINVAL, "invalid -bias '%s' (want N from -255 to 255 in 8-bit units, or N%% of the maximum)",
                        a);
    GF_CONVOLVE_ARGS(s).bias = pct ? v / 100 : v / 255;
    return GF_OK;
}

static const gf_op_setting bias = {
    .name = "bias",
    .metavar = "N|N%",
    .help = "added to each -convolve result: 8-bit units, or a percentage of the maximum (0)",
    .apply = apply_bias,
};

const gf_op gf_op_convolve = {
    .name = "convolve",
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
    .bench = LIST("-convolve 3x3:1,2,1,2,4,2,1,2,1", "-convolve sobel"),
    .settings = SETTINGS(&bias),
};
const gf_op gf_op_edge = {
    .name = "edge",
    .arg = GF_ARG_REQUIRED,
    .metavar = "sobel|prewitt",
    .help = "gradient magnitude sqrt(gx^2 + gy^2) of the two directions",
    .parse = parse_edge,
    .cpu = gf_cpu_convolve,
    .fast = gf_fast_convolve,
    .cuda = CUDA(convolve),
    .cpu_ns = ns_convolve,
    .tests = LIST("-edge sobel", "-edge prewitt"),
    .bench = LIST("-edge sobel"),
};
