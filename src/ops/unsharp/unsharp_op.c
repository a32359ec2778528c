/* SPDX-License-Identifier: MIT */
/* The descriptor of -unsharp: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"
#include "unsharp.h"

gf_cpu_fn gf_cpu_unsharp;
gf_fast_fn gf_fast_unsharp;
GF_CUDA_OP(unsharp);

/* RxSIGMA+AMOUNT+THRESHOLD as ImageMagick's: R 0 (or absent) for ceil(3 SIGMA); SIGMA 1, AMOUNT 1,
 * THRESHOLD 0.05 where absent */
static gf_status parse_unsharp(gf_step *s, const char *arg)
{
    double r, sigma = 1, amount = 1, threshold = 0.05;
    const char *p = arg;
    int ok = gf_arg_unsigned(&p, &r);
    if (ok && (*p == 'x' || *p == 'X'))
        p++, ok = gf_arg_unsigned(&p, &sigma);
    if (ok && *p == '+')
        p++, ok = gf_arg_unsigned(&p, &amount);
    if (ok && *p == '+')
        p++, ok = gf_arg_unsigned(&p, &threshold);
    if (!ok || *p || r != floor(r) || r > GF_MAX_RADIUS || !(sigma > 0) || sigma > GF_MAX_RADIUS / 3.0 ||
        amount > 1000 || threshold > 1)
        return gf_error(GF_EINVAL,
                        "invalid -unsharp '%s' (want RxSIGMA+AMOUNT+THRESHOLD: R 0 or more, SIGMA > 0, AMOUNT 0 to "
                        "1000, THRESHOLD 0 to 1)",
                        arg);
    GF_UNSHARP_ARGS(s).blur.sigma = sigma;
    GF_UNSHARP_ARGS(s).blur.radius = r > 0 ? (int)r : gf_blur_radius(sigma);
    GF_UNSHARP_ARGS(s).gain = llround(amount * 65536);
    GF_UNSHARP_ARGS(s).threshold = threshold;
    return GF_OK;
}

gf_step gf_unsharp_blur(const gf_step *s)
{
    gf_step b = *s;
    b.op = gf_op_find("blur");
    GF_BLUR_ARGS(&b) = GF_UNSHARP_ARGS(s).blur;
    return b;
}

int64_t gf_unsharp_threshold(const gf_step *s, int depth)
{
    return (int64_t)ceil(GF_UNSHARP_ARGS(s).threshold * gf_maxval(depth));
}

static double ns_unsharp(const gf_step *s)
{
    return 4.0 + 0.15 * GF_UNSHARP_ARGS(s).blur.radius;
}

const gf_op gf_op_unsharp = {
    .name = "unsharp",
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
    .bench = LIST("-unsharp 0x1", "-unsharp 0x5"),
};
