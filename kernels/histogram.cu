// SPDX-License-Identifier: MIT
// Histogram: exact counts per channel, identical to src/cpu/histogram.c.
//
// Privatised: each block of 512 threads keeps its own C x bins histogram of
// 32-bit counters in shared memory (while C * bins * 4 bytes fit in 48 KB:
// every 8-bit case and 16-bit with up to 2048 bins), walks a grid-stride
// share of the pixels with shared-memory atomics, and merges into the global
// 64-bit counts once, one atomic per non-zero bin.  A block owns at most
// 2^31 samples, so its 32-bit counters cannot overflow.  Larger histograms
// (16-bit at full resolution, for -equalize) count with global atomics.
#include "kernel_util.cuh"

namespace {

constexpr int THREADS = 512;

template <typename T, int C>
__global__ void hist_shared(const T *__restrict__ in, size_t pixels, int bins, int shift,
                            unsigned long long *__restrict__ counts)
{
    extern __shared__ unsigned int s_hist[];
    for (int i = threadIdx.x; i < C * bins; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < pixels; p += (size_t)gridDim.x * blockDim.x)
#pragma unroll
        for (int c = 0; c < C; c++)
            atomicAdd(&s_hist[c * bins + (in[p * C + c] >> shift)], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < C * bins; i += blockDim.x)
        if (s_hist[i])
            atomicAdd(&counts[i], (unsigned long long)s_hist[i]);
}

template <typename T, int C>
__global__ void hist_global(const T *__restrict__ in, size_t pixels, int bins, int shift,
                            unsigned long long *__restrict__ counts)
{
    for (size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x; p < pixels; p += (size_t)gridDim.x * blockDim.x)
#pragma unroll
        for (int c = 0; c < C; c++)
            atomicAdd(&counts[(size_t)c * bins + (in[p * C + c] >> shift)], 1ull);
}

} // namespace

extern "C" cudaError_t gf_histogram_launch(const gf_image *in, int bins, unsigned long long *d_counts, cudaStream_t st)
{
    int shift = 0;
    while ((1 << (in->depth - shift)) > bins)
        shift++;
    cudaError_t e = cudaMemsetAsync(d_counts, 0, sizeof *d_counts * (size_t)in->channels * bins, st);
    if (e != cudaSuccess)
        return e;
    int dev = 0, sms = 1;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return e;
    const size_t pixels = (size_t)in->width * in->height;
    const size_t smem = (size_t)in->channels * bins * 4;
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const T *src = (const T *)in->data;
        unsigned blocks = gf_blocks(pixels, THREADS);
        if (smem <= 48 * 1024) {
            blocks = blocks < 4u * sms ? blocks : 4u * sms; // a few blocks per SM: merges stay cheap
            hist_shared<T, C><<<blocks, THREADS, smem, st>>>(src, pixels, bins, shift, d_counts);
        } else {
            blocks = blocks < 16u * sms ? blocks : 16u * sms;
            hist_global<T, C><<<blocks, THREADS, 0, st>>>(src, pixels, bins, shift, d_counts);
        }
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
