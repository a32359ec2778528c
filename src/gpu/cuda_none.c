/* SPDX-License-Identifier: MIT */
/* The CUDA entry points of a CPU-only build (--disable-cuda, or no nvcc):
 * there is never a device, so `-device auto` runs on the CPU and
 * `-device cuda` fails with a clear message. */
#include "config.h"

#include <stdio.h>

#include "cuda.h"

gf_status gf_cuda_open(int index, gf_cuda **out)
{
    (void)index;
    *out = NULL;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}

gf_status gf_cuda_count(int *n)
{
    *n = 0;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}

void gf_cuda_prepare_transfers(gf_cuda *cu)
{
    (void)cu;
}

void gf_cuda_use_pinned(gf_cuda *cu)
{
    (void)cu;
}

gf_host_alloc *gf_cuda_pinned_pool(int device)
{
    (void)device;
    return NULL;
}

void gf_cuda_pinned_pool_free(gf_host_alloc *a)
{
    (void)a;
}

void gf_cuda_pinned_prepare(gf_host_alloc *a, size_t bytes)
{
    (void)a, (void)bytes;
}

void gf_cuda_close(gf_cuda *cu)
{
    (void)cu;
}

const char *gf_cuda_device_name(const gf_cuda *cu)
{
    (void)cu;
    return "no device";
}

int gf_cuda_device_index(const gf_cuda *cu)
{
    (void)cu;
    return -1;
}

size_t gf_cuda_device_memory(const gf_cuda *cu)
{
    (void)cu;
    return 0;
}

void gf_cuda_versions(char *buf, size_t size)
{
    snprintf(buf, size, "CUDA: not built in (configured with --disable-cuda or without nvcc)");
}

gf_status gf_cuda_run(gf_cuda *cu, const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                      const char *name)
{
    (void)cu, (void)steps, (void)nsteps, (void)img, (void)limit, (void)verbose, (void)name;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}

gf_status gf_cuda_begin(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, uint64_t limit, void **input)
{
    (void)cu, (void)steps, (void)nsteps, (void)shape, (void)limit;
    *input = NULL;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}

gf_status gf_cuda_chain(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, gf_image *dev)
{
    (void)cu, (void)steps, (void)nsteps, (void)shape, (void)dev;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}

gf_status gf_cuda_download(gf_cuda *cu, const gf_image *dev, gf_image *host)
{
    (void)cu, (void)dev, (void)host;
    return gf_error(GF_ENODEV, "this gpufilter was built without CUDA support");
}
