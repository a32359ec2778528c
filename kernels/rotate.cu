// SPDX-License-Identifier: MIT
// Rotation by a non-right angle: bilinear on the enlarged canvas.  A gather:
// each output reads a 2x2 neighbourhood that moves diagonally through the
// input, so there is no tile to share; the time goes into the instructions
// per pixel and the L1 sectors that a warp's loads touch.
// - A warp's 32 pixels form an A x 32/A block of the output, A chosen per
//   angle so that the block's image in the input spans the fewest rows: at
//   30 degrees 8 x 4, about 8 rows, where a row of 32 pixels spans 17.
// - The contract lets this path differ from src/cpu/rotate.c by 1, and that
//   buys most of its speed (float64 as in the reference, rounded step by
//   step, ran at 1.29 ms for an 8192^2 RGBA8 image).  A thread computes the
//   reference's float64 coordinates once for KY pixels down its column, as
//   32.32 fixed point, and steps from there.  The interpolation runs in
//   float32 for 8-bit samples (weights from 23 bits of the fractions: the
//   error stays below 1e-3) and in float64 for 16-bit ones (where float32
//   would be off by up to 0.05, enough to round 1 in 10 samples differently).
// - Samples turn into floating point, and the sums back into integers, by
//   adding a magic number (2^23, 2^52) and reading the bits: no conversion
//   instructions.  A pixel of 4 or 8 bytes is one load and one store; two
//   RGB8 neighbours come from three aligned words.  A pixel with no
//   neighbour inside the image is the background, without arithmetic.
#include "kernel_util.cuh"

namespace
{

constexpr int THREADS = 256;

// The interpolation's type, and what it needs: 1 + x for x in [0, 1) from the
// 32 fraction bits of a coordinate, K + s for a sample s (< 2^16), K's bits.
template <typename T> struct interp;
template <> struct interp<uint8_t> {
    using F = float;
    static constexpr float K = 8388608.0f; // 2^23
    static __device__ __forceinline__ float one_plus(uint32_t frac) { return __int_as_float(0x3f800000u | frac >> 9); }
    static __device__ __forceinline__ float k_plus(uint32_t w, int b) // byte b of w
    {
        return __int_as_float(__byte_perm(w, 0x4b000000u, b | 0x7440));
    }
    static __device__ __forceinline__ int round(float v) { return __float_as_int(fmaxf(v, 0.0f) + K) - 0x4b000000; }
};
template <> struct interp<uint16_t> {
    using F = double;
    static constexpr double K = 4503599627370496.0; // 2^52
    static __device__ __forceinline__ double one_plus(uint32_t frac)
    {
        return __hiloint2double(0x3ff00000 | frac >> 12, frac << 20);
    }
    static __device__ __forceinline__ double k_plus(uint32_t w, int h) // half h of w
    {
        return __hiloint2double(0x43300000, h ? w >> 16 : w & 0xffffu);
    }
    static __device__ __forceinline__ int round(double v) { return __double2loint(fmax(v, 0.0) + K); }
};

// A pixel's C samples of type T, packed as in memory: loaded, set, stored (a
// pixel of 4 or 8 bytes in one access: its address is a multiple of that).
template <typename T, int C> struct packed_pixel {
    static constexpr int PER = 4 / sizeof(T); // samples per word
    uint32_t w[(C + PER - 1) / PER];
    __device__ __forceinline__ void load(const T *p)
    {
        if constexpr (C * sizeof(T) == 4)
            w[0] = *(const uint32_t *)p;
        else if constexpr (C * sizeof(T) == 8) {
            const uint2 v = *(const uint2 *)p;
            w[0] = v.x, w[1] = v.y;
        } else
#pragma unroll
            for (int c = 0; c < C; c++)
                set(c, p[c]);
    }
    // Two neighbouring 3-byte pixels at p, from the three aligned words that
    // hold their 6 bytes (12 bytes read from p rounded down to 4: the caller
    // keeps them inside the row), where byte loads took 6 loads and twice
    // the L1 sectors.
    static __device__ __forceinline__ void load_pair(const T *p, packed_pixel &a, packed_pixel &b)
    {
        static_assert(C * sizeof(T) == 3, "3-byte pixels");
        const uint32_t o = (uint32_t)(uintptr_t)p & 3, *wp = (const uint32_t *)((uintptr_t)p - o);
        const uint32_t w0 = wp[0], w1 = wp[1], w2 = wp[2];
        // bytes o .. o + 2, then o + 3 .. o + 5 of the 12
        a.w[0] = __byte_perm(w0, w1, 0x210 + 0x111 * o);
        b.w[0] = o ? __byte_perm(w1, w2, 0x210 + 0x111 * (o - 1)) : __byte_perm(w0, w1, 0x543);
    }
    __device__ __forceinline__ void set(int c, uint32_t v) // v < 2^(8 sizeof(T))
    {
        w[c / PER] = c % PER ? w[c / PER] | v << 8 * sizeof(T) * (c % PER) : v;
    }
    __device__ __forceinline__ void store(T *p) const
    {
        if constexpr (C * sizeof(T) == 4)
            *(uint32_t *)p = w[0];
        else if constexpr (C * sizeof(T) == 8)
            *(uint2 *)p = make_uint2(w[0], w[1]);
        else
#pragma unroll
            for (int c = 0; c < C; c++)
                p[c] = (T)(w[c / PER] >> 8 * sizeof(T) * (c % PER));
    }
    __device__ __forceinline__ typename interp<T>::F get(int c) const
    {
        return interp<T>::k_plus(w[c / PER], c % PER) - interp<T>::K;
    }
};

// Each thread makes the pixels (x, y + k blockDim.y), k = 0 .. KY - 1: the
// float64 coordinates once, then fixed-point steps.
constexpr int KY = 4;

template <typename T, int C, int OC>
__global__ void __launch_bounds__(THREADS)
    rotate_bilinear(const T *__restrict__ in, T *__restrict__ out, int W, int H, int OW, int OH, double ca, double sa,
                    long long stepx, long long stepy, uint4 bg, uint32_t maxval)
{
    using I = interp<T>;
    using F = typename I::F;
    // block: blockDim.x (A) x blockDim.y (THREADS / A) threads, each KY pixels down a column; rows beyond the grid by
    // grid stride
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= OW)
        return;
    const uint32_t bgv[4] = {bg.x, bg.y, bg.z, bg.w};
    const double px = x + 0.5 - OW / 2.0;
    for (int y = blockIdx.y * blockDim.y * KY + threadIdx.y; y < OH; y += gridDim.y * blockDim.y * KY) {
        // the reference's coordinates, as 32.32 fixed point
        const double py = y + 0.5 - OH / 2.0;
        const double sx = px * ca + py * sa + W / 2.0 - 0.5, sy = -px * sa + py * ca + H / 2.0 - 0.5;
        long long fxp = __double2ll_rn(sx * 4294967296.0), fyp = __double2ll_rn(sy * 4294967296.0);
#pragma unroll
        for (int k = 0; k < KY; k++, fxp += stepx, fyp += stepy) {
            const int yk = y + k * blockDim.y;
            if (yk >= OH)
                break;
            const int x0 = (int)(fxp >> 32), y0 = (int)(fyp >> 32);
            packed_pixel<T, OC> o;
            if (x0 < -1 || y0 < -1 || x0 >= W || y0 >= H) { // no neighbour inside: the background
#pragma unroll
                for (int c = 0; c < OC; c++)
                    o.set(c, bgv[c]);
            } else {
                const F fx = I::one_plus((uint32_t)fxp) - 1, fy = I::one_plus((uint32_t)fyp) - 1;
                const F wq[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
                packed_pixel<T, C> s[4];
                bool inside[4];
                if ((unsigned)x0 < (unsigned)W - 1 && (unsigned)y0 < (unsigned)H - 1) { // the common case
                    const T *p = in + ((size_t)y0 * W + x0) * C;
                    bool pairs = false;
                    if constexpr (C * sizeof(T) == 3)
                        if (x0 + 4 <= W) { // RGB8: each row's two pixels from 3 words
                            packed_pixel<T, C>::load_pair(p, s[0], s[1]);
                            packed_pixel<T, C>::load_pair(p + (size_t)W * C, s[2], s[3]);
                            pairs = true;
                        }
                    if (!pairs)
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            s[q].load(p + ((q >> 1) * (size_t)W + (q & 1)) * C);
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        inside[q] = true;
                } else
#pragma unroll
                    for (int q = 0; q < 4; q++) {
                        const int xi = x0 + (q & 1), yi = y0 + (q >> 1);
                        inside[q] = xi >= 0 && yi >= 0 && xi < W && yi < H;
                        if (inside[q])
                            s[q].load(in + ((size_t)yi * W + xi) * C);
                    }
#pragma unroll
                for (int c = 0; c < OC; c++) {
                    F v = 0;
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        v = fma(wq[q], !inside[q] ? (F)bgv[c] : c < C ? s[q].get(c) : (F)maxval, v);
                    const int r = I::round(v); // to nearest (v >= -0.5 up to rounding error)
                    o.set(c, r > (int)maxval ? maxval : r);
                }
            }
            o.store(out + ((size_t)yk * OW + x) * OC);
        }
    }
}

// The warp's block width A (1 to 32) whose image in the input spans the
// fewest rows: A |sin| + (32 / A) |cos|.
static int block_width(double ca, double sa)
{
    int best = 32;
    for (int a = 16; a >= 1; a /= 2)
        if (a * fabs(sa) + 32.0 / a * fabs(ca) < best * fabs(sa) + 32.0 / best * fabs(ca))
            best = a;
    return best;
}

} // namespace

extern "C" cudaError_t gf_rotate_launch(const gf_image *in, gf_image *out, double ca, double sa, const uint32_t bg[4],
                                        cudaStream_t st)
{
    const uint4 b = make_uint4(bg[0], bg[1], bg[2], bg[3]);
    const uint32_t maxval = gf_maxval(in->depth);
    const int OC = out->channels;
    if (((uintptr_t)in->data | (uintptr_t)out->data) % 8) // whole-pixel accesses (cudaMalloc gives 256)
        return cudaErrorMisalignedAddress;
    const int A = block_width(ca, sa);
    const dim3 block(A, THREADS / A);
    const unsigned gy = gf_blocks(out->height, block.y * KY);
    const dim3 grid(gf_blocks(out->width, A), gy < 65535 ? gy : 65535);
    // a thread's step down its column (block.y rows), 32.32 fixed point
    const long long stepx = llrint(block.y * sa * 4294967296.0), stepy = llrint(block.y * ca * 4294967296.0);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        if (OC == C)
            rotate_bilinear<T, C, C><<<grid, block, 0, st>>>(src, dst, in->width, in->height, out->width, out->height,
                                                             ca, sa, stepx, stepy, b, maxval);
        else if constexpr (C == 1 || C == 3)
            rotate_bilinear<T, C, C + 1><<<grid, block, 0, st>>>(src, dst, in->width, in->height, out->width,
                                                                 out->height, ca, sa, stepx, stepy, b, maxval);
        else
            return cudaErrorInvalidValue;
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
