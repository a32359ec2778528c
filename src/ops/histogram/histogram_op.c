/* SPDX-License-Identifier: MIT */
/* The descriptors of -histogram, -equalize: arguments, shape, CPU cost and test and benchmark fragments. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "histogram.h"
#include "op.h"

gf_cpu_fn gf_cpu_equalize;
gf_fast_fn gf_fast_equalize;
GF_CUDA_OP(equalize);
gf_cpu_fn gf_cpu_histogram;
gf_fast_fn gf_fast_histogram;
GF_CUDA_OP(histogram);

/* -bins N: -histogram's bins for 16-bit images, a power of two up to 65536. */
static gf_status apply_bins(gf_step *s, const char *a)
{
    long long v;
    if (gf_arg_integer(a, 1, 65536, &v) || (v & (v - 1)))
        return gf_error(GF_EINVAL, "invalid -bins '%s' (want a power of two up to 65536)", a);
    GF_HISTOGRAM_ARGS(s).bins = (int)v;
    return GF_OK;
}

static const gf_op_setting bins = {
    .name = "bins",
    .metavar = "N",
    .help = "histogram bins for 16-bit images, a power of two up to 65536 (256)",
    .apply = apply_bins,
};

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
    .settings = SETTINGS(&bins),
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
