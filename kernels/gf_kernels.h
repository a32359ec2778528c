/* SPDX-License-Identifier: MIT */
/* The C interface of all kernels: one launcher per op, C types only.
 * Images are packed (stride = width * channels * bytes) in device memory.
 * Every launcher checks its launches and returns the first CUDA error. */
#ifndef GF_KERNELS_H
#define GF_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "image.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel choice: the shared-memory tiled kernels, or the straightforward
 * global-memory ones (the benchmark's baseline; results are identical). */
enum gf_kernel_variant { GF_KERNEL_TILED = 0, GF_KERNEL_NAIVE = 1 };

/* Bytes of device scratch each launcher needs (0: none). */
size_t gf_blur_scratch_bytes(const gf_image *in);
size_t gf_box_scratch_bytes(const gf_image *in, int radius, int variant);
size_t gf_equalize_scratch_bytes(const gf_image *in);

/* centre_tap = taps[0] picks the kernels (the others, counted twice, are at most half the sum) */
cudaError_t gf_blur_launch(const gf_image *in, gf_image *out, void *scratch, const uint32_t *d_taps,
                           uint32_t centre_tap, int radius, int border, int variant, cudaStream_t s);
cudaError_t gf_box_launch(const gf_image *in, gf_image *out, void *scratch, int radius, int border, int variant,
                          cudaStream_t s);
cudaError_t gf_laplacian_launch(const gf_image *in, gf_image *out, int kernel4, int border, int variant,
                                cudaStream_t s);
cudaError_t gf_orient_launch(const gf_image *in, gf_image *out, int orient, cudaStream_t s);
cudaError_t gf_rotate_launch(const gf_image *in, gf_image *out, double ca, double sa, const uint32_t bg[4],
                             cudaStream_t s);
/* counts[ch * bins + b], zeroed by the launcher. */
cudaError_t gf_histogram_launch(const gf_image *in, int bins, unsigned long long *d_counts, cudaStream_t s);
cudaError_t gf_equalize_launch(const gf_image *in, gf_image *out, void *scratch, cudaStream_t s);

#ifdef __cplusplus
}
#endif
#endif
