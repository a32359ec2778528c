// SPDX-License-Identifier: MIT
// Laplacian (8- or 4-neighbour), bit-identical to src/cpu/laplacian.c.
//
// Images whose rows are whole 16-byte words take words3x3::stencil (16 bytes
// per thread: 8-bit samples by lap_op, SIMD in 16-bit lanes; 16-bit samples
// by lap16_op); the rest take laplacian_tiled:
//
// One block of 32 x 8 threads per tile of TX = 32 x TY = 16 pixels; the block
// stages the tile plus a one-pixel halo, (TY + 2) x (TX + 2) pixels x C
// channels, as 32-bit words in shared memory (border rule applied while
// loading; row loads are consecutive words, coalesced in global memory).  Each
// thread then computes two pixels, all colour channels; alpha is copied.
// The row pitch (TX + 2) * C words is odd for C = 1, 3 and 2 mod 4 for C = 2,
// 4, so a warp reading 32 neighbouring pixels of one row hits distinct banks
// for C = 1 and at most 2-way for the interleaved channels.
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
    // 6 blocks an SM (80 registers) rather than the 5 that ptxas chose (96-104
    // registers): H200, 8192^2, Laplacian 8 / 4, ms: RGBA8 0.161-0.162 /
    // 0.161-0.162 -> 0.157-0.159 / 0.157-0.158, RGB8 0.131-0.133 / 0.137-0.139
    // -> 0.129-0.130 / 0.127-0.128, gray8 0.055-0.056 / 0.057-0.058 -> 0.055 /
    // 0.054-0.055 (when each row's centre and sums were kept, and spilled
    // 60-190 bytes); 8 (64 registers) spilled more and was 30-70% slower.
    // With the partial results: 7 1-6% slower (gray8 Laplacian 8 0.052-0.054
    // ms against 0.051), 8 RGBA8 0.216 against 0.158, gray8 0.054
    static constexpr int MIN_BLOCKS = 6, Z = 1;
    // D = 9m - h(y - 1) - h(y) + B in [0, 2295 + B] (h: a row's sum, <= 765), or 5m - m(y - 1) - h(y) + B
    static constexpr uint32_t B = (K4 ? 255 + 765 : 2 * 765) * 0x10001u;
    static constexpr uint32_t AM = C == 4 ? 0xff000000u : C == 2 ? 0xff00ff00u : 0u; // alpha bytes
    struct kept { // of a row, what the output row below it subtracts: its sums (8) or its centres (4)
        uint32_t e[4], o[4];
    };
    uint32_t dE[4], dO[4], m[4]; // D; the words of D's row (alpha)
    kept p;                      // of D's row
    // |x - y| per 16-bit lane: max.u16x2, min.u16x2 and a subtraction that
    // cannot borrow across lanes (3 instructions; __vabsdiffu2 takes 13 on sm_90)
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
// Where laplacian_tiled loaded and stored a 2-byte sample a thread and read
// nine 32-bit words of shared memory an output: H200, 8192^2, Laplacian 8 / 4,
// ms, RGBA16 1.278-1.280 / 0.680-0.684 -> 0.302 / 0.293-0.294, RGB16
// 0.693-0.694 / 0.665-0.666 -> 0.230-0.232 / 0.228-0.229, gray+alpha16
// 0.432-0.437 / 0.395-0.400 -> 0.154-0.155 / 0.154, gray16 0.396-0.400 /
// 0.382-0.386 -> 0.087 / 0.086-0.087 (RGBA16's copy: 0.259).  6 blocks an SM
// (80 registers; RGBA16's Laplacian 8 spills 8 bytes, RGB16's 32-40) where
// ptxas chose 5 (72-90 registers): RGBA16 and RGB16 3-10% faster, the others
// the same.
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
        if (variant != GF_KERNEL_NAIVE && words3x3::fits(in, out)) {
            if constexpr (sizeof(T) == 2)
                return kernel4 ? words3x3::launch<C, lap16_op<C, true>>(in, out, border, st)
                               : words3x3::launch<C, lap16_op<C, false>>(in, out, border, st);
            else
                return kernel4 ? words3x3::launch<C, lap_op<C, true>>(in, out, border, st)
                               : words3x3::launch<C, lap_op<C, false>>(in, out, border, st);
        }
        if (variant == GF_KERNEL_NAIVE)
            laplacian_naive<T, C><<<gf_blocks((size_t)W * H, 256), 256, 0, st>>>(src, dst, W, H, kernel4, border,
                                                                                maxval);
        else
            laplacian_tiled<T, C><<<dim3(gf_blocks(W, TX), gf_blocks(H, TY)), dim3(TX, THREADS_Y), 0, st>>>(
                src, dst, W, H, kernel4, border, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
