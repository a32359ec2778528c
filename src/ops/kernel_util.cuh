// SPDX-License-Identifier: MIT
// Helpers shared by the kernels: launch checking, depth and channel dispatch,
// a few byte and copy instructions.
#ifndef GF_KERNEL_UTIL_CUH
#define GF_KERNEL_UTIL_CUH

#include <cstdint>
#include <type_traits>

#include "gf_kernels.h"
#include "numeric.h"

#define GF_LAUNCH_CHECK()                                                                                              \
    do {                                                                                                               \
        cudaError_t e_ = cudaGetLastError();                                                                           \
        if (e_ != cudaSuccess)                                                                                         \
            return e_;                                                                                                 \
    } while (0)

static inline unsigned gf_blocks(size_t n, unsigned per)
{
    return (unsigned)((n + per - 1) / per);
}

static inline size_t gf_samples(const gf_image *img)
{
    return (size_t)img->width * img->height * img->channels;
}

// Rows of whole 16-byte words: the word kernels' condition (device buffers are 256-byte aligned).
static inline bool gf_word_rows(const gf_image *img)
{
    return (size_t)img->width * img->channels * (img->depth / 8) % 16 == 0;
}

// An attribute of the current device.
static inline cudaError_t gf_device_attr(cudaDeviceAttr attr, int *v)
{
    int dev = 0;
    const cudaError_t e = cudaGetDevice(&dev);
    return e != cudaSuccess ? e : cudaDeviceGetAttribute(v, attr, dev);
}

static inline cudaError_t gf_sm_count(int *sms)
{
    return gf_device_attr(cudaDevAttrMultiProcessorCount, sms);
}

// The path chooser of an op with one kernel path.
static inline int gf_one_path(const gf_step *, const gf_image *)
{
    return 0;
}

// Blocks for a grid-stride loop over `work` blocks' worth of items: at most
// 32 a multiprocessor, so that each block makes many items rather than the
// GPU spending its time starting blocks.
static inline unsigned gf_loop_blocks(size_t work)
{
    int sms = 132;
    if (gf_sm_count(&sms) != cudaSuccess)
        (void)cudaGetLastError();
    const size_t most = (size_t)sms * 32;
    return (unsigned)(work < most ? (work ? work : 1) : most);
}

// The grid of a pass over `lines` lines of `items` items each: blocks of
// `threads` along a line, and the lines shared out among as many blocks as
// keep gf_loop_blocks' count (the kernel walks lines gridDim.y apart).
static inline dim3 gf_lines_grid(size_t items, unsigned threads, long lines)
{
    const unsigned bx = gf_blocks(items, threads);
    long by = (long)(gf_loop_blocks((size_t)bx * lines) / bx) + 1;
    by = by < lines ? by : lines;
    return dim3(bx, (unsigned)(by < 65535 ? by : 65535));
}

// Calls f.template operator()<T, C>() for the image's sample type and channel count.
template <typename F> static cudaError_t gf_dispatch(const gf_image *img, F &&f)
{
    if (img->depth == 8) {
        switch (img->channels) {
        case 1: return f.template operator()<uint8_t, 1>();
        case 2: return f.template operator()<uint8_t, 2>();
        case 3: return f.template operator()<uint8_t, 3>();
        default: return f.template operator()<uint8_t, 4>();
        }
    }
    switch (img->channels) {
    case 1: return f.template operator()<uint16_t, 1>();
    case 2: return f.template operator()<uint16_t, 2>();
    case 3: return f.template operator()<uint16_t, 3>();
    default: return f.template operator()<uint16_t, 4>();
    }
}

// A pixel's C samples from p, or to p: one load or store where they make a
// whole aligned vector (C = 2 or 4; packed images put a pixel at a multiple
// of its size), else a sample at a time.
template <typename T, int C> struct gf_pixel_vec { using type = T; };
template <> struct gf_pixel_vec<uint8_t, 2> { using type = uchar2; };
template <> struct gf_pixel_vec<uint8_t, 4> { using type = uchar4; };
template <> struct gf_pixel_vec<uint16_t, 2> { using type = ushort2; };
template <> struct gf_pixel_vec<uint16_t, 4> { using type = ushort4; };
template <> struct gf_pixel_vec<int32_t, 2> { using type = int2; };
template <> struct gf_pixel_vec<int32_t, 4> { using type = int4; };

template <typename T, int C, typename V>
__device__ __forceinline__ void gf_load_pixel(const T *p, V (&v)[C])
{
    if constexpr (C == 2 || C == 4) {
        const auto u = *(const typename gf_pixel_vec<T, C>::type *)p;
        v[0] = u.x, v[1] = u.y;
        if constexpr (C == 4)
            v[2] = u.z, v[3] = u.w;
    } else {
#pragma unroll
        for (int c = 0; c < C; c++)
            v[c] = p[c];
    }
}

template <typename T, int C, typename V>
__device__ __forceinline__ void gf_store_pixel(T *p, const V (&v)[C])
{
    if constexpr (C == 2 || C == 4) {
        typename gf_pixel_vec<T, C>::type u;
        u.x = (T)v[0], u.y = (T)v[1];
        if constexpr (C == 4)
            u.z = (T)v[2], u.w = (T)v[3];
        *(typename gf_pixel_vec<T, C>::type *)p = u;
    } else {
#pragma unroll
        for (int c = 0; c < C; c++)
            p[c] = (T)v[c];
    }
}

// A tile's footprint to shared memory: ph rows of pw pixels of C samples from
// pixel (x0, y0) on (which may lie outside: the border rule applies, 0 where
// it names none), sample c of pixel p of row r at tile[r pitch + p C + c]
// (pitch: pw C unless given; a multiple of 4 for 16-bit lanes of 8-bit
// samples, see gf_lane_words), as U.  The block's threads take a pixel each
// in turn (whole-pixel loads where C is 2 or 4); a footprint wholly inside
// the image skips the border rule.  A pixel's row comes from a float
// reciprocal, corrected to the exact quotient.
template <typename T, int C, typename U = T>
__device__ __forceinline__ void gf_stage_footprint(const T *__restrict__ in, U *tile, int W, int H, int x0, int y0,
                                                   int pw, int ph, int border, int pitch = 0)
{
    const int threads = blockDim.x * blockDim.y, tid = threadIdx.y * blockDim.x + threadIdx.x;
    const bool inside = x0 >= 0 && y0 >= 0 && x0 + pw <= W && y0 + ph <= H;
    const float inv = 1.0f / (float)pw;
    pitch = pitch ? pitch : pw * C;
    for (int e = tid; e < ph * pw; e += threads) {
        int r = (int)((float)e * inv);
        r -= r * pw > e;
        r += (r + 1) * pw <= e;
        const int p = e - r * pw;
        T v[C] = {};
        if (inside) {
            gf_load_pixel<T, C>(in + ((size_t)(y0 + r) * W + x0 + p) * C, v);
        } else {
            const long sy = gf_border_index((long)y0 + r, H, border), sx = gf_border_index((long)x0 + p, W, border);
            if (sx >= 0 && sy >= 0)
                gf_load_pixel<T, C>(in + ((size_t)sy * W + sx) * C, v);
        }
        U *d = tile + r * pitch + p * C;
        if constexpr (std::is_same_v<T, U>) {
            gf_store_pixel<T, C>(d, v);
        } else if constexpr (sizeof(T) == 1 && sizeof(U) == 2 && C % 2 == 0) { // bytes into 16-bit lanes, a word a pair
            uint32_t w[C / 2];
#pragma unroll
            for (int i = 0; i < C / 2; i++)
                w[i] = (uint32_t)v[2 * i] | (uint32_t)v[2 * i + 1] << 16;
            if constexpr (C == 4)
                *(uint2 *)d = make_uint2(w[0], w[1]);
            else
                *(uint32_t *)d = w[0];
        } else {
#pragma unroll
            for (int c = 0; c < C; c++)
                d[c] = (U)v[c];
        }
    }
}

// 32-bit words for a row of n samples in 16-bit lanes, two a word: one more
// (an odd offset's word reads its neighbour), rounded up to an even count
// (a row then starts on 8 bytes: whole-pixel stores when staging).
__host__ __device__ constexpr int gf_lane_words(int n)
{
    return (n / 2 + 2) & ~1;
}

// Halves o and o + 1 of a row of 16-bit lanes, as one word.
__device__ __forceinline__ uint32_t gf_lanes_at(const uint32_t *row, int o)
{
    const uint32_t lo = row[o >> 1];
    return o & 1 ? __byte_perm(lo, row[(o >> 1) + 1], 0x5432) : lo;
}

// The two 16-bit lanes of v as samples idx and idx + 1 of an image (at o =
// the image + idx); the second only if `both`.  One store where they are
// aligned together.
template <typename T> __device__ __forceinline__ void gf_store_lanes(T *o, size_t idx, uint32_t v, bool both)
{
    if (both && idx % 2 == 0) {
        if constexpr (sizeof(T) == 1)
            *(uint16_t *)o = (uint16_t)__byte_perm(v, 0, 0x0020);
        else
            *(uint32_t *)o = v;
        return;
    }
    o[0] = (T)(v & 0xffffu);
    if (both)
        o[1] = (T)(v >> 16);
}

// One 16-byte cp.async from global to shared memory (L1 bypassed), in the
// group the next cp.async.commit_group closes.
__device__ __forceinline__ void gf_cp_async16(void *dst, const void *src)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"((unsigned)__cvta_generic_to_shared(dst)), "l"(src));
}

// The low bytes of a, b, c and d as the bytes 0 to 3 of one word.
__device__ __forceinline__ uint32_t gf_pack_bytes(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return __byte_perm(__byte_perm(a, b, 0x0040), __byte_perm(c, d, 0x0040), 0x5410);
}

// Opts a kernel into more than 48 KB of dynamic shared memory when asked; false if it cannot fit.
template <typename K> static bool gf_fit_smem(K kernel, size_t bytes)
{
    int optin = 0;
    if (gf_device_attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, &optin) != cudaSuccess)
        return false;
    if (bytes > (size_t)optin)
        return false;
    if (bytes > 48 * 1024 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes) != cudaSuccess) {
        (void)cudaGetLastError(); // not sticky: clear it, the caller falls back
        return false;
    }
    return true;
}

#endif
