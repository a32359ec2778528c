/* SPDX-License-Identifier: MIT */
/* The descriptors of -transpose, -transverse, -flip, -flop: arguments, shape, CPU cost and test and benchmark
 * fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"
#include "orient.h"

gf_cpu_fn gf_cpu_orient;
gf_fast_fn gf_fast_orient;
GF_CUDA_OP(orient);

#define ORIENT_PARSER(name, value)                                                                                     \
    static gf_status parse_##name(gf_step *s, const char *arg)                                                         \
    {                                                                                                                  \
        (void)arg;                                                                                                     \
        GF_ORIENT_ARGS(s).orient = value;                                                                              \
        return GF_OK;                                                                                                  \
    }
ORIENT_PARSER(transpose, GF_ORIENT_TRANSPOSE)
ORIENT_PARSER(transverse, GF_ORIENT_TRANSVERSE)
ORIENT_PARSER(flip, GF_ORIENT_FLIP)
ORIENT_PARSER(flop, GF_ORIENT_FLOP)

static gf_status shape_orient(const gf_step *s, const gf_shape *in, gf_shape *out)
{
    gf_swap_sides(GF_ORIENT_ARGS(s).orient, in, out);
    return GF_OK;
}

const gf_op gf_op_transpose = {
    .name = "transpose",
    .arg = GF_ARG_NONE,
    .help = "mirror along the top-left to bottom-right diagonal",
    .parse = parse_transpose,
    .shape = shape_orient,
    .cpu = gf_cpu_orient,
    .fast = gf_fast_orient,
    .cuda = CUDA(orient),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-transpose"),
    .bench = LIST("-transpose"),
};
const gf_op gf_op_transverse = {
    .name = "transverse",
    .arg = GF_ARG_NONE,
    .help = "mirror along the top-right to bottom-left diagonal",
    .parse = parse_transverse,
    .shape = shape_orient,
    .cpu = gf_cpu_orient,
    .fast = gf_fast_orient,
    .cuda = CUDA(orient),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-transverse"),
    .bench = LIST("-transverse"),
};
const gf_op gf_op_flip = {
    .name = "flip",
    .arg = GF_ARG_NONE,
    .help = "mirror top-bottom",
    .parse = parse_flip,
    .shape = shape_orient,
    .cpu = gf_cpu_orient,
    .fast = gf_fast_orient,
    .cuda = CUDA(orient),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-flip"),
    .bench = LIST("-flip"),
};
const gf_op gf_op_flop = {
    .name = "flop",
    .arg = GF_ARG_NONE,
    .help = "mirror left-right",
    .parse = parse_flop,
    .shape = shape_orient,
    .cpu = gf_cpu_orient,
    .fast = gf_fast_orient,
    .cuda = CUDA(orient),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-flop"),
    .bench = LIST("-flop"),
};
