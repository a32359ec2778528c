// SPDX-License-Identifier: MIT
// -median: a shared-memory tile, as src/ops/median/median_ref.c (there by sorting,
// here by selection: the same value).
//
// median_tiled: a block of 32 x 8 threads makes a tile of TX x TY = 32 x 16
// pixels, each thread two rows 8 apart.  It stages the tile's footprint, (TY + 2R) x
// (TX + 2R) pixels of C samples (the border rule applied while loading), in
// dynamic shared memory as samples of T: at most 46 x 62 x 4 x 2 bytes at
// R = 15.  Two ways to a window's middle value, the k-th smallest of
// n = (2R+1)^2 with k = n / 2:
// - any R: bit by bit from the top, the largest m with fewer than k + 1
//   values below m (8 or 16 counts over the window);
// - R = 1 (median3): tiles of 32 x 32 pixels staged as 16-bit lanes, two
//   samples a word; the window's three rows each sorted, then the median
//   of (the largest of the rows' least, the median of their middles, the
//   least of their largest), two samples an instruction (__vminu2).
#include "kernel_util.cuh"
#include "rank/rank.h"

namespace
{

constexpr int TX = 32, TY = 16, THREADS_Y = 8;

// ---- R = 1: a tile of M3 x M3 pixels in 16-bit lanes, two samples a word.
constexpr int M3 = 32, M3_THREADS = 256;

__device__ __forceinline__ void order(uint32_t &a, uint32_t &b)
{
    const uint32_t t = __vminu2(a, b);
    b = __vmaxu2(a, b);
    a = t;
}

__device__ __forceinline__ uint32_t med3(uint32_t a, uint32_t b, uint32_t c)
{
    return __vmaxu2(__vminu2(a, b), __vminu2(__vmaxu2(a, b), c));
}

// Each thread a word of a tile row (samples 2j, 2j + 1): the three rows of
// its windows each sorted, then the median of (the largest of the rows'
// least, the median of their middles, the least of their largest).  Alpha
// is the centre's.
template <typename T, int C>
__global__ void __launch_bounds__(M3_THREADS)
    median3(const T *__restrict__ in, T *__restrict__ out, int W, int H, int border)
{
    constexpr int S = M3 * C, SW = S / 2, SIDE = M3 + 2, FW = gf_lane_words(SIDE * C);
    constexpr bool ALPHA = C == 2 || C == 4;
    __shared__ uint32_t foot[SIDE * FW];
    const int x0 = blockIdx.x * M3, y0 = blockIdx.y * M3;
    gf_stage_footprint<T, C, uint16_t>(in, (uint16_t *)foot, W, H, x0 - 1, y0 - 1, SIDE, SIDE, border, 2 * FW);
    __syncthreads();
    const size_t line = (size_t)W * C;
    for (int e = threadIdx.x; e < M3 * SW; e += M3_THREADS) {
        const int r = e / SW, j = e - r * SW;
        const long s = (long)x0 * C + 2 * j;
        if (y0 + r >= H || s >= (long)line)
            continue;
        uint32_t least = 0, most = 0, mid[3];
#pragma unroll
        for (int q = 0; q < 3; q++) {
            const uint32_t *f = foot + (r + q) * FW;
            uint32_t a = gf_lanes_at(f, 2 * j), b = gf_lanes_at(f, 2 * j + C), c = gf_lanes_at(f, 2 * j + 2 * C);
            order(a, b), order(b, c), order(a, b);
            least = q ? __vimax3_u16x2(least, a, least) : a;
            most = q ? __vimin3_u16x2(most, c, most) : c;
            mid[q] = b;
        }
        uint32_t v = med3(least, med3(mid[0], mid[1], mid[2]), most);
        if constexpr (ALPHA) { // the lanes that hold alpha take the centre's
            const uint32_t centre = gf_lanes_at(foot + (r + 1) * FW, 2 * j + C);
            const uint32_t keep = ((2 * j) % C == C - 1 ? 0xffffu : 0) | ((2 * j + 1) % C == C - 1 ? 0xffff0000u : 0);
            v = (v & ~keep) | (centre & keep);
        }
        const size_t at = (size_t)(y0 + r) * line + s;
        gf_store_lanes<T>(out + at, at, v, s + 1 < (long)line);
    }
}

// ---- Any R: selection bit by bit.
template <typename T, int C>
__global__ void __launch_bounds__(TX *THREADS_Y)
    median_tiled(const T *__restrict__ in, T *__restrict__ out, int W, int H, int R, int border)
{
    extern __shared__ __align__(16) unsigned char smem[];
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

enum path { SELECTION, ROWS3 };
const char *const paths[] = {"tiled selection", "3x3 sorted rows", nullptr};

int choose(const gf_step *s, const gf_image *)
{
    return GF_RANK_ARGS(s).radius == 1 ? ROWS3 : SELECTION;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int R = GF_RANK_ARGS(s).radius;
    const dim3 grid(gf_blocks(in->width, TX), gf_blocks(in->height, TY)), block(TX, THREADS_Y);
    const size_t smem = (size_t)(TY + 2 * R) * (TX + 2 * R) * in->channels * (in->depth / 8);
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (choose(s, in) == ROWS3) {
            median3<T, C>
                <<<dim3(gf_blocks(in->width, M3), gf_blocks(in->height, M3)), M3_THREADS, 0, gf_cuda_stream(cu)>>>(
                    (const T *)in->data, (T *)out->data, in->width, in->height, s->border);
            GF_LAUNCH_CHECK();
            return cudaSuccess;
        }
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

extern "C" const gf_cuda_op gf_cuda_median = {enqueue, nullptr, choose, paths};
