// SPDX-License-Identifier: MIT
// Histogram: exact counts per channel, identical to src/cpu/histogram.c.
//
// Privatised: each block of 512 threads keeps its own C x bins histogram of
// 32-bit counters in shared memory (while C * bins * 4 bytes fit in 48 KB:
// every 8-bit case and 16-bit with up to 2048 bins), walks a grid-stride
// share of the samples (16-byte loads) with shared-memory atomics, and merges into the global
// 64-bit counts once, one atomic per non-zero bin.  A block owns at most
// 2^31 samples, so its 32-bit counters cannot overflow.  Larger histograms
// (16-bit at full resolution, for -equalize) count with global atomics.
#include "kernel_util.cuh"

namespace {

constexpr int THREADS = 512;

// The samples are read as 16-byte words (16 / sizeof(T) samples each, the
// buffer being 16-byte aligned), the channel of each following from its
// position; the last samples that do not fill a word are read one by one.
template <typename T, int C>
__global__ void hist_shared(const T *__restrict__ in, size_t pixels, int bins, int shift,
                            unsigned long long *__restrict__ counts)
{
    extern __shared__ unsigned int s_hist[];
    for (int i = threadIdx.x; i < C * bins; i += blockDim.x)
        s_hist[i] = 0;
    __syncthreads();
    constexpr int PER = 16 / sizeof(T); // samples per word
    const size_t samples = pixels * C, words = samples / PER;
    const uint4 *w = (const uint4 *)in;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned int *h[C]; // each channel's histogram
#pragma unroll
    for (int c = 0; c < C; c++)
        h[c] = s_hist + c * bins;
    for (size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x; k < words; k += stride) {
        const uint4 v = w[k];
        const uint32_t u[4] = {v.x, v.y, v.z, v.w};
        // a word starts at channel 0 unless C = 3 (PER = 16 or 8 samples)
        const int c0 = PER % C == 0 ? 0 : (int)((k * PER) % C);
#pragma unroll
        for (int j = 0; j < PER; j++) {
            const uint32_t s =
                sizeof(T) == 1 ? (u[j / 4] >> (8 * (j % 4))) & 0xff : (u[j / 2] >> (16 * (j % 2))) & 0xffff;
            if constexpr (PER % C == 0)
                atomicAdd(h[j % C] + (s >> shift), 1u);
            else
                atomicAdd(s_hist + ((c0 + j) % C) * bins + (s >> shift), 1u);
        }
    }
    for (size_t i = words * PER + (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < samples; i += stride)
        atomicAdd(&s_hist[(int)(i % C) * bins + (in[i] >> shift)], 1u);
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
    int sms = 1;
    if ((e = gf_sm_count(&sms)) != cudaSuccess)
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
