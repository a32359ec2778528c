/* SPDX-License-Identifier: MIT */
/* The descriptor of -grayscale: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grayscale.h"
#include "op.h"

gf_cpu_fn gf_cpu_grayscale;
gf_fast_fn gf_fast_grayscale;
GF_CUDA_OP(grayscale);

static gf_status parse_grayscale(gf_step *s, const char *arg)
{
    static const char *const names[] = {"rec601", "rec709", "average"};
    for (int i = 0; i < 3; i++)
        if (!arg || !strcasecmp(arg, names[i])) {
            GF_GRAYSCALE_ARGS(s).weights = (enum gf_gray_weights)i;
            return GF_OK;
        }
    return gf_error(GF_EINVAL, "invalid -grayscale variant '%s' (want rec601, rec709 or average)", arg);
}

static gf_status shape_grayscale(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    (void)s;
    *out = *in;
    out->channels = gf_has_alpha(in->channels) ? 2 : 1;
    return GF_OK;
}

const gf_op gf_op_grayscale = {
    .name = "grayscale",
    .arg = GF_ARG_OPTIONAL,
    .metavar = "[=rec601|rec709|average]",
    .help = "colour to one channel: Rec.601 luma (default), Rec.709 luma or the mean; alpha kept",
    .parse = parse_grayscale,
    .shape = shape_grayscale,
    .cpu = gf_cpu_grayscale,
    .fast = gf_fast_grayscale,
    .cuda = CUDA(grayscale),
    .cpu_ns = gf_ns_count,
    .tests = LIST("-grayscale", "-grayscale=rec709", "-grayscale=average"),
    .bench = LIST("-grayscale"),
};
