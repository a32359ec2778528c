// SPDX-License-Identifier: MIT
// Histogram equalisation, identical to src/ops/histogram/equalize_ref.c, in three kernels:
//  1. the full-resolution histogram (histogram.cu);
//  2. per channel, one block of 1024 threads scans the counts (each thread
//     sums a contiguous chunk of levels, CUB's block scan gives each its
//     offset, then each thread rescans its chunk from there) and writes the
//     curve gf_equalize_value() as a lookup table; alpha gets the identity;
//  3. the samples mapped through their channel's table: 8-bit images whose
//     buffers are 16-byte aligned by equalize_apply8 (below), the rest one
//     thread per sample.
#include <cub/block/block_scan.cuh>

#include "histogram.h"
#include "kernel_util.cuh"

namespace {

constexpr int SCAN_THREADS = 1024;

__global__ void __launch_bounds__(SCAN_THREADS)
    equalize_lut(const unsigned long long *__restrict__ counts, uint32_t *__restrict__ lut, int levels, int channels,
                 unsigned long long n)
{
    using Scan = cub::BlockScan<unsigned long long, SCAN_THREADS>;
    __shared__ typename Scan::TempStorage s_scan;
    __shared__ int s_first;
    const int c = blockIdx.x, t = threadIdx.x;
    const unsigned long long *h = counts + (size_t)c * levels;
    uint32_t *l = lut + (size_t)c * levels;
    const uint32_t maxval = (uint32_t)levels - 1;
    if ((channels == 2 || channels == 4) && c == channels - 1) {
        for (int v = t; v < levels; v += SCAN_THREADS)
            l[v] = (uint32_t)v;
        return;
    }
    const int chunk = (levels + SCAN_THREADS - 1) / SCAN_THREADS, lo = t * chunk, hi = min(levels, lo + chunk);
    if (t == 0)
        s_first = levels;
    __syncthreads();
    unsigned long long sum = 0, cdf;
    for (int v = lo; v < hi; v++) {
        sum += h[v];
        if (h[v] && sum == h[v]) // first non-zero level of this chunk
            atomicMin(&s_first, v);
    }
    Scan(s_scan).ExclusiveSum(sum, cdf);
    __syncthreads(); // s_first complete
    const unsigned long long cmin = s_first < levels ? h[s_first] : 0; // an empty histogram cannot occur
    for (int v = lo; v < hi; v++) {
        cdf += h[v];
        l[v] = gf_equalize_value(cdf, cmin, n, maxval, (uint32_t)v);
    }
}

template <typename T, int C>
__global__ void equalize_apply(const T *__restrict__ in, T *__restrict__ out, size_t samples,
                               const uint32_t *__restrict__ lut, int levels)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k < samples)
        out[k] = (T)lut[(size_t)(k % C) * levels + in[k]];
}

// 8-bit: each thread maps AU 16-byte words at a time (their loads issued
// together), grid-stride, through the tables in shared memory, a copy per
// lane: byte s of channel c's table lies in 32-bit word (c * 64 + s / 4) * 32
// + l of lane l's copy, that is in bank l, so the 32 lookups of a warp never
// share a bank (C x 8 KB).  The samples after the last whole word, fewer than
// 16, are mapped by block 0 from the table in global memory.
constexpr int AT = 256, AU = 4;

// The four samples of x (channel c0 for its first byte) through this lane's tables t.
template <int C> __device__ __forceinline__ uint32_t equalize_word(const uint8_t *t, uint32_t x, int c0)
{
    uint32_t v[4];
#pragma unroll
    for (int b = 0; b < 4; b++) {
        const uint32_t s = x >> (8 * b) & 0xff;
        const int c = C == 1 ? 0 : C == 3 ? (c0 + b) % 3 : b % C;
        v[b] = t[c * 8192 + ((s & 0xfc) << 5 | (s & 3))];
    }
    return gf_pack_bytes(v[0], v[1], v[2], v[3]);
}

template <int C>
__global__ void __launch_bounds__(AT) equalize_apply8(const uint4 *__restrict__ in, uint4 *__restrict__ out,
                                                      size_t samples, const uint32_t *__restrict__ lut)
{
    extern __shared__ uint32_t s_lut[]; // [C][64][32]
    // the entries' low bytes: those of levels below the first present are not
    // 8-bit values (no sample looks them up), and must not spill into their neighbours
    for (int i = threadIdx.x; i < C * 64 * 32; i += AT) {
        const uint32_t *l = lut + (i / 2048) * 256 + i / 32 % 64 * 4;
        s_lut[i] = gf_pack_bytes(l[0], l[1], l[2], l[3]);
    }
    __syncthreads();
    const uint8_t *t = (const uint8_t *)(s_lut + threadIdx.x % 32);
    const size_t words = samples / 16, stride = (size_t)gridDim.x * AT * AU;
    for (size_t k0 = (size_t)blockIdx.x * AT * AU + threadIdx.x; k0 < words; k0 += stride) {
        uint4 w[AU];
#pragma unroll
        for (int u = 0; u < AU; u++)
            if (k0 + u * AT < words)
                w[u] = in[k0 + u * AT];
#pragma unroll
        for (int u = 0; u < AU; u++) {
            const size_t k = k0 + u * AT;
            if (k >= words)
                break;
            const int c0 = C == 3 ? (int)(k % 3) : 0; // word k starts at sample 16 k: channel 16 k % 3 = k % 3
            out[k] = make_uint4(equalize_word<C>(t, w[u].x, c0), equalize_word<C>(t, w[u].y, (c0 + 1) % 3),
                                equalize_word<C>(t, w[u].z, (c0 + 2) % 3), equalize_word<C>(t, w[u].w, c0));
        }
    }
    if (blockIdx.x == 0 && threadIdx.x < samples % 16) {
        const size_t i = words * 16 + threadIdx.x;
        ((uint8_t *)out)[i] = (uint8_t)lut[(i % C) * 256 + ((const uint8_t *)in)[i]];
    }
}


enum path { APPLY, APPLY8 };
const char *const paths[] = {"a thread a sample", "16-byte words and tables per lane", nullptr};

int choose(const gf_step *, const gf_image *in)
{
    return in->depth == 8 ? APPLY8 : APPLY; // device buffers are 16-byte aligned
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int levels = (int)gf_maxval(in->depth) + 1;
    const size_t entries = (size_t)in->channels * levels;
    void *scratch;
    gf_status status = gf_cuda_scratch(cu, entries * (sizeof(unsigned long long) + sizeof(uint32_t)),
                                       "equalize tables", &scratch);
    if (status)
        return status;
    unsigned long long *counts = (unsigned long long *)scratch;
    uint32_t *lut = (uint32_t *)(counts + entries);
    const cudaStream_t st = gf_cuda_stream(cu);
    cudaError_t e = gf_histogram_launch(in, levels, counts, st);
    int sms = 1;
    if (e == cudaSuccess) {
        equalize_lut<<<in->channels, SCAN_THREADS, 0, st>>>(counts, lut, levels, in->channels,
                                                             (unsigned long long)in->width * in->height);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = gf_sm_count(&sms);
    if (e == cudaSuccess)
        e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
            const size_t n = gf_samples(in);
            if (choose(s, in) == APPLY8) {
                // as many blocks as fit the SMs at once, each taking an equal share of the words
                const size_t smem = (size_t)C * 8192;
                int per_sm = 0;
                cudaError_t oe = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, equalize_apply8<C>, AT, smem);
                if (oe != cudaSuccess)
                    return oe;
                const unsigned most = (unsigned)max(1, per_sm) * (unsigned)sms;
                const unsigned blocks = max(1u, min(gf_blocks(n / 16, AT * AU), most));
                equalize_apply8<C><<<blocks, AT, smem, st>>>((const uint4 *)in->data, (uint4 *)out->data, n, lut);
            } else {
                equalize_apply<T, C><<<gf_blocks(n, 256), 256, 0, st>>>((const T *)in->data, (T *)out->data, n, lut,
                                                                        levels);
            }
            GF_LAUNCH_CHECK();
            return cudaSuccess;
        });
    return gf_cuda_status(e, "equalize kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_equalize = {enqueue, nullptr, choose, paths};
