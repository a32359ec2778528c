/* SPDX-License-Identifier: MIT */
/* The descriptor of -laplacian: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "laplacian.h"
#include "op.h"

gf_cpu_fn gf_cpu_laplacian;
gf_fast_fn gf_fast_laplacian;
GF_CUDA_OP(laplacian);

static gf_status parse_laplacian(gf_step *s, const char *arg)
{
    if (!arg || !strcmp(arg, "8"))
        GF_LAPLACIAN_ARGS(s).neighbours = 8;
    else if (!strcmp(arg, "4"))
        GF_LAPLACIAN_ARGS(s).neighbours = 4;
    else
        return gf_error(GF_EINVAL, "invalid -laplacian variant '%s' (want 4 or 8)", arg);
    return GF_OK;
}

static double ns_laplacian(const gf_step *s)
{
    return 4.0;
}

const gf_op gf_op_laplacian = {
    .name = "laplacian",
    .arg = GF_ARG_OPTIONAL,
    .metavar = "[=4]",
    .help = "Laplacian edges, |8-neighbour| (=4: 4-neighbour) response",
    .parse = parse_laplacian,
    .cpu = gf_cpu_laplacian,
    .fast = gf_fast_laplacian,
    .cuda = CUDA(laplacian),
    .cpu_ns = ns_laplacian,
    .tests = LIST("-laplacian", "-laplacian=4"),
    .bench = LIST("-laplacian", "-laplacian=4"),
};
