// SPDX-License-Identifier: MIT
// 3x3 stencils on rows of whole 16-byte words, any C and border: the
// Laplacian (8- and 16-bit samples) and the box of radius 1 (8-bit).
//
// Each thread owns one 16-byte word of a row (16 or 8 samples whatever C)
// down a strip of WROWS rows: one 16-byte load per row, issued three rows
// ahead of its use (the loop unrolled by three, so that the loads in flight
// change roles by renaming).  The samples C to the left and right come from
// the neighbouring lanes by shuffle (lanes 0 and 31 read Z 4-byte words more,
// Z the bytes a sample; the words at the ends of a row are built from the
// border rule).  8-bit arithmetic is SIMD in 16-bit lanes, the even and odd
// bytes of each 32-bit word apart (row); 16-bit samples take a 32-bit word
// each (row16).  Per row the op sees the centre and the sum left + centre +
// right, and keeps what the next output rows need.  Warps whose rows and
// words all lie inside the image read them without the border rule.
#ifndef GF_WORDS3X3_CUH
#define GF_WORDS3X3_CUH

#include <type_traits>

#include "kernel_util.cuh"

namespace words3x3 {

constexpr int WROWS = 16, WTHREADS = 128; // rows a thread, threads a block
constexpr uint32_t LO = 0x00ff00ffu;

struct row {
    uint32_t m[4];         // the packed centre words
    uint32_t cE[4], cO[4]; // centre, even and odd bytes in 16-bit lanes
    uint32_t hE[4], hO[4]; // left + centre + right
};
// 16-bit samples: sample i of the word (the low half of word i / 2 first) in c[i]
struct row16 {
    uint32_t m[4];       // the packed centre words
    uint32_t c[8], h[8]; // centre; left + centre + right
};
template <int Z> using row_t = std::conditional_t<Z == 1, row, row16>;

// The C samples (Z bytes each) of pixel column `px` (border applied) of `r`,
// placed at byte `at` onward of the Z 32-bit words w.
template <int C, int Z>
__device__ void edge_words(const uint8_t *r, long px, int W, int border, int at, uint32_t (&w)[Z])
{
    using V = std::conditional_t<Z == 1, uint32_t, uint64_t>;
    const long sx = gf_border_index(px, W, border);
    V v = 0;
    if (sx >= 0)
#pragma unroll
        for (int q = 0; q < C; q++)
            v |= (V)(Z == 1 ? r[sx * C + q] : ((const uint16_t *)r)[sx * C + q]) << (8 * (at + Z * q));
#pragma unroll
    for (int i = 0; i < Z; i++)
        w[i] = (uint32_t)(v >> 32 * i);
}

// One row's 16-byte word as loaded, before the neighbouring lanes are asked
// for their samples: `own` says which of left/right this lane read itself (lane
// 0 and 31 read Z 4-byte words more, the row ends are built from the border
// rule, a row not read is all zero).
template <int Z> struct raw {
    uint4 v;
    uint32_t left[Z], right[Z], own; // own: bit 0 left, bit 1 right
};

// Issues the loads of row `sy` (-1: a zero-border row) at word k; `want`
// false (a row past the strip) loads nothing.
template <int C, int Z>
__device__ raw<Z> fetch(const uint8_t *__restrict__ in, long sy, bool want, int k, int words, int W, int border)
{
    raw<Z> r = {make_uint4(0, 0, 0, 0), {}, {}, 3};
    if (!want || k >= words || sy < 0)
        return r;
    const uint8_t *base = in + (size_t)sy * words * 16;
    const int lane = threadIdx.x & 31;
    r.v = ((const uint4 *)base)[k];
    r.own = 0;
    if (k == 0) {
        edge_words<C, Z>(base, -1, W, border, 4 * Z - C * Z, r.left);
        r.own |= 1;
    } else if (lane == 0) {
#pragma unroll
        for (int i = 0; i < Z; i++)
            r.left[i] = ((const uint32_t *)base)[4 * k - Z + i];
        r.own |= 1;
    }
    if (k == words - 1) {
        edge_words<C, Z>(base, W, W, border, 0, r.right);
        r.own |= 2;
    } else if (lane == 31) {
#pragma unroll
        for (int i = 0; i < Z; i++)
            r.right[i] = ((const uint32_t *)base)[4 * k + 4 + i];
        r.own |= 2;
    }
    return r;
}

// fetch for a warp whose rows and words all lie inside the image (no
// border rule, no word past the row): row pointer `p` at this thread's word.
template <int Z> __device__ __forceinline__ raw<Z> fetch_inner(const uint8_t *__restrict__ p, bool want, int lane)
{
    raw<Z> r = {make_uint4(0, 0, 0, 0), {}, {}, lane == 0 ? 1u : lane == 31 ? 2u : 0u};
    if (want) {
        r.v = *(const uint4 *)p;
#pragma unroll
        for (int i = 0; i < Z; i++) {
            if (lane == 0)
                r.left[i] = ((const uint32_t *)p)[i - Z];
            if (lane == 31)
                r.right[i] = ((const uint32_t *)p)[4 + i];
        }
    }
    return r;
}

// The odd bytes of x in 16-bit lanes.
__device__ __forceinline__ uint32_t odd_bytes(uint32_t x) { return __byte_perm(x, 0, 0x4341); }

// Completes a fetched row with the neighbours' bytes; every lane of the warp calls it.
template <int C> __device__ void expand(const raw<1> &q, row &r)
{
    const uint32_t up = __shfl_up_sync(0xffffffffu, q.v.w, 1), down = __shfl_down_sync(0xffffffffu, q.v.x, 1);
    const uint32_t w[6] = {q.own & 1 ? q.left[0] : up, q.v.x, q.v.y, q.v.z, q.v.w, q.own & 2 ? q.right[0] : down};
    if constexpr (C == 1) {
        // a byte's neighbours are the bytes of the other parity beside it: for the even bytes, the odd
        // bytes of the word (one lane across) and the last odd byte of the word before; for the odd
        // ones, the even bytes and the first even byte of the word after (one byte permute each)
        uint32_t E[6], O[6];
#pragma unroll
        for (int j = 0; j < 6; j++)
            E[j] = w[j] & LO, O[j] = odd_bytes(w[j]);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            r.m[j] = w[j + 1];
            r.cE[j] = E[j + 1];
            r.cO[j] = O[j + 1];
            r.hE[j] = E[j + 1] + O[j + 1] + __byte_perm(O[j], O[j + 1], 0x5432);
            r.hO[j] = E[j + 1] + O[j + 1] + __byte_perm(E[j + 1], E[j + 2], 0x5432);
        }
    } else {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const uint32_t x = w[j + 1];
            const uint32_t L = __funnelshift_r(w[j], x, 32 - 8 * C); // the bytes C to the left
            const uint32_t R = __funnelshift_rc(x, w[j + 2], 8 * C);  // and C to the right
            r.m[j] = x;
            r.cE[j] = x & LO;
            r.cO[j] = odd_bytes(x);
            r.hE[j] = r.cE[j] + (L & LO) + (R & LO);
            r.hO[j] = r.cO[j] + odd_bytes(L) + odd_bytes(R);
        }
    }
}

// 16-bit samples: the row's samples -4 to 11 around the word are the halves of
// its words, two from the lane on each side (only those within C of the word
// are read: C <= 2 takes one word a side).
template <int C> __device__ void expand(const raw<2> &q, row16 &r)
{
    uint32_t w[8] = {q.left[0], q.left[1], q.v.x, q.v.y, q.v.z, q.v.w, q.right[0], q.right[1]};
#pragma unroll
    for (int i = 0; i < 2; i++) {
        const uint32_t up = __shfl_up_sync(0xffffffffu, i ? q.v.w : q.v.z, 1);
        const uint32_t down = __shfl_down_sync(0xffffffffu, i ? q.v.y : q.v.x, 1);
        if (!(q.own & 1))
            w[i] = up;
        if (!(q.own & 2))
            w[6 + i] = down;
    }
    auto s = [&](int j) { return j & 1 ? w[(j + 4) / 2] >> 16 : w[(j + 4) / 2] & 0xffffu; }; // sample j, -4 <= j < 12
#pragma unroll
    for (int i = 0; i < 8; i++) {
        r.c[i] = s(i);
        r.h[i] = s(i - C) + r.c[i] + s(i + C);
    }
#pragma unroll
    for (int j = 0; j < 4; j++)
        r.m[j] = w[2 + j];
}

// The strip of one thread, rows read through Get(y) (fetch or fetch_inner).
// The op sees each row once, in order, and keeps what the next outputs need
// of it (op.first(a, b): rows y0 - 1 and y0; op.next(c, res): row y + 1,
// which completes output row y), not the rows themselves.  The loop is
// unrolled by three, so that the three loads in flight, issued three rows
// ahead of their use, change roles by renaming rather than by register moves.
template <int C, typename Op, typename Get>
__device__ __forceinline__ void strip(uint8_t *__restrict__ out, int k, int words, int y0, int y1, Get get)
{
    using row = row_t<Op::Z>;
    const auto qa = get(y0 - 1), qb = get(y0);
    auto q0 = get(y0 + 1), q1 = get(y0 + 2), q2 = get(y0 + 3); // rows y + 1 to y + 3 at the top of the loop
    Op op;
    {
        row a, b;
        expand<C>(qa, a);
        expand<C>(qb, b);
        op.first(a, b);
    }
    // output row y once row y + 1 (Q) is expanded; Q then loads row y + 4
    auto step = [&](int y, raw<Op::Z> &Q) {
        row c;
        expand<C>(Q, c);
        Q = get(y + 4);
        uint32_t res[4];
        op.next(c, res);
        if (k < words)
            ((uint4 *)(out + (size_t)y * words * 16))[k] = make_uint4(res[0], res[1], res[2], res[3]);
    };
    for (int y = y0; y < y1; y += 3) {
        step(y, q0);
        if (y + 1 == y1)
            break;
        step(y + 1, q1);
        if (y + 2 == y1)
            break;
        step(y + 2, q2);
    }
}

// Op::MIN_BLOCKS: the blocks per SM that ptxas must fit in registers.
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
                     [&](int y) { return fetch_inner<Op::Z>(p + (size_t)y * words * 16, y <= y1, lane); });
    } else {
        strip<C, Op>(out, k, words, y0, y1, [&](int y) {
            return fetch<C, Op::Z>(in, gf_border_index(y, H, border), y <= y1, k, words, W, border);
        });
    }
}

template <int C, typename Op> static cudaError_t launch(const gf_image *in, gf_image *out, int border, cudaStream_t st)
{
    const int words = (int)((size_t)in->width * C * Op::Z / 16);
    const dim3 grid(gf_blocks(words, WTHREADS), gf_blocks(in->height, WROWS));
    stencil<C, Op><<<grid, WTHREADS, 0, st>>>((const uint8_t *)in->data, (uint8_t *)out->data, in->width, in->height,
                                              words, border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

} // namespace words3x3

#endif
