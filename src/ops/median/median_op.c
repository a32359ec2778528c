/* SPDX-License-Identifier: MIT */
/* The descriptor of -median: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "median.h"
#include "op.h"
#include "rank/rank.h"

gf_cpu_fn gf_cpu_median;
gf_fast_fn gf_fast_median;
GF_CUDA_OP(median);

static gf_status parse_median(gf_step *s, const char *arg)
{
    return gf_arg_radius("median", arg, GF_MEDIAN_MAX, &GF_RANK_ARGS(s).radius);
}

static double ns_median(const gf_step *s) /* the reference counts each 8-bit window into bins */
{
    const double n = (2.0 * GF_RANK_ARGS(s).radius + 1) * (2.0 * GF_RANK_ARGS(s).radius + 1);
    return 100.0 + 2.0 * n;
}

const gf_op gf_op_median = {
    .name = "median",
    .arg = GF_ARG_REQUIRED,
    .metavar = "R",
    .help = "median over the (2R+1)x(2R+1) window, R up to 15",
    .parse = parse_median,
    .cpu = gf_cpu_median,
    .fast = gf_fast_median,
    .cuda = CUDA(median),
    .cpu_ns = ns_median,
    .tests = LIST("-median 1", "-median 2", "-median 5", "-median 8"),
    .bench = LIST("-median 1", "-median 2", "-median 7"),
};
