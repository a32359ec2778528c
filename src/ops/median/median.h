/* SPDX-License-Identifier: MIT */
/* -median's limits (its arguments are rank.h's). */
#ifndef GF_OPS_MEDIAN_H
#define GF_OPS_MEDIAN_H

#include "ops.h"
#include "rank/rank.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GF_MEDIAN_MAX 15 /* -median's largest radius */

#ifdef __cplusplus
}
#endif
#endif
