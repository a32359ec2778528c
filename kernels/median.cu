// SPDX-License-Identifier: MIT
// -median: a shared-memory tile, as src/cpu/median.c (there by sorting,
// here by selection: the same value).
//
// A block of 32 x 8 threads makes a tile of TX x TY = 32 x 16 pixels, each
// thread two rows 8 apart.  It stages the tile's footprint, (TY + 2R) x
// (TX + 2R) pixels of C samples (the border rule applied while loading), in
// dynamic shared memory as samples of T: at most 46 x 62 x 4 x 2 bytes at
// R = 15.  A thread finds its window's middle value, the k-th smallest of
// n = (2R+1)^2 with k = n / 2, bit by bit from the top: the largest m with
// fewer than k + 1 values below m (8 or 16 counts over the window).
#include "kernel_util.cuh"

namespace
{

constexpr int TX = 32, TY = 16, THREADS_Y = 8;

template <typename T, int C>
__global__ void __launch_bounds__(TX *THREADS_Y)
    median_tiled(const T *__restrict__ in, T *__restrict__ out, int W, int H, int R, int border)
{
    extern __shared__ __align__(8) unsigned char smem[];
    T *tile = (T *)smem;
    const int pw = TX + 2 * R, ph = TY + 2 * R, side = 2 * R + 1, k = side * side / 2;
    gf_stage_footprint<T, C>(in, tile, W, H, blockIdx.x * TX - R, blockIdx.y * TY - R, pw, ph, border);
    __syncthreads();
    constexpr int CC = C == 2 || C == 4 ? C - 1 : C;
    const int x = blockIdx.x * TX + threadIdx.x;
    for (int r = threadIdx.y; r < TY; r += THREADS_Y) {
        const int y = blockIdx.y * TY + r;
        if (x >= W || y >= H)
            continue;
        T *o = out + ((size_t)y * W + x) * C;
#pragma unroll
        for (int c = 0; c < CC; c++) {
            unsigned m = 0;
            for (int b = 8 * (int)sizeof(T) - 1; b >= 0; b--) {
                const unsigned t = m | 1u << b;
                int below = 0;
                for (int j = 0; j < side; j++) {
                    const T *row = tile + ((r + j) * pw + threadIdx.x) * C + c;
                    for (int i = 0; i < side; i++)
                        below += row[i * C] < t;
                }
                if (below <= k)
                    m = t;
            }
            o[c] = (T)m;
        }
        if constexpr (CC < C)
            o[CC] = in[((size_t)y * W + x) * C + CC];
    }
}

const char *const paths[] = {"tiled selection", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int R = s->rank.radius;
    const dim3 grid(gf_blocks(in->width, TX), gf_blocks(in->height, TY)), block(TX, THREADS_Y);
    const size_t smem = (size_t)(TY + 2 * R) * (TX + 2 * R) * in->channels * (in->depth / 8);
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (!gf_fit_smem(median_tiled<T, C>, smem))
            return cudaErrorInvalidConfiguration;
        median_tiled<T, C><<<grid, block, smem, gf_cuda_stream(cu)>>>((const T *)in->data, (T *)out->data, in->width,
                                                                      in->height, R, s->border);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "median kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_median = {enqueue, nullptr, gf_one_path, paths};
