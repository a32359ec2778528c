/* SPDX-License-Identifier: MIT */
/* The descriptor of -blur: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blur.h"
#include "op.h"

gf_cpu_fn gf_cpu_blur;
gf_fast_fn gf_fast_blur;
GF_CUDA_OP(blur);

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
        if (gf_arg_number(head, &r) || r < 0 || r != floor(r) || r > GF_MAX_RADIUS)
            return gf_error(GF_EINVAL, "invalid -blur radius '%s' (want an integer 0 to %d)", head, GF_MAX_RADIUS);
        arg = x + 1;
    }
    if (x && (gf_arg_number(arg, &sigma) || !(sigma > 0)))
        return gf_error(GF_EINVAL, "invalid -blur '%s' (want RxSIGMA, SIGMA a number > 0)", whole);
    if (gf_arg_number(arg, &sigma) || !(sigma > 0))
        return gf_error(GF_EINVAL, "invalid -blur sigma '%s' (want a number > 0)", arg);
    if (r == 0) {
        if (sigma > GF_MAX_RADIUS / 3.0)
            return gf_error(GF_EINVAL, "-blur sigma %g is too large (at most %g)", sigma, GF_MAX_RADIUS / 3.0);
        r = gf_blur_radius(sigma);
    }
    GF_BLUR_ARGS(s).sigma = sigma;
    GF_BLUR_ARGS(s).radius = (int)r;
    return GF_OK;
}

/* The fast path (AVX2): 3 ns a sample and 0.15 ns a tap (see op.h). */
static double ns_blur(const gf_step *s)
{
    return 3.0 + 0.15 * GF_BLUR_ARGS(s).radius;
}

const gf_op gf_op_blur = {
    .name = "blur",
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
    .in_place = 1,
};
