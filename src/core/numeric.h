/* SPDX-License-Identifier: MIT */
/* The arithmetic that the CPU reference and the CUDA kernels must share bit
 * for bit: border indexing, fixed-point blur shifts, box division, the
 * equalisation curve, the grayscale weights, the resize sums.  Plain C, compiled by both gcc and nvcc. */
#ifndef GF_NUMERIC_H
#define GF_NUMERIC_H

#include <math.h>
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

/* -grayscale: Y = (wr R + wg G + wb B + 2^14) >> 15 with weights in 2^-15
 * summing to 2^15 (rec601: 0.299, 0.587, 0.114 as OpenCV's cvtColor rounds
 * them, bit for bit; rec709: 0.2126, 0.7152, 0.0722); average: (R + G + B +
 * 1) / 3, rounded half up.  Exact in 32 bits for 16-bit samples. */
#define GF_GRAY_BITS 15
/* The weight of channel c (0 R, 1 G, 2 B) under rec601 (0) or rec709 (1). */
GF_HD uint32_t gf_gray_weight(int weights, int c)
{
    return weights ? (c == 0 ? 6966 : c == 1 ? 23436 : 2366) : (c == 0 ? 9798 : c == 1 ? 19235 : 3735);
}
GF_HD uint32_t gf_gray_value(uint32_t r, uint32_t g, uint32_t b, int weights)
{
    if (weights == 2) /* average */
        return (r + g + b + 1) / 3;
    return (gf_gray_weight(weights, 0) * r + gf_gray_weight(weights, 1) * g + gf_gray_weight(weights, 2) * b +
            (1u << (GF_GRAY_BITS - 1))) >> GF_GRAY_BITS;
}

/* -resize, separable: output sample o of an axis is the sum over k < n of
 * w[o n + k] in[start[o] + k], weights in 2^-GF_RESIZE_BITS summing to
 * 2^GF_RESIZE_BITS (computed once on the host: gf_resize_axis).  Rows
 * first: t = floor((sum + 2^5) / 2^6), a signed intermediate with 8
 * fraction bits; then columns: out = floor((sum w t + 2^21) / 2^22),
 * clamped to the sample range.  Sums in 64 bits. */
#define GF_RESIZE_BITS 14
typedef struct gf_resize_taps {
    int n;          /* taps an output: the widest window; narrower ones end in zero weights */
    int32_t *start; /* each output's first input index; start + n <= the input's length */
    int32_t *w;     /* out_n x n weights */
} gf_resize_taps;

GF_HD int32_t gf_resize_mid(int64_t sum)
{
    return (int32_t)((sum + (1 << (GF_RESIZE_BITS - 9))) >> (GF_RESIZE_BITS - 8)); /* arithmetic shift: a floor */
}

GF_HD uint32_t gf_resize_out(int64_t sum, uint32_t maxval)
{
    const int64_t v = (sum + ((int64_t)1 << (GF_RESIZE_BITS + 7))) >> (GF_RESIZE_BITS + 8);
    return v < 0 ? 0 : v > (int64_t)maxval ? maxval : (uint32_t)v;
}

/* -erode and -dilate: the radius that gives the same result on an axis of
 * n samples, at most n (a window of 2n + 1 then holds the whole line and,
 * for the zero border, a zero). */
GF_HD long gf_rank_radius(long r, long n)
{
    return r < n ? r : n;
}

/* -unsharp: v, the blurred b; gain = round(amount 2^16), t = ceil(threshold
 * maxval).  Where 2 |v - b| < t, v stays; else v + floor(((v - b) gain +
 * 2^15) / 2^16), clamped to the sample range (ImageMagick's arithmetic in
 * fixed point). */
GF_HD uint32_t gf_unsharp_value(uint32_t v, uint32_t b, int64_t gain, int64_t t, uint32_t maxval)
{
    const int64_t d = (int64_t)v - (int64_t)b;
    if (2 * (d < 0 ? -d : d) < t)
        return v;
    const int64_t r = (int64_t)v + ((d * gain + 32768) >> 16); /* arithmetic shift: a floor */
    return r < 0 ? 0 : r > (int64_t)maxval ? maxval : (uint32_t)r;
}

/* -convolve: a sample is floor((sum of q v + bias + 2^15) / 2^16), clamped,
 * q the kernel's weights and bias in 2^-16 of a sample. */
#define GF_CONVOLVE_BITS 16
#define GF_KERNEL_MAX 31 /* a kernel's largest side */
GF_HD uint32_t gf_convolve_value(int64_t sum, int64_t bias, uint32_t maxval)
{
    const int64_t v = (sum + bias + ((int64_t)1 << (GF_CONVOLVE_BITS - 1))) >> GF_CONVOLVE_BITS;
    return v < 0 ? 0 : v > (int64_t)maxval ? maxval : (uint32_t)v;
}

/* -edge: floor(sqrt(gx^2 + gy^2) + 1/2) of the two directions' integer
 * responses, clamped; the square root exact (an integer root, corrected). */
GF_HD uint32_t gf_edge_value(int64_t gx, int64_t gy, uint32_t maxval)
{
    const uint64_t m = (uint64_t)(gx * gx) + (uint64_t)(gy * gy);
    uint64_t s = (uint64_t)sqrt((double)m);
    while (s * s > m)
        s--;
    while ((s + 1) * (s + 1) <= m)
        s++;
    const uint64_t r = m > s * s + s ? s + 1 : s;
    return r > maxval ? maxval : (uint32_t)r;
}

#endif
