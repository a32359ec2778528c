/* SPDX-License-Identifier: MIT */
/* -stats's moments and their writer (its arguments are ops.h's gf_report_args). */
#ifndef GF_OPS_STATS_H
#define GF_OPS_STATS_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -stats: one channel's exact moments; written with its mean and standard
 * deviation (population) computed from them (src/ops/stats/stats_ref.c). */
typedef struct gf_channel_stats {
    uint32_t min, max;
    uint64_t sum;
    unsigned __int128 sumsq;
} gf_channel_stats;
gf_status gf_stats_write(const char *path, const gf_image *img, const gf_channel_stats *st);

#ifdef __cplusplus
}
#endif
#endif
