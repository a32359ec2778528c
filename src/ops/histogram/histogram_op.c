/* SPDX-License-Identifier: MIT */
/* The descriptors of -histogram, -equalize: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "op.h"

gf_cpu_fn gf_cpu_equalize;
gf_fast_fn gf_fast_equalize;
GF_CUDA_OP(equalize);
gf_cpu_fn gf_cpu_histogram;
gf_fast_fn gf_fast_histogram;
GF_CUDA_OP(histogram);

const gf_op gf_op_histogram = {
    .name = "histogram",
    .arg = GF_ARG_REQUIRED,
    .metavar = "FILE",
    .help = "write the histogram here (.csv, .json, .png chart, else text; - stdout); image unchanged",
    .parse = gf_parse_report,
    .cpu = gf_cpu_histogram,
    .fast = gf_fast_histogram,
    .cuda = CUDA(histogram),
    .passthrough = 1,
    .cpu_ns = gf_ns_count,
    .tests = LIST("-histogram h.csv", "-bins 16 -histogram h.txt", "-bins 1024 -histogram h.json",
                  "-bins 65536 -histogram h.csv"),
    .bench = LIST("-histogram /dev/null"),
};
const gf_op gf_op_equalize = {
    .name = "equalize",
    .arg = GF_ARG_NONE,
    .help = "histogram equalisation, each colour channel on its own",
    .cpu = gf_cpu_equalize,
    .fast = gf_fast_equalize,
    .cuda = CUDA(equalize),
    .cpu_ns = gf_ns_count,
    .tests = LIST("-equalize"),
    .bench = LIST("-equalize"),
};
