// SPDX-License-Identifier: MIT
// Histogram equalisation, identical to src/cpu/equalize.c, in three kernels:
//  1. the full-resolution histogram (histogram.cu);
//  2. per channel, one block of 1024 threads scans the counts (the scan
//     pattern: each thread sums a contiguous chunk of levels, the block scans
//     the 1024 chunk sums in shared memory (Hillis-Steele, log2(1024) steps,
//     double-buffered), then each thread rescans its chunk from its offset)
//     and writes the curve gf_equalize_value() as a lookup table; alpha gets
//     the identity;
//  3. one thread per sample maps it through its channel's table.
#include "kernel_util.cuh"

namespace {

constexpr int SCAN_THREADS = 1024;

__global__ void equalize_lut(const unsigned long long *__restrict__ counts, uint32_t *__restrict__ lut, int levels,
                             int channels, unsigned long long n)
{
    __shared__ unsigned long long s_sum[2][SCAN_THREADS];
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
    unsigned long long sum = 0;
    for (int v = lo; v < hi; v++) {
        sum += h[v];
        if (h[v] && sum == h[v]) // first non-zero level of this chunk
            atomicMin(&s_first, v);
    }
    s_sum[0][t] = sum;
    __syncthreads();
    int src = 0;
    for (int off = 1; off < SCAN_THREADS; off <<= 1) { // inclusive scan of the chunk sums
        s_sum[1 - src][t] = s_sum[src][t] + (t >= off ? s_sum[src][t - off] : 0);
        src = 1 - src;
        __syncthreads();
    }
    const unsigned long long cmin = s_first < levels ? h[s_first] : 0; // an empty histogram cannot occur
    unsigned long long cdf = s_sum[src][t] - sum; // exclusive prefix
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

} // namespace

extern "C" size_t gf_equalize_scratch_bytes(const gf_image *in)
{
    const size_t levels = (size_t)gf_maxval(in->depth) + 1;
    return (size_t)in->channels * levels * (sizeof(unsigned long long) + sizeof(uint32_t));
}

extern "C" cudaError_t gf_equalize_launch(const gf_image *in, gf_image *out, void *scratch, cudaStream_t st)
{
    const int levels = (int)gf_maxval(in->depth) + 1;
    unsigned long long *counts = (unsigned long long *)scratch;
    uint32_t *lut = (uint32_t *)(counts + (size_t)in->channels * levels);
    cudaError_t e = gf_histogram_launch(in, levels, counts, st);
    if (e != cudaSuccess)
        return e;
    equalize_lut<<<in->channels, SCAN_THREADS, 0, st>>>(counts, lut, levels, in->channels,
                                                         (unsigned long long)in->width * in->height);
    GF_LAUNCH_CHECK();
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const size_t n = gf_samples(in);
        equalize_apply<T, C><<<gf_blocks(n, 256), 256, 0, st>>>((const T *)in->data, (T *)out->data, n, lut, levels);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
