// SPDX-License-Identifier: MIT
// Rotation by a non-right angle: bilinear on the enlarged canvas.  A gather:
// each output reads a 2x2 neighbourhood that moves diagonally through the
// input.  8-bit images stage each output tile's footprint in shared memory
// (rotate_staged, below), but for RGBA8 within about 17 degrees of the
// horizontal, which gathers from L1 as 16-bit images do (rotate_bilinear),
// where the time goes into the instructions per pixel and the traffic between
// L1 and L2 (loads that miss, and stores).
// - A warp's 32 pixels form an A x 32/A block of the output, A chosen per
//   angle between the rows its loads span in the input and the rows its
//   stores span in the output (warp_width_log2): at 30 degrees 16 x 2.  A
//   block's 8 warps lie side by side, up to 128 pixels, so that its loads
//   share L1 lines: at 30 degrees a tile of 128 x 8 pixels.  (ncu: with
//   tiles of 32 x 32 the L1 hit rate was 79-86%, with 8 x 128 60-66%.)
// - The contract lets this path differ from src/cpu/rotate.c by 1, and that
//   buys most of its speed (float64 as in the reference, rounded step by
//   step, ran at 1.29 ms for an 8192^2 RGBA8 image).  A thread computes the
//   reference's float64 coordinates once for KY pixels down its column, as
//   32.32 fixed point, and steps from there.  The interpolation of the pixels
//   inside runs in half precision for 8-bit samples, two channels an
//   instruction (interior_pixel: within 0.25 of the exact value, so at most 1
//   from the reference once rounded; 2% of samples differ by 1, against 0.001%
//   in float32, in a float64 model of both over 4 M random neighbourhoods),
//   in float32 for 8-bit pixels at the edge, and in float64 for 16-bit
//   samples (where float32 would be off by up to 0.05, enough to round 1 in 10
//   samples differently).  H200, 8192^2, 10 / 30 / 60 / 80 / 150 degrees, ms,
//   float32 -> half: RGBA8 0.354-0.360 / 0.423-0.430 / 0.469-0.475 /
//   0.431-0.438 / 0.425-0.431 -> 0.287-0.288 / 0.369-0.370 / 0.404-0.405 /
//   0.358 / 0.370-0.371, gray+alpha 0.258 / 0.349-0.351 / 0.399-0.401 /
//   0.360-0.362 / 0.352-0.354 -> 0.238-0.240 / 0.342-0.343 / 0.399-0.401 /
//   0.361-0.363 / 0.344-0.346, RGB8 and gray8 within 1% but at 150 degrees
//   (RGB8 0.505-0.507 -> 0.488-0.490): those two wait on their loads (ncu).
// - Samples turn into floating point, and the sums back into integers, by
//   adding a magic number (2^10 in half precision, 2^23, 2^52) and reading
//   the bits: no conversion instructions.  A pixel of 2, 4 or 8 bytes is one
//   load and one store; two RGB8 neighbours come from three aligned words
//   (two funnel shifts and a byte permute), and an RGB8 pixel leaves as a
//   2-byte and a 1-byte store: H200, 8192^2, 10 / 30 / 60 / 80 / 150
//   degrees, ms: 0.432-0.434 / 0.541-0.543 / 0.634-0.636 / 0.659-0.662 /
//   0.542 with byte permutes whose selectors were computed per pixel and
//   three byte stores, 0.436-0.440 / 0.502-0.505 / 0.582-0.587 / 0.576-0.579
//   / 0.502-0.506 after.
// - 8-bit RGB and gray+alpha took at most 48 registers here, before they
//   moved to rotate_staged, so that five blocks fit an SM where four did:
//   their warps wait on their loads, and more of them hide more of that
//   (H200, 8192^2, ms, at 10 / 30 / 60 / 80 / 150 degrees: RGB8 0.442-0.443
//   / 0.501-0.502 / 0.576-0.578 / 0.574-0.575 / 0.487-0.488 -> 0.390-0.391 /
//   0.467 / 0.555-0.556 / 0.561-0.564 / 0.460-0.462, gray+alpha 3-5% faster; RGBA8 3-4% faster at 10, 30 and 150
//   degrees and 3% slower at 60 and 80, gray8 (48 already) 0-2% slower; six
//   blocks spilled and ran 6-35% slower).
// - A thread's KY pixels are all inside (no bounds checks, no clamp), all
//   background (stores only), or checked one by one.
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "kernel_util.cuh"

namespace
{

constexpr int THREADS = 256;

// The interpolation's type, and what it needs: 1 + x for x in [0, 1) from the
// 32 fraction bits of a coordinate, K + s for a sample s (< 2^16), and (16-bit) the
// rounded value from the bits of K + v.
template <typename T> struct interp;
template <> struct interp<uint8_t> {
    using F = float;
    static constexpr float K = 8388608.0f; // 2^23
    static __device__ __forceinline__ float one_plus(uint32_t frac) { return __int_as_float(0x3f800000u | frac >> 9); }
    static __device__ __forceinline__ float k_plus(uint32_t w, int b) // byte b of w
    {
        return __int_as_float(__byte_perm(0x4b000000u, w, 0x3214 + b));
    }
    static __device__ __forceinline__ float k_or(uint32_t s) { return __int_as_float(s | 0x4b000000u); } // s < 2^23
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
    static __device__ __forceinline__ double k_or(uint32_t s) { return __hiloint2double(0x43300000, s); }
    static __device__ __forceinline__ int round(double v) { return __double2loint(fmax(v, 0.0) + K); }
    static __device__ __forceinline__ uint32_t low_bits(double kv) { return (uint32_t)__double2loint(kv); }
};

// A pixel's C samples of type T, packed as in memory: loaded, set, stored (a
// pixel of 2, 4 or 8 bytes in one access: its address is a multiple of that).
template <typename T, int C> struct packed_pixel {
    static constexpr int PER = 4 / sizeof(T); // samples per word
    uint32_t w[(C + PER - 1) / PER];
    __device__ __forceinline__ void load(const T *p)
    {
        if constexpr (C * sizeof(T) == 2)
            w[0] = *(const uint16_t *)p;
        else if constexpr (C * sizeof(T) == 4)
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
        const uint32_t o = (uint32_t)(uintptr_t)p & 3, *wp = (const uint32_t *)(p - o);
        const uint32_t w0 = wp[0], w1 = wp[1], w2 = wp[2];
        // bytes o .. o + 3 and o + 4 .. o + 7 of the 12 (a funnel shift takes its count mod 32)
        const uint32_t sh = (uint32_t)(uintptr_t)p << 3;
        const uint32_t u = __funnelshift_r(w0, w1, sh), v = __funnelshift_r(w1, w2, sh);
        a.w[0] = u;                        // pixel a: bytes o .. o + 2 (the fourth is not read)
        b.w[0] = __byte_perm(u, v, 0x543); // pixel b: o + 3 .. o + 5
    }
    __device__ __forceinline__ void set(int c, uint32_t v) // v < 2^(8 sizeof(T))
    {
        w[c / PER] = c % PER ? w[c / PER] | v << 8 * sizeof(T) * (c % PER) : v;
    }
    // The pixel whose sample c is v[c] (the background)
    static __device__ __forceinline__ packed_pixel filled(const uint32_t (&v)[4])
    {
        packed_pixel p;
#pragma unroll
        for (int c = 0; c < C; c++)
            p.set(c, v[c]);
        return p;
    }
    __device__ __forceinline__ void store(T *p) const
    {
        if constexpr (C * sizeof(T) == 2)
            *(uint16_t *)p = (uint16_t)w[0];
        else if constexpr (C * sizeof(T) == 4)
            *(uint32_t *)p = w[0];
        else if constexpr (C * sizeof(T) == 8)
            *(uint2 *)p = make_uint2(w[0], w[1]);
        else if constexpr (C * sizeof(T) == 3) { // a 2-byte store at the even one of p, p + 1, a byte at the other end
            const uint32_t odd = (uint32_t)(uintptr_t)p & 1;
            *(uint16_t *)(p + odd) = (uint16_t)(w[0] >> 8 * odd);
            p[odd ? 0 : 2] = (T)(odd ? w[0] : w[0] >> 16);
        } else
#pragma unroll
            for (int c = 0; c < C; c++)
                p[c] = (T)(w[c / PER] >> 8 * sizeof(T) * (c % PER));
    }
    // 16-bit samples: sets sample c from the low 16 bits of v, ignoring the
    // bits above.  Setting the first sample of a word leaves the word's other
    // sample undefined until it is set; a store writes only samples.
    __device__ __forceinline__ void set_low(int c, uint32_t v)
    {
        static_assert(sizeof(T) == 2, "8-bit pixels inside pack their samples in interior_pixel");
        w[c / PER] = c % PER ? __byte_perm(w[c / PER], v, 0x5410) : v;
    }
    // K + sample c, and the sample
    __device__ __forceinline__ typename interp<T>::F kget(int c) const
    {
        if constexpr (C == 1) // the one sample, zero-extended by its load
            return interp<T>::k_or(w[0]);
        return interp<T>::k_plus(w[c / PER], c % PER);
    }
    __device__ __forceinline__ typename interp<T>::F get(int c) const
    {
        return kget(c) - interp<T>::K;
    }
};

// Each thread makes the pixels (x, y + k RH), k = 0 .. KY - 1: the float64
// coordinates once, then fixed-point steps.
constexpr int KY = 4;

// 8-bit samples in half precision, two to a register: in as 1024 + s (a byte
// permute puts 0x64 above each of two bytes), out as the low byte of 1024 + v.
__device__ __forceinline__ __half2 as_h2(uint32_t u)
{
    __half2 h;
    memcpy(&h, &u, 4);
    return h;
}
__device__ __forceinline__ uint32_t h2_bits(__half2 h)
{
    uint32_t u;
    memcpy(&u, &h, 4);
    return u;
}

// Four neighbours' channel pairs (a, b above, c, d below; 1024 + s in each
// half) across by wx and down by wy: 1024 + v in each half of the result.
// The samples less 1152 (s - 128, exact) go into the lerps (below).
__device__ __forceinline__ uint32_t lerp_h2(__half2 wx, __half2 wy, __half2 a, __half2 b, __half2 c, __half2 d)
{
    const __half2 k = __float2half2_rn(1152.0f);
    const __half2 top = __hfma2(wx, __hsub2(b, a), __hsub2(a, k)), bot = __hfma2(wx, __hsub2(d, c), __hsub2(c, k));
    return h2_bits(__hadd2(__hfma2(wy, __hsub2(bot, top), top), k));
}

// A pixel from its four neighbours s (a, b above, c, d below), by two linear
// interpolations across and one down.
// 8-bit samples: in half precision, two channels a half2 (RGB8 pairs its third
// channel with the byte after it and drops that result; gray8 pairs the
// pixel's two rows, so that one fma makes both interpolations across).
// Taking 1152 off 1024 + s gives s - 128 exactly, so the lerps work within
// +-128 (+-255 for the rows' difference), where a half's step is at most 2^-4
// (2^-3); with the weights' own rounding (at most 2^-12 x 255 each) the result
// is within 0.25 of the exact value (0.19 at most over 4 M random
// neighbourhoods, in a float64 model of each rounding): at most 1 from the
// float64 reference once rounded, and in [0, 255] without a clamp.
// 16-bit samples: in float64, the samples as K + s, whose differences are
// exact without taking K off (13 instructions a channel); the result lies
// between the smallest and the largest sample, up to rounding error, so it
// needs no clamp: the low bits of its K + v are the rounded value.
template <typename T, int C, int OC>
__device__ __forceinline__ packed_pixel<T, OC> interpolate(const packed_pixel<T, C> (&s)[4], long long fxp,
                                                           long long fyp, uint32_t maxval)
{
    using I = interp<T>;
    using F = typename I::F;
    packed_pixel<T, OC> out;
    if constexpr (sizeof(T) == 1) {
        const float fx = I::one_plus((uint32_t)fxp) - 1, fy = I::one_plus((uint32_t)fyp) - 1;
        const __half2 w = __floats2half2_rn(fx, fy), wx = __low2half2(w), wy = __high2half2(w);
        const __half2 k = __float2half2_rn(1152.0f);
        // down from the rows' lerps top and bot, back to 1024 + v
        auto down = [&](__half2 top, __half2 bot) { return h2_bits(__hadd2(__hfma2(wy, __hsub2(bot, top), top), k)); };
        if constexpr (C == 1) { // (a, c) and (b, d): the two rows' samples (zero-extended bytes)
            const __half2 ac = as_h2(__byte_perm(s[0].w[0], s[2].w[0], 0x5410) | 0x64006400u);
            const __half2 bd = as_h2(__byte_perm(s[1].w[0], s[3].w[0], 0x5410) | 0x64006400u);
            const __half2 tb = __hfma2(wx, __hsub2(bd, ac), __hsub2(ac, k)); // (top, bottom)
            const uint32_t r = down(__low2half2(tb), __high2half2(tb));
            out.w[0] = OC == 1 ? r : __byte_perm(r, maxval, 0x40);
        } else {
            // the channel pair that sel picks (bytes 4 to 7: the word's; 0: 0x64), interpolated: 1024 + v in each
            // half (the constant the first operand, so that it is a register and sel stays immediate)
            auto lerp = [&](uint32_t sel) {
                const __half2 a = as_h2(__byte_perm(0x6464, s[0].w[0], sel)),
                              b = as_h2(__byte_perm(0x6464, s[1].w[0], sel)),
                              c = as_h2(__byte_perm(0x6464, s[2].w[0], sel)),
                              d = as_h2(__byte_perm(0x6464, s[3].w[0], sel));
                return lerp_h2(wx, wy, a, b, c, d);
            };
            const uint32_t r01 = lerp(0x0504);
            if constexpr (C == 2)
                out.w[0] = __byte_perm(r01, 0, 0x20);
            else { // channels 2 and 3 (RGB8: 3 is the next pixel's first byte; an added alpha replaces it)
                const uint32_t r = __byte_perm(r01, lerp(0x0706), 0x6420);
                out.w[0] = OC == C ? r : __byte_perm(r, maxval, 0x4210);
            }
        }
    } else {
        const F fx = I::one_plus((uint32_t)fxp) - 1, fy = I::one_plus((uint32_t)fyp) - 1;
#pragma unroll
        for (int c = 0; c < OC; c++) {
            uint32_t r = maxval; // an added alpha: maxval times weights that sum to 1
            if (c < C) {
                const F a = s[0].kget(c), b = s[1].kget(c), cc = s[2].kget(c), d = s[3].kget(c);
                const F top = fma(fx, b - a, a - I::K), bot = fma(fx, d - cc, cc - I::K);
                r = I::low_bits(fma(fy, bot - top, top) + I::K);
            }
            out.set_low(c, r);
        }
    }
    return out;
}

// Two RGB8 pixels from their neighbours' words (a pixel's three bytes and 0x64,
// as rotate_staged stages them), in interpolate's arithmetic, step for step:
// channels 0 and 1 of each pixel in one half2, channel 2 of both in another
// (three interpolations for two pixels, where interpolate takes four).
// oa, ob: the pixels' bytes, an added alpha (OC = 4) as maxval.
template <int OC>
__device__ __forceinline__ void interpolate_rgb8_pair(const uint32_t (&sa)[4], const uint32_t (&sb)[4], long long fxa,
                                                      long long fya, long long fxb, long long fyb, uint32_t maxval,
                                                      uint32_t &oa, uint32_t &ob)
{
    using I = interp<uint8_t>;
    const __half2 wx = __floats2half2_rn(I::one_plus((uint32_t)fxa) - 1, I::one_plus((uint32_t)fxb) - 1),
                  wy = __floats2half2_rn(I::one_plus((uint32_t)fya) - 1, I::one_plus((uint32_t)fyb) - 1);
    auto c01 = [](uint32_t s) { return as_h2(__byte_perm(0x6464, s, 0x0504)); };
    // (s's channel 2, t's), 0x64 above each
    auto c2 = [](uint32_t s, uint32_t t) { return as_h2(__byte_perm(s, t, 0x7632)); };
    const uint32_t ra = lerp_h2(__low2half2(wx), __low2half2(wy), c01(sa[0]), c01(sa[1]), c01(sa[2]), c01(sa[3]));
    const uint32_t rb = lerp_h2(__high2half2(wx), __high2half2(wy), c01(sb[0]), c01(sb[1]), c01(sb[2]), c01(sb[3]));
    const uint32_t rc = lerp_h2(wx, wy, c2(sa[0], sb[0]), c2(sa[1], sb[1]), c2(sa[2], sb[2]), c2(sa[3], sb[3]));
    oa = __byte_perm(ra, rc, 0x6420);
    ob = __byte_perm(rb, rc, 0x4620);
    if constexpr (OC == 4)
        oa = __byte_perm(oa, maxval, 0x4210), ob = __byte_perm(ob, maxval, 0x4210);
}

// One pixel whose four neighbours all lie inside the image (RGB8: whose pair
// loads do too), from global memory.
template <typename T, int C, int OC>
__device__ __forceinline__ void interior_pixel(const T *__restrict__ in, uint32_t pitch, long long fxp, long long fyp,
                                               uint32_t maxval, T *o)
{
    const uint32_t x0 = (uint32_t)(fxp >> 32), y0 = (uint32_t)(fyp >> 32);
    const T *p = in + (size_t)y0 * pitch + x0 * C;
    packed_pixel<T, C> s[4];
    if constexpr (C * sizeof(T) == 3) { // each row's two pixels from 3 words
        packed_pixel<T, C>::load_pair(p, s[0], s[1]);
        packed_pixel<T, C>::load_pair(p + pitch, s[2], s[3]);
    } else
#pragma unroll
        for (int q = 0; q < 4; q++)
            s[q].load(p + (q >> 1) * pitch + (q & 1) * C);
    interpolate<T, C, OC>(s, fxp, fyp, maxval).store(o);
}

// Any pixel: the background where no neighbour lies inside, interior_pixel
// where all do (XN: RGB8's pair loads read 4 pixels), else each neighbour
// outside reads the background (b: the background as an output pixel).
template <typename T, int C, int OC, int XN>
__device__ __forceinline__ void any_pixel(const T *__restrict__ in, int W, int H, long long fxp, long long fyp,
                                          const packed_pixel<T, OC> &b, const uint32_t (&bgv)[4], uint32_t maxval, T *o)
{
    using I = interp<T>;
    using F = typename I::F;
    const uint32_t pitch = (uint32_t)W * C; // samples a row (W C < 2^32: GF_MAX_DIM)
    const int x0 = (int)(fxp >> 32), y0 = (int)(fyp >> 32);
    if (x0 < -1 || y0 < -1 || x0 >= W || y0 >= H) { // no neighbour inside: the background
        b.store(o);
        return;
    }
    if (x0 >= 0 && x0 <= W - XN && y0 >= 0 && y0 <= H - 2) {
        interior_pixel<T, C, OC>(in, pitch, fxp, fyp, maxval, o);
        return;
    }
    // at the edge: the neighbours outside read the background
    const F fx = I::one_plus((uint32_t)fxp) - 1, fy = I::one_plus((uint32_t)fyp) - 1;
    const F wq[4] = {(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy};
    packed_pixel<T, C> s[4];
    bool inside[4];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        const int xi = x0 + (q & 1), yi = y0 + (q >> 1);
        inside[q] = xi >= 0 && yi >= 0 && xi < W && yi < H;
        if (inside[q])
            s[q].load(in + (size_t)yi * pitch + (size_t)xi * C);
    }
    packed_pixel<T, OC> v;
#pragma unroll
    for (int c = 0; c < OC; c++) {
        F sum = 0;
#pragma unroll
        for (int q = 0; q < 4; q++)
            sum = fma(wq[q], !inside[q] ? (F)bgv[c] : c < C ? s[q].get(c) : (F)maxval, sum);
        const int r = I::round(sum); // to nearest (sum >= -0.5 up to rounding error)
        v.set(c, r > (int)maxval ? maxval : r);
    }
    v.store(o);
}

template <typename T, int C, int OC>
__global__ void __launch_bounds__(THREADS)
    rotate_bilinear(const T *__restrict__ in, T *__restrict__ out, int W, int H, int OW, int OH, double ca, double sa,
                    long long stepx, long long stepy, uint4 bg, uint32_t maxval, int lgA, int lgWA)
{
    // A warp is A x 32 / A pixels (A = 2^lgA), the block's 8 warps WA = 2^lgWA across: its threads cover RW x RH
    // pixels, each thread KY of them RH rows apart, so the block's tile is RW x RH KY; rows beyond the grid by grid
    // stride
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int RW = 1 << (lgA + lgWA), RH = THREADS >> (lgA + lgWA);
    const int x = blockIdx.x * RW + ((warp & ((1 << lgWA) - 1)) << lgA) + (lane & ((1 << lgA) - 1));
    if (x >= OW)
        return;
    const uint32_t bgv[4] = {bg.x, bg.y, bg.z, bg.w};
    const double px = x + 0.5 - OW / 2.0;
    const uint32_t pitch = (uint32_t)W * C; // samples a row (W C < 2^32: GF_MAX_DIM)
    const size_t ostep = (size_t)RH * OW * OC;
    const long long spanx = (KY - 1) * stepx, spany = (KY - 1) * stepy;
    // RGB8's pair loads read the 12 bytes from a pixel's first word: 4 pixels
    constexpr int XN = C * sizeof(T) == 3 ? 4 : 2;
    const int y_first = blockIdx.y * RH * KY + ((warp >> lgWA) << (5 - lgA)) + (lane >> lgA);
    for (int y = y_first; y < OH; y += gridDim.y * RH * KY) {
        // the reference's coordinates, as 32.32 fixed point
        const double py = y + 0.5 - OH / 2.0;
        const double sx = px * ca + py * sa + W / 2.0 - 0.5, sy = -px * sa + py * ca + H / 2.0 - 0.5;
        long long fxp = __double2ll_rn(sx * 4294967296.0), fyp = __double2ll_rn(sy * 4294967296.0);
        T *o = out + ((size_t)y * OW + x) * OC;
        // The KY pixels' integer coordinates are monotonic in k, so the first
        // and the last bound them: all inside, all background, or pixel by pixel.
        const int xa = (int)(fxp >> 32), xb = (int)((fxp + spanx) >> 32);
        const int ya = (int)(fyp >> 32), yb = (int)((fyp + spany) >> 32);
        const int xlo = min(xa, xb), xhi = max(xa, xb), ylo = min(ya, yb), yhi = max(ya, yb);
        const bool whole = y + (KY - 1) * RH < OH;
        if (whole && xlo >= 0 && xhi <= W - XN && ylo >= 0 && yhi <= H - 2) {
#pragma unroll
            for (int k = 0; k < KY; k++, fxp += stepx, fyp += stepy, o += ostep)
                interior_pixel<T, C, OC>(in, pitch, fxp, fyp, maxval, o);
            continue;
        }
        const auto b = packed_pixel<T, OC>::filled(bgv);
        if (whole && (xhi < -1 || xlo >= W || yhi < -1 || ylo >= H)) { // no neighbour inside for any of them
#pragma unroll
            for (int k = 0; k < KY; k++, o += ostep)
                b.store(o);
            continue;
        }
#pragma unroll
        for (int k = 0; k < KY; k++, fxp += stepx, fyp += stepy, o += ostep) {
            if (y + k * RH >= OH)
                break;
            any_pixel<T, C, OC, XN>(in, W, H, fxp, fyp, b, bgv, maxval, o);
        }
    }
}

// A thread's RGB8 output pixels, step bytes apart: where the step is even,
// all have the parity of the first, so each is a 2-byte store at the even one
// of p, p + 1 and a byte at the other end, from two addresses that step on
// together (where packed_pixel's store takes each pixel's parity and both
// addresses from it: 13 instructions a pixel against 6).
struct rgb8_out {
    uint8_t *p2, *p1;
    uint32_t s2, s1;
    size_t step;
    __device__ __forceinline__ rgb8_out(uint8_t *o, size_t step_) : step(step_)
    {
        const uint32_t odd = (uint32_t)(uintptr_t)o & 1;
        p2 = o + odd, p1 = o + 2 - 2 * odd, s2 = 8 * odd, s1 = 16 - 16 * odd;
    }
    __device__ __forceinline__ void put(uint32_t w)
    {
        *(uint16_t *)p2 = (uint16_t)(w >> s2);
        *p1 = (uint8_t)(w >> s1);
        p2 += step, p1 += step;
    }
};

// 8-bit images: the output in tiles of GTW x GTH pixels, each tile's
// footprint in the input (the rows and columns its pixels' neighbourhoods
// span) staged in shared memory by 16-byte loads, so that each pixel's four
// neighbours are loads from shared memory rather than from L1, where gray8's
// four byte loads a pixel, and RGB8's three words a row, kept the warps
// waiting. A warp is 32 pixels of a tile's row, each thread GKY of them GRW
// rows apart. The pixels' coordinates are the reference's float64 ones at
// the tile's first pixel, as 32.32 fixed point, plus whole steps (dx per
// column, dy per row), so they are affine in the pixel's position exactly
// and the tile's corners bound them (for a whole tile, by offsets the host
// computes once): a tile is staged (every neighbourhood inside the image),
// background (stores only), or pixel by pixel (any_pixel, from global
// memory). Shared row r holds input row ylo + r from the 16-byte word
// holding column xlo on, at a row stride RS = W C (mod 16), so that every
// word lands on a 16-byte boundary (and every pixel on its own): column x of
// row y is at y RS + x C + base. RS is chosen per angle for the fewest bank
// conflicts (staged_stride). H200, 8192^2, gray8 at 10 / 30 / 60 / 80 / 150
// degrees, ms: 0.219 / 0.302-0.303 / 0.377-0.378 / 0.337-0.338 / 0.304-0.306
// from L1 (rotate_bilinear), 0.143-0.145 / 0.164-0.165 / 0.165-0.166 /
// 0.163-0.164 / 0.163-0.164 staged; at 1 / 5 / 10 / 15 / 20 / 30 / 45 / 80
// degrees, from L1 -> staged: gray+alpha 0.197 / 0.213 / 0.229 / 0.250 /
// 0.276 / 0.325 / 0.387 / 0.349 -> 0.177 / 0.182 / 0.192 / 0.200 / 0.208 /
// 0.225 / 0.236 / 0.194, RGB8 0.382 / 0.396 / 0.390 / 0.398 / 0.425 / 0.467
// / 0.514 / 0.561 -> 0.311 / 0.324 / 0.343 / 0.359 / 0.373 / 0.394 / 0.411 /
// 0.350, RGBA8 0.257 / 0.277 / 0.286 / 0.306 / 0.329 / 0.367 / 0.401 / 0.356
// -> 0.274 / 0.286 / 0.305 / 0.312 / 0.319 / 0.350 / 0.359 / 0.303 (so RGBA8
// keeps the gather within STAGED_SIN of the horizontal, where its warps'
// loads follow the rows). Gray8, measured on the way: 64 x 32 tiles 0.198 /
// 0.249 / 0.260 / 0.230 / 0.247; the first stride W allows, 128 bytes at
// 8192 wide (every row in the same banks), 60 degrees 0.309 against 0.186;
// 64 x 128 tiles 2-11% slower than 64 x 64; background tiles stepping
// coordinates as the others do, 0-7% slower; each whole tile's corners
// computed as a partial tile's, 4-6% slower; two tiles a block, and the
// staging by cp.async, within 1%. ncu at 30 degrees: 124.8 M warp
// instructions (191.6 M from L1), issue slots 79% busy; 45% of the
// instructions are the pixels (28 a pixel), 22% the tiles' set-up, 13% the
// staging.
// RGB8 stages each pixel as a word (its three bytes and 0x64), so that its
// four neighbours are four aligned loads, as RGBA8's are, and interpolates
// two pixels at a time, the third channel of both in one half2
// (interpolate_rgb8_pair); it takes 48 registers, so that five blocks fit an
// SM; its stores step two addresses (rgb8_out); and its staging loads two
// quads of pixels (12 bytes each, from the 4 aligned words that hold them) a
// thread at a time, where one quad a thread waited on each load. H200,
// 8192^2, 30 degrees: 282 M warp instructions -> 216 M (ncu); 10 / 30 / 60 /
// 80 / 150 degrees, ms: 0.341 / 0.391-0.394 / 0.396-0.399 / 0.348 /
// 0.390-0.391 -> 0.261-0.262 / 0.322-0.325 / 0.333 / 0.263 / 0.324-0.326.
// On the way, at 30 degrees: the staged words and pairs, one quad a thread,
// 0.368-0.370; a warp a row of quads, 0.369 (10 and 80 degrees 5% slower:
// more loads one after another); two quads a thread, 0.337-0.339.
// The other formats stage a footprint's rows KR at a time (four for RGBA8,
// two for the others), their loads in flight together, where one 16-byte word
// a thread at a time, its index divided into row and word, took 47
// instructions a word and waited on each load. H200, 8192^2, at 30 / 60 / 80 /
// 150 degrees, ms: RGBA8 0.348-0.349 / 0.353-0.355 / 0.301-0.304 /
// 0.348-0.351 -> 0.312-0.315 / 0.330-0.332 / 0.257 / 0.323-0.325 (two rows
// at a time: 0.317-0.319 / 0.321-0.325 / 0.267-0.270 / 0.336-0.341; three
// or four for the others spilled 136-324 bytes at 40 registers),
// gray+alpha 5-6% faster at every angle from 10 to 150, gray8 within 1%.
// Tiles whose every pixel maps far outside the image, made background
// without their set-up (from a float test of the tile's centre), measured
// gray8 0-3% faster, RGB8 up to 5% slower (at 10 degrees), and RGBA8 5%
// slower with the staging above (two rows at a time): not kept.
constexpr int GTW = 64, GTH = 64, GRW = THREADS / GTW, GKY = GTH / GRW;
// 16-byte words staged a row: the footprint's columns, at most 94 pixels at 64 x 64, from a word boundary
template <int C> constexpr int GNC = (94 * C + 15) / 16 + 1;
// RGBA8 takes the staged kernel where |sin a| is at least this (above)
constexpr double STAGED_SIN = 0.3;

// Five blocks an SM for RGB8 and RGBA8 (48 registers), six for gray8 and
// gray+alpha (40, gray8 spilling 8 bytes outside the pixels' loop): with no
// bound ptxas took 60-64 registers for these two once their staging loaded
// two rows at a time (rotate_staged); with (THREADS, 1) it took 91-113 for
// the formats but RGB8, and they ran 60-70% slower.
template <int C, int OC>
__global__ void __launch_bounds__(THREADS, C >= 3 ? 5 : 6)
    rotate_staged(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int OW, int OH, double ca,
                  double sa, long long dxx, long long dxy, long long dyx, long long dyy, long long cx0, long long cx1,
                  long long cy0, long long cy1, int RS, int HS, uint4 bg, uint32_t maxval)
{
    extern __shared__ uint4 gsm4[];
    uint8_t *const sm = (uint8_t *)gsm4;
    const int t = threadIdx.x, tx = t % GTW, ty = t / GTW;
    const uint32_t bgv[4] = {bg.x, bg.y, bg.z, bg.w};
    const auto b = packed_pixel<uint8_t, OC>::filled(bgv);
    const int X0 = blockIdx.x * GTW, xe = min(GTW, OW - X0) - 1; // the tile's first column, its last (from X0)
    const size_t total = (size_t)H * W * C;
    const uint32_t pitch = (uint32_t)W * C;
    constexpr int NC = GNC<C>;
    for (int Y0 = blockIdx.y * GTH; Y0 < OH; Y0 += gridDim.y * GTH) {
        const int ye = min(GTH, OH - Y0) - 1;
        const double px = X0 + 0.5 - OW / 2.0, py = Y0 + 0.5 - OH / 2.0;
        const long long fx0 = __double2ll_rn((px * ca + py * sa + W / 2.0 - 0.5) * 4294967296.0);
        const long long fy0 = __double2ll_rn((-px * sa + py * ca + H / 2.0 - 0.5) * 4294967296.0);
        // the neighbourhoods' first columns and rows at the four corners bound the tile's
        int xlo, xhi, ylo, yhi;
        if (xe == GTW - 1 && ye == GTH - 1) { // a whole tile: its corners' least and most, from the host
            xlo = (int)((fx0 + cx0) >> 32), xhi = (int)((fx0 + cx1) >> 32);
            ylo = (int)((fy0 + cy0) >> 32), yhi = (int)((fy0 + cy1) >> 32);
        } else {
            const long long ex = (long long)xe * dxx, ey = (long long)ye * dyx, fx = (long long)xe * dxy,
                            fy = (long long)ye * dyy;
            const int x00 = (int)(fx0 >> 32), x10 = (int)((fx0 + ex) >> 32), x01 = (int)((fx0 + ey) >> 32),
                      x11 = (int)((fx0 + ex + ey) >> 32);
            const int y00 = (int)(fy0 >> 32), y10 = (int)((fy0 + fx) >> 32), y01 = (int)((fy0 + fy) >> 32),
                      y11 = (int)((fy0 + fx + fy) >> 32);
            xlo = min(min(x00, x10), min(x01, x11)), xhi = max(max(x00, x10), max(x01, x11));
            ylo = min(min(y00, y10), min(y01, y11)), yhi = max(max(y00, y10), max(y01, y11));
        }
        long long fxp = fx0 + tx * dxx + ty * dyx, fyp = fy0 + tx * dxy + ty * dyy;
        uint8_t *o = out + ((size_t)(Y0 + ty) * OW + X0 + tx) * OC;
        const size_t ostep = (size_t)GRW * OW * OC;
        const long long sx = GRW * dyx, sy = GRW * dyy;
        const int nq = (xhi + 5 - xlo) / 4; // RGB8: quads of pixels a row, each pixel staged as a word
        if (xlo >= 0 && xhi <= W - 2 && ylo >= 0 && yhi <= H - 2 && yhi - ylo + 2 <= HS &&
            (C == 3 ? 16 * nq <= RS && (size_t)(yhi + 2) * pitch + 32 <= total
                    : (xhi + 2 - xlo) * C + 32 <= RS && (xhi + 2 - xlo) * C + 15 < NC * 16)) {
            // rows ylo .. yhi + 1, columns xlo .. xhi + 1 (bytes 0 .. w of each row): NC lanes a row, a 16-byte word
            // each (RGB8: nq lanes a row, 4 pixels each, from column xlo; the words read lie inside the image)
            const size_t r0 = (size_t)ylo * pitch + (size_t)xlo * C;
            const int d = (int)(r0 & 15) + 16, w = (xhi + 2 - xlo) * C - 1;
            __syncthreads(); // the last tile's pixels have read sm
            if constexpr (C == 3) {
                // 4 pixels a thread: their 12 bytes from the 4 aligned words that hold them (all inside the
                // image: below), two quads at a time, so that their loads are in flight together
                const int n = (yhi - ylo + 2) * nq, dr = THREADS / nq, dq = THREADS % nq;
                int r = t / nq, q = t % nq;
                auto next = [&](int &rr, int &qq) {
                    rr += dr, qq += dq;
                    if (qq >= nq)
                        qq -= nq, rr++;
                };
                auto quad = [&](int rr, int qq, uint32_t(&w)[4]) {
                    const size_t g = r0 + (size_t)rr * pitch + 12 * qq;
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        w[j] = ((const uint32_t *)(in + (g & ~(size_t)3)))[j];
                    return 8 * (uint32_t)(g & 3);
                };
                auto put = [&](int rr, int qq, const uint32_t(&w)[4], uint32_t sh) {
                    const uint32_t u0 = __funnelshift_r(w[0], w[1], sh), u1 = __funnelshift_r(w[1], w[2], sh),
                                   u2 = __funnelshift_r(w[2], w[3], sh);
                    *(uint4 *)(sm + rr * RS + 16 * qq) = make_uint4(
                        __byte_perm(u0, 0x64, 0x4210), __byte_perm(__funnelshift_r(u0, u1, 24), 0x64, 0x4210),
                        __byte_perm(__funnelshift_r(u1, u2, 16), 0x64, 0x4210), __byte_perm(u2, 0x64, 0x4321));
                };
                for (int i = t; i < n; i += 2 * THREADS) {
                    int r2 = r, q2 = q;
                    next(r2, q2);
                    const bool two = i + THREADS < n;
                    uint32_t wa[4], wb[4];
                    const uint32_t sa = quad(r, q, wa), sb = quad(two ? r2 : r, q2, wb);
                    put(r, q, wa, sa);
                    if (two)
                        put(r2, q2, wb, sb);
                    r = r2, q = q2;
                    next(r, q);
                }
            } else if (yhi + 2 < H) {
                // Every word read lies inside the image (the row after the
                // footprint's last does).  LN lanes a row, lane q reading word q
                // from the 16-byte boundary at or before column xlo, KR rows RP
                // apart at a time, so that their loads are in flight together
                // (where one word a thread at a time took each load's latency in
                // turn).
                constexpr int LN = NC <= 8 ? 8 : NC <= 16 ? 16 : 32, RP = THREADS / LN, KR = C == 4 ? 4 : 2;
                const int q = t % LN, rows = yhi - ylo + 2;
                if (q < NC) {
                    const size_t step = (size_t)RP * pitch;
                    const uint8_t *src = in + r0 + (size_t)(t / LN) * pitch; // row r of the footprint
                    uint32_t rlo = (uint32_t)r0 + t / LN * pitch;             // its offset in the image (low bits)
                    int dr = t / LN * RS + d;                                 // its start in sm
#pragma unroll 1
                    for (int r = t / LN; r < rows; r += KR * RP, src += KR * step, rlo += KR * RP * pitch,
                             dr += KR * RP * RS) {
                        uint4 v[KR];
                        int off[KR]; // word q's first byte from the row's column xlo; INT_MIN: none
#pragma unroll
                        for (int i = 0; i < KR; i++) {
                            off[i] = 16 * q - (int)((rlo + i * RP * pitch) & 15);
                            if (r + i * RP >= rows || off[i] > w)
                                off[i] = INT_MIN;
                            else
                                v[i] = *(const uint4 *)(src + i * step + off[i]);
                        }
#pragma unroll
                        for (int i = 0; i < KR; i++)
                            if (off[i] != INT_MIN)
                                *(uint4 *)(sm + dr + i * RP * RS + off[i]) = v[i];
                    }
                }
            } else
                for (int i = t; i < (yhi - ylo + 2) * NC; i += THREADS) {
                    const int r = i / NC;
                    const size_t rs = r0 + (size_t)r * pitch, g = (rs & ~(size_t)15) + 16 * (i % NC);
                    if (g > rs + w)
                        continue;
                    uint8_t *dst = sm + r * RS + (int)(g - rs) + d;
                    if (g + 16 <= total)
                        *(uint4 *)dst = *(const uint4 *)(in + g);
                    else // the image's last word, if it ends inside one (not unrolled: unrolled, this loop
                         // took the kernel's most registers, 59 live for gray8)
#pragma unroll 1
                        for (int j = 0; j < 16 && g + j < total; j++)
                            dst[j] = in[g + j];
                }
            __syncthreads();
            constexpr int SC = C == 3 ? 4 : C; // bytes a staged pixel
            const int base = (C == 3 ? 0 : d) - ylo * RS - xlo * SC;
            // RGB8: the four neighbours' words of the pixel at (fxp, fyp)
            auto words = [&](uint32_t(&w)[4]) {
                const uint8_t *p = sm + ((int)(fyp >> 32) * RS + (int)(fxp >> 32) * 4 + base);
#pragma unroll
                for (int q = 0; q < 4; q++)
                    w[q] = *(const uint32_t *)(p + (q >> 1) * RS + (q & 1) * 4);
            };
            auto pixel = [&]() {
                const uint8_t *p = sm + ((int)(fyp >> 32) * RS + (int)(fxp >> 32) * SC + base);
                // (interior_pixel's loads, written out here: through one helper ptxas unrolled the partial
                // tiles' loop differently and gray8 ran 1-2% slower)
                packed_pixel<uint8_t, C> s[4];
                if constexpr (C == 1)
                    s[0].w[0] = p[0], s[1].w[0] = p[1], s[2].w[0] = p[RS], s[3].w[0] = p[RS + 1];
                else if constexpr (C == 3) {
                    uint32_t w[4];
                    words(w);
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        s[q].w[0] = w[q];
                } else {
#pragma unroll
                    for (int q = 0; q < 4; q++)
                        s[q].load(p + (q >> 1) * RS + (q & 1) * C);
                }
                interpolate<uint8_t, C, OC>(s, fxp, fyp, maxval).store(o);
                fxp += sx, fyp += sy, o += ostep;
            };
            // RGB8: two pixels at a time, the third channel of both in one half2
            [[maybe_unused]] rgb8_out ro(o, ostep);
            auto pixel_pair = [&]() {
                uint32_t sa[4], sb[4];
                const long long fxa = fxp, fya = fyp;
                words(sa);
                fxp += sx, fyp += sy;
                words(sb);
                packed_pixel<uint8_t, OC> pa, pb;
                interpolate_rgb8_pair<OC>(sa, sb, fxa, fya, fxp, fyp, maxval, pa.w[0], pb.w[0]);
                fxp += sx, fyp += sy;
                if constexpr (OC == 3)
                    ro.put(pa.w[0]), ro.put(pb.w[0]);
                else
                    pa.store(o), pb.store(o + ostep);
                o += 2 * ostep;
            };
            if (ye == GTH - 1 && tx <= xe) { // the tile's rows all inside the output
                if constexpr (C == 3)
#pragma unroll
                    for (int k = 0; k < GKY; k += 2)
                        pixel_pair();
                else
#pragma unroll
                    for (int k = 0; k < GKY; k++)
                        pixel();
            } else if (tx <= xe)
                for (int k = 0; k < GKY && ty + k * GRW <= ye; k++)
                    pixel();
        } else if (tx <= xe) {
            const bool none = xhi < -1 || xlo >= W || yhi < -1 || ylo >= H; // no neighbour inside for any pixel
            if (none) {
                if constexpr (OC == 3) {
                    rgb8_out ro(o, ostep);
                    for (int k = 0; k < GKY && ty + k * GRW <= ye; k++)
                        ro.put(b.w[0]);
                } else
                    for (int k = 0; k < GKY && ty + k * GRW <= ye; k++, o += ostep)
                        b.store(o);
                continue;
            }
#pragma unroll
            for (int k = 0; k < GKY; k++, fxp += sx, fyp += sy, o += ostep) {
                if (ty + k * GRW > ye)
                    break;
                any_pixel<uint8_t, C, OC, C == 3 ? 4 : 2>(in, W, H, fxp, fyp, b, bgv, maxval, o);
            }
        }
    }
}

// log2 of the warp's block width A (1 to 32): the fewest rows spanned by its
// loads in the input (A |sin| + 32 / A |cos|) and by its stores in the output
// (32 / A), a row of stores weighed as 1.5 rows of loads where a pixel is one
// store and as 3 where it is 3 (RGB).  The weights are measured (H200, 8192^2,
// 10 to 150 degrees): the rows of loads alone chose A = 8 at 30 degrees and
// 2 at 80, where 16 ran 4-30% faster and 8 ran 18-70% faster.
static int warp_width_log2(double ca, double sa, int pixel_bytes)
{
    const double store_row = pixel_bytes == 3 || pixel_bytes == 6 ? 3.0 : 1.5;
    int best = 5;
    double least = HUGE_VAL;
    for (int lg = 5; lg >= 0; lg--) {
        const double a = 1 << lg, cost = a * fabs(sa) + 32.0 / a * (fabs(ca) + store_row);
        if (cost < least)
            least = cost, best = lg;
    }
    return best;
}

// The staged kernel's shared row stride: at least rsmin, W C (mod 16), and among the eight
// such strides (every bank a row can start at, mod 128 bytes) the one whose
// warps' loads (32 pixels of an output row, stepping (ca, -sa) in the input)
// take the fewest shared-memory wavefronts, over a few sample warps.  A
// warp's words are monotonic in both coordinates, so equal words are
// neighbouring lanes.  The last answer is kept (a batch rotates its images
// by one angle).
static int staged_stride(int rsmin, int W, int C, double ca, double sa)
{
    static thread_local struct {
        int rsmin, w16, c, rs;
        double ca, sa;
    } memo = {-1, -1, 0, 0, 0, 0};
    const int first = rsmin + (int)(((unsigned)W * C - (unsigned)rsmin) & 15u);
    if (memo.rsmin == rsmin && memo.w16 == W % 16 && memo.c == C && memo.ca == ca && memo.sa == sa)
        return memo.rs;
    int best = first;
    long least = LONG_MAX;
    for (int j = 0; j < 8; j++) {
        const int RS = first + 16 * j;
        long cost = 0;
        for (int ph = 0; ph < 8; ph++) { // sample warps: where the first lane starts, and the byte offset mod 4
            const double x = 100.0 + 0.37 * ph, y = 100.0 + 0.59 * ph;
            for (int q = 0; q < 4; q++) { // the loads of a, b, c, d
                int per_bank[32] = {0}, most = 0;
                long last = -1;
                for (int k = 0; k < 32; k++) {
                    const long off =
                        ((long)floor(y - k * sa) + (q >> 1)) * RS + ((long)floor(x + k * ca) + (q & 1)) * C + ph % 4;
                    if (off >> 2 != last) {
                        last = off >> 2;
                        const int n = ++per_bank[last & 31];
                        most = n > most ? n : most;
                    }
                }
                cost += most;
            }
        }
        if (cost < least)
            least = cost, best = RS;
    }
    memo = {rsmin, W % 16, C, best, ca, sa};
    return best;
}

// The staged kernel's tiles: the fixed-point steps, and the shared memory
// that the widest and tallest footprint at this angle takes; the caller
// checks the launch.
template <int C>
static void launch_staged(const gf_image *in, gf_image *out, double ca, double sa, uint4 bg, uint32_t maxval,
                          cudaStream_t st)
{
    const double c = fabs(ca), s = fabs(sa);
    // the first columns (rows) of a tile's neighbourhoods span at most this many more
    const int spanx = (int)ceil((GTW - 1) * c + (GTH - 1) * s) + 1,
              spany = (int)ceil((GTW - 1) * s + (GTH - 1) * c) + 1;
    // (RGB8 stages a pixel as a word, 16-byte quads from column xlo: any multiple of 16 will do)
    const int RS = C == 3 ? staged_stride(16 * ((spanx + 5) / 4), 4, 4, ca, sa)
                          : staged_stride((spanx + 1) * C + 32, in->width, C, ca, sa),
              HS = spany + 2;
    const size_t smem = (size_t)HS * RS + 48;
    const unsigned gy = gf_blocks(out->height, GTH);
    const dim3 grid(gf_blocks(out->width, GTW), gy < 65535 ? gy : 65535);
    const double k = 4294967296.0;
    const long long dxx = llrint(ca * k), dxy = llrint(-sa * k), dyx = llrint(sa * k), dyy = llrint(ca * k);
    // a whole tile's corners, from its first pixel: the least and the most of each coordinate
    const long long ex = (GTW - 1) * dxx, ey = (GTH - 1) * dyx, fx = (GTW - 1) * dxy, fy = (GTH - 1) * dyy;
    const long long cx0 = std::min(std::min(0LL, ex), std::min(ey, ex + ey)),
                    cx1 = std::max(std::max(0LL, ex), std::max(ey, ex + ey));
    const long long cy0 = std::min(std::min(0LL, fx), std::min(fy, fx + fy)),
                    cy1 = std::max(std::max(0LL, fx), std::max(fy, fx + fy));
    const uint8_t *src = (const uint8_t *)in->data;
    uint8_t *dst = (uint8_t *)out->data;
    constexpr int OCA = C == 1 || C == 3 ? C + 1 : C;
    if (out->channels == C)
        rotate_staged<C, C><<<grid, THREADS, smem, st>>>(src, dst, in->width, in->height, out->width, out->height, ca,
                                                         sa, dxx, dxy, dyx, dyy, cx0, cx1, cy0, cy1, RS, HS, bg,
                                                         maxval);
    else
        rotate_staged<C, OCA><<<grid, THREADS, smem, st>>>(src, dst, in->width, in->height, out->width, out->height, ca,
                                                           sa, dxx, dxy, dyx, dyy, cx0, cx1, cy0, cy1, RS, HS, bg,
                                                           maxval);
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
    // the warp's shape, and the block's: its 8 warps side by side, up to 128 pixels (at 30 degrees 8 warps of 16 x 2)
    const int lgA = warp_width_log2(ca, sa, OC * in->depth / 8);
    const int lgWA = lgA >= 4 ? 7 - lgA : 3, RW = 1 << (lgA + lgWA), RH = THREADS / RW;
    const unsigned gy = gf_blocks(out->height, RH * KY);
    const dim3 grid(gf_blocks(out->width, RW), gy < 65535 ? gy : 65535);
    // a thread's step down its column (RH rows), 32.32 fixed point
    const long long stepx = llrint(RH * sa * 4294967296.0), stepy = llrint(RH * ca * 4294967296.0);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        if constexpr (sizeof(T) == 1 && C < 4)
            launch_staged<C>(in, out, ca, sa, b, maxval, st);
        else if (sizeof(T) == 1 && fabs(sa) >= STAGED_SIN)
            launch_staged<4>(in, out, ca, sa, b, maxval, st);
        else if (OC == C)
            rotate_bilinear<T, C, C><<<grid, THREADS, 0, st>>>(src, dst, in->width, in->height, out->width, out->height,
                                                               ca, sa, stepx, stepy, b, maxval, lgA, lgWA);
        else if constexpr (C == 1 || C == 3)
            rotate_bilinear<T, C, C + 1><<<grid, THREADS, 0, st>>>(
                src, dst, in->width, in->height, out->width, out->height, ca, sa, stepx, stepy, b, maxval, lgA, lgWA);
        else
            return cudaErrorInvalidValue;
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
