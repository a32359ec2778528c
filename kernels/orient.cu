// SPDX-License-Identifier: MIT
// The eight symmetries (flip, flop, transpose, transverse, rotate 90/180/270):
// exact pixel moves, identical to src/cpu/orient.c.
//
// Without an axis swap (flip, flop, rotate 180) every output row is one input
// row, possibly reversed: one thread per pixel, reads and writes coalesced.
// With a swap (transpose, transverse, rotate 90/270) the block moves a
// TILE x TILE = 32 x 32 pixel tile through shared memory with 32 x 8 threads:
// it reads the input tile row by row (consecutive threads, consecutive input
// pixels) and writes the output tile row by row, reading the shared tile down
// a column.  The tile is padded to [32][33] pixels so that a column read by a
// warp falls in 32 different banks for 4-byte pixels.
// A pixel is moved as one unit of C * depth/8 bytes (1 to 8), or, for rows
// of whole 16-byte words, 16 bytes at a time (orient_direct16).
#include "kernel_util.cuh"

namespace {

constexpr int TILE = 32, ROWS = 8;

template <int B> struct pixel {
    uint8_t b[B];
};
template <> struct pixel<1> { uint8_t v; };
template <> struct pixel<2> { uint16_t v; };
template <> struct pixel<4> { uint32_t v; };
template <> struct pixel<8> { uint64_t v; };

// 2-D grid of 256-thread row segments (no 64-bit division per pixel); rows
// beyond gridDim.y (at most 65535) are taken in a grid-stride loop.
template <typename P>
__global__ void orient_direct(const P *__restrict__ in, P *__restrict__ out, int W, int H, int fx, int fy)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= W)
        return;
    const int sx = fx ? W - 1 - x : x;
    for (int y = blockIdx.y; y < H; y += gridDim.y) {
        const int sy = fy ? H - 1 - y : y;
        out[(size_t)y * W + x] = in[(size_t)sy * W + sx];
    }
}

// The same for rows that are whole 16-byte words (W * B a multiple of 16,
// buffers 16-byte aligned): each thread moves one 16-byte word of a row, for
// four rows, all four loads before the stores.  A mirrored row (fx) reads the
// mirrored word and reverses the order of its 16 / B pixels (B = 1, 2, 4, 8;
// flip alone, fx = 0, works for any B, rows being copied whole).
template <int B> __device__ __forceinline__ uint4 reverse_pixels(uint4 v)
{
    if (B == 8)
        return make_uint4(v.z, v.w, v.x, v.y);
    if (B == 4)
        return make_uint4(v.w, v.z, v.y, v.x);
    constexpr unsigned sel = B == 2 ? 0x1032 : 0x0123; // swap halves / reverse bytes in a word
    return make_uint4(__byte_perm(v.w, 0, sel), __byte_perm(v.z, 0, sel), __byte_perm(v.y, 0, sel),
                      __byte_perm(v.x, 0, sel));
}

constexpr int ROWS16 = 4;

template <int B>
__global__ void orient_direct16(const uint4 *__restrict__ in, uint4 *__restrict__ out, int words, int H, int fx,
                                int fy)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= words)
        return;
    const int sx = fx ? words - 1 - x : x;
    for (int y0 = blockIdx.y * ROWS16; y0 < H; y0 += gridDim.y * ROWS16) {
        uint4 v[ROWS16];
#pragma unroll
        for (int k = 0; k < ROWS16; k++)
            if (y0 + k < H)
                v[k] = in[(size_t)(fy ? H - 1 - (y0 + k) : y0 + k) * words + sx];
#pragma unroll
        for (int k = 0; k < ROWS16; k++)
            if (y0 + k < H)
                out[(size_t)(y0 + k) * words + x] = fx ? reverse_pixels<B>(v[k]) : v[k];
    }
}

// Output (x, y) reads input (sx, sy) = (y, x), then mirrored by fx / fy.  OW = H, OH = W.
template <typename P>
__global__ void orient_swap(const P *__restrict__ in, P *__restrict__ out, int W, int H, int fx, int fy)
{
    __shared__ P tile[TILE][TILE + 1];
    const int ox0 = blockIdx.x * TILE, oy0 = blockIdx.y * TILE; // output tile origin
    const int OW = H, OH = W;
    // load: a = output row offset (input column), b = output column offset (input row)
    const int a = threadIdx.x;
    const int sxo = oy0 + a;
    for (int b = threadIdx.y; b < TILE; b += ROWS) {
        const int syo = ox0 + b;
        if (sxo < W && syo < H) {
            const int sx = fx ? W - 1 - sxo : sxo, sy = fy ? H - 1 - syo : syo;
            tile[b][a] = in[(size_t)sy * W + sx];
        }
    }
    __syncthreads();
    const int x = ox0 + threadIdx.x;
    for (int r = threadIdx.y; r < TILE; r += ROWS) {
        const int y = oy0 + r;
        if (x < OW && y < OH)
            out[(size_t)y * OW + x] = tile[threadIdx.x][r];
    }
}

template <int B> cudaError_t launch(const gf_image *in, gf_image *out, int o, cudaStream_t st)
{
    const pixel<B> *src = (const pixel<B> *)in->data;
    pixel<B> *dst = (pixel<B> *)out->data;
    const int W = in->width, H = in->height, fx = !!(o & GF_OR_FX), fy = !!(o & GF_OR_FY);
    const size_t row_bytes = (size_t)W * B;
    const bool vec = !(o & GF_OR_SWAP) && row_bytes % 16 == 0 && ((uintptr_t)src | (uintptr_t)dst) % 16 == 0 &&
                     (!fx || B == 1 || B == 2 || B == 4 || B == 8);
    if (o & GF_OR_SWAP)
        orient_swap<pixel<B>><<<dim3(gf_blocks(H, TILE), gf_blocks(W, TILE)), dim3(TILE, ROWS), 0, st>>>(src, dst, W,
                                                                                                    H, fx, fy);
    else if (vec) {
        const int words = (int)(row_bytes / 16);
        const unsigned gy = gf_blocks(H, ROWS16);
        orient_direct16<B><<<dim3(gf_blocks(words, 256), gy < 65535 ? gy : 65535), 256, 0, st>>>(
            (const uint4 *)src, (uint4 *)dst, words, H, fx, fy);
    } else
        orient_direct<pixel<B>><<<dim3(gf_blocks(W, 256), H < 65535 ? H : 65535), 256, 0, st>>>(src, dst, W, H, fx,
                                                                                             fy);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

} // namespace

extern "C" cudaError_t gf_orient_launch(const gf_image *in, gf_image *out, int o, cudaStream_t st)
{
    switch (in->channels * in->depth / 8) {
    case 1: return launch<1>(in, out, o, st);
    case 2: return launch<2>(in, out, o, st);
    case 3: return launch<3>(in, out, o, st);
    case 4: return launch<4>(in, out, o, st);
    case 6: return launch<6>(in, out, o, st);
    default: return launch<8>(in, out, o, st);
    }
}
