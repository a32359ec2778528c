/* SPDX-License-Identifier: MIT */
/* What src/ops/<op>/<op>.cu may use of the CUDA back end (src/gpu/cuda.c), C types
 * only.  Images are packed (stride = width * channels * bytes) in device
 * memory, 256-byte aligned. */
#ifndef GF_KERNELS_H
#define GF_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stream every op of a chain enqueues on. */
cudaStream_t gf_cuda_stream(struct gf_cuda *cu);
/* Device scratch of at least `bytes` for the current step (`what` names it
 * in an out-of-memory message); its contents do not outlive the step. */
gf_status gf_cuda_scratch(struct gf_cuda *cu, size_t bytes, const char *what, void **p);
/* Copies `bytes` of host data (blur taps) to device memory kept until the next call. */
gf_status gf_cuda_upload(struct gf_cuda *cu, const void *host, size_t bytes, void **p);
/* GF_OK, or the CUDA error `e` of `what` as a gf_status with its detail. */
gf_status gf_cuda_status(cudaError_t e, const char *what);

/* Kernels one op borrows from another. */
/* The eight symmetries (orient.cu), for -rotate at right angles. */
cudaError_t gf_orient_launch(const gf_image *in, gf_image *out, enum gf_orient o, cudaStream_t st);
/* The index in gf_cuda_orient.paths of the kernels gf_orient_launch takes. */
int gf_orient_path(const gf_image *in, enum gf_orient o);
/* The blur (blur.cu), for -unsharp: its kernels for a -blur step. */
extern const gf_cuda_op gf_cuda_blur;
/* counts[ch * bins + b] (zeroed here) of the samples >> (depth - log2 bins) (histogram.cu). */
cudaError_t gf_histogram_launch(const gf_image *in, int bins, unsigned long long *d_counts, cudaStream_t st);

#ifdef __cplusplus
}
#endif
#endif
