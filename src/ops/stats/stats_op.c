/* SPDX-License-Identifier: MIT */
/* The descriptor of -stats: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"

gf_cpu_fn gf_cpu_stats;
GF_CUDA_OP(stats);

const gf_op gf_op_stats = {
    .name = "stats",
    .arg = GF_ARG_REQUIRED,
    .metavar = "FILE",
    .help = "write each channel's min, max, mean, standard deviation and sum here (.csv, .json, else text; - stdout)",
    .parse = gf_parse_report,
    .cpu = gf_cpu_stats,
    .cuda = CUDA(stats),
    .passthrough = 1,
    .cpu_ns = gf_ns_count,
    .tests = LIST("-stats s.txt", "-stats s.json", "-stats s.csv"),
    .bench = LIST("-stats /dev/null"),
};
