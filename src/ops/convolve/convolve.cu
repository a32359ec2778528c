// SPDX-License-Identifier: MIT
// -convolve and -edge: a shared-memory tile, as src/ops/convolve/convolve_ref.c.
//
// A block of 32 x 8 threads makes a tile of TX x TY = 32 x 32 pixels, each
// thread four rows 8 apart.  It stages the kernel's weights (the transpose's
// too for -edge) and the tile's footprint, (TY + h - 1) x (TX + w - 1)
// pixels of C samples (the border rule applied while loading, rows
// coalesced), in dynamic shared memory as samples of T; a thread then takes
// each weight once for its four pixels, loading a pixel at a time (one load
// where C is 2 or 4), and sums each colour channel in 32 bits where the
// weights' absolute sum times the largest sample fits, else in 64.  Kernels
// up to 31 x 31: at most 3.8 KB of weights (twice for -edge) and 62 x 62 x
// 4 samples.
#include "convolve.h"
#include "kernel_util.cuh"

namespace
{

constexpr int TX = 32, TY = 32, THREADS_Y = 8, PER = TY / THREADS_Y;

// Acc: int32_t where the weights' absolute sum times the largest sample stays below 2^31, else int64_t.
template <typename T, int C, bool EDGE, typename Acc>
__global__ void __launch_bounds__(TX *THREADS_Y)
    convolve_tiled(const T *__restrict__ in, T *__restrict__ out, int W, int H, gf_convolve_args k, int border,
                   int64_t bias, uint32_t maxval)
{
    extern __shared__ __align__(16) int32_t sm[];
    const int n = k.w * k.h, pw = TX + k.w - 1, ph = TY + k.h - 1;
    int32_t *q = sm, *qt = sm + n;                          // the weights, and (-edge) their transpose
    T *tile = (T *)(sm + ((EDGE ? 2 * n : n) + 3) / 4 * 4); // ph rows of pw pixels
    const int tid = threadIdx.y * TX + threadIdx.x;
    for (int i = tid; i < n; i += TX * THREADS_Y) {
        q[i] = k.q[i];
        if (EDGE)
            qt[i] = k.q[(i % k.w) * k.w + i / k.w];
    }
    gf_stage_footprint<T, C>(in, tile, W, H, blockIdx.x * TX - k.ox, blockIdx.y * TY - k.oy, pw, ph, border);
    __syncthreads();
    constexpr int CC = C == 2 || C == 4 ? C - 1 : C;
    const int x = blockIdx.x * TX + threadIdx.x, r0 = threadIdx.y; // rows r0 + THREADS_Y p, p < PER
    Acc gx[PER][CC] = {}, gy[PER][CC] = {};
    for (int j = 0; j < k.h; j++) {
        const T *t = tile + ((r0 + j) * pw + threadIdx.x) * C;
        for (int i = 0; i < k.w; i++) {
            const int32_t w = q[j * k.w + i], wt = EDGE ? qt[j * k.w + i] : 0;
#pragma unroll
            for (int p = 0; p < PER; p++) {
                uint32_t v[C];
                gf_load_pixel<T, C>(t + (p * THREADS_Y * pw + i) * C, v);
#pragma unroll
                for (int c = 0; c < CC; c++) {
                    gx[p][c] += (Acc)w * (Acc)v[c];
                    if (EDGE)
                        gy[p][c] += (Acc)wt * (Acc)v[c];
                }
            }
        }
    }
#pragma unroll
    for (int p = 0; p < PER; p++) {
        const int y = blockIdx.y * TY + r0 + p * THREADS_Y;
        if (x >= W || y >= H)
            continue;
        const size_t at = ((size_t)y * W + x) * C;
        uint32_t o[C];
#pragma unroll
        for (int c = 0; c < CC; c++)
            o[c] = EDGE ? gf_edge_value(gx[p][c], gy[p][c], maxval) : gf_convolve_value(gx[p][c], bias, maxval);
        if constexpr (CC < C)
            o[CC] = in[at + CC];
        gf_store_pixel<T, C>(out + at, o);
    }
}

// Shared memory: the weights (twice for -edge), then the footprint from a 16-byte boundary (whole-pixel loads).
size_t smem_bytes(const gf_convolve_args &k, int C, int depth)
{
    const size_t weights = ((size_t)k.w * k.h * (k.edge ? 2 : 1) + 3) / 4 * 16;
    return weights + (size_t)(TY + k.h - 1) * (TX + k.w - 1) * C * (depth / 8);
}

const char *const paths[] = {"tiled", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const gf_convolve_args &k = GF_CONVOLVE_ARGS(s);
    const dim3 grid(gf_blocks(in->width, TX), gf_blocks(in->height, TY)), block(TX, THREADS_Y);
    const size_t smem = smem_bytes(k, in->channels, in->depth);
    const bool narrow = gf_convolve_narrow(&k, in->depth); // every partial sum fits 32 bits
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        auto launch = [&](auto kernel) -> cudaError_t {
            if (!gf_fit_smem(kernel, smem))
                return cudaErrorInvalidConfiguration;
            kernel<<<grid, block, smem, gf_cuda_stream(cu)>>>((const T *)in->data, (T *)out->data, in->width,
                                                              in->height, k, s->border, gf_convolve_bias(s, in->depth),
                                                              gf_maxval(in->depth));
            GF_LAUNCH_CHECK();
            return cudaSuccess;
        };
        if (narrow)
            return k.edge ? launch(convolve_tiled<T, C, true, int32_t>) : launch(convolve_tiled<T, C, false, int32_t>);
        return k.edge ? launch(convolve_tiled<T, C, true, int64_t>) : launch(convolve_tiled<T, C, false, int64_t>);
    });
    return gf_cuda_status(e, "convolve kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_convolve = {enqueue, nullptr, gf_one_path, paths};
