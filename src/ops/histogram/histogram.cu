// SPDX-License-Identifier: MIT
// Histogram: exact counts per channel, identical to src/ops/histogram/histogram_ref.c.
//
// 8-bit samples: hist_lanes (below), shared-memory atomics on a copy of the
// counters per lane, so that a warp's atomics never share a bank.  16-bit
// samples: privatised per block: each block of 512 threads keeps its own C x
// bins histogram of 32-bit counters in shared memory (while C * bins * 4
// bytes fit in 48 KB: 16-bit with up to 2048 bins), walks a grid-stride share
// of the samples (16-byte loads) with shared-memory atomics, and merges into
// the global 64-bit counts once, one atomic per non-zero bin.  A block owns
// at most 2^31 samples, so its 32-bit counters cannot overflow.  Larger
// histograms (16-bit at full resolution, for -equalize) count with global
// atomics.
#include <algorithm>
#include <cstdlib>

#include "histogram.h"
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

// 8-bit samples.  With one histogram a block, a warp's 32 atomics fall in
// banks as their values do.  Here every lane of a block has counters of its
// own, lane l's in bank l, so that an atomic is one shared-memory wavefront
// whatever the values: value v of slot s at byte v * 256 + (s % 2) * 128 + 4 l
// + (s / 2) * 65536, whose address for the value in byte b of a word is one
// byte permute (v into bits 8 to 15).  Slot s counts channel s % C: gray8
// has two slots, its samples' positions mod 2.  The block's 32 warps read
// 16-byte words, RGB8 three at a time (16 pixels, so that each byte's channel
// is fixed).  At the end four threads a value sum its counters over the lanes
// and the slots of each channel, and one atomic a channel and value goes to
// the global counts, bins folded (v >> shift).  A lane's counter counts at
// most the block's samples, fewer than 2^32.
constexpr int LT = 1024; // threads a block, one block an SM (64 or 128 KB of counters)
template <int C> struct lanes_shape {
    static constexpr int NS = C == 1 ? 2 : C; // slots
    static constexpr int U = C == 3 ? 12 : 4; // 32-bit words a unit (48 or 16 bytes)
    static constexpr int B = C == 3 ? 2 : 4;  // units a thread loads at once
    static constexpr size_t SMEM = NS <= 2 ? 65536 : 131072;
};

template <int C>
__global__ void __launch_bounds__(LT, 1) hist_lanes(const uint8_t *__restrict__ in, size_t samples, int bins, int shift,
                                                    unsigned long long *__restrict__ counts)
{
    using S = lanes_shape<C>;
    constexpr int NS = S::NS, U = S::U, B = S::B, N = 4 * U; // N: samples a unit
    extern __shared__ uint4 hsm4[];
    const int t = threadIdx.x;
    const uint32_t sb = (uint32_t)__cvta_generic_to_shared(hsm4), lb = 4u * (t % 32);
    auto slot_off = [](int s) { return (uint32_t)(s % 2 * 128 + s / 2 * 65536); };
    for (int i = t; i < (int)(S::SMEM / 16); i += LT)
        hsm4[i] = make_uint4(0, 0, 0, 0);
    __syncthreads();
    const size_t units = samples / N, stride = (size_t)gridDim.x * LT;
    const uint4 *src = (const uint4 *)in;
    for (size_t k = (size_t)blockIdx.x * LT + t; k < units; k += B * stride) {
        uint32_t w[B][U];
#pragma unroll
        for (int i = 0; i < B; i++)
            if (k + i * stride < units)
#pragma unroll
                for (int q = 0; q < U / 4; q++) {
                    const uint4 v = src[(k + i * stride) * (U / 4) + q];
                    w[i][4 * q] = v.x, w[i][4 * q + 1] = v.y, w[i][4 * q + 2] = v.z, w[i][4 * q + 3] = v.w;
                }
        // sample j of a unit: byte j % 4 of word j / 4, slot j % NS
#pragma unroll
        for (int i = 0; i < B; i++)
            if (k + i * stride < units)
#pragma unroll
                for (int j = 0; j < N; j++)
                    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(
                                     sb + __byte_perm(w[i][j / 4], lb, 0x7604 | j % 4 << 4) + slot_off(j % NS))
                                 : "memory");
    }
    for (size_t i = units * N + (size_t)blockIdx.x * LT + t; i < samples; i += stride) // the last < N samples
        atomicAdd((unsigned int *)((uint8_t *)hsm4 + in[i] * 256 + lb + slot_off((int)(i % NS))), 1u);
    __syncthreads();
    // Thread t sums value v = t / 4 over the lanes l = q (mod 4), q = t % 4,
    // lane 4 (v % 8) + q + 4 i (mod 32) at step i, so that a warp's 32 loads
    // fall in 32 banks; the quad adds its four sums.
    static_assert(LT == 4 * 256, "four threads a value");
    const int v = t / 4, q = t % 4;
    uint32_t sum[C] = {};
#pragma unroll
    for (int s = 0; s < NS; s++)
#pragma unroll
        for (int i = 0; i < 8; i++)
            sum[s % C] += *(const uint32_t *)((const uint8_t *)hsm4 + v * 256 + 4 * ((4 * (v % 8) + q + 4 * i) % 32) +
                                              slot_off(s));
#pragma unroll
    for (int c = 0; c < C; c++) {
        sum[c] += __shfl_xor_sync(0xffffffffu, sum[c], 1);
        sum[c] += __shfl_xor_sync(0xffffffffu, sum[c], 2);
        if (q == 0 && sum[c])
            atomicAdd(&counts[c * bins + (v >> shift)], (unsigned long long)sum[c]);
    }
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


enum path { LANES, SHARED, GLOBAL };
const char *const paths[] = {"per-lane counters", "block counters", "global counters", nullptr};

int choose_path(const gf_image *in, int bins)
{
    if (in->depth == 8 && gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
            return gf_fit_smem(hist_lanes<C>, lanes_shape<C>::SMEM) ? cudaSuccess : cudaErrorInvalidConfiguration;
        }) == cudaSuccess)
        return LANES;
    return (size_t)in->channels * bins * 4 <= 48 * 1024 ? SHARED : GLOBAL;
}

int choose(const gf_step *s, const gf_image *in)
{
    return choose_path(in, gf_histogram_bins(s, in->depth));
}

gf_status counts(gf_cuda *cu, const gf_step *s, const gf_image *in, unsigned long long **d)
{
    const int bins = gf_histogram_bins(s, in->depth);
    return gf_cuda_scratch(cu, (size_t)in->channels * bins * sizeof **d, "histogram", (void **)d);
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *)
{
    unsigned long long *d;
    gf_status st = counts(cu, s, in, &d);
    return st ? st
              : gf_cuda_status(gf_histogram_launch(in, gf_histogram_bins(s, in->depth), d, gf_cuda_stream(cu)),
                               "histogram kernel");
}

// Once the kernels are done: the counts to the host and the file.
gf_status finish(gf_cuda *cu, const gf_step *s, const gf_image *in)
{
    const int bins = gf_histogram_bins(s, in->depth);
    const size_t n = (size_t)in->channels * bins;
    unsigned long long *d;
    gf_status st = counts(cu, s, in, &d);
    uint64_t *host = st ? nullptr : (uint64_t *)malloc(n * sizeof *host);
    if (!st && !host)
        st = gf_error(GF_ENOMEM, "out of memory");
    if (!st)
        st = gf_cuda_status(cudaMemcpy(host, d, n * sizeof *host, cudaMemcpyDeviceToHost), "histogram download");
    if (!st)
        st = gf_histogram_write(GF_REPORT_ARGS(s).path, in, bins, host);
    free(host);
    return st;
}

} // namespace

extern "C" cudaError_t gf_histogram_launch(const gf_image *in, int bins, unsigned long long *d_counts, cudaStream_t st)
{
    int shift = 0;
    while ((1 << (in->depth - shift)) > bins)
        shift++;
    cudaError_t e = cudaMemsetAsync(d_counts, 0, sizeof *d_counts * (size_t)in->channels * bins, st);
    int sms = 1;
    if (e != cudaSuccess || (e = gf_sm_count(&sms)) != cudaSuccess)
        return e;
    const size_t pixels = (size_t)in->width * in->height;
    const int path = choose_path(in, bins);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const T *src = (const T *)in->data;
        const unsigned blocks = gf_blocks(pixels, THREADS);
        if (path == LANES) {
            // as many blocks as SMs, fewer for a small image, more where a block would own 2^31 samples
            const size_t samples = pixels * C, least = (samples >> 31) + 1;
            const size_t nb = std::max(least, std::min((size_t)sms, samples / (LT * 16) + 1));
            hist_lanes<C><<<(unsigned)nb, LT, lanes_shape<C>::SMEM, st>>>((const uint8_t *)src, samples, bins, shift,
                                                                          d_counts);
        } else if (path == SHARED) { // a few blocks per SM: merges stay cheap
            hist_shared<T, C><<<std::min(blocks, 4u * sms), THREADS, (size_t)C * bins * 4, st>>>(src, pixels, bins,
                                                                                                 shift, d_counts);
        } else {
            hist_global<T, C><<<std::min(blocks, 16u * sms), THREADS, 0, st>>>(src, pixels, bins, shift, d_counts);
        }
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}

extern "C" const gf_cuda_op gf_cuda_histogram = {enqueue, finish, choose, paths};
