// SPDX-License-Identifier: MIT
// The benchmark's read pass and empty kernel (readpass.h).
//
// Three launch shapes of the read pass (threads a block x blocks an SM x
// 16-byte loads a thread in flight): a thread a word (no loop), 512 x 4 x 2
// and 1024 x 2 x 4; gfbench reports the fastest.
#include "readpass.h"

#include <cstdint>

#include "kernel_util.cuh"

namespace
{

template <int L>
__global__ void read_pass(const uint4 *__restrict__ p, size_t words, const uint8_t *__restrict__ tail, int ntail,
                          unsigned *sink)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t acc = 0;
    for (; k + (L - 1) * stride < words; k += L * stride) {
        uint4 v[L];
#pragma unroll
        for (int i = 0; i < L; i++)
            v[i] = p[k + i * stride];
#pragma unroll
        for (int i = 0; i < L; i++)
            acc ^= v[i].x ^ v[i].y ^ v[i].z ^ v[i].w;
    }
    for (; k < words; k += stride) {
        const uint4 v = p[k];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (blockIdx.x == 0 && (int)threadIdx.x < ntail)
        acc ^= tail[threadIdx.x];
    if (acc == 0x9e3779b9u)
        *sink = acc;
}

__global__ void empty_kernel() {}

} // namespace

extern "C" cudaError_t gfb_read_pass(const void *data, size_t bytes, int shape, unsigned *sink, cudaStream_t st)
{
    int sms = 0;
    const cudaError_t e = gf_sm_count(&sms);
    if (e != cudaSuccess)
        return e;
    const size_t words = bytes / 16;
    const uint8_t *tail = (const uint8_t *)data + words * 16;
    const int ntail = (int)(bytes % 16);
    const uint4 *p = (const uint4 *)data;
    switch (shape) {
    case 0: { // a thread a word, while the grid allows
        const size_t blocks = words / 256 + 1;
        read_pass<1>
            <<<(unsigned)(blocks < 0x7fffffffu ? blocks : 0x7fffffffu), 256, 0, st>>>(p, words, tail, ntail, sink);
        break;
    }
    case 1: read_pass<2><<<4u * sms, 512, 0, st>>>(p, words, tail, ntail, sink); break;
    default: read_pass<4><<<2u * sms, 1024, 0, st>>>(p, words, tail, ntail, sink); break;
    }
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

extern "C" cudaError_t gfb_empty_kernel(cudaStream_t st)
{
    empty_kernel<<<1, 32, 0, st>>>();
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}
