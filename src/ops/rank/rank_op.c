/* SPDX-License-Identifier: MIT */
/* The descriptors of -erode, -dilate: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"
#include "rank.h"

gf_cpu_fn gf_cpu_rank;
gf_fast_fn gf_fast_rank;
GF_CUDA_OP(rank);

static gf_status parse_erode(gf_step *s, const char *arg)
{
    return gf_parse_rank(s, arg, 0);
}

static gf_status parse_dilate(gf_step *s, const char *arg)
{
    return gf_parse_rank(s, arg, 1);
}

static double ns_rank(const gf_step *s) /* the reference: 2 (2R + 1) comparisons a sample */
{
    return 2.0 + 1.5 * (GF_RANK_ARGS(s).radius < 1000 ? GF_RANK_ARGS(s).radius : 1000);
}

const gf_op gf_op_erode = {
    .name = "erode",
    .arg = GF_ARG_REQUIRED,
    .metavar = "R",
    .help = "minimum over the (2R+1)x(2R+1) window",
    .parse = parse_erode,
    .cpu = gf_cpu_rank,
    .fast = gf_fast_rank,
    .cuda = CUDA(rank),
    .cpu_ns = ns_rank,
    .tests = LIST("-erode 2", "-erode 1", "-erode 7", "-erode 40", "-erode 120"),
    .bench = LIST("-erode 1", "-erode 5", "-erode 15"),
};
const gf_op gf_op_dilate = {
    .name = "dilate",
    .arg = GF_ARG_REQUIRED,
    .metavar = "R",
    .help = "maximum over the (2R+1)x(2R+1) window",
    .parse = parse_dilate,
    .cpu = gf_cpu_rank,
    .fast = gf_fast_rank,
    .cuda = CUDA(rank),
    .cpu_ns = ns_rank,
    .tests = LIST("-dilate 2", "-dilate 1", "-dilate 16", "-dilate 60"),
    .bench = LIST("-dilate 5"),
};
