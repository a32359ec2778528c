// SPDX-License-Identifier: MIT
// Laplacian (8- or 4-neighbour), bit-identical to src/cpu/laplacian.c.
//
// 8-bit images whose rows are whole 16-byte words take laplacian_words (16
// bytes per thread, SIMD arithmetic); the rest take laplacian_tiled:
//
// One block of 32 x 8 threads per tile of TX = 32 x TY = 16 pixels; the block
// stages the tile plus a one-pixel halo, (TY + 2) x (TX + 2) pixels x C
// channels, as 32-bit words in shared memory (border rule applied while
// loading; row loads are consecutive words, coalesced in global memory).  Each
// thread then computes two pixels, all colour channels; alpha is copied.
// The row pitch (TX + 2) * C words is odd for C = 1, 3 and 2 mod 4 for C = 2,
// 4, so a warp reading 32 neighbouring pixels of one row hits distinct banks
// for C = 1 and at most 2-way for the interleaved channels.
#include "kernel_util.cuh"

namespace {

constexpr int TX = 32, TY = 16, THREADS_Y = 8;

template <typename T, int C>
__global__ void laplacian_tiled(const T *__restrict__ in, T *__restrict__ out, int W, int H, int k4, int border,
                                uint32_t maxval)
{
    __shared__ uint32_t tile[(TY + 2) * (TX + 2) * C];
    constexpr int pitch = (TX + 2) * C;
    const int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
    const int tid = threadIdx.y * TX + threadIdx.x;
    const bool inside = x0 >= 1 && y0 >= 1 && x0 + TX + 1 <= W && y0 + TY + 1 <= H;
    for (int k = tid; k < (TY + 2) * pitch; k += TX * THREADS_Y) {
        const int r = k / pitch, rest = k - r * pitch;
        if (inside) { // no border: the halo row is contiguous in memory
            tile[k] = in[((size_t)(y0 - 1 + r) * W + (x0 - 1)) * C + rest];
            continue;
        }
        const int p = rest / C, c = rest - p * C;
        const long sy = gf_border_index((long)y0 - 1 + r, H, border);
        const long sx = gf_border_index((long)x0 - 1 + p, W, border);
        tile[k] = (sx < 0 || sy < 0) ? 0u : (uint32_t)in[((size_t)sy * W + sx) * C + c];
    }
    __syncthreads();
    constexpr int CC = (C == 2 || C == 4) ? C - 1 : C;
    const int x = x0 + threadIdx.x;
    for (int r = threadIdx.y; r < TY; r += THREADS_Y) {
        const int y = y0 + r;
        if (x >= W || y >= H)
            continue;
        const uint32_t *m = tile + (r + 1) * pitch + (threadIdx.x + 1) * C;
        T *o = out + ((size_t)y * W + x) * C;
#pragma unroll
        for (int c = 0; c < CC; c++) {
            // 32-bit is exact: |8 * 65535| and 8 * 65535 summed are far below 2^31
            const int n4 = (int)(m[c - pitch] + m[c + pitch] + m[c - C] + m[c + C]);
            int v;
            if (k4)
                v = 4 * (int)m[c] - n4;
            else
                v = 8 * (int)m[c] - n4 - (int)(m[c - pitch - C] + m[c - pitch + C] + m[c + pitch - C] + m[c + pitch + C]);
            if (v < 0)
                v = -v;
            o[c] = (T)((uint32_t)v > maxval ? maxval : (uint32_t)v);
        }
        if (CC < C)
            o[C - 1] = (T)m[C - 1];
    }
}

// 8-bit rows of whole 16-byte words (W * C a multiple of 16, buffers 16-byte
// aligned), any C and border.  Each thread owns one 16-byte word of a row
// (16 / C pixels, or 16 bytes whatever C) down a strip of LROWS rows, sliding
// three rows through registers: one 16-byte load per row; the bytes C to the
// left and right come from the neighbouring lanes by shuffle (lanes 0 and 31
// read one 4-byte word more, and the two words at the ends of a row are built
// from the border rule).  The arithmetic is SIMD in 16-bit lanes (even and
// odd bytes of each 32-bit word apart): per row, the centre and the sum of
// left + centre + right; then |9m - (three row sums)| for 8 neighbours and
// |5m - (up + down + row sum)| for 4, which never go negative before the
// absolute difference and stay below 2^16, saturated at 255.
constexpr int LROWS = 16, LTHREADS = 128;
constexpr uint32_t LO = 0x00ff00ffu;

struct lap_row {
    uint32_t m[4];          // the packed centre words (alpha is copied from them)
    uint32_t cE[4], cO[4];  // centre, even and odd bytes in 16-bit lanes
    uint32_t hE[4], hO[4];  // left + centre + right
};

// The C bytes of pixel column `px` (border applied) of row `row`, placed at
// byte `at` onward of a 32-bit word.
template <int C>
__device__ uint32_t edge_word(const uint8_t *row, long px, int W, int border, int at)
{
    const long sx = gf_border_index(px, W, border);
    uint32_t v = 0;
    if (sx >= 0)
#pragma unroll
        for (int q = 0; q < C; q++)
            v |= (uint32_t)row[sx * C + q] << (8 * (at + q));
    return v;
}

template <int C>
__device__ void lap_load(const uint8_t *__restrict__ in, long sy, int k, int words, int W, int border, lap_row &r)
{
    const bool act = k < words && sy >= 0;
    const uint8_t *row = in + (size_t)(sy < 0 ? 0 : sy) * words * 16;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (act)
        v = ((const uint4 *)row)[k];
    uint32_t left = __shfl_up_sync(0xffffffffu, v.w, 1), right = __shfl_down_sync(0xffffffffu, v.x, 1);
    const int lane = threadIdx.x & 31;
    if (!act) {
        left = right = 0;
    } else {
        if (k == 0)
            left = edge_word<C>(row, -1, W, border, 4 - C);
        else if (lane == 0)
            left = ((const uint32_t *)row)[4 * k - 1];
        if (k == words - 1)
            right = edge_word<C>(row, W, W, border, 0);
        else if (lane == 31)
            right = ((const uint32_t *)row)[4 * k + 4];
    }
    const uint32_t w[6] = {left, v.x, v.y, v.z, v.w, right};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const uint32_t x = w[j + 1];
        const uint32_t L = __funnelshift_r(w[j], x, 32 - 8 * C); // the bytes C to the left
        const uint32_t R = __funnelshift_rc(x, w[j + 2], 8 * C);  // and C to the right
        r.m[j] = x;
        r.cE[j] = x & LO;
        r.cO[j] = (x >> 8) & LO;
        r.hE[j] = r.cE[j] + (L & LO) + (R & LO);
        r.hO[j] = r.cO[j] + ((L >> 8) & LO) + ((R >> 8) & LO);
    }
}

template <int C, bool K4>
__global__ void __launch_bounds__(LTHREADS) laplacian_words(const uint8_t *__restrict__ in, uint8_t *__restrict__ out,
                                                           int W, int H, int words, int border)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int y0 = blockIdx.y * LROWS;
    constexpr uint32_t AM = C == 4 ? 0xff000000u : C == 2 ? 0xff00ff00u : 0u; // alpha bytes
    lap_row a, b, c;
    lap_load<C>(in, gf_border_index(y0 - 1, H, border), k, words, W, border, a);
    lap_load<C>(in, y0, k, words, W, border, b);
    for (int i = 0; i < LROWS && y0 + i < H; i++) {
        lap_load<C>(in, gf_border_index(y0 + i + 1, H, border), k, words, W, border, c);
        uint32_t res[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t vE, vO;
            if (K4) {
                vE = __vabsdiffu2((b.cE[j] << 2) + b.cE[j], a.cE[j] + c.cE[j] + b.hE[j]);
                vO = __vabsdiffu2((b.cO[j] << 2) + b.cO[j], a.cO[j] + c.cO[j] + b.hO[j]);
            } else {
                vE = __vabsdiffu2((b.cE[j] << 3) + b.cE[j], a.hE[j] + b.hE[j] + c.hE[j]);
                vO = __vabsdiffu2((b.cO[j] << 3) + b.cO[j], a.hO[j] + b.hO[j] + c.hO[j]);
            }
            const uint32_t v = __vminu2(vE, LO) | __vminu2(vO, LO) << 8;
            res[j] = (v & ~AM) | (b.m[j] & AM);
        }
        if (k < words)
            ((uint4 *)(out + (size_t)(y0 + i) * words * 16))[k] = make_uint4(res[0], res[1], res[2], res[3]);
        a = b;
        b = c;
    }
}

template <typename T, int C>
__global__ void laplacian_naive(const T *__restrict__ in, T *__restrict__ out, int W, int H, int k4, int border,
                                uint32_t maxval)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)W * H)
        return;
    const long x = (long)(k % W), y = (long)(k / W);
    constexpr int CC = (C == 2 || C == 4) ? C - 1 : C;
    for (int c = 0; c < CC; c++) {
        int64_t v = 0;
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++) {
                const int w = (i == 0 && j == 0) ? (k4 ? 4 : 8) : (k4 && i != 0 && j != 0) ? 0 : -1;
                const long sx = gf_border_index(x + i, W, border), sy = gf_border_index(y + j, H, border);
                if (w && sx >= 0 && sy >= 0)
                    v += w * (int64_t)in[((size_t)sy * W + sx) * C + c];
            }
        if (v < 0)
            v = -v;
        out[k * C + c] = (T)(v > maxval ? maxval : v);
    }
    if (CC < C)
        out[k * C + C - 1] = in[k * C + C - 1];
}

} // namespace

extern "C" cudaError_t gf_laplacian_launch(const gf_image *in, gf_image *out, int kernel4, int border, int variant,
                                           cudaStream_t st)
{
    const int W = in->width, H = in->height;
    const uint32_t maxval = gf_maxval(in->depth);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        const size_t row_bytes = (size_t)W * C * sizeof(T);
        if (sizeof(T) == 1 && variant != GF_KERNEL_NAIVE && row_bytes % 16 == 0 &&
            ((uintptr_t)src | (uintptr_t)dst) % 16 == 0) {
            const int words = (int)(row_bytes / 16);
            const dim3 grid(gf_blocks(words, LTHREADS), gf_blocks(H, LROWS));
            if (kernel4)
                laplacian_words<C, true><<<grid, LTHREADS, 0, st>>>((const uint8_t *)src, (uint8_t *)dst, W, H, words,
                                                                   border);
            else
                laplacian_words<C, false><<<grid, LTHREADS, 0, st>>>((const uint8_t *)src, (uint8_t *)dst, W, H, words,
                                                                    border);
        } else if (variant == GF_KERNEL_NAIVE)
            laplacian_naive<T, C><<<gf_blocks((size_t)W * H, 256), 256, 0, st>>>(src, dst, W, H, kernel4, border,
                                                                                maxval);
        else
            laplacian_tiled<T, C><<<dim3(gf_blocks(W, TX), gf_blocks(H, TY)), dim3(TX, THREADS_Y), 0, st>>>(
                src, dst, W, H, kernel4, border, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
