/* SPDX-License-Identifier: MIT */
/* The descriptor of -negate: CPU cost and test and benchmark fragments (no
 * argument, the input's shape). */
#include "config.h"

#include "op.h"

gf_cpu_fn gf_cpu_negate;
gf_fast_fn gf_fast_negate;
GF_CUDA_OP(negate);

const gf_op gf_op_negate = {
    .name = "negate",
    .arg = GF_ARG_NONE,
    .help = "each colour channel v to max - v (alpha kept), as ImageMagick's -negate",
    .cpu = gf_cpu_negate,
    .fast = gf_fast_negate,
    .cuda = CUDA(negate),
    .cpu_ns = gf_ns_move,
    .tests = LIST("-negate"),
    .bench = LIST("-negate"),
    .in_place = 1,
};
