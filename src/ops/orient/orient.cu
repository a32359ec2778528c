// SPDX-License-Identifier: MIT
// The eight symmetries (flip, flop, transpose, transverse, rotate 90/180/270):
// exact pixel moves, identical to src/ops/orient/orient_ref.c.
//
// Without an axis swap (flip, flop, rotate 180) every output row is one input
// row, possibly reversed: one thread per pixel, reads and writes coalesced;
// for rows of whole 16-byte words, 16 bytes at a time (orient_direct16), and
// RGB8 rows of whole 48-byte chunks 48 bytes at a time (orient_mirror48).
// With a swap (transpose, transverse, rotate 90/270) and 8-bit pixels of 1 to
// 4 bytes whose rows (input and output) are whole 16-byte words,
// orient_swap16 moves square tiles through shared memory 16 bytes at a time
// on both sides; the other images, and the partial tiles at the right and
// bottom edges, take orient_swap: a 32 x 32 pixel tile with 32 x 8 threads,
// one pixel per load and store, the tile padded to [32][33] pixels so that a
// column read by a warp falls in 32 different banks for 4-byte pixels.
#include "kernel_util.cuh"
#include "orient.h"

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
// (bx0, by0): the grid's first tile, to cover only the edges that
// orient_swap16 leaves.  The grid's x is along the output columns, unless
// `yx` (when the output has more than 65535 tile rows: then it has fewer
// than 128 columns).
template <typename P>
__global__ void orient_swap(const P *__restrict__ in, P *__restrict__ out, int W, int H, int fx, int fy, int bx0,
                            int by0, int yx)
{
    __shared__ P tile[TILE][TILE + 1];
    const int OW = H, OH = W;
    const int ox0 = (bx0 + (yx ? blockIdx.y : blockIdx.x)) * TILE, oy0 = (by0 + (yx ? blockIdx.x : blockIdx.y)) * TILE;
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

// RGB8 flop / rotate 180 on rows of whole 48-byte chunks (W a multiple of 16,
// buffers 16-byte aligned): each thread moves 16 pixels (three 16-byte
// words) of a row, for four rows; a mirrored chunk has its 16 pixels reversed
// in registers, each output word by one or two byte permutes planned at
// compile time (its 4 bytes come from at most 3 input words).  The words
// travel through shared memory, coalesced (load48 / store48 below).
struct rgb_plan {
    int a, b, c;        // input words: first prmt(a, b), then (if two) prmt(that, c)
    unsigned sel1, sel2;
    bool two;
};

__host__ __device__ constexpr rgb_plan plan_rgb_reverse(int m)
{
    int src[4] = {}, lo = 99;
    for (int i = 0; i < 4; i++) {
        const int j = 4 * m + i;               // output byte
        src[i] = 3 * (15 - j / 3) + j % 3;     // its input byte
        lo = src[i] / 4 < lo ? src[i] / 4 : lo;
    }
    rgb_plan p{lo, lo + 1 < 12 ? lo + 1 : lo, lo + 2 < 12 ? lo + 2 : lo, 0, 0x3210, false};
    for (int i = 0; i < 4; i++) {
        const int w = src[i] / 4 - lo, byte = src[i] % 4;
        if (w < 2)
            p.sel1 |= (unsigned)(4 * w + byte) << (4 * i);
        else {
            p.two = true;
            p.sel2 = (p.sel2 & ~(0xfu << (4 * i))) | (unsigned)(4 + byte) << (4 * i);
        }
    }
    return p;
}

template <int M = 0> __device__ __forceinline__ void reverse_rgb16(const uint32_t (&w)[12], uint32_t (&o)[12])
{
    constexpr rgb_plan p = plan_rgb_reverse(M);
    const uint32_t r = __byte_perm(w[p.a], w[p.b], p.sel1);
    o[M] = p.two ? __byte_perm(r, w[p.c], p.sel2) : r;
    if constexpr (M + 1 < 12)
        reverse_rgb16<M + 1>(w, o);
}

// A warp's lanes each hold one 48-byte chunk (three 16-byte words) of each of
// K rows, the chunks of lanes [0, 32) side by side in memory in runs of L
// lanes.  Straight from memory, a lane's three words 48 bytes apart make three
// loads or stores of a warp per 1.5 KB, each touching a third of its sectors.
// Instead the warp moves words that
// are consecutive across lanes (word i by lane i % 32) and passes them through
// its own shared memory, st[K][96]: all K rows' loads are issued before the
// first is used.  `run(k, r)` is the address of row k's run r; words at and
// past `nw` (all lanes' chunks: 3 * 32) and rows at and past `rows` are left alone.
template <int K, int L, typename F> __device__ __forceinline__ void load48(uint4 (*st)[96], F run, int nw, int rows)
{
    const int lane = threadIdx.x & 31;
    uint4 v[K][3];
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int q = 0; q < 3; q++) {
            const int i = lane + 32 * q;
            if (k < rows && i < nw)
                v[k][q] = run(k, i / (3 * L))[i % (3 * L)];
        }
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int q = 0; q < 3; q++)
            if (k < rows && lane + 32 * q < nw)
                st[k][lane + 32 * q] = v[k][q];
    __syncwarp();
}

template <int K, int L, typename F> __device__ __forceinline__ void store48(uint4 (*st)[96], F run, int nw, int rows)
{
    const int lane = threadIdx.x & 31;
    __syncwarp();
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
        for (int q = 0; q < 3; q++) {
            const int i = lane + 32 * q;
            if (k < rows && i < nw)
                run(k, i / (3 * L))[i % (3 * L)] = st[k][i];
        }
    __syncwarp();
}

constexpr int MTHREADS = 128;

// Each warp takes 32 chunks of four rows: the input chunks of a row are
// consecutive (in reverse order), as are the output chunks.
__global__ void __launch_bounds__(MTHREADS)
    orient_mirror48(const uint4 *__restrict__ in, uint4 *__restrict__ out, int chunks, int H, int fy)
{
    __shared__ uint4 stage[MTHREADS / 32][ROWS16][96];
    const int lane = threadIdx.x & 31, x0 = blockIdx.x * MTHREADS + (threadIdx.x & ~31); // the warp's first chunk
    if (x0 >= chunks)
        return; // the whole warp
    const int n = chunks - x0 < 32 ? chunks - x0 : 32, s0 = 3 * (chunks - x0 - n);
    const size_t pitch = 3 * (size_t)chunks; // in 16-byte words
    uint4(*st)[96] = stage[threadIdx.x / 32];
    for (int y0 = blockIdx.y * ROWS16; y0 < H; y0 += gridDim.y * ROWS16) {
        const int rows = H - y0 < ROWS16 ? H - y0 : ROWS16;
        load48<ROWS16, 32>(
            st, [&](int k, int) { return in + (size_t)(fy ? H - 1 - (y0 + k) : y0 + k) * pitch + s0; }, 3 * n, rows);
#pragma unroll
        for (int k = 0; k < ROWS16; k++)
            if (k < rows) {
                uint32_t w[12], o[12];
                if (lane < n) {
#pragma unroll
                    for (int q = 0; q < 3; q++) {
                        const uint4 t = st[k][3 * (n - 1 - lane) + q];
                        w[4 * q] = t.x, w[4 * q + 1] = t.y, w[4 * q + 2] = t.z, w[4 * q + 3] = t.w;
                    }
                    reverse_rgb16(w, o);
                }
                __syncwarp(); // every lane has read row k before any overwrites it
                if (lane < n)
#pragma unroll
                    for (int q = 0; q < 3; q++)
                        st[k][3 * lane + q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
            }
        store48<ROWS16, 32>(
            st, [&](int k, int) { return out + (size_t)(y0 + k) * pitch + 3 * (size_t)x0; }, 3 * n, rows);
    }
}

// ---- Axis swaps, 16 bytes at a time: 8-bit pixels of B = 1 to 4 bytes, input
// and output rows of whole 16-byte words, buffers 16-byte aligned.
//
// A block of 256 threads moves one full TP x TP pixel tile.  Load: each
// thread reads chunks of G pixels (one 16-byte word; three for RGB8) of an
// input row and stores them to the shared tile as S-byte slots (S = B, or 4
// for RGB8), 16 bytes at a time.  Store: each thread reads one 32-bit shared
// word (4 / S pixels side by side) from each of G consecutive tile rows,
// transposes that G x (4 / S) block in registers (byte permutes) and writes
// 4 / S output chunks of G pixels, 16 bytes at a time.  Consecutive threads
// take consecutive chunks of an output row, so every store of a warp covers
// whole 128-byte lines (RGB8: its 48-byte chunks go through load48 /
// store48, so that a warp's global accesses are contiguous words).  The G
// rows a thread reads belong to one chunk; word column wc of row a lives at
// wc ^ sw(chunk), a swizzle that puts the chunks read by one warp in
// different banks (no padding, so the 16-byte stores stay aligned).
template <int B> struct swap16;
template <> struct swap16<1> { static constexpr int S = 1, G = 16, TP = 128; };
template <> struct swap16<2> { static constexpr int S = 2, G = 8, TP = 64; };
template <> struct swap16<3> { static constexpr int S = 4, G = 16, TP = 64; };
template <> struct swap16<4> { static constexpr int S = 4, G = 4, TP = 64; };

constexpr int STHREADS = 256;

template <int B>
__global__ void __launch_bounds__(STHREADS)
    orient_swap16(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int fx, int fy)
{
    using P = swap16<B>;
    constexpr int S = P::S, G = P::G, TP = P::TP;
    constexpr int WP = TP * S / 4;       // shared words per tile row (a multiple of 32)
    constexpr int NC = TP / G;           // chunks per tile row
    constexpr int NS = NC < 8 ? NC : 8;  // swizzle classes
    constexpr int CW = G * S / 4;        // shared words per chunk
    constexpr int CV = G * B / 16;       // 16-byte global words per chunk
    constexpr int PS = 4 / S;            // pixels per shared word
    static_assert(WP % 32 == 0 && CW % 4 == 0, "tile shape");
    static_assert(B != 3 || (TP * NC == STHREADS && NC * WP == STHREADS), "RGB8: one item per thread each way");
    __shared__ __align__(16) uint32_t tile[TP * WP];
    __shared__ uint4 stage48[B == 3 ? STHREADS / 32 : 1][96]; // RGB8: the warp's words, coalesced
    uint4(&st48)[96] = stage48[B == 3 ? threadIdx.x / 32 : 0];
    const int ox0 = blockIdx.x * TP, oy0 = blockIdx.y * TP; // output tile origin (OW = H, OH = W)
    // tile row a is input row ry0 + a, tile column b input column rx0 + b
    const int ry0 = fy ? H - ox0 - TP : ox0, rx0 = fx ? W - oy0 - TP : oy0;
    const size_t ipitch = (size_t)W * B, opitch = (size_t)H * B;
    auto sw = [](int a) { return (a / G % NS) * (32 / NS); };

    for (int u = threadIdx.x; u < TP * NC; u += STHREADS) {
        const int a = u / NC, j = u % NC;
        uint32_t w[CW];
        if constexpr (B == 3) { // 16 pixels in 12 words -> 16 slots
            // the warp's items are whole rows of NC chunks, all of them (TP * NC = STHREADS)
            const int u0 = u & ~31;
            load48<1, NC>(
                &st48,
                [&](int, int r) {
                    return (const uint4 *)(in + (size_t)(ry0 + (u0 / NC + r)) * ipitch + (size_t)rx0 * B);
                },
                96, 1);
            uint32_t t[12];
#pragma unroll
            for (int q = 0; q < 3; q++) {
                const uint4 v = st48[3 * (threadIdx.x & 31) + q];
                t[4 * q] = v.x, t[4 * q + 1] = v.y, t[4 * q + 2] = v.z, t[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int p = 0; p < 16; p++) {
                const int s = 3 * p; // first byte of pixel p
                w[p] = __funnelshift_r(t[s / 4], t[s / 4 + (s % 4 >= 2 ? 1 : 0)], 8 * (s % 4)) & 0xffffffu;
            }
        } else {
            const uint4 v = *(const uint4 *)(in + (size_t)(ry0 + a) * ipitch + (size_t)(rx0 + j * G) * B);
            w[0] = v.x, w[1] = v.y, w[2] = v.z, w[3] = v.w;
        }
        uint32_t *row = tile + a * WP;
#pragma unroll
        for (int q = 0; q < CW; q += 4)
            *(uint4 *)(row + ((j * CW + q) ^ sw(a))) = make_uint4(w[q], w[q + 1], w[q + 2], w[q + 3]);
    }
    __syncthreads();
    for (int u = threadIdx.x; u < NC * WP; u += STHREADS) {
        const int c = u % NC, wc = u / NC; // output chunk c (pixels c*G ..) of output rows from word column wc
        uint32_t w[G];
#pragma unroll
        for (int k = 0; k < G; k++) {
            const int a = fy ? TP - 1 - (c * G + k) : c * G + k;
            w[k] = tile[a * WP + (wc ^ sw(a))];
        }
#pragma unroll
        for (int j = 0; j < PS; j++) { // pixel j of the word: tile column b, output row v
            const int b = wc * PS + j, v = fx ? TP - 1 - b : b;
            uint32_t o[CV * 4];
            if constexpr (S == 4 && B == 4) {
#pragma unroll
                for (int k = 0; k < G; k++)
                    o[k] = w[k];
            } else if constexpr (B == 3) { // 16 slots -> 12 words
#pragma unroll
                for (int m = 0; m < 12; m++) {
                    const int s = 4 * m, p = s / 3, r = s % 3; // output byte s: pixel p, byte r
                    o[m] = r == 0   ? w[p] | w[p + 1] << 24
                           : r == 1 ? w[p] >> 8 | w[p + 1] << 16
                                    : w[p] >> 16 | w[p + 1] << 8;
                }
            } else if constexpr (S == 2) { // pixel j of each of 8 words
#pragma unroll
                for (int m = 0; m < 4; m++)
                    o[m] = __byte_perm(w[2 * m], w[2 * m + 1], j ? 0x7632 : 0x5410);
            } else { // S == 1: byte j of each of 16 words
#pragma unroll
                for (int m = 0; m < 4; m++) {
                    const uint32_t lo = __byte_perm(w[4 * m], w[4 * m + 1], j | (j + 4) << 4);
                    const uint32_t hi = __byte_perm(w[4 * m + 2], w[4 * m + 3], j | (j + 4) << 4);
                    o[m] = __byte_perm(lo, hi, 0x5410);
                }
            }
            if constexpr (B == 3) { // the warp's items: 8 output rows of NC chunks (NC * WP = STHREADS)
#pragma unroll
                for (int q = 0; q < 3; q++)
                    st48[3 * (threadIdx.x & 31) + q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
                const int wc0 = (u & ~31) / NC;
                store48<1, NC>(
                    &st48,
                    [&](int, int r) {
                        const int b0 = wc0 + r, v0 = fx ? TP - 1 - b0 : b0;
                        return (uint4 *)(out + (size_t)(oy0 + v0) * opitch + (size_t)ox0 * B);
                    },
                    96, 1);
            } else {
                uint4 *dst = (uint4 *)(out + (size_t)(oy0 + v) * opitch + (size_t)(ox0 + c * G) * B);
#pragma unroll
                for (int q = 0; q < CV; q++)
                    dst[q] = make_uint4(o[4 * q], o[4 * q + 1], o[4 * q + 2], o[4 * q + 3]);
            }
        }
    }
}

template <typename P>
cudaError_t swap_edges(const P *src, P *dst, int W, int H, int fx, int fy, int fw, int fh, cudaStream_t st)
{
    // output columns [fw, OW) of every row, then rows [fh, OH) of columns [0, fw)
    const int OW = H, OH = W;
    if (fw < OW) {
        const unsigned tx = gf_blocks(OW - fw, TILE), ty = gf_blocks(OH, TILE);
        const int yx = ty > 65535;
        orient_swap<P><<<yx ? dim3(ty, tx) : dim3(tx, ty), dim3(TILE, ROWS), 0, st>>>(src, dst, W, H, fx, fy,
                                                                                     fw / TILE, 0, yx);
        GF_LAUNCH_CHECK();
    }
    if (fh < OH && fw > 0) { // one partial tile row: at most TP / TILE
        orient_swap<P><<<dim3(fw / TILE, gf_blocks(OH - fh, TILE)), dim3(TILE, ROWS), 0, st>>>(src, dst, W, H, fx,
                                                                                               fy, 0, fh / TILE, 0);
        GF_LAUNCH_CHECK();
    }
    return cudaSuccess;
}

enum path { DIRECT, DIRECT16, MIRROR48, SWAP, SWAP16 };
const char *const paths[] = {"rows", "rows of 16-byte words", "RGB8 rows of 48-byte chunks", "tiles",
                             "tiles of 16-byte words", nullptr};

int choose_path(const gf_image *in, enum gf_orient o)
{
    const int W = in->width, H = in->height, B = in->channels * in->depth / 8;
    const bool words = gf_word_rows(in); // device buffers are 16-byte aligned
    if (o & GF_OR_SWAP) {
        const int TP = B == 1 ? swap16<1>::TP : 64;
        return B <= 4 && words && ((size_t)H * B) % 16 == 0 && W >= TP && H >= TP ? SWAP16 : SWAP;
    }
    if (words && (!(o & GF_OR_FX) || B != 3 && B != 6))
        return DIRECT16;
    return B == 3 && (o & GF_OR_FX) && W % 16 == 0 ? MIRROR48 : DIRECT;
}

template <int B> cudaError_t launch(const gf_image *in, gf_image *out, enum gf_orient o, cudaStream_t st)
{
    const pixel<B> *src = (const pixel<B> *)in->data;
    pixel<B> *dst = (pixel<B> *)out->data;
    const int W = in->width, H = in->height, fx = !!(o & GF_OR_FX), fy = !!(o & GF_OR_FY);
    const unsigned gy = gf_blocks(H, ROWS16);
    switch (choose_path(in, o)) {
    case SWAP16:
        if constexpr (B <= 4) {
            constexpr int TP = swap16<B>::TP;
            orient_swap16<B><<<dim3(H / TP, W / TP), STHREADS, 0, st>>>((const uint8_t *)src, (uint8_t *)dst, W, H,
                                                                        fx, fy);
            GF_LAUNCH_CHECK();
            return swap_edges(src, dst, W, H, fx, fy, H / TP * TP, W / TP * TP, st); // the partial tiles
        }
        return cudaErrorInvalidValue; // not reached: choose_path
    case SWAP:
        return swap_edges(src, dst, W, H, fx, fy, 0, 0, st);
    case DIRECT16: {
        const int words = (int)((size_t)W * B / 16);
        orient_direct16<B><<<dim3(gf_blocks(words, 256), gy < 65535 ? gy : 65535), 256, 0, st>>>(
            (const uint4 *)src, (uint4 *)dst, words, H, fx, fy);
        break;
    }
    case MIRROR48: {
        const int chunks = W / 16;
        orient_mirror48<<<dim3(gf_blocks(chunks, MTHREADS), gy < 65535 ? gy : 65535), MTHREADS, 0, st>>>(
            (const uint4 *)src, (uint4 *)dst, chunks, H, fy);
        break;
    }
    default:
        orient_direct<pixel<B>><<<dim3(gf_blocks(W, 256), H < 65535 ? H : 65535), 256, 0, st>>>(src, dst, W, H, fx,
                                                                                             fy);
    }
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

int choose(const gf_step *s, const gf_image *in)
{
    return choose_path(in, GF_ORIENT_ARGS(s).orient);
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    return gf_cuda_status(gf_orient_launch(in, out, GF_ORIENT_ARGS(s).orient, gf_cuda_stream(cu)),
                          "orientation kernel");
}

} // namespace

extern "C" cudaError_t gf_orient_launch(const gf_image *in, gf_image *out, enum gf_orient o, cudaStream_t st)
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

extern "C" int gf_orient_path(const gf_image *in, enum gf_orient o)
{
    return choose_path(in, o);
}

extern "C" const gf_cuda_op gf_cuda_orient = {enqueue, nullptr, choose, paths};
