/* SPDX-License-Identifier: MIT */
/* The benchmark's floors beside the copy ceiling: a pass that only reads the
 * image (what a histogram cannot beat) and an empty kernel (what any launch
 * costs, timed the same way). */
#ifndef GF_BENCH_READPASS_H
#define GF_BENCH_READPASS_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The launch shapes of the read pass; gfbench reports the fastest. */
#define GFB_READ_SHAPES 3

/* Reads `bytes` bytes at `data` (16-byte aligned) once, with launch shape
 * `shape` (0 .. GFB_READ_SHAPES - 1); `sink` (4 bytes of device memory) is
 * written only if the bytes' XOR is a magic value, so that no load is dead. */
cudaError_t gfb_read_pass(const void *data, size_t bytes, int shape, unsigned *sink, cudaStream_t st);

/* One block of one warp that does nothing. */
cudaError_t gfb_empty_kernel(cudaStream_t st);

#ifdef __cplusplus
}
#endif

#endif
