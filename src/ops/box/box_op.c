/* SPDX-License-Identifier: MIT */
/* The descriptor of -box: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "box.h"
#include "op.h"

gf_cpu_fn gf_cpu_box;
gf_fast_fn gf_fast_box;
GF_CUDA_OP(box);

static gf_status parse_box(gf_step *s, const char *arg)
{
    return gf_arg_radius("box", arg, GF_MAX_RADIUS, &GF_BOX_ARGS(s).radius);
}

static double ns_box(const gf_step *s)
{
    return 7.0;
}

const gf_op gf_op_box = {
    .name = "box",
    .arg = GF_ARG_REQUIRED,
    .metavar = "R",
    .help = "mean over the (2R+1)x(2R+1) window",
    .parse = parse_box,
    .cpu = gf_cpu_box,
    .fast = gf_fast_box,
    .cuda = CUDA(box),
    .cpu_ns = ns_box,
    .tests =
        LIST("-box 5", "-box 1", "-box 2", "-box 7", "-box 8", "-box 16", "-box 17", "-box 35", "-box 127", "-box 128"),
    .bench = LIST("-box 1", "-box 5", "-box 15", "-box 50"),
};
