// SPDX-License-Identifier: MIT
// Laplacian (8- or 4-neighbour), bit-identical to src/ops/laplacian/laplacian_ref.c.
//
// Rows of whole 16-byte words take words3x3::stencil (lap_op for 8-bit
// samples, SIMD in 16-bit lanes; lap16_op for 16-bit); the rest take
// laplacian_tiled: one block of 32 x 8 threads per tile of TX = 32 x TY = 16
// pixels stages the tile plus a one-pixel halo, (TY + 2) x (TX + 2) pixels x C
// channels, as 32-bit words in shared memory (border rule applied while
// loading, row loads coalesced); each thread then computes two pixels, all
// colour channels, and copies alpha.  The row pitch (TX + 2) C words is odd
// for C = 1, 3 and 2 mod 4 for C = 2, 4: a warp reading 32 neighbouring pixels
// of a row hits distinct banks for C = 1, at most 2-way for the others.
#include "laplacian.h"
#include "words3x3.cuh"

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
                v = 8 * (int)m[c] - n4 -
                    (int)(m[c - pitch - C] + m[c - pitch + C] + m[c + pitch - C] + m[c + pitch + C]);
            if (v < 0)
                v = -v;
            o[c] = (T)((uint32_t)v > maxval ? maxval : (uint32_t)v);
        }
        if (CC < C)
            o[C - 1] = (T)m[C - 1];
    }
}

// The Laplacian on 16-byte words (words3x3.cuh), per 16-bit lane: |9m - (the
// three rows' sums)| for 8 neighbours, |5m - (up + down + the row's sum)| for
// 4, saturated at 255; alpha (C = 2, 4) is copied.  Of each row the op keeps
// only a partial result: D, the output row's centre term less the sums of the
// rows seen so far (biased by B to stay at or above 0 in every lane, so that
// no lane borrows from the next), and the sums (8) or centres (4) that the
// next output row subtracts; the row below then gives |D - B - its part|.
template <int C, bool K4> struct lap_op {
    // 6 blocks an SM: 80 registers
    static constexpr int MIN_BLOCKS = 6, Z = 1;
    // D = 9m - h(y - 1) - h(y) + B in [0, 2295 + B] (h: a row's sum, <= 765), or 5m - m(y - 1) - h(y) + B
    static constexpr uint32_t B = (K4 ? 255 + 765 : 2 * 765) * 0x10001u;
    static constexpr uint32_t AM = C == 4 ? 0xff000000u : C == 2 ? 0xff00ff00u : 0u; // alpha bytes
    struct kept { // of a row, what the output row below it subtracts: its sums (8) or its centres (4)
        uint32_t e[4], o[4];
    };
    uint32_t dE[4], dO[4], m[4]; // D; the words of D's row (alpha)
    kept p;                      // of D's row
    // |x - y| per 16-bit lane: max, min and a subtraction that cannot borrow across lanes
    static __device__ uint32_t absdiff2(uint32_t x, uint32_t y) { return __vmaxu2(x, y) - __vminu2(x, y); }
    static __device__ kept keep(const words3x3::row &r)
    {
        kept k;
#pragma unroll
        for (int j = 0; j < 4; j++)
            k.e[j] = K4 ? r.cE[j] : r.hE[j], k.o[j] = K4 ? r.cO[j] : r.hO[j];
        return k;
    }
    // row r after the row above it (q: what was kept of that one; kr: of r): D of r's output row
    __device__ void take(const kept q, const words3x3::row &r, const kept kr)
    {
        constexpr int S = K4 ? 2 : 3; // the centre's weight, 5 or 9, as (m << S) + m
#pragma unroll
        for (int j = 0; j < 4; j++) {
            dE[j] = (r.cE[j] << S) + r.cE[j] + B - q.e[j] - r.hE[j];
            dO[j] = (r.cO[j] << S) + r.cO[j] + B - q.o[j] - r.hO[j];
            m[j] = r.m[j];
        }
        p = kr;
    }
    __device__ void first(const words3x3::row &a, const words3x3::row &b) { take(keep(a), b, keep(b)); }
    __device__ void next(const words3x3::row &c, uint32_t (&res)[4])
    {
        using words3x3::LO;
        const kept q = keep(c);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const uint32_t vE = absdiff2(dE[j], q.e[j] + B), vO = absdiff2(dO[j], q.o[j] + B);
            const uint32_t v = __vminu2(vE, LO) | __vminu2(vO, LO) << 8;
            res[j] = (v & ~AM) | (m[j] & AM);
        }
        take(p, c, q);
    }
};

// 16-bit samples (words3x3::row16): a 32-bit word a sample, signed.  D, the
// output row's centre term less the sums (8) or centres (4) of the rows seen so
// far, is within +-9 * 65535; the row below gives min(|D - its part|, 65535).
template <int C, bool K4> struct lap16_op {
    static constexpr int MIN_BLOCKS = 6, Z = 2;
    // alpha's half of word j (C = 2: every high half; C = 4: samples 3 and 7)
    static __device__ constexpr uint32_t alpha_mask(int j) { return C == 2 || (C == 4 && j % 2) ? 0xffff0000u : 0u; }
    int32_t d[8];  // D
    uint32_t m[4]; // the words of D's row (alpha)
    uint32_t p[8]; // what the output row below D's subtracts of D's row
    static __device__ uint32_t keep(const words3x3::row16 &r, int i) { return K4 ? r.c[i] : r.h[i]; }
    // row r after the row above it (q: what was kept of that one): D of r's output row
    template <typename Q> __device__ void take(const Q &q, const words3x3::row16 &r)
    {
#pragma unroll
        for (int i = 0; i < 8; i++) {
            d[i] = (int32_t)((K4 ? 5 : 9) * r.c[i] - q(i) - r.h[i]);
            p[i] = keep(r, i);
        }
#pragma unroll
        for (int j = 0; j < 4; j++)
            m[j] = r.m[j];
    }
    __device__ void first(const words3x3::row16 &a, const words3x3::row16 &b)
    {
        take([&](int i) { return keep(a, i); }, b);
    }
    __device__ void next(const words3x3::row16 &c, uint32_t (&res)[4])
    {
        uint32_t v[8];
#pragma unroll
        for (int i = 0; i < 8; i++)
            v[i] = min((uint32_t)abs(d[i] - (int32_t)keep(c, i)), 65535u);
#pragma unroll
        for (int j = 0; j < 4; j++)
            res[j] = (__byte_perm(v[2 * j], v[2 * j + 1], 0x5410) & ~alpha_mask(j)) | (m[j] & alpha_mask(j));
        const uint32_t q[8] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]};
        take([&](int i) { return q[i]; }, c);
    }
};

enum path { TILED, WORDS };
const char *const paths[] = {"tiled", "3x3 words", nullptr};

int choose(const gf_step *, const gf_image *in)
{
    return gf_word_rows(in) ? WORDS : TILED;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, border = s->border;
    const bool k4 = GF_LAPLACIAN_ARGS(s).neighbours == 4;
    const uint32_t maxval = gf_maxval(in->depth);
    const cudaStream_t st = gf_cuda_stream(cu);
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (choose(s, in) == WORDS) {
            if constexpr (sizeof(T) == 2)
                return k4 ? words3x3::launch<C, lap16_op<C, true>>(in, out, border, st)
                          : words3x3::launch<C, lap16_op<C, false>>(in, out, border, st);
            else
                return k4 ? words3x3::launch<C, lap_op<C, true>>(in, out, border, st)
                          : words3x3::launch<C, lap_op<C, false>>(in, out, border, st);
        }
        laplacian_tiled<T, C><<<dim3(gf_blocks(W, TX), gf_blocks(H, TY)), dim3(TX, THREADS_Y), 0, st>>>(
            (const T *)in->data, (T *)out->data, W, H, k4, border, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "laplacian kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_laplacian = {enqueue, nullptr, choose, paths};
