// SPDX-License-Identifier: MIT
// Rotation by any angle: right angles by the orientation kernels (orient.cu),
// other angles bilinear on the enlarged canvas in the fixed point of
// numeric.h (gf_rotate_axis, gf_rotate_mix): the same integer arithmetic as
// src/ops/rotate/rotate_ref.c, so the result is the reference's, bit for bit.
//
// A block of 32 x ROWS threads (ROWS: 4 for 8-bit samples, 8 for 16-bit)
// makes a tile of TW x TH = 32 x 64 output pixels, each thread a column of
// 64 / ROWS (rows ROWS apart).  The tile's footprint in the input (the
// neighbours its pixels read: the map is affine, so the corners bound it)
// spans at most 31 |cos| + 63 |sin| + 2 < FP = 74 pixels each way; the block
// stages the part inside the image in shared memory (FP pixels a row), a warp
// a row at a time (coalesced), a pixel a load where it is 1, 2, 4 or 8 bytes
// (RGB8 as 4-byte words), else a sample a load.  A source position is 32.32
// fixed point, stepped by 64-bit adds: its high word is the left neighbour,
// the top bits of its low word the weight.  A thread whose outputs' neighbours
// all lie inside the image (the first and last do: the inside is convex)
// reads them without checks; elsewhere neighbours outside read the
// background.  RGBA8 and RGB8 interpolate two channels an instruction along x
// (16-bit lanes: at most 255 256 each), then each channel along y.
#include <climits>
#include <type_traits>

#include "kernel_util.cuh"
#include "rotate.h"

namespace {

constexpr int TW = 32, TH = 64, FP = 74;
// Thread rows a block: 8-bit samples 4 (16 outputs a thread), 16-bit 8.
template <typename T> constexpr int ROWS = sizeof(T) == 1 ? 4 : 8;

// How a pixel of C samples of T is staged: as one word (Px) where it is 1, 2,
// 4 or 8 bytes, RGB8 as a 4-byte word (alpha 255), 3 16-bit samples apart.
template <typename T, int C> struct staged {
    static constexpr int S = sizeof(T) == 1 && C == 3 ? 4 : C; // samples a staged pixel
    static constexpr int P = S * sizeof(T);
    using Px = std::conditional_t<P == 1, uint8_t, std::conditional_t<P == 2, uint16_t,
               std::conditional_t<P == 4, uint32_t, std::conditional_t<P == 8, uint64_t, void>>>>;
    static constexpr bool WORD = !std::is_void_v<Px>;
};

// Elements [0, fe) of rows [0, fh) of the footprint (get(y, e): element e of
// its row y) to dst (rows dp elements apart): a warp a row, SR rows of the
// warp's at a time, their loads all issued before the stores.
template <typename E, int KX, int ROWS, typename Get> // KX: 32-element runs in a row of at most FP pixels
__device__ __forceinline__ void stage(Get get, E *dst, int dp, int fe, int fh)
{
    constexpr int SR = 4; // rows a batch
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int y0 = ty; y0 < fh; y0 += ROWS * SR) {
        E v[SR][KX];
#pragma unroll
        for (int r = 0; r < SR; r++)
#pragma unroll
            for (int k = 0; k < KX; k++)
                if (y0 + r * ROWS < fh && tx + k * TW < fe)
                    v[r][k] = get(y0 + r * ROWS, tx + k * TW);
#pragma unroll
        for (int r = 0; r < SR; r++)
#pragma unroll
            for (int k = 0; k < KX; k++)
                if (y0 + r * ROWS < fh && tx + k * TW < fe)
                    dst[(y0 + r * ROWS) * dp + tx + k * TW] = v[r][k];
    }
}

// One output pixel from its four neighbours p (staged pixels, or the
// background), weights fx and fy: gf_rotate_mix per channel.  8-bit pixels
// staged as words (RGBA8, RGB8) mix two channels an instruction along x, in
// 16-bit lanes (at most 255 256 each), then each channel along y.
template <typename T, int C, int OC, typename W>
__device__ __forceinline__ void mix(const W (&p)[4], uint32_t fx, uint32_t fy, T *o)
{
    if constexpr (sizeof(T) == 1 && sizeof(W) == 4) {
        const uint32_t wx = 256 - fx, wy = 256 - fy;
        const uint32_t tE = (p[0] & 0xff00ffu) * wx + (p[1] & 0xff00ffu) * fx;
        const uint32_t tO = (p[0] >> 8 & 0xff00ffu) * wx + (p[1] >> 8 & 0xff00ffu) * fx;
        const uint32_t bE = (p[2] & 0xff00ffu) * wx + (p[3] & 0xff00ffu) * fx;
        const uint32_t bO = (p[2] >> 8 & 0xff00ffu) * wx + (p[3] >> 8 & 0xff00ffu) * fx;
        auto y = [&](uint32_t t, uint32_t b) { return (t * wy + b * fy + 32768) >> 16; };
        const uint32_t v[4] = {y(tE & 0xffff, bE & 0xffff), y(tO & 0xffff, bO & 0xffff), y(tE >> 16, bE >> 16),
                               y(tO >> 16, bO >> 16)};
        if constexpr (OC == 4)
            *(uint32_t *)o = gf_pack_bytes(v[0], v[1], v[2], v[3]);
        else
#pragma unroll
            for (int c = 0; c < OC; c++)
                o[c] = (T)v[c];
    } else {
#pragma unroll
        for (int c = 0; c < OC; c++) {
            uint32_t v[4];
#pragma unroll
            for (int k = 0; k < 4; k++)
                v[k] = (uint32_t)((uint64_t)p[k] >> (8 * sizeof(T) * c)) & (sizeof(T) == 1 ? 0xffu : 0xffffu);
            o[c] = (T)(sizeof(T) == 1 ? (((v[0] * (256 - fx) + v[1] * fx) * (256 - fy) +
                                          (v[2] * (256 - fx) + v[3] * fx) * fy + 32768) >> 16)
                                       : gf_rotate_mix(v[0], v[1], v[2], v[3], fx, fy, 16));
        }
    }
}

template <typename T, int C, int OC>
__global__ void __launch_bounds__(TW *ROWS<T>)
    rotate_bilinear(const T *__restrict__ in, T *__restrict__ out, int W, int H, int OW, int OH, gf_rotation r,
                    uint4 bg)
{
    constexpr int BITS = 8 * sizeof(T), ROWS = ::ROWS<T>; // BITS: gf_rotation.bits
    using St = staged<T, C>;
    using Px = std::conditional_t<St::WORD, typename St::Px, T>; // a staged pixel, or sample
    using M = std::conditional_t<sizeof(T) == 1 && St::S == 4, uint32_t, uint64_t>; // a neighbour, as mixed
    __shared__ __align__(8) T s_px[FP * FP * St::S];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH;
    // source positions of output (x0, y0), rounding bias included: high word the neighbour (gf_rotate_axis)
    const int64_t half = (int64_t)1 << (31 - BITS);
    const int64_t ox = r.x0 + half + x0 * r.xx + y0 * r.xy, oy = r.y0 + half + x0 * r.yx + y0 * r.yy;

    // The footprint: the neighbours of the tile's corners, clipped to the image.
    int bx0 = INT_MAX, bx1 = INT_MIN, by0 = INT_MAX, by1 = INT_MIN;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const int cx = (k & 1) * (TW - 1), cy = (k >> 1) * (TH - 1);
        const int ix = (int)((ox + cx * r.xx + cy * r.xy) >> 32), iy = (int)((oy + cx * r.yx + cy * r.yy) >> 32);
        bx0 = min(bx0, ix), bx1 = max(bx1, ix + 1), by0 = min(by0, iy), by1 = max(by1, iy + 1);
    }
    bx0 = max(bx0, 0), by0 = max(by0, 0), bx1 = min(bx1, W - 1), by1 = min(by1, H - 1);
    const int fw = max(bx1 - bx0 + 1, 0), fh = max(by1 - by0 + 1, 0);
    const T *src = in + ((size_t)by0 * W + bx0) * C;
    if constexpr (St::WORD && St::S == C) // pixels as they are
        stage<Px, (FP + TW - 1) / TW, ROWS>([&](int y, int e) { return ((const Px *)(src + (size_t)y * W * C))[e]; },
                                      (Px *)s_px, FP, fw, fh);
    else if constexpr (St::WORD) // RGB8: a 4-byte word a pixel, alpha 255
        stage<uint32_t, (FP + TW - 1) / TW, ROWS>(
            [&](int y, int e) {
                const T *q = src + (size_t)y * W * C + 3 * e;
                return q[0] | q[1] << 8 | q[2] << 16 | 0xff000000u;
            },
            (uint32_t *)s_px, FP, fw, fh);
    else
        stage<T, (FP * C + TW - 1) / TW, ROWS>([&](int y, int e) { return src[(size_t)y * W * C + e]; }, s_px, FP * C,
                                         fw * C, fh);
    __syncthreads();

    const int x = x0 + tx;
    const int rows = min(TH / ROWS, (OH - y0 - ty + ROWS - 1) / ROWS); // this thread's outputs
    if (x >= OW || rows <= 0)
        return;
    int64_t sx = ox + tx * r.xx + ty * r.xy, sy = oy + tx * r.yx + ty * r.yy;
    const int64_t stx = ROWS * r.xy, sty = ROWS * r.yy;
    T *o = out + ((size_t)(y0 + ty) * OW + x) * OC;
    const size_t step = (size_t)ROWS * OW * OC;
    const uint32_t back[4] = {bg.x, bg.y, bg.z, bg.w};
    M bpx = 0; // the background as a neighbour
#pragma unroll
    for (int c = 0; c < OC; c++)
        bpx |= (M)back[c] << (8 * sizeof(T) * c);
    // staged pixel i as a neighbour; an alpha channel added (a translucent background) is opaque inside
    constexpr M opaque = C < OC && St::S == C ? (M)(sizeof(T) == 1 ? 255u : 65535u) << (8 * sizeof(T) * C) : 0;
    auto neighbour = [&](int i) {
        M v = opaque;
        if constexpr (St::WORD)
            v |= ((const Px *)s_px)[i];
        else
#pragma unroll
            for (int c = 0; c < C; c++)
                v |= (M)s_px[i * C + c] << (8 * sizeof(T) * c);
        return v;
    };
    auto inside = [&](int64_t px, int64_t py) {
        return (unsigned)(px >> 32) < (unsigned)(W - 1) && (unsigned)(py >> 32) < (unsigned)(H - 1);
    };
    if (inside(sx, sy) && inside(sx + (rows - 1) * stx, sy + (rows - 1) * sty)) {
        // every neighbour of this thread's column of outputs lies inside: no checks
        for (int j = 0; j < rows; j++, sx += stx, sy += sty, o += step) {
            const int i = ((int)(sy >> 32) - by0) * FP + (int)(sx >> 32) - bx0;
            const M p[4] = {neighbour(i), neighbour(i + 1), neighbour(i + FP), neighbour(i + FP + 1)};
            mix<T, C, OC>(p, (uint32_t)sx >> (32 - BITS), (uint32_t)sy >> (32 - BITS), o);
        }
        return;
    }
    for (int j = 0; j < rows; j++, sx += stx, sy += sty, o += step) {
        const int ix = (int)(sx >> 32), iy = (int)(sy >> 32);
        if (ix < -1 || iy < -1 || ix >= W || iy >= H) { // every neighbour outside: the background
#pragma unroll
            for (int c = 0; c < OC; c++)
                o[c] = (T)back[c];
            continue;
        }
        M p[4];
#pragma unroll
        for (int k = 0; k < 4; k++) { // neighbour k (0, 1 above, 2, 3 below), or the background
            const int xi = ix + (k & 1), yi = iy + (k >> 1);
            p[k] = xi >= 0 && yi >= 0 && xi < W && yi < H ? neighbour((yi - by0) * FP + xi - bx0) : bpx;
        }
        mix<T, C, OC>(p, (uint32_t)sx >> (32 - BITS), (uint32_t)sy >> (32 - BITS), o);
    }
}

enum path { BILINEAR };

int choose(const gf_step *s, const gf_image *in)
{
    return GF_ROTATE_ARGS(s).right ? 1 + gf_orient_path(in, GF_ROTATE_ARGS(s).orient) : BILINEAR;
}

const char *const paths[] = {"bilinear tiles", "rows", "rows of 16-byte words", "RGB8 rows of 48-byte chunks",
                             "tiles", "tiles of 16-byte words", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const cudaStream_t st = gf_cuda_stream(cu);
    if (GF_ROTATE_ARGS(s).right)
        return gf_cuda_status(gf_orient_launch(in, out, GF_ROTATE_ARGS(s).orient, st), "orientation kernel");
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    const gf_rotation r = gf_rotate_plan(s, &is, &os);
    uint32_t b[4];
    gf_rotate_background(s, out->channels, in->depth, b);
    const uint4 bg = make_uint4(b[0], b[1], b[2], b[3]);
    const dim3 grid(gf_blocks(out->width, TW), gf_blocks(out->height, TH));
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (out->channels == C)
            rotate_bilinear<T, C, C><<<grid, dim3(TW, ROWS<T>), 0, st>>>((const T *)in->data, (T *)out->data, in->width,
                                                             in->height, out->width, out->height, r, bg);
        else if constexpr (C == 1 || C == 3) // an alpha channel added (a translucent background)
            rotate_bilinear<T, C, C + 1><<<grid, dim3(TW, ROWS<T>), 0, st>>>((const T *)in->data, (T *)out->data, in->width,
                                                                 in->height, out->width, out->height, r, bg);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "rotate kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_rotate = {enqueue, nullptr, choose, paths};
