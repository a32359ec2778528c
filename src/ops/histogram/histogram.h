/* SPDX-License-Identifier: MIT */
/* The counts and tables of -histogram and -equalize (-histogram's arguments are ops.h's gf_report_args). */
#ifndef GF_OPS_HISTOGRAM_H
#define GF_OPS_HISTOGRAM_H

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* -histogram FILE: the report's arguments, and its -bins setting (0: 256). */
struct gf_histogram_args {
    struct gf_report_args report;
    int bins;
};
GF_ARGS_FIT(struct gf_histogram_args);
#define GF_HISTOGRAM_ARGS(step) GF_ARGS(step, struct gf_histogram_args)
/* Histogram: counts[ch * bins + b]; bins a power of two <= 2^depth (the
 * step's -bins, else 256, at most 2^depth); written by gf_histogram_write
 * (src/ops/histogram/histogram_ref.c). */
gf_status gf_histogram_count(const gf_image *img, int bins, uint64_t *counts);
gf_status gf_histogram_write(const char *path, const gf_image *img, int bins, const uint64_t *counts);
int gf_histogram_bins(const gf_step *s, int depth);
/* Equalisation lookup tables lut[ch * (maxval+1) + v] from full-resolution counts. */
void gf_equalize_luts(const gf_image *img, const uint64_t *counts, uint32_t *lut);

#ifdef __cplusplus
}
#endif
#endif
