// SPDX-License-Identifier: MIT
// Helpers shared by the kernels: launch checking, depth/channel dispatch.
#ifndef GF_KERNEL_UTIL_CUH
#define GF_KERNEL_UTIL_CUH

#include <cstdint>

#include "gf_kernels.h"
#include "numeric.h"

#define GF_LAUNCH_CHECK()                                                                                              \
    do {                                                                                                               \
        cudaError_t e_ = cudaGetLastError();                                                                           \
        if (e_ != cudaSuccess)                                                                                         \
            return e_;                                                                                                 \
    } while (0)

static inline unsigned gf_blocks(size_t n, unsigned per)
{
    return (unsigned)((n + per - 1) / per);
}

static inline size_t gf_samples(const gf_image *img)
{
    return (size_t)img->width * img->height * img->channels;
}

// Calls F.template operator()<T, C>() for the image's sample type and channel count.
template <typename F> static cudaError_t gf_dispatch(const gf_image *img, F &&f)
{
    if (img->depth == 8) {
        switch (img->channels) {
        case 1: return f.template operator()<uint8_t, 1>();
        case 2: return f.template operator()<uint8_t, 2>();
        case 3: return f.template operator()<uint8_t, 3>();
        default: return f.template operator()<uint8_t, 4>();
        }
    }
    switch (img->channels) {
    case 1: return f.template operator()<uint16_t, 1>();
    case 2: return f.template operator()<uint16_t, 2>();
    case 3: return f.template operator()<uint16_t, 3>();
    default: return f.template operator()<uint16_t, 4>();
    }
}

// Opt a kernel into more than 48 KB of dynamic shared memory when asked; false if it cannot fit.
template <typename K> static bool gf_fit_smem(K kernel, size_t bytes)
{
    int dev = 0, optin = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) != cudaSuccess)
        return false;
    if (bytes > (size_t)optin)
        return false;
    if (bytes > 48 * 1024 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) != cudaSuccess) {
        (void)cudaGetLastError(); // not sticky: clear it, the caller falls back
        return false;
    }
    return true;
}

#endif
