/* SPDX-License-Identifier: MIT */
/* The CUDA back end (src/gpu/cuda.c): device choice, device buffers, the
 * pipeline resident on the GPU.  Host C only; kernels live in src/ops/<op>/. */
#ifndef GF_CUDA_H
#define GF_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "ops.h"

typedef struct gf_cuda gf_cuda;

/* Opens CUDA device `index` (-1: device 0 if any works).  GF_ENODEV when
 * there is no driver or device; built without CUDA, always GF_ENODEV. */
gf_status gf_cuda_open(int index, gf_cuda **out);
void gf_cuda_close(gf_cuda *cu);
/* Number of CUDA devices (GF_ENODEV, with the detail, when none works). */
gf_status gf_cuda_count(int *n);
/* Makes `cu` a batch lane: transfers go through a reused page-locked buffer.
 * Each gf_cuda has its own stream and buffers, so several lanes on one device
 * overlap the uploads, kernels and downloads of different images; a lane may
 * be used from any thread, one at a time. */
void gf_cuda_use_pinned(gf_cuda *cu);
/* A pool of page-locked host memory for one batch worker's images (see
 * gf_image_use_allocator), allocated for `device`; lanes move such images
 * without a copy.  Bounded in all (4 GiB): beyond that, malloc.  NULL when
 * out of memory or without CUDA. */
gf_host_alloc *gf_cuda_pinned_pool(int device);
void gf_cuda_pinned_pool_free(gf_host_alloc *a);
/* Makes a free block of at least `bytes` ready in the pool (best effort),
 * so that the allocation it is for costs nothing later. */
void gf_cuda_pinned_prepare(gf_host_alloc *a, size_t bytes);
/* Allocates the two page-locked chunks a single image's transfers go
 * through (best effort; without them, the driver's pageable path), so that
 * its first transfer need not wait for them.  Not for batch lanes. */
void gf_cuda_prepare_transfers(gf_cuda *cu);
const char *gf_cuda_device_name(const gf_cuda *cu);
int gf_cuda_device_index(const gf_cuda *cu);
/* The device's memory in bytes. */
size_t gf_cuda_device_memory(const gf_cuda *cu);
/* Runtime and driver versions for --version. */
void gf_cuda_versions(char *buf, size_t size);

/* Uploads *img, runs the steps on the device, downloads the result into a
 * new *img (the old one freed).  Output shapes are checked against `limit`;
 * `verbose` prints each stage's time (and each op's kernel path) under `name`. */
gf_status gf_cuda_run(gf_cuda *cu, const gf_step *steps, int nsteps, gf_image *img, uint64_t limit,
                      int verbose, const char *name);

/* The chain on an image that arrives on the device by other means (a GPU
 * codec): gf_cuda_begin checks the steps and limits and sizes the buffers for
 * an input of `shape`, and says where to put it; gf_cuda_chain then runs the
 * steps on it, leaving the result in *dev (device memory, good until the
 * next call on `cu`); gf_cuda_download copies such a result into a new host
 * image.  All on the calling thread, which uses `cu` alone meanwhile. */
gf_status gf_cuda_begin(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, uint64_t limit, void **input);
gf_status gf_cuda_chain(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, gf_image *dev);
gf_status gf_cuda_download(gf_cuda *cu, const gf_image *dev, gf_image *host);

#endif
