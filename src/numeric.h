/* SPDX-License-Identifier: MIT */
/* The arithmetic that the CPU reference and the CUDA kernels must share bit
 * for bit: border indexing, fixed-point blur shifts, box division, the
 * equalisation curve.  Plain C, compiled by both gcc and nvcc. */
#ifndef GF_NUMERIC_H
#define GF_NUMERIC_H

#include <stdint.h>

#ifdef __CUDACC__
#define GF_HD __host__ __device__ __forceinline__
#else
#define GF_HD static inline
#endif

typedef enum gf_border {
    GF_BORDER_CLAMP = 0,  /* aaa|abcd|ddd */
    GF_BORDER_MIRROR = 1, /* dcb|abcd|cba (OpenCV BORDER_REFLECT_101) */
    GF_BORDER_WRAP = 2,   /* bcd|abcd|abc */
    GF_BORDER_ZERO = 3    /* 000|abcd|000 */
} gf_border;

/* Index of the sample that position i (any integer) reads in a line of n
 * samples, or -1 for a zero sample.  Works for |i| far beyond n. */
GF_HD long gf_border_index(long i, long n, int border)
{
    if (i >= 0 && i < n)
        return i;
    switch (border) {
    case GF_BORDER_CLAMP:
        return i < 0 ? 0 : n - 1;
    case GF_BORDER_WRAP: {
        long r = i % n;
        return r < 0 ? r + n : r;
    }
    case GF_BORDER_MIRROR: {
        if (n == 1)
            return 0;
        long p = 2 * (n - 1);
        long r = i % p;
        if (r < 0)
            r += p;
        return r < n ? r : p - r;
    }
    default:
        return -1;
    }
}

/* The eight symmetries of the rectangle as bits: output (x, y) reads input
 * (sx, sy) = swap ? (y, x) : (x, y), then sx mirrored if FX, sy if FY. */
enum gf_orient {
    GF_ORIENT_NONE = 0,
    GF_OR_FY = 1,
    GF_OR_FX = 2,
    GF_OR_SWAP = 4,
    GF_ORIENT_FLIP = GF_OR_FY,
    GF_ORIENT_FLOP = GF_OR_FX,
    GF_ORIENT_ROT180 = GF_OR_FX | GF_OR_FY,
    GF_ORIENT_TRANSPOSE = GF_OR_SWAP,
    GF_ORIENT_ROT90 = GF_OR_SWAP | GF_OR_FY,
    GF_ORIENT_ROT270 = GF_OR_SWAP | GF_OR_FX,
    GF_ORIENT_TRANSVERSE = GF_OR_SWAP | GF_OR_FX | GF_OR_FY
};

/* Gaussian blur fixed point.  Taps are integers summing to 2^GF_BLUR_BITS(depth).
 * Horizontal pass: t = round(sum q*x / 2^(bits-8)), an intermediate with 8
 * fraction bits (uint16 for 8-bit images, uint32 for 16-bit).  Vertical pass:
 * out = round(sum q*t / 2^(bits+8)).  8-bit sums fit uint32, 16-bit ones uint64. */
#define GF_BLUR_BITS(depth) ((depth) == 16 ? 31 : 16)
#define GF_BLUR_SHIFT1(depth) (GF_BLUR_BITS(depth) - 8)
#define GF_BLUR_SHIFT2(depth) (GF_BLUR_BITS(depth) + 8)

/* -rotate at angles that are not multiples of 90, in fixed point: output
 * pixel (x, y) samples the input at sx = x0 + x xx + y xy, sy = y0 + x yx +
 * y yy, in units of 2^-32 pixel (the centres' geometry of gf_rotate_plan,
 * rounded once, on the host).  The position is rounded to 2^-bits pixel (8
 * bits for 8-bit samples, 16 for 16-bit): p = floor(sx / 2^(32 - bits) +
 * 1/2), whose integer part is the left neighbour and whose fraction is the
 * right neighbour's weight. */
typedef struct gf_rotation {
    int64_t x0, y0, xx, xy, yx, yy;
    int bits;
} gf_rotation;

/* The rounded position along one axis: neighbour *i and weight *f (0 .. 2^bits - 1). */
GF_HD void gf_rotate_axis(int64_t s, int bits, long *i, uint32_t *f)
{
    const int64_t p = (s + ((int64_t)1 << (31 - bits))) >> (32 - bits); /* arithmetic shift: a floor */
    *i = (long)(p >> bits);
    *f = (uint32_t)(p & (((int64_t)1 << bits) - 1));
}

/* Bilinear mix of the samples a (left), b (right) above c, d below, rounded
 * half up: exact integers, below 2^32 for 8-bit samples (bits 8), below 2^64
 * for 16-bit (bits 16). */
GF_HD uint32_t gf_rotate_mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t fx, uint32_t fy, int bits)
{
    const uint64_t one = (uint64_t)1 << bits;
    const uint64_t top = a * (one - fx) + b * fx, bottom = c * (one - fx) + d * fx;
    return (uint32_t)((top * (one - fy) + bottom * fy + ((uint64_t)1 << (2 * bits - 1))) >> (2 * bits));
}

/* Equalisation curve: cdf[v] counts the samples <= v; n is the sample count,
 * cmin the cdf of the smallest value present.  Rounded half up. */
GF_HD uint32_t gf_equalize_value(uint64_t cdf_v, uint64_t cmin, uint64_t n, uint32_t maxval, uint32_t v)
{
    if (n == cmin) /* one value only: leave the channel as it is */
        return v;
    uint64_t den = n - cmin;
    return (uint32_t)(((cdf_v - cmin) * maxval + den / 2) / den);
}

#endif
