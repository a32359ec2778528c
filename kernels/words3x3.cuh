// SPDX-License-Identifier: MIT
// 3x3 stencils on 8-bit rows of whole 16-byte words (W * C a multiple of 16,
// buffers 16-byte aligned), any C and border: the Laplacian and the box of
// radius 1.
//
// Each thread owns one 16-byte word of a row (16 / C pixels, or 16 bytes
// whatever C) down a strip of WROWS rows, sliding three rows through
// registers: one 16-byte load per row; the bytes C to the left and right come
// from the neighbouring lanes by shuffle (lanes 0 and 31 read one 4-byte word
// more, and the two words at the ends of a row are built from the border
// rule).  The arithmetic is SIMD in 16-bit lanes, the even and odd bytes of
// each 32-bit word apart: per row, the centre and the sum of left + centre +
// right, from which the stencil (Op) makes each output word.
#ifndef GF_WORDS3X3_CUH
#define GF_WORDS3X3_CUH

#include "kernel_util.cuh"

namespace words3x3 {

// rows per thread: 8, 16 and 32 measured the same on the H200 (try others
// with NVCCFLAGS=-DGF_WROWS=N)
#ifndef GF_WROWS
#define GF_WROWS 16
#endif
constexpr int WROWS = GF_WROWS, WTHREADS = 128;
constexpr uint32_t LO = 0x00ff00ffu;

struct row {
    uint32_t m[4];         // the packed centre words
    uint32_t cE[4], cO[4]; // centre, even and odd bytes in 16-bit lanes
    uint32_t hE[4], hO[4]; // left + centre + right
};

// The C bytes of pixel column `px` (border applied) of `r`, placed at byte
// `at` onward of a 32-bit word.
template <int C> __device__ uint32_t edge_word(const uint8_t *r, long px, int W, int border, int at)
{
    const long sx = gf_border_index(px, W, border);
    uint32_t v = 0;
    if (sx >= 0)
#pragma unroll
        for (int q = 0; q < C; q++)
            v |= (uint32_t)r[sx * C + q] << (8 * (at + q));
    return v;
}

// Row `sy` (-1: a zero-border row) at word k; every lane of the warp calls it.
template <int C>
__device__ void load(const uint8_t *__restrict__ in, long sy, int k, int words, int W, int border, row &r)
{
    const bool act = k < words && sy >= 0;
    const uint8_t *base = in + (size_t)(sy < 0 ? 0 : sy) * words * 16;
    uint4 v = make_uint4(0, 0, 0, 0);
    if (act)
        v = ((const uint4 *)base)[k];
    uint32_t left = __shfl_up_sync(0xffffffffu, v.w, 1), right = __shfl_down_sync(0xffffffffu, v.x, 1);
    const int lane = threadIdx.x & 31;
    if (!act) {
        left = right = 0;
    } else {
        if (k == 0)
            left = edge_word<C>(base, -1, W, border, 4 - C);
        else if (lane == 0)
            left = ((const uint32_t *)base)[4 * k - 1];
        if (k == words - 1)
            right = edge_word<C>(base, W, W, border, 0);
        else if (lane == 31)
            right = ((const uint32_t *)base)[4 * k + 4];
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

// Op::word(a, b, c, j): output word j of the row of `b` (above: a, below: c).
template <int C, typename Op>
__global__ void __launch_bounds__(WTHREADS) stencil(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W,
                                                    int H, int words, int border)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int y0 = blockIdx.y * WROWS;
    row a, b, c;
    load<C>(in, gf_border_index(y0 - 1, H, border), k, words, W, border, a);
    load<C>(in, y0, k, words, W, border, b);
    for (int i = 0; i < WROWS && y0 + i < H; i++) { // unrolled whole, it was 20% slower (copies or not)
        load<C>(in, gf_border_index(y0 + i + 1, H, border), k, words, W, border, c);
        uint32_t res[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            res[j] = Op::word(a, b, c, j);
        if (k < words)
            ((uint4 *)(out + (size_t)(y0 + i) * words * 16))[k] = make_uint4(res[0], res[1], res[2], res[3]);
        a = b;
        b = c;
    }
}

// Whether an image takes these kernels.
static inline bool fits(const gf_image *in, const gf_image *out)
{
    return in->depth == 8 && ((size_t)in->width * in->channels) % 16 == 0 &&
           ((uintptr_t)in->data | (uintptr_t)out->data) % 16 == 0;
}

template <int C, typename Op> static cudaError_t launch(const gf_image *in, gf_image *out, int border, cudaStream_t st)
{
    const int words = (int)((size_t)in->width * C / 16);
    const dim3 grid(gf_blocks(words, WTHREADS), gf_blocks(in->height, WROWS));
    stencil<C, Op><<<grid, WTHREADS, 0, st>>>((const uint8_t *)in->data, (uint8_t *)out->data, in->width, in->height,
                                              words, border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

} // namespace words3x3

#endif
