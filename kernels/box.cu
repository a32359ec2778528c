// SPDX-License-Identifier: MIT
// Box stencil: exact integer window sums, bit-identical to src/cpu/box.c, at
// a cost independent of the radius (running sums).
//
// Row pass (box_rows, radius above BOX16_R = 127): each thread owns SEG = 32
// consecutive pixels of one row and one channel: it sums the first window
// (2R+1 reads, border rule applied), then slides, adding the sample entering
// and subtracting the one leaving.  Sums go to a 32- or 64-bit intermediate
// (64 only where (2R+1)*max could overflow 32 bits).  Up to radius 127
// (16-bit images, 8-bit rows of an odd number of samples) box_rows_tile
// stages the rows in shared memory instead, its loads and stores coalesced.
// Column pass (box_cols): each thread owns one sample column of CSEG rows and
// slides down it; consecutive threads hold consecutive samples of a row, so
// every load and store is coalesced.  The final sum is divided by
// n = (2R+1)^2 with rounding half up.
// Radius 1 on 8-bit rows of whole 16-byte words takes words3x3::stencil, one
// pass with no intermediate, and so do such rows at radius 2 to 127, at any
// channel count, and 16-bit rows of whole words at radius 1 to 127
// (box_batch; gf_box_scratch_bytes is 0 there); other 8-bit images up to radius 127 take a
// 16-bit intermediate, coalesced in both passes: rows by box_rows_px (2 and
// 4 channels: whole pixels in SIMD lanes) or box_rows_tile (1 and 3), columns
// by box_cols16 (8 or 2 samples per thread, an exact multiply-shift mean).
// The naive variant (benchmark baseline) sums every window directly.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "words3x3.cuh"

namespace {

// A box_rows thread's pixels; a box_cols thread's rows (at 32 rows, as
// before, each thread's first window of 2R + 1 loads served a quarter as
// many outputs: H200, 8192^2, radius 5 / 15 / 50, ms, RGBA16 1.35 / 1.52 /
// 2.06 -> 1.28 / 1.37 / 1.49, gray16 0.40 / 0.44 / 0.59 -> 0.39 / 0.41 /
// 0.47)
constexpr int SEG = 32, CSEG = 128;

template <typename Tin, typename Mid, int C>
__global__ void box_rows(const Tin *__restrict__ in, Mid *__restrict__ mid, int W, int H, int R, int border)
{
    const int segs = (W + SEG - 1) / SEG;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)H * segs * C)
        return;
    const int c = (int)(t % C), seg = (int)(t / C % segs);
    const size_t y = t / C / segs;
    const Tin *row = in + y * W * C;
    Mid *dst = mid + y * W * C;
    const int x0 = seg * SEG, x1 = min(W, x0 + SEG);
    Mid acc = 0;
    for (long i = (long)x0 - R; i <= (long)x0 + R; i++) {
        const long sx = gf_border_index(i, W, border);
        if (sx >= 0)
            acc += row[sx * C + c];
    }
    dst[(size_t)x0 * C + c] = acc;
    for (int x = x0 + 1; x < x1; x++) {
        const long add = gf_border_index((long)x + R, W, border), sub = gf_border_index((long)x - R - 1, W, border);
        if (add >= 0)
            acc += row[add * C + c];
        if (sub >= 0)
            acc -= row[sub * C + c];
        dst[(size_t)x * C + c] = acc;
    }
}

template <typename Tin, typename Mid, int C>
__global__ void box_rows_naive(const Tin *__restrict__ in, Mid *__restrict__ mid, int W, int H, int R, int border)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)W * H * C)
        return;
    const size_t y = k / ((size_t)W * C);
    const int x = (int)(k / C % W), c = (int)(k % C);
    Mid acc = 0;
    for (long i = (long)x - R; i <= (long)x + R; i++) {
        const long sx = gf_border_index(i, W, border);
        if (sx >= 0)
            acc += in[(y * W + sx) * C + c];
    }
    mid[k] = acc;
}

template <typename Tin, typename Mid, typename Acc>
__global__ void box_cols(const Mid *__restrict__ mid, Tin *__restrict__ out, int N, int H, int R, int border, Acc n)
{
    const int segs = (H + CSEG - 1) / CSEG;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)N * segs)
        return;
    const size_t s = t % N;
    const int y0 = (int)(t / N) * CSEG, y1 = min(H, y0 + CSEG);
    Acc acc = 0;
    for (long j = (long)y0 - R; j <= (long)y0 + R; j++) {
        const long sy = gf_border_index(j, H, border);
        if (sy >= 0)
            acc += mid[sy * N + s];
    }
    out[(size_t)y0 * N + s] = (Tin)((acc + n / 2) / n);
    for (int y = y0 + 1; y < y1; y++) {
        const long add = gf_border_index((long)y + R, H, border), sub = gf_border_index((long)y - R - 1, H, border);
        if (add >= 0)
            acc += mid[add * N + s];
        if (sub >= 0)
            acc -= mid[sub * N + s];
        out[(size_t)y * N + s] = (Tin)((acc + n / 2) / n);
    }
}

template <typename Tin, typename Mid, typename Acc>
__global__ void box_cols_naive(const Mid *__restrict__ mid, Tin *__restrict__ out, int N, int H, int R, int border,
                               Acc n)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)N * H)
        return;
    const long y = (long)(k / N);
    const size_t s = k % N;
    Acc acc = 0;
    for (long j = y - R; j <= y + R; j++) {
        const long sy = gf_border_index(j, H, border);
        if (sy >= 0)
            acc += mid[sy * N + s];
    }
    out[k] = (Tin)((acc + n / 2) / n);
}

// ---- 8-bit images up to radius BOX16_R (radius 1 where words3x3 does not
// apply): a 16-bit intermediate (a row sum
// is at most 255 (2R + 1) < 2^16) and both passes coalesced.

constexpr int BOX16_R = 127, BK = 33, BTHREADS = 128;

// Row pass: a block of 128 threads per tile of 128 / C groups x BK pixels of
// one row, staged with its halo in shared memory one sample per 32-bit word
// (border rule applied while loading); thread (group g, channel c) sums its
// first window, then slides BK - 1 times (two shared loads per output).  BK
// = 33 is odd, so the lanes' loads (stride 33 * C words) fall in distinct
// banks.  Sums go out through shared memory as whole rows of the tile.  For
// 8-bit rows that are not whole 16-byte words (Mid: 16-bit sums), and for
// 16-bit images and 8-bit rows of an odd number of samples up to BOX16_R
// (32-bit sums, at most 65535 (2R + 1) < 2^24), where box_rows's threads,
// each along a segment of its own, read and wrote SEG C samples apart (H200,
// 8192^2, radius 5 / 50, ms, the whole box: RGBA16 1.88 / 3.14 -> 1.35 /
// 2.06, RGB16 2.32 / 2.40 -> 1.05 / 1.63, gray16 1.50 / 1.69 -> 0.40 / 0.59;
// 8191 x 8192 gray8 1.49 / 1.65 -> 0.39 / 0.59, RGB8 2.39 / 2.10 -> 1.01 /
// 1.61).
template <typename Tin, typename Mid, int C>
__global__ void __launch_bounds__(BTHREADS)
    box_rows_tile(const Tin *__restrict__ in, Mid *__restrict__ mid, int W, int tiles, int R, int border)
{
    constexpr int G = BTHREADS / C, TILE = G * BK, V = 16 / sizeof(Mid); // sums per 16-byte word
    extern __shared__ uint32_t smem[];
    const int span = (TILE + 2 * R) * C;
    uint32_t *s_row = smem;
    Mid *s_out = (Mid *)(smem + (span + 3) / 4 * 4); // 16-byte aligned
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * TILE;
    const Tin *row = in + (size_t)y * W * C;
    gf_stage_row<Tin, C, BTHREADS, TILE>(row, s_row, W, x0, R, border);
    __syncthreads();
    const int c = threadIdx.x % C, g = threadIdx.x / C;
    if (g < G) {
        const uint32_t *w = s_row + g * BK * C + c;
        uint32_t acc = 0;
        for (int i = 0; i <= 2 * R; i++)
            acc += w[i * C];
        Mid *o = s_out + g * BK * C + c;
        o[0] = (Mid)acc;
#pragma unroll 8
        for (int j = 1; j < BK; j++) {
            acc += w[(j + 2 * R) * C] - w[(j - 1) * C];
            o[j * C] = (Mid)acc;
        }
    }
    __syncthreads();
    const int n = min(TILE, W - x0) * C;
    Mid *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    int k = threadIdx.x;
    if (((size_t)W * C) % V == 0 && (x0 * C) % V == 0) { // whole 16-byte words first (1 store per V sums)
        for (; k < n / V; k += BTHREADS)
            ((uint4 *)dst)[k] = ((const uint4 *)s_out)[k];
        k = n / V * V + threadIdx.x;
    }
    for (; k < n; k += BTHREADS)
        dst[k] = s_out[k];
}

// Row pass for C = 2 and 4, where a pixel is one 16- or 32-bit word: a block
// of 128 threads per tile of 128 x BKP pixels; the tile and its halo are
// staged in shared memory one pixel per 32-bit word (one load per pixel, by
// gf_stage_row with the pixel as its sample), and each thread
// slides along its BKP pixels, all channels at once in 16-bit SIMD lanes
// (C = 4: channels 0 and 2 in one word, 1 and 3 in the other): one shared
// load per pixel entering and leaving the window, against two per sample in
// box_rows_tile.  BKP is odd, so the lanes' loads fall in distinct banks.
template <int C> struct box_px;
template <> struct box_px<2> { // a pixel c0 c1 -> lanes (c0, c1)
    using T = uint16_t;
    static constexpr int NW = 1;
    static __device__ __forceinline__ void split(uint32_t v, uint32_t (&l)[1]) { l[0] = __byte_perm(v, 0, 0x4140); }
    static __device__ __forceinline__ void put(uint16_t *o, const uint32_t (&l)[1]) { *(uint32_t *)o = l[0]; }
};
template <> struct box_px<4> { // a pixel c0 c1 c2 c3 -> lanes (c0, c2), (c1, c3)
    using T = uint32_t;
    static constexpr int NW = 2;
    static __device__ __forceinline__ void split(uint32_t v, uint32_t (&l)[2])
    {
        l[0] = __byte_perm(v, 0, 0x4240), l[1] = __byte_perm(v, 0, 0x4341);
    }
    static __device__ __forceinline__ void put(uint16_t *o, const uint32_t (&l)[2])
    {
        *(uint2 *)o = make_uint2(__byte_perm(l[0], l[1], 0x5410), __byte_perm(l[0], l[1], 0x7632));
    }
};

template <int C, int BKP>
__global__ void __launch_bounds__(BTHREADS) box_rows_px(const uint8_t *__restrict__ in, uint16_t *__restrict__ mid,
                                                        int W, int tiles, int R, int border)
{
    using X = box_px<C>;
    using P = typename X::T;
    constexpr int TILE = BTHREADS * BKP;
    extern __shared__ uint4 smem4[];
    const int span = TILE + 2 * R;
    uint32_t *s_px = (uint32_t *)smem4; // one pixel per 32-bit word
    uint16_t *s_out = (uint16_t *)(smem4 + (span + 3) / 4);
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * TILE;
    // a pixel is one "sample" of a 1-channel row of P
    gf_stage_row<P, 1, BTHREADS, TILE>((const P *)(in + (size_t)y * W * C), s_px, W, x0, R, border);
    __syncthreads();
    const uint32_t *w = s_px + threadIdx.x * BKP;
    uint32_t acc[X::NW] = {}, v[X::NW];
    for (int i = 0; i <= 2 * R; i++) {
        X::split(w[i], v);
#pragma unroll
        for (int q = 0; q < X::NW; q++)
            acc[q] += v[q];
    }
    uint16_t *o = s_out + threadIdx.x * BKP * C;
    X::put(o, acc);
#pragma unroll 4
    for (int j = 1; j < BKP; j++) {
        uint32_t u[X::NW];
        X::split(w[j + 2 * R], v);
        X::split(w[j - 1], u);
#pragma unroll
        for (int q = 0; q < X::NW; q++)
            acc[q] += v[q] - u[q]; // lane-wise: each 16-bit lane stays in 0 .. 255 (2R + 1)
        X::put(o + j * C, acc);
    }
    __syncthreads();
    const int n = min(TILE, W - x0) * C; // TILE * C is a multiple of 8: whole 16-byte words when W * C is
    uint16_t *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    int k = threadIdx.x;
    if (((size_t)W * C) % 8 == 0) {
        for (; k < n / 8; k += BTHREADS)
            ((uint4 *)dst)[k] = ((const uint4 *)s_out)[k];
        k = n / 8 * 8 + threadIdx.x;
    }
    for (; k < n; k += BTHREADS)
        dst[k] = s_out[k];
}

// Column pass: each thread owns K = 8 neighbouring samples (one 16-byte load
// of the intermediate per row; K = 2, one 4-byte load, where W * C is not a
// multiple of 8) down a strip of BCK rows: it sums the first window, then
// adds the row entering and subtracts the row leaving.  The mean,
// (sum + n/2) / n, is a multiply-shift, exact for every sum of every radius
// up to 127 (box_div; checked exhaustively).
constexpr int BCK = 128;

// (s * m) >> (32 + sh) == s / n for every s up to 255 n + n/2 (an 8-bit box
// sum plus n/2): with m = ceil(2^k / n) and e = m n - 2^k, s m / 2^k = s / n
// + s e / (n 2^k), and the second term is below 1/n (so cannot carry past
// the next multiple of 1/n) when s e < 2^k.  k = 32, no shift, where that
// holds for the largest s (every radius up to 34, and 37-41, 43, 50, 51 and
// 56: checked exhaustively, which fails at every other radius);
// else k = 24 + ceil(log2 n), where e < n <= 2^(k - 24) and s < 2^24 (R <=
// 127) (Granlund and Montgomery).
struct box_div {
    uint32_t m;
    int sh;
    __device__ uint32_t operator()(uint32_t s) const { return __umulhi(s, m) >> sh; }
};

static box_div make_box_div(uint32_t n)
{
    const uint64_t m32 = ((1ull << 32) + n - 1) / n, smax = 255ull * n + n / 2;
    if (m32 <= UINT32_MAX && smax * (m32 * n - (1ull << 32)) < (1ull << 32))
        return box_div{(uint32_t)m32, 0};
    int lg = 0;
    while ((1u << lg) < n)
        lg++;
    const int k = 24 + lg < 32 ? 32 : 24 + lg;
    return box_div{(uint32_t)(((1ull << k) + n - 1) / n), k - 32};
}

// K 16-bit samples as one load (word(v, i): samples 2i and 2i + 1), K bytes as one store.
template <int K> struct lanes16;
template <> struct lanes16<2> {
    using in = uint32_t;
    using out = uint16_t;
    static __device__ __forceinline__ uint32_t word(in v, int) { return v; }
    static __device__ __forceinline__ out pack(const uint32_t (&b)[2]) { return (out)(b[0] | b[1] << 8); }
};
template <> struct lanes16<8> {
    using in = uint4;
    using out = uint2;
    static __device__ __forceinline__ uint32_t word(in v, int i)
    {
        return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
    }
    static __device__ __forceinline__ out pack(const uint32_t (&b)[8])
    {
        return make_uint2(b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24, b[4] | b[5] << 8 | b[6] << 16 | b[7] << 24);
    }
};

// acc[k] += sample k of v (add), or -= (!add)
template <int K, bool add> __device__ __forceinline__ void box_accumulate(uint32_t (&acc)[K], typename lanes16<K>::in v)
{
#pragma unroll
    for (int i = 0; i < K / 2; i++) {
        const uint32_t w = lanes16<K>::word(v, i);
        if (add)
            acc[2 * i] += w & 0xffff, acc[2 * i + 1] += w >> 16;
        else
            acc[2 * i] -= w & 0xffff, acc[2 * i + 1] -= w >> 16;
    }
}

template <int K>
__global__ void __launch_bounds__(BTHREADS, 8) // (without the 8, ptxas spilled at 40 registers)
    box_cols16(const typename lanes16<K>::in *__restrict__ mid, typename lanes16<K>::out *__restrict__ out,
               int groups, int H, int R, int border, uint32_t half, box_div div)
{
    using L = lanes16<K>;
    const int p = blockIdx.x * BTHREADS + threadIdx.x;
    if (p >= groups)
        return;
    const int y0 = blockIdx.y * BCK, y1 = min(H, y0 + BCK);
    uint32_t acc[K] = {};
    auto mean = [&](int y) {
        uint32_t b[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            b[k] = div(acc[k] + half);
        out[(size_t)y * groups + p] = L::pack(b);
    };
    if (y0 >= R && y1 + R <= H) { // no border: walk two pointers
        const typename L::in *add = mid + (size_t)(y0 - R) * groups + p, *sub = add;
        for (int j = 0; j <= 2 * R; j++, add += groups)
            box_accumulate<K, true>(acc, *add);
        for (int y = y0;; add += groups, sub += groups) {
            mean(y);
            if (++y >= y1)
                break;
            box_accumulate<K, true>(acc, *add);
            box_accumulate<K, false>(acc, *sub);
        }
        return;
    }
    for (long j = (long)y0 - R; j <= (long)y0 + R; j++) {
        const long sy = gf_border_index(j, H, border);
        if (sy >= 0)
            box_accumulate<K, true>(acc, mid[sy * groups + p]);
    }
    for (int y = y0;;) {
        mean(y);
        if (++y >= y1)
            break;
        const long add = gf_border_index((long)y + R, H, border), sub = gf_border_index((long)y - R - 1, H, border);
        if (add >= 0)
            box_accumulate<K, true>(acc, mid[add * groups + p]);
        if (sub >= 0)
            box_accumulate<K, false>(acc, mid[sub * groups + p]);
    }
}

template <int K>
cudaError_t launch_cols16(const gf_image *in, gf_image *out, const void *scratch, int R, int border, cudaStream_t st)
{
    const uint32_t n = (2u * R + 1) * (2u * R + 1);
    const int groups = in->width * in->channels / K;
    box_cols16<K><<<dim3(gf_blocks(groups, BTHREADS), gf_blocks(in->height, BCK)), BTHREADS, 0, st>>>(
        (const typename lanes16<K>::in *)scratch, (typename lanes16<K>::out *)out->data, groups, in->height, R,
        border, n / 2, make_box_div(n));
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

template <int C, int BKP>
cudaError_t launch_rows_px(const gf_image *in, void *scratch, int R, int border, cudaStream_t st)
{
    constexpr int TILE = BTHREADS * BKP;
    const size_t span = (size_t)TILE + 2 * (size_t)R;
    const size_t smem = (span + 3) / 4 * 16 + (size_t)TILE * C * 2;
    if (!gf_fit_smem(box_rows_px<C, BKP>, smem))
        return cudaErrorInvalidConfiguration; // not reached for R <= BOX16_R (under 70 KB)
    const unsigned tiles = gf_blocks(in->width, TILE);
    box_rows_px<C, BKP><<<tiles * in->height, BTHREADS, smem, st>>>((const uint8_t *)in->data, (uint16_t *)scratch,
                                                                    in->width, (int)tiles, R, border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

template <typename Tin, typename Mid, int C>
cudaError_t launch_rows_tile(const gf_image *in, void *scratch, int R, int border, cudaStream_t st)
{
    constexpr int TILE = BTHREADS / C * BK;
    const size_t smem = ((size_t)TILE + 2 * (size_t)R) * C * 4 + 16 + (size_t)TILE * C * sizeof(Mid);
    if (!gf_fit_smem(box_rows_tile<Tin, Mid, C>, smem))
        return cudaErrorInvalidConfiguration; // not reached for R <= BOX16_R (under 40 KB)
    const unsigned tiles = gf_blocks(in->width, TILE);
    box_rows_tile<Tin, Mid, C><<<tiles * in->height, BTHREADS, smem, st>>>((const Tin *)in->data, (Mid *)scratch,
                                                                            in->width, (int)tiles, R, border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

template <int C>
cudaError_t launch16(const gf_image *in, gf_image *out, void *scratch, int R, int border, cudaStream_t st)
{
    cudaError_t e;
    if constexpr (C == 2 || C == 4) // a short run per thread for small radii (more blocks per SM), a longer one
        e = R <= 16 ? launch_rows_px<C, 17>(in, scratch, R, border, st) // where the first window costs more
                    : launch_rows_px<C, 33>(in, scratch, R, border, st);
    else
        e = launch_rows_tile<uint8_t, uint16_t, C>(in, scratch, R, border, st);
    if (e != cudaSuccess)
        return e;
    if ((in->width * C) % 8 == 0 && (uintptr_t)out->data % 8 == 0)
        return launch_cols16<8>(in, out, scratch, R, border, st);
    return launch_cols16<2>(in, out, scratch, R, border, st);
}

// ---- One pass, no intermediate, any channel count: 8- and 16-bit images
// whose rows are whole 16-byte words, radius 2 (16-bit: 1) to BOX16_R
// (box_batch).  16-bit samples (Z = 2) keep 32-bit sums, 8 a thread
// (col_sums), slide a channel a lane (batch_slide, a 2-byte store an output)
// and divide by box_div32: H200, 8192^2, radius 1 / 5 / 15 / 50 / 127, ms,
// RGBA16 1.227 / 1.275 / 1.371 / 1.496 / 1.962 through two passes and a 32-bit
// intermediate -> 0.325 / 0.370 / 0.397 / 0.535 / 1.364; radius 5 / 50 RGB16
// 1.003 / 1.210 -> 0.323 / 0.452, gray+alpha16 0.679 / 0.832 -> 0.189 /
// 0.277, gray16 0.398 / 0.473 -> 0.101 / 0.159.
//
// A block of FT threads owns a strip of the row, one 16-byte word per thread
// (ow words of output, at most FT - 2 hw, with a halo of hw = ceil(R C / 16)
// words each side; the row's words are shared evenly among the strips), and
// walks down `rows` rows of it, BB = 8 rows at a time.
// Vertical: each thread keeps the window sum of its 16 samples' columns in
// 16-bit lanes (at most 255 (2R + 1) < 2^16), adds the row entering and
// subtracts the row leaving (read 2R + 1 rows before, from L2 where that
// fits), and stores it to shared memory, BB rows of the strip; the loads of
// the next BB rows are issued before the horizontal step, so they arrive
// while it runs.  Horizontal: each lane owns one channel of one of the BB
// rows along a segment of the strip (a warp's 32 lanes: 8 rows x 4 (channel,
// segment) units, NS segments per channel) and slides along it, two 16-bit
// shared loads, an add and box_div's multiply-high (and shift) per output,
// its bytes going to a shared output tile whose rows the bulk-copy engine
// stores to the image (batch_store).  Two barriers per BB rows.  Row
// strides and segment lengths are chosen so that the lanes' loads fall in
// distinct banks.  RGBA8 up to radius VEC_R: each lane owns a segment of
// whole pixels instead (4 NW segments a row), one 8-byte load per pixel
// entering and leaving, four running sums, one 4-byte store (batch_slide4): a
// quarter of the shared accesses; gray8 slides four samples a step, from 8-byte
// loads to one 4-byte store (batch_slide1), a quarter too.  Six warps a block
// (for C = 3, so that 4 NW units are a whole number of (channel, segment)
// pairs), two blocks per SM (shared memory: 72 KB each; at three blocks, 96
// registers, RGB8 spilled and ran 23-25% slower).  Six warps rather than
// eight fit the row's words more closely (8192 RGBA8 pixels at radius 5: 11
// strips of 187 words, 191 of 192 threads reading, against 9 of 228, 232 of
// 256) and give each lane a longer segment: H200, 8192^2, radius 5 / 15 / 50: RGBA8 0.187-0.193 / 0.240-0.243
// / 0.314 ms against 0.213-0.215 / 0.264-0.265 / 0.314-0.316 with eight;
// gray+alpha 0.119-0.121 / 0.134-0.135 / 0.170-0.171 against 0.132-0.135 /
// 0.146-0.147 / 0.189-0.190; gray8 0.070-0.073 / 0.080-0.082 / 0.104-0.107
// against 0.077 / 0.086 / 0.111-0.113.  They also leave more L1, where the
// rows' loads land: two blocks of 72 KB take the 164 KB shared-memory
// carveout (92 KB of L1), two of eight warps' 96 KB took 196 KB (60 KB of
// L1), and six warps with the carveout forced to 196 KB were about as slow as
// eight.  A ring of each thread's window in shared memory, read for the
// rows leaving instead of L2 or DRAM, cut r=15's DRAM traffic by 29% but
// left 8 warps an SM and was 9-13% slower (docs/PERFORMANCE.md).
constexpr int BB = 8, HU = 8; // rows per batch, outputs per step of a lane's slide
constexpr int PRO = 8;        // rows of the first window loaded at a time
constexpr int VEC_R = 16;     // RGBA8 up to this radius: batch_slide4
constexpr int PACK_R = 7;     // and up to this one, its running sums in 16-bit lanes
constexpr int WP = 7;         // above it, its first windows' pixels summed this many at a time in 16-bit lanes
static_assert(WP * (2 * VEC_R + 1) * 255 <= 0xffff);
static_assert((2 * PACK_R + 1) * (2 * PACK_R + 1) * 255 + (2 * PACK_R + 1) * (2 * PACK_R + 1) / 2 <= 0xffff);

// v (samples 4j, 4j + 2 in vE[j]; 4j + 1, 4j + 3 in vO[j]) += add - sub, lane by lane:
// no lane leaves 0 .. 65535, since sub is one of the rows v holds.  The odd
// bytes come apart by one byte permute a word (odd_bytes), where (w >> 8) &
// LO took ptxas a shift and a mask: 36 -> 28 instructions a thread and row
// (H200, 8192^2, radius 5 / 15 / 50, ms: RGBA8 0.186-0.187 / 0.225-0.226 /
// 0.314-0.317 -> 0.180-0.182 / 0.219-0.228 / 0.312-0.315, gray8 0.066-0.067
// / 0.069-0.070 / 0.099-0.100 -> 0.063-0.065 / 0.066-0.069 / 0.094-0.096,
// RGB8 1-2% faster).
__device__ __forceinline__ void box_slide(uint32_t (&vE)[4], uint32_t (&vO)[4], uint4 add, uint4 sub)
{
    const uint32_t a[4] = {add.x, add.y, add.z, add.w}, d[4] = {sub.x, sub.y, sub.z, sub.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        vE[j] = vE[j] + (a[j] & words3x3::LO) - (d[j] & words3x3::LO);
        vO[j] = vO[j] + words3x3::odd_bytes(a[j]) - words3x3::odd_bytes(d[j]);
    }
}

// Z: bytes a sample (1: 16-bit sums; 2: 32-bit sums, SPW = 8 samples a word).
template <int C, int Z = 1> struct batch_shape {
    static constexpr int NW = 6; // warps: 4 NW (channel, segment) units per row
    static constexpr int FT = 32 * NW, NS = 4 * NW / C, BLOCKS = 2; // blocks per SM
    static constexpr int SPW = 16 / Z;                               // samples a 16-byte word
    // row stride of the sums, in samples: 4 (mod 32) words (Z = 1: RS / 2)
    static constexpr int RS = Z == 1 ? 16 * FT + 8 : 8 * FT + 4;
    static constexpr int RO = 16 * FT + 16; // row stride of the outputs, in bytes: RO / 4 = 4 (mod 32)
    static constexpr int VOFF = C == 1 && Z == 1 ? 16 : 0; // bytes before s_v (batch_slide1's first chunks)
    static constexpr size_t SMEM = VOFF + (size_t)BB * RS * 2 * Z + (size_t)BB * RO;
    // Segment length for n outputs of a channel, such that the 32 lanes' loads
    // fall in distinct banks (or share a word).  Lane (row b, unit q) reads
    // sample 8 b + p_q (mod 64: RS = 8 mod 64): two words of its row's four
    // banks for C = 4; for C < 4 the warp's units span two (C = 2, 3) or four
    // (C = 1) segments, C L samples apart, and C L must place the next
    // segment's lanes in the banks the first leaves free: L = 2 mod 4 (C =
    // 2), 4 mod 8 (C = 3).  (RGB8 at 8192^2, radius 15: 0.324 ms with L = 114,
    // 2-way conflicts, against 0.259 with L = 124.)  C = 1 (batch_slide1)
    // loads 8 bytes a lane, a half-warp at a time (8 rows of two segments):
    // the second segment's two banks are the two its row leaves free for L / 2
    // = 2 mod 4 words; its 4-byte stores (8 rows of four segments, rows 4
    // banks apart) fall in distinct banks for L / 4 odd: L = 4 mod 8.
    static __device__ __forceinline__ int seg_len(int n)
    {
        int L = (n + NS - 1) / NS;
        if constexpr (Z == 2) // 32-bit sums: one word a sample, a row's lanes C apart, rows 4 banks apart
            L |= 1;
        else if constexpr (C == 1)
            L += (12 - L % 8) % 8;
        else if constexpr (C == 2)
            L += (6 - L % 4) % 4;
        else if constexpr (C == 3)
            L += (12 - L % 8) % 8;
        return L;
    }
};

// A slide's steps of N outputs while N more remain before cnt (i: the next
// output; step advances it by N): the samples entering and leaving (a, d) are
// loaded a step ahead of their sums.
template <int N, typename T, typename Load, typename Step>
__device__ __forceinline__ void steps_ahead(const int &i, int cnt, T (&a)[N], T (&d)[N], Load load, Step step)
{
    if (i + N > cnt)
        return;
    load();
    while (i + 2 * N <= cnt) {
        T ca[N], cd[N];
#pragma unroll
        for (int u = 0; u < N; u++)
            ca[u] = a[u], cd[u] = d[u];
        load();
        step(ca, cd);
    }
    step(a, d);
}

// One lane's slide along its segment (cnt outputs of one channel of one row,
// from the sums v, to the bytes o): the first window, then HU outputs at a
// time, the loads first and then the chain of sums.  SH: the mean takes a
// shift after the multiply-high (box_div).
template <int C, typename TS, typename TO, typename Mean>
__device__ __forceinline__ void batch_slide(const TS *v, TO *o, int cnt, int R, uint32_t half, Mean mean)
{
    uint32_t sum = half;
#pragma unroll 4
    for (int i = -R; i <= R; i++)
        sum += v[i * C];
    o[0] = mean(sum);
    const TS *va = v + (R + 1) * C, *vs = v - R * C;
    int i = 1;
    uint32_t a[HU], d[HU]; // the next HU samples entering and leaving: loaded a step ahead of their sums
    auto load = [&]() {
#pragma unroll
        for (int u = 0; u < HU; u++)
            a[u] = va[u * C], d[u] = vs[u * C];
        va += HU * C, vs += HU * C;
    };
    auto step = [&](const uint32_t(&ca)[HU], const uint32_t(&cd)[HU]) {
#pragma unroll
        for (int u = 0; u < HU; u++) {
            sum += ca[u] - cd[u];
            o[(u + 1) * C] = mean(sum);
        }
        i += HU, o += HU * C;
    };
    steps_ahead(i, cnt, a, d, load, step);
    for (; i < cnt; i++) {
        sum += va[0] - vs[0];
        va += C, vs += C, o += C;
        *o = mean(sum);
    }
}

// The four 16-bit samples S to S + 3 of the 8 that two aligned 8-byte chunks hold.
template <int S> __device__ __forceinline__ uint2 chunk_at(uint2 p, uint2 q)
{
    if constexpr (S == 0)
        return p;
    else if constexpr (S == 1)
        return make_uint2(__funnelshift_r(p.x, p.y, 16), __funnelshift_r(p.y, q.x, 16));
    else if constexpr (S == 2)
        return make_uint2(p.y, q.x);
    else
        return make_uint2(__funnelshift_r(p.y, q.x, 16), __funnelshift_r(q.x, q.y, 16));
}

// The sum of v[lo] .. v[hi - 1] (v 8-byte aligned): aligned 8-byte chunks between single samples.
__device__ __forceinline__ uint32_t span_sum(const uint16_t *v, int lo, int hi)
{
    uint32_t s = 0;
    const int a = min((lo + 3) & ~3, hi), b = a + ((hi - a) & ~3);
    for (int i = lo; i < a; i++)
        s += v[i];
#pragma unroll 4
    for (int i = a; i < b; i += 4) {
        const uint2 c = *(const uint2 *)(v + i);
        s += (c.x & 0xffff) + (c.x >> 16) + (c.y & 0xffff) + (c.y >> 16);
    }
    for (int i = b; i < hi; i++)
        s += v[i];
    return s;
}

// C = 1: one lane's slide along its segment (cnt outputs; v and o aligned to
// 4 samples), four outputs a step: the four sums entering and the four leaving
// each from two aligned 8-byte chunks (one new a step, loaded a step ahead),
// the four means to one 4-byte store: 3 shared accesses per 4 outputs, where
// batch_slide makes 12.  RA = R mod 4: output i's entering sum v[i + R] lies
// RA samples into its chunk for i a multiple of 4, the leaving v[i - R - 1] 3 -
// RA.  The chunks may lie past the segment (in the row: RS > 16 FT + 7) or,
// for the first segment of row 0, up to 8 bytes before s_v (its offset).
template <bool SH, int RA>
__device__ __forceinline__ void batch_slide1(const uint16_t *v, uint8_t *o, int cnt, int R, uint32_t half, box_div div)
{
    auto mean = [&](uint32_t s) { return SH ? div(s) : __umulhi(s, div.m); };
    constexpr int LA = 3 - RA;
    uint32_t sum = half + span_sum(v, -R - 1, R); // the window of output -1
    const uint2 *pa = (const uint2 *)(v + R - RA), *ps = (const uint2 *)(v - R - 1 - LA);
    uint2 a0 = pa[0], a1 = pa[1], s0 = ps[0], s1 = ps[1];
    int i = 0;
#pragma unroll 2
    for (; i + 4 <= cnt; i += 4) {
        pa++, ps++;
        const uint2 a2 = pa[1], s2 = ps[1]; // a step ahead
        const uint2 e = chunk_at<RA>(a0, a1), l = chunk_at<LA>(s0, s1);
        uint32_t m[4];
        sum += (e.x & 0xffff) - (l.x & 0xffff), m[0] = mean(sum);
        sum += (e.x >> 16) - (l.x >> 16), m[1] = mean(sum);
        sum += (e.y & 0xffff) - (l.y & 0xffff), m[2] = mean(sum);
        sum += (e.y >> 16) - (l.y >> 16), m[3] = mean(sum);
        *(uint32_t *)(o + i) = gf_pack_bytes(m[0], m[1], m[2], m[3]);
        a0 = a1, a1 = a2, s0 = s1, s1 = s2;
    }
    for (; i < cnt; i++) {
        sum += v[i + R] - v[i - R - 1];
        o[i] = (uint8_t)mean(sum);
    }
}

// C = 4: one lane's slide along its segment of np whole pixels, all four
// channels at once: one 8-byte shared load of a pixel's four sums entering and
// one leaving, four running sums, one 4-byte store of the four means.  A
// pixel's sums lie as (c0, c2), (c1, c3) (16-bit lanes of two words: the
// vertical step's vE, vO, stored as they are).  PK (radius up to PACK_R):
// the running sums too are two words of 16-bit lanes, (c0, c2) and (c1, c3),
// each updated by one add of the entering word and one subtract of the leaving
// (exact: every lane's sum, n/2 included, stays below 2^16, so the 32-bit
// result is the lanes' own).  Else the first window's pixels are summed WP
// at a time in two words of 16-bit lanes, each pair of words then added to the
// four 32-bit sums, where each pixel took its four lanes apart and added them
// (H200, 8192^2, radius 8 / 11 / 15 / 16: 0.213-0.217 / 0.229-0.230 /
// 0.239-0.243 / 0.240-0.246 ms -> 0.209-0.211 / 0.222-0.225 / 0.232-0.235 /
// 0.233-0.236; ncu at radius 15: 103.6 M -> 94.0 M warp instructions; the
// slide's entering less leaving as one biased subtract a word as well, 91.0 M,
// ran 1-2% slower).  The slide adds each word whole (its low lane's sum is
// then the word sum less 2^16 times the high lane's, one multiply-add at the
// mean) and takes only the high lanes apart: 12 -> 10 instructions a pixel
// (ptxas: 95 -> 87 a step of four; with the odd bytes' permute, above, ncu at
// radius 15 93.8 M -> 84.4 M warp instructions; radius 15 / 16 0.219-0.228 /
// 0.220-0.224 -> 0.214-0.219 / 0.218-0.221 ms, radius 8 the same or 1%
// slower, 0.200-0.202 -> 0.202-0.204).  With segments of an odd number of
// pixels, a half-warp's 16 loads (8 rows, 2 segments: rows RS = 16 bytes mod
// 128 apart) and a warp's 32 stores fall in distinct banks.
template <bool SH, bool PK>
__device__ __forceinline__ void batch_slide4(const uint16_t *v, uint8_t *o, int np, int R, uint32_t half,
                                             box_div div)
{
    auto mean = [&](uint32_t s) { return SH ? div(s) : __umulhi(s, div.m); };
    // s[0], s[1]: the sums of the words (c0, c2) and (c1, c3) as 32-bit
    // numbers, c0 + 2^16 c2 and c1 + 2^16 c3 (mod 2^32); PK: those are the
    // sums' own lanes.  Else s[2], s[3] are c2 and c3, and c0 = s[0] - 2^16
    // c2 (mod 2^32), exact since c0 < 2^32.
    uint32_t s[4];
    s[0] = s[1] = half * 0x10001u;
    if constexpr (!PK)
        s[2] = s[3] = half;
    auto slide = [&](uint2 a, uint2 d) {
        s[0] += a.x - d.x, s[1] += a.y - d.y;
        if constexpr (!PK)
            s[2] += (a.x >> 16) - (d.x >> 16), s[3] += (a.y >> 16) - (d.y >> 16);
    };
    auto put = [&](int q) { // (gf_pack_bytes here gives ptxas another schedule, unmeasured: written out)
        const uint32_t c2 = PK ? s[0] >> 16 : s[2], c3 = PK ? s[1] >> 16 : s[3];
        const uint32_t c0 = PK ? s[0] & 0xffff : s[0] - (c2 << 16);
        const uint32_t c1 = PK ? s[1] & 0xffff : s[1] - (c3 << 16);
        ((uint32_t *)o)[q] = __byte_perm(__byte_perm(mean(c0), mean(c1), 0x0040),
                                         __byte_perm(mean(c2), mean(c3), 0x0040), 0x5410);
    };
    const uint2 *p = (const uint2 *)v; // pixel i's four sums: p[i]
    if constexpr (PK) {
#pragma unroll 4
        for (int i = -R; i <= R; i++)
            slide(p[i], make_uint2(0, 0));
    } else { // the first window, WP pixels at a time in 16-bit lanes (exact: WP (2 VEC_R + 1) 255 < 2^16)
        const uint2 *w = p - R;
        int n = 2 * R + 1;
        for (; n >= WP; n -= WP, w += WP) {
            uint2 g = make_uint2(0, 0);
#pragma unroll
            for (int u = 0; u < WP; u++)
                g.x += w[u].x, g.y += w[u].y;
            slide(g, make_uint2(0, 0));
        }
        uint2 g = make_uint2(0, 0);
        for (int u = 0; u < n; u++)
            g.x += w[u].x, g.y += w[u].y;
        slide(g, make_uint2(0, 0));
    }
    put(0);
    const uint2 *pa = p + R + 1, *ps = p - R;
    constexpr int HP = 4; // pixels a step
    int q = 1;
    uint2 a[HP], d[HP]; // the next HP pixels entering and leaving: loaded a step ahead of their sums
    auto load = [&]() {
#pragma unroll
        for (int u = 0; u < HP; u++)
            a[u] = pa[u], d[u] = ps[u];
        pa += HP, ps += HP;
    };
    auto step = [&](const uint2(&ca)[HP], const uint2(&cd)[HP]) {
#pragma unroll
        for (int u = 0; u < HP; u++) {
            slide(ca[u], cd[u]);
            put(q + u);
        }
        q += HP;
    };
    steps_ahead(q, np, a, d, load, step);
    for (; q < np; q++) {
        slide(pa[0], ps[0]);
        pa++, ps++;
        put(q);
    }
}

// The L2 eviction priority a policy gives the lines it touches: evict-first
// (first) or the default (evict-normal), for ld_hinted and batch_store.
__device__ __forceinline__ uint64_t l2_policy(bool first)
{
    uint64_t f, n;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(f));
    asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(n));
    return first ? f : n;
}
__device__ __forceinline__ uint4 ld_hinted(const uint4 *p, uint64_t pol)
{
    uint4 v;
    asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "l"(pol));
    return v;
}

// The batch's nb output rows (owv words each, rows row_bytes apart from dst)
// from the tile s_o (rows RO bytes apart) to the image.  With `bulk` (sm_90)
// one thread hands them to the bulk-copy engine (cp.async.bulk: sizes and
// addresses are whole 16-byte words), so that no thread loads and stores
// them (H200, 8192^2, r = 5 / 15 / 50: RGBA8 0.277 / 0.300 / 0.336 ms
// against 0.258 / 0.287 / 0.331, RGB8 and gray8 2-8% faster too); the
// threads' bytes must be made visible to it first (bulk_fence, then a
// barrier), and it must have read them before the next batch's outputs
// overwrite the tile (bulk_wait); pol: the rows' L2 priority (l2_policy).
// Else the block copies the words itself.
template <int RO>
__device__ __forceinline__ void batch_store(uint8_t *dst, size_t row_bytes, const uint8_t *s_o, int owv, int nb,
                                            bool bulk, uint64_t pol)
{
#if __CUDA_ARCH__ >= 900
    if (bulk) {
        if (threadIdx.x == 0) {
            for (int i = 0; i < nb; i++)
                asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(
                                 dst + i * row_bytes),
                             "r"((unsigned)__cvta_generic_to_shared(s_o + i * RO)), "r"(owv * 16), "l"(pol)
                             : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        }
        return;
    }
#endif
    if ((int)threadIdx.x < owv)
        for (int i = 0; i < nb; i++)
            ((uint4 *)(dst + i * row_bytes))[threadIdx.x] = ((const uint4 *)(s_o + i * RO))[threadIdx.x];
}
__device__ __forceinline__ void bulk_fence()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// READ: until the bulk copies have read their sources; else until they are done.
template <bool READ> __device__ __forceinline__ void bulk_wait()
{
#if __CUDA_ARCH__ >= 900
    if constexpr (READ)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    else
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// A thread's 16 window sums (box_slide's vE, vO) to its two words d[0], d[1]
// of a row of sums: VEC, pixel j's as (c0, c2), (c1, c3) (batch_slide4); else
// in sample order.
template <bool VEC>
__device__ __forceinline__ void store_sums(uint4 *d, const uint32_t (&vE)[4], const uint32_t (&vO)[4])
{
    if constexpr (VEC) {
        d[0] = make_uint4(vE[0], vO[0], vE[1], vO[1]);
        d[1] = make_uint4(vE[2], vO[2], vE[3], vO[3]);
    } else {
        d[0] = make_uint4(__byte_perm(vE[0], vO[0], 0x5410), __byte_perm(vE[0], vO[0], 0x7632),
                          __byte_perm(vE[1], vO[1], 0x5410), __byte_perm(vE[1], vO[1], 0x7632));
        d[1] = make_uint4(__byte_perm(vE[2], vO[2], 0x5410), __byte_perm(vE[2], vO[2], 0x7632),
                          __byte_perm(vE[3], vO[3], 0x5410), __byte_perm(vE[3], vO[3], 0x7632));
    }
}

// One lane's horizontal unit: its slide of cnt outputs from the sums v to the bytes o.
template <int C, bool VEC>
__device__ __forceinline__ void slide_unit(const uint16_t *v, uint8_t *o, int cnt, int R, uint32_t half, box_div div)
{
    if constexpr (VEC) {
        if (div.sh)
            batch_slide4<true, false>(v, o, cnt, R, half, div);
        else if (R <= PACK_R)
            batch_slide4<false, true>(v, o, cnt, R, half, div);
        else
            batch_slide4<false, false>(v, o, cnt, R, half, div);
    } else if constexpr (C == 1) {
        const auto slide = [&]<int RA>() {
            if (div.sh)
                batch_slide1<true, RA>(v, o, cnt, R, half, div);
            else
                batch_slide1<false, RA>(v, o, cnt, R, half, div);
        };
        switch (R & 3) {
        case 0: slide.template operator()<0>(); break;
        case 1: slide.template operator()<1>(); break;
        case 2: slide.template operator()<2>(); break;
        default: slide.template operator()<3>(); break;
        }
    } else if (div.sh)
        batch_slide<C>(v, o, cnt, R, half, [&](uint32_t s) { return (uint8_t)div(s); });
    else // the multiply-high alone where it is exact: one instruction of six per output less
        batch_slide<C>(v, o, cnt, R, half, [&](uint32_t s) { return (uint8_t)__umulhi(s, div.m); });
}

// (s + n/2) / n for every 32-bit s (16-bit images: s + n/2 is at most 65535 n +
// n/2 < 2^32 up to radius 127): t = mulhi(s, m), ((s - t) / 2 + t) >> (l - 1)
// with 2^(l-1) < n <= 2^l and m = floor(2^32 (2^l - n) / n) + 1 (Granlund and
// Montgomery, figure 4.1).
struct box_div32 {
    uint32_t m, sh;
    __device__ __forceinline__ uint32_t operator()(uint32_t s) const
    {
        const uint32_t t = __umulhi(s, m);
        return (t + ((s - t) >> 1)) >> sh;
    }
};
static box_div32 make_box_div32(uint32_t n)
{
    int l = 0;
    while ((1ull << l) < n)
        l++;
    return {(uint32_t)(((1ull << 32) * ((1ull << l) - n)) / n + 1), (uint32_t)(l - 1)};
}

// A thread's window sums down its column of 16-byte words.  Z = 1: 16
// samples in 16-bit lanes (box_slide), stored by store_sums; Z = 2: 8 16-bit
// samples, 32-bit sums (at most 65535 (2R + 1) < 2^24), stored in sample order.
template <int Z, bool VEC> struct col_sums;
template <bool VEC> struct col_sums<1, VEC> {
    uint32_t vE[4] = {}, vO[4] = {};
    __device__ __forceinline__ void slide(uint4 a, uint4 d) { box_slide(vE, vO, a, d); }
    __device__ __forceinline__ void store(uint16_t *p) const { store_sums<VEC>((uint4 *)p, vE, vO); }
};
template <bool VEC> struct col_sums<2, VEC> {
    uint32_t s[8] = {}; // samples 0 to 7 of the word
    __device__ __forceinline__ void slide(uint4 add, uint4 sub)
    {
        const uint32_t a[4] = {add.x, add.y, add.z, add.w}, d[4] = {sub.x, sub.y, sub.z, sub.w};
#pragma unroll
        for (int j = 0; j < 4; j++) {
            s[2 * j] += (a[j] & 0xffff) - (d[j] & 0xffff);
            s[2 * j + 1] += (a[j] >> 16) - (d[j] >> 16);
        }
    }
    __device__ __forceinline__ void store(uint32_t *p) const
    {
        ((uint4 *)p)[0] = make_uint4(s[0], s[1], s[2], s[3]);
        ((uint4 *)p)[1] = make_uint4(s[4], s[5], s[6], s[7]);
    }
};
template <int Z> using batch_div = std::conditional_t<Z == 1, box_div, box_div32>;

// VEC (C = 4 only): the lanes slide all four channels of whole pixels (batch_slide4).
// Z: bytes a sample (2: 16-bit images, the generic slide of batch_slide).
template <int C, bool VEC = false, int Z = 1>
__global__ void __launch_bounds__(batch_shape<C, Z>::FT, batch_shape<C, Z>::BLOCKS)
    box_batch(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int words, int R, int hw,
              int ow, int rows, int border, uint32_t half, batch_div<Z> div, bool bulk, bool hint)
{
    using S = batch_shape<C, Z>;
    using Sum = std::conditional_t<Z == 1, uint16_t, uint32_t>;
    constexpr int SPW = S::SPW;
    extern __shared__ uint4 smem4[];
    Sum *s_v = (Sum *)((uint8_t *)smem4 + S::VOFF); // BB rows of RS window sums
    uint8_t *s_o = (uint8_t *)(s_v + BB * S::RS);               // BB rows of RO output bytes
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const long kout = (long)blockIdx.x * ow, k = kout - hw + t; // first output word, this thread's word
    const int owv = (int)min((long)ow, words - kout);              // output words of this strip
    const int y0 = blockIdx.y * rows, y1 = min(H, y0 + rows);

    // this lane's horizontal unit: row b of a batch, channel c, segment seg
    const int b = lane % 8, g = warp * 4 + lane / 8, c = g % C, seg = g / C;
    const int first = (int)((c - kout * SPW % C + C) % C); // channel c's first output sample, from hw * SPW
    const int nout = owv * SPW, npx = (nout - first + C - 1) / C, L = S::seg_len((nout + C - 1) / C);
    // VEC: unit g is segment g of whole pixels (4 NW of them), L4 pixels long (odd: below)
    const int L4 = ((nout / 4 + 4 * S::NW - 1) / (4 * S::NW)) | 1;
    const int cnt = VEC ? max(0, min(L4, nout / 4 - g * L4)) : max(0, min(L, npx - seg * L));
    const int j0 = hw * SPW + (VEC ? 4 * g * L4 : first + C * seg * L); // the unit's first output sample in the strip

    // The word this thread reads down the strip.  Words outside the row: WRAP
    // reads the word the rule names (rows are whole words), ZERO reads none;
    // CLAMP and MIRROR read the row's nearest word, whose window sums are
    // replaced, once each batch's sums are in shared memory, by those of the
    // columns the rule names (they lie in the strip: below).  Threads past the
    // strip's halo, whose sums nothing reads, read a word the block reads
    // anyway.  So every warp but those holding ZERO's words outside the row
    // takes fetch's common path.  (When those threads read nothing, the warp
    // holding the strip's last word ran both of fetch's paths every batch and
    // the block waited for it at the barrier: H200, 8192^2, radius 5, RGBA8
    // 0.258 ms against 0.248, RGB8 0.200 against 0.177, gray8 0.083 against
    // 0.077.)
    const int span = 2 * hw + ow; // the strip's words, halo included
    const long src = t >= span                  ? min(max(kout - hw + t - span, 0L), words - 1L)
                     : k >= 0 && k < words        ? k
                     : border == GF_BORDER_WRAP ? (k % words + words) % words
                     : border == GF_BORDER_ZERO ? -1
                                                : min(max(k, 0L), words - 1L);
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const uint64_t pol = l2_policy(hint); // the rows leaving and the output rows (launch_batch)
    auto word_at = [&](long y) { return ((const uint4 *)(in + (size_t)y * words * 16))[src]; }; // row y inside
    auto row_word = [&](long y) {
        const long sy = gf_border_index(y, H, border);
        return sy < 0 || src < 0 ? zero : word_at(sy);
    };
    // The window of row y0 - 1 (rows y0 - 1 - R to y0 - 1 + R), PRO rows at a
    // time: their loads first, then their sums, so that PRO loads are in
    // flight.  (Summed as loaded, each row waited on its own load: H200,
    // 8192^2, RGBA8 radius 11 / 15 0.231-0.232 / 0.244-0.245 ms against
    // 0.229-0.230 / 0.240, gray8 radius 15 0.080-0.081 against 0.078; other
    // radii from 1 to 100 within 1%.)
    col_sums<Z, VEC> cs;
    const long wlo = (long)y0 - 1 - R, whi = (long)y0 - 1 + R;
    auto window = [&](auto get) {
        for (long j = wlo; j <= whi; j += PRO) {
            uint4 w[PRO];
#pragma unroll
            for (int i = 0; i < PRO; i++)
                w[i] = j + i <= whi ? get(j + i) : zero;
#pragma unroll
            for (int i = 0; i < PRO; i++)
                cs.slide(w[i], zero);
        }
    };
    if (wlo >= 0 && whi < H && src >= 0) // rows inside the image, a word inside the row: no border rule
        window(word_at);
    else
        window(row_word);
    uint4 add[BB], sub[BB]; // the next batch's rows entering and leaving
    auto fetch = [&](int y) {
        if (y > R && y + BB + R <= H && y + BB <= y1 && src >= 0) { // the common case: whole rows, no border
            const uint4 *pa = (const uint4 *)in + (size_t)(y + R) * words + src, *ps = pa - (size_t)(2 * R + 1) * words;
#pragma unroll
            for (int i = 0; i < BB; i++)
                add[i] = pa[(size_t)i * words], sub[i] = ld_hinted(ps + (size_t)i * words, pol);
            return;
        }
#pragma unroll
        for (int i = 0; i < BB; i++)
            if (y + i < y1)
                add[i] = row_word((long)y + i + R), sub[i] = row_word((long)y + i - R - 1);
    };
    // CLAMP and MIRROR strips at a row end: of the samples the horizontal
    // step reads, [rl, lo) and [hi, rr) lie outside the row; the pixels the
    // rule names for them lie within R of the row's ends, so in the strip
    // (or the row is narrower than R, and the strip holds all of it)
    const long base = (kout - hw) * SPW; // the strip's first sample in the row
    const int rl = hw * SPW - R * C, rr = (hw + owv) * SPW + R * C;
    const int lo = (int)min((long)rr, max((long)rl, -base));
    const int hi = (int)max((long)lo, min((long)rr, (long)SPW * words - base));
    const int ne = lo - rl + rr - hi; // samples to fill
    const bool fix = (border == GF_BORDER_CLAMP || border == GF_BORDER_MIRROR) && ne > 0;
    auto at = [](int j) { return VEC ? (j & ~3) | (j & 1) << 1 | (j >> 1 & 1) : j; }; // sample j's sum in a row of s_v
    fetch(y0);
    for (int y = y0; y < y1; y += BB) {
        const int nb = min(BB, y1 - y);
#pragma unroll
        for (int i = 0; i < BB; i++)
            if (i < nb) {
                cs.slide(add[i], sub[i]);
                cs.store(s_v + i * S::RS + SPW * t);
            }
        fetch(y + BB);
        if (t == 0)
            bulk_wait<true>(); // the last batch's bulk copies have read s_o, which this batch's outputs overwrite
        __syncthreads();
        if (fix) {
            for (int e = t; e < ne; e += S::FT) {
                const int j = e < lo - rl ? rl + e : hi + e - (lo - rl);
                const long gs = base + j, px = gs >= 0 ? gs / C : -((C - 1 - gs) / C); // floor(gs / C)
                const int from = (int)(gf_border_index(px, W, border) * C + (gs - px * C) - base);
                for (int i = 0; i < nb; i++)
                    s_v[i * S::RS + at(j)] = s_v[i * S::RS + at(from)];
            }
            __syncthreads();
        }
        if (b < nb && cnt > 0) {
            const Sum *v = s_v + b * S::RS + j0;
            uint8_t *o = s_o + b * S::RO + (j0 - hw * SPW) * Z;
            if constexpr (Z == 1)
                slide_unit<C, VEC>(v, o, cnt, R, half, div);
            else
                batch_slide<C>(v, (uint16_t *)o, cnt, R, half, div);
        }
        bulk_fence(); // this thread's output bytes, visible to the bulk copies
        __syncthreads();
        batch_store<S::RO>(out + ((size_t)y * words + kout) * 16, (size_t)words * 16, s_o, owv, nb, bulk, pol);
    }
    if (t == 0)
        bulk_wait<false>();
}

// The one-pass box's kernel for radius R: RGBA8 up to VEC_R slides whole pixels
// (H200, 8192^2, eight warps a block: radius 5 0.231 ms against 0.248 a channel
// per lane, radius 15 0.269 against 0.273; radius 50 0.344 against 0.315: a
// lane's segment is a quarter as long, so its first window costs four times as
// much per output.  Six warps: radius 17 0.250 against 0.253-0.254, 24 0.263
// against 0.260-0.262, 30 0.277-0.278 against 0.268-0.269, 50 0.361-0.371
// against 0.314: kept at 16, within 1.5% up to radius 24)
template <int C, int Z> auto batch_kernel(int R)
{
    if constexpr (Z == 2)
        return box_batch<C, false, 2>;
    else
        return C == 4 && R <= VEC_R ? box_batch<C, C == 4> : box_batch<C>;
}

template <int C, int Z> cudaError_t launch_batch(const gf_image *in, gf_image *out, int R, int border, cudaStream_t st)
{
    using S = batch_shape<C, Z>;
    const int words = (int)((size_t)in->width * C * Z / 16), hw = (R * C + S::SPW - 1) / S::SPW;
    int ow = S::FT - 2 * hw;
    int sms = 1, l2 = 0;
    cudaError_t e = gf_sm_count(&sms);
    if (e == cudaSuccess)
        e = gf_device_attr(cudaDevAttrL2CacheSize, &l2);
    if (e != cudaSuccess)
        return e;
    // the row's words shared evenly among the strips (a last strip of a few
    // words would take as long as the others: 8192 gray8 pixels at radius 5
    // are 512 words, 190 + 190 + 132 for ow = 190, and one wave); then bands of
    // rows (a multiple of BB) such that strips x bands blocks fit the SMs at once
    const unsigned strips = gf_blocks(words, ow);
    ow = (int)gf_blocks(words, strips);
    const long bands = max(1L, (long)S::BLOCKS * sms / (long)strips);
    const int rows = (int)gf_blocks(gf_blocks(in->height, bands), BB) * BB;
    const unsigned nbands = gf_blocks(in->height, rows); // bands of `rows` rows (the last may be shorter)
    // The rows leaving the windows, read for the last time, and the output
    // rows are evict-first in the L2 where the windows in flight (2R + 1 rows
    // of each resident thread's word) fill at most 60% of it, so that the rows
    // still to leave stay there: H200, 8192^2, radius 5 / 8 / 11 / 15 / 16 /
    // 24 / 50, ms, RGBA8 0.191-0.193 / 0.211-0.215 / 0.220-0.222 /
    // 0.231-0.233 / 0.234-0.236 / 0.260-0.264 / 0.314-0.317 -> with the
    // priorities at every radius 0.186-0.189 / 0.206-0.207 / 0.216-0.220 /
    // 0.226-0.229 / 0.229-0.234 / 0.261-0.262 / 0.316-0.322 (RGB8 and gray8 1-3% faster from radius 8 to 16, the same
    // at 24, 1-3% slower at 50: 264 blocks of 192 threads hold 25 MB of
    // windows at radius 15, 82 MB at 50); ncu at radius 15: DRAM reads 493 ->
    // 380 MB.  The output rows alone, 0-2%.  (At 8192 wide: radius 22 and
    // below on the H200's 60 MiB of L2, 18 on the H100's 50.)
    const size_t resident = std::min((size_t)strips * nbands, (size_t)S::BLOCKS * sms) * S::FT;
    const bool hint = resident * 16 * (2 * (size_t)R + 1) <= (size_t)l2 * 6 / 10;
    const uint32_t n = (2u * R + 1) * (2u * R + 1);
    // GPUFILTER_BULK_COPY=0: the block writes its rows out itself, for compute-sanitizer's
    // initcheck, which does not see the bulk-copy engine's writes as initializing
    // the image (tests/gpu.test)
    static const bool bulk = [] {
        const char *v = getenv("GPUFILTER_BULK_COPY");
        return !v || strcmp(v, "0") != 0;
    }();
    batch_div<Z> div;
    if constexpr (Z == 1)
        div = make_box_div(n);
    else
        div = make_box_div32(n);
    batch_kernel<C, Z>(R)<<<dim3(strips, nbands), S::FT, S::SMEM, st>>>((const uint8_t *)in->data,
                                                                       (uint8_t *)out->data, in->width, in->height,
                                                                       words, R, hw, ow, rows, border, n / 2, div, bulk,
                                                                       hint);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

// 64-bit intermediate only where 32 bits could overflow.
bool wide_rows(int R, int depth)
{
    return (2 * (uint64_t)R + 1) * gf_maxval(depth) > UINT32_MAX;
}
bool wide_sums(int R, int depth)
{
    const uint64_t side = 2 * (uint64_t)R + 1;
    return side * side * gf_maxval(depth) + side * side / 2 > UINT32_MAX;
}

template <typename T, typename Mid, typename Acc, int C>
cudaError_t launch(const gf_image *in, gf_image *out, void *scratch, int R, int border, int variant, cudaStream_t st)
{
    const int W = in->width, H = in->height, N = W * C;
    const T *src = (const T *)in->data;
    T *dst = (T *)out->data;
    Mid *mid = (Mid *)scratch;
    const Acc n = (Acc)(2 * (uint64_t)R + 1) * (Acc)(2 * (uint64_t)R + 1);
    const size_t samples = gf_samples(in);
    if (variant == GF_KERNEL_NAIVE) {
        box_rows_naive<T, Mid, C><<<gf_blocks(samples, 256), 256, 0, st>>>(src, mid, W, H, R, border);
        GF_LAUNCH_CHECK();
        box_cols_naive<T, Mid, Acc><<<gf_blocks(samples, 256), 256, 0, st>>>(mid, dst, N, H, R, border, n);
    } else {
        if (std::is_same_v<Mid, uint32_t> && R <= BOX16_R) { // 16-bit rows of part words, odd 8-bit rows: staged
            const cudaError_t e = launch_rows_tile<T, uint32_t, C>(in, scratch, R, border, st);
            if (e != cudaSuccess)
                return e;
        } else {
            const size_t row_threads = (size_t)H * ((W + SEG - 1) / SEG) * C;
            box_rows<T, Mid, C><<<gf_blocks(row_threads, 128), 128, 0, st>>>(src, mid, W, H, R, border);
            GF_LAUNCH_CHECK();
        }
        const size_t col_threads = (size_t)N * ((H + CSEG - 1) / CSEG);
        box_cols<T, Mid, Acc><<<gf_blocks(col_threads, 256), 256, 0, st>>>(mid, dst, N, H, R, border, n);
    }
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

// Whether the box of radius R over `in` (and an output of the same shape)
// runs in one pass, with no intermediate: rows of whole 16-byte words up to
// BOX16_R, radius 1 of 8-bit images by words3x3::stencil, else box_batch (8-
// and 16-bit samples) where its shared memory fits.  (With a 16-byte-aligned
// output: gf_box_launch.)
bool one_pass(const gf_image *in, int R, int variant)
{
    const size_t row = (size_t)in->width * in->channels * (in->depth / 8);
    if (variant == GF_KERNEL_NAIVE || R > BOX16_R || row % 16 != 0 || (uintptr_t)in->data % 16 != 0)
        return false;
    if (R == 1 && in->depth == 8)
        return true;
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
               return gf_fit_smem(batch_kernel<C, sizeof(T)>(R), batch_shape<C, sizeof(T)>::SMEM)
                          ? cudaSuccess
                          : cudaErrorInvalidConfiguration;
           }) == cudaSuccess;
}

// Whether the two passes of an 8-bit box keep a 16-bit intermediate (launch16).
bool mid16(const gf_image *in, int R, int variant)
{
    return in->depth == 8 && R <= BOX16_R && variant != GF_KERNEL_NAIVE && (in->width * in->channels) % 2 == 0;
}

} // namespace

extern "C" size_t gf_box_scratch_bytes(const gf_image *in, int radius, int variant)
{
    if (one_pass(in, radius, variant))
        return 0;
    return gf_samples(in) * (mid16(in, radius, variant) ? 2 : wide_rows(radius, in->depth) ? 8 : 4);
}

// Radius 1 on 8-bit rows of whole 16-byte words (words3x3.cuh): the nine-sample
// sum (at most 2295) per 16-bit lane, then (sum + 4) / 9 as ((sum + 4) * 7282)
// >> 16, exact for every sum up to 2295 (checked exhaustively).  Of each row
// the op keeps its sums and the sums of it and the row above.
struct box1_op {
    // 7 blocks an SM (72 registers, 12 bytes spilled): H200, 8192^2, ms, RGBA8
    // / RGB8 / gray8 0.157-0.159 / 0.130-0.132 / 0.057-0.059 at ptxas's own
    // choice (80 registers, 6 blocks) -> 0.156-0.158 / 0.127-0.129 /
    // 0.055-0.057; 6 and 5 blocks measured the same, 8 (64 registers, 44-52
    // bytes spilled) 1-2% slower than 7 (when each row's sums were kept; with
    // the partial sums 8 was 0-6% slower)
    static constexpr int MIN_BLOCKS = 7, Z = 1;
    uint32_t tE[4], tO[4], hE[4], hO[4]; // rows y - 1 and y summed; row y
    static __device__ uint32_t div9(uint32_t s) // two 16-bit lanes
    {
        return (((s & 0xffff) + 4) * 7282 >> 16) | (((s >> 16) + 4) * 7282 >> 16) << 16;
    }
    __device__ void first(const words3x3::row &a, const words3x3::row &b)
    {
#pragma unroll
        for (int j = 0; j < 4; j++)
            tE[j] = a.hE[j] + b.hE[j], tO[j] = a.hO[j] + b.hO[j], hE[j] = b.hE[j], hO[j] = b.hO[j];
    }
    __device__ void next(const words3x3::row &c, uint32_t (&res)[4])
    {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            res[j] = div9(tE[j] + c.hE[j]) | div9(tO[j] + c.hO[j]) << 8;
            tE[j] = hE[j] + c.hE[j], tO[j] = hO[j] + c.hO[j], hE[j] = c.hE[j], hO[j] = c.hO[j];
        }
    }
};

extern "C" cudaError_t gf_box_launch(const gf_image *in, gf_image *out, void *scratch, int R, int border,
                                     int variant, cudaStream_t st)
{
    const bool wr = wide_rows(R, in->depth), ws = wide_sums(R, in->depth);
    const bool one = one_pass(in, R, variant) && ((uintptr_t)in->data | (uintptr_t)out->data) % 16 == 0;
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (one)
            return R == 1 && sizeof(T) == 1 ? words3x3::launch<C, box1_op>(in, out, border, st)
                                            : launch_batch<C, sizeof(T)>(in, out, R, border, st);
        if (!scratch) // gf_box_scratch_bytes gave 0 for the one pass (device buffers are 16-byte aligned)
            return cudaErrorInvalidValue;
        if (mid16(in, R, variant)) // other 8-bit rows up to BOX16_R
            return launch16<C>(in, out, scratch, R, border, st);
        if (wr)
            return launch<T, uint64_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        if (ws)
            return launch<T, uint32_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        return launch<T, uint32_t, uint32_t, C>(in, out, scratch, R, border, variant, st);
    });
}
