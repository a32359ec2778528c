// SPDX-License-Identifier: MIT
// 3x3 stencils on 8-bit rows of whole 16-byte words (W * C a multiple of 16,
// buffers 16-byte aligned), any C and border: the Laplacian and the box of
// radius 1.
//
// Each thread owns one 16-byte word of a row (16 / C pixels, or 16 bytes
// whatever C) down a strip of WROWS rows, sliding three rows through
// registers: one 16-byte load per row, issued three rows ahead of its use
// (with a single load in flight per thread the Laplacian ran at 0.68 of the
// copy ceiling on the H200); the bytes C to the left and right come
// from the neighbouring lanes by shuffle (lanes 0 and 31 read one 4-byte word
// more, and the two words at the ends of a row are built from the border
// rule).  The arithmetic is SIMD in 16-bit lanes, the even and odd bytes of
// each 32-bit word apart: per row, the centre and the sum of left + centre +
// right, from which the stencil (Op) makes each output word.
// Measured on the H200 (8192^2 RGBA8, Laplacian 8): loads two rows ahead, the
// rows moved from register to register each row, every row through the border
// rule: 0.186 ms, 122 M warp instructions (ncu); the loop unrolled by three
// (roles by renaming), three rows ahead and the interior without the border
// rule: 0.161 ms (0.82 of copy), 78 M; strips of 32 rows: 0.169 ms.
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

// One row's 16-byte word as loaded, before the neighbouring lanes are asked
// for their bytes: `own` says which of left/right this lane read itself (lane
// 0 and 31 read a 4-byte word more, the row ends are built from the border
// rule, a row not read is all zero).
struct raw {
    uint4 v;
    uint32_t left, right, own; // own: bit 0 left, bit 1 right
};

// Issues the loads of row `sy` (-1: a zero-border row) at word k; `want`
// false (a row past the strip) loads nothing.
template <int C>
__device__ raw fetch(const uint8_t *__restrict__ in, long sy, bool want, int k, int words, int W, int border)
{
    raw r = {make_uint4(0, 0, 0, 0), 0, 0, 3};
    if (!want || k >= words || sy < 0)
        return r;
    const uint8_t *base = in + (size_t)sy * words * 16;
    const int lane = threadIdx.x & 31;
    r.v = ((const uint4 *)base)[k];
    r.own = 0;
    if (k == 0) {
        r.left = edge_word<C>(base, -1, W, border, 4 - C);
        r.own |= 1;
    } else if (lane == 0) {
        r.left = ((const uint32_t *)base)[4 * k - 1];
        r.own |= 1;
    }
    if (k == words - 1) {
        r.right = edge_word<C>(base, W, W, border, 0);
        r.own |= 2;
    } else if (lane == 31) {
        r.right = ((const uint32_t *)base)[4 * k + 4];
        r.own |= 2;
    }
    return r;
}

// fetch for a warp whose rows and words all lie inside the image (no
// border rule, no word past the row): row pointer `p` at this thread's word.
__device__ __forceinline__ raw fetch_inner(const uint8_t *__restrict__ p, bool want, int lane)
{
    raw r = {make_uint4(0, 0, 0, 0), 0, 0, lane == 0 ? 1u : lane == 31 ? 2u : 0u};
    if (want) {
        r.v = *(const uint4 *)p;
        if (lane == 0)
            r.left = ((const uint32_t *)p)[-1];
        if (lane == 31)
            r.right = ((const uint32_t *)p)[4];
    }
    return r;
}

// Completes a fetched row with the neighbours' bytes; every lane of the warp calls it.
template <int C> __device__ void expand(const raw &q, row &r)
{
    const uint32_t up = __shfl_up_sync(0xffffffffu, q.v.w, 1), down = __shfl_down_sync(0xffffffffu, q.v.x, 1);
    const uint32_t w[6] = {q.own & 1 ? q.left : up, q.v.x, q.v.y, q.v.z, q.v.w, q.own & 2 ? q.right : down};
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

// The strip of one thread, rows read through Get(y) (fetch or fetch_inner);
// Op::word(a, b, c, j) makes output word j of the row of `b` (above: a,
// below: c).  The loop is unrolled by three, so that the three rows (and the
// three loads in flight, issued three rows ahead of their use) change roles
// by renaming rather than by register moves.
template <int C, typename Op, typename Get>
__device__ __forceinline__ void strip(uint8_t *__restrict__ out, int k, int words, int y0, int y1, Get get)
{
    const raw qa = get(y0 - 1), qb = get(y0);
    raw q0 = get(y0 + 1), q1 = get(y0 + 2), q2 = get(y0 + 3); // rows y + 1 to y + 3 at the top of the loop
    row a, b, c;
    expand<C>(qa, a);
    expand<C>(qb, b);
    // output row y from rows A (y - 1), B (y) and, once Q is expanded, Cr (y + 1); Q then loads row y + 4
    auto step = [&](int y, const row &A, const row &B, row &Cr, raw &Q) {
        expand<C>(Q, Cr);
        Q = get(y + 4);
        uint32_t res[4];
#pragma unroll
        for (int j = 0; j < 4; j++)
            res[j] = Op::word(A, B, Cr, j);
        if (k < words)
            ((uint4 *)(out + (size_t)y * words * 16))[k] = make_uint4(res[0], res[1], res[2], res[3]);
    };
    for (int y = y0; y < y1; y += 3) {
        step(y, a, b, c, q0);
        if (y + 1 == y1)
            break;
        step(y + 1, b, c, a, q1);
        if (y + 2 == y1)
            break;
        step(y + 2, c, a, b, q2);
    }
}

// Warps whose rows and words all lie inside the image (neither row end, no
// word past it) read them without the border rule.  Op::MIN_BLOCKS: the
// blocks per SM that ptxas must fit in registers (0: its own choice).
template <int C, typename Op>
__global__ void __launch_bounds__(WTHREADS, Op::MIN_BLOCKS)
    stencil(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int words, int border)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int y0 = blockIdx.y * WROWS, y1 = min(H, y0 + WROWS); // output rows [y0, y1) read rows y0 - 1 to y1
    const int kw = k - (int)threadIdx.x % 32; // the warp's first word: the test is uniform across the warp
    if (y0 >= 1 && y1 < H && kw >= 1 && kw + 32 < words) {
        const int lane = threadIdx.x & 31;
        const uint8_t *p = in + (size_t)k * 16;
        strip<C, Op>(out, k, words, y0, y1,
                     [&](int y) { return fetch_inner(p + (size_t)y * words * 16, y <= y1, lane); });
    } else {
        strip<C, Op>(out, k, words, y0, y1, [&](int y) {
            return fetch<C>(in, gf_border_index(y, H, border), y <= y1, k, words, W, border);
        });
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
