/* SPDX-License-Identifier: MIT */
#ifndef GF_PIPELINE_H
#define GF_PIPELINE_H

#include "cli.h"
#include "cuda.h"

double gf_now_ms(void);
/* Prints one -v timing line: "gpufilter: NAME: STAGE 1.234 ms INFO". */
void gf_timing(const char *name, const char *stage, double ms, const char *info);

/* Runs the steps on the CPU, each from one image into the next. */
gf_status gf_pipeline_cpu(const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                          const char *name);

/* Reads, decodes, filters (on `cu` when not NULL) and writes one image:
 * the whole single-image flow. */
gf_status gf_process(const gf_plan *plan, gf_cuda *cu, const char *input, const char *output,
                     const char **failed_name);

#endif
