// SPDX-License-Identifier: MIT
// Box stencil: exact integer window sums, bit-identical to src/cpu/box.c, at
// a cost independent of the radius (running sums).
//
// Row pass (box_rows): each thread owns SEG = 32 consecutive pixels of one
// row and one channel: it sums the first window (2R+1 reads, border rule
// applied), then slides, adding the sample entering and subtracting the one
// leaving.  Sums go to a 32- or 64-bit intermediate (64 only where
// (2R+1)*max could overflow 32 bits).
// Column pass (box_cols): each thread owns one sample column of SEG rows and
// slides down it; consecutive threads hold consecutive samples of a row, so
// every load and store is coalesced.  The final sum is divided by
// n = (2R+1)^2 with rounding half up.
// Radius 1 on 8-bit rows of whole 16-byte words takes words3x3::stencil, one
// pass with no intermediate, and so does RGBA8 with such rows at radius 2 to
// 127 (box_fused); other 8-bit images up to radius 127 take a
// 16-bit intermediate, coalesced in both passes: rows by box_rows_px (2 and
// 4 channels: whole pixels in SIMD lanes) or box_rows16 (1 and 3), columns
// by box_cols16 (8 or 2 samples per thread, an exact multiply-shift mean).
// The naive variant (benchmark baseline) sums every window directly.
#include "words3x3.cuh"

namespace {

constexpr int SEG = 32;

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
    const int segs = (H + SEG - 1) / SEG;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)N * segs)
        return;
    const size_t s = t % N;
    const int y0 = (int)(t / N) * SEG, y1 = min(H, y0 + SEG);
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
// banks.  Sums go out through shared memory as whole rows of the tile.
template <int C>
__global__ void __launch_bounds__(BTHREADS) box_rows16(const uint8_t *__restrict__ in, uint16_t *__restrict__ mid, int W,
                                                       int tiles, int R, int border)
{
    constexpr int G = BTHREADS / C, TILE = G * BK;
    extern __shared__ uint32_t smem[];
    const int span = (TILE + 2 * R) * C;
    uint32_t *s_row = smem;
    uint16_t *s_out = (uint16_t *)(smem + (span + 3) / 4 * 4); // 16-byte aligned
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * TILE;
    const uint8_t *row = in + (size_t)y * W * C;
    gf_stage_row<uint8_t, C, BTHREADS, TILE>(row, s_row, W, x0, R, border);
    __syncthreads();
    const int c = threadIdx.x % C, g = threadIdx.x / C;
    if (g < G) {
        const uint32_t *w = s_row + g * BK * C + c;
        uint32_t acc = 0;
        for (int i = 0; i <= 2 * R; i++)
            acc += w[i * C];
        uint16_t *o = s_out + g * BK * C + c;
        o[0] = (uint16_t)acc;
#pragma unroll 8
        for (int j = 1; j < BK; j++) {
            acc += w[(j + 2 * R) * C] - w[(j - 1) * C];
            o[j * C] = (uint16_t)acc;
        }
    }
    __syncthreads();
    const int n = min(TILE, W - x0) * C;
    uint16_t *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    int k = threadIdx.x;
    if (((size_t)W * C) % 8 == 0 && (x0 * C) % 8 == 0) { // whole 16-byte words first (1 store per 8 sums)
        for (; k < n / 8; k += BTHREADS)
            ((uint4 *)dst)[k] = ((const uint4 *)s_out)[k];
        k = n / 8 * 8 + threadIdx.x;
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
// box_rows16.  BKP is odd, so the lanes' loads fall in distinct banks.
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

// (s * m) >> (32 + sh) == s / n for every s < 2^24: m = ceil(2^k / n) with
// k = max(32, 24 + ceil(log2 n)) (Granlund and Montgomery: m n - 2^k < n <=
// 2^(k - 24)); a box sum plus n/2 is below 2^24 for R <= 127.
struct box_div {
    uint32_t m;
    int sh;
    __device__ uint32_t operator()(uint32_t s) const { return __umulhi(s, m) >> sh; }
};

static box_div make_box_div(uint32_t n)
{
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

template <int C> cudaError_t launch_rows16(const gf_image *in, void *scratch, int R, int border, cudaStream_t st)
{
    constexpr int TILE = BTHREADS / C * BK;
    const size_t smem = ((size_t)TILE + 2 * (size_t)R) * C * 4 + 16 + (size_t)TILE * C * 2;
    if (!gf_fit_smem(box_rows16<C>, smem))
        return cudaErrorInvalidConfiguration; // not reached for R <= BOX16_R (under 40 KB)
    const unsigned tiles = gf_blocks(in->width, TILE);
    box_rows16<C><<<tiles * in->height, BTHREADS, smem, st>>>((const uint8_t *)in->data, (uint16_t *)scratch,
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
        e = launch_rows16<C>(in, scratch, R, border, st);
    if (e != cudaSuccess)
        return e;
    if ((in->width * C) % 8 == 0 && (uintptr_t)out->data % 8 == 0)
        return launch_cols16<8>(in, out, scratch, R, border, st);
    return launch_cols16<2>(in, out, scratch, R, border, st);
}

// ---- One pass, no intermediate: 8-bit RGBA images whose rows are whole
// 16-byte words, radius 2 to BOX16_R (box_fused).
//
// A block of FT threads owns a strip of the row, one 16-byte word per thread
// (FT words with a halo of hw = ceil(R C / 16) words each side, ow = FT - 2 hw
// words of output), and walks down `rows` rows of it.  Each thread keeps the
// vertical window sum of its 16 samples in registers, in 16-bit lanes (at most
// 255 (2R + 1) < 2^16): per row it adds the word entering the window and
// subtracts the one leaving (read 2R + 1 rows before, from L2 where that
// fits), both loads issued a row ahead.  The horizontal window sum is a
// difference of prefix sums along the strip, per channel: the thread's own 16
// samples, a warp scan by shuffles, the warps' totals through shared memory;
// the prefixes go to shared memory (sample s at word s + s / 16, so that the
// lanes' loads and stores fall in distinct banks; double-buffered, two
// barriers per row) and each output sample reads two of them.  The mean is
// box_div's multiply-shift.
//
// Measured on the H200 (8192^2, against the two passes): RGBA8 r = 5, 15, 50
// 0.46, 0.57, 0.58 ms against 0.59, 0.64, 0.85; but gray8 0.27, 0.30, 0.42
// against 0.26, 0.29, 0.34, so 1 channel keeps the two passes (2 channels
// were not measured and keep them too).  A warp-per-strip variant without
// block barriers (2 words per lane) ran slower: 0.57, 0.61, 1.25 ms.
constexpr int FT = 256, FPAD = FT * 17;

// Word k of row `row`, any k: words outside the row are built from the border
// rule.  (Out of line, this rare path cost the RGBA8 kernel 15-20%.)
template <int C>
__device__ __forceinline__ uint4 box_word(const uint8_t *__restrict__ row, long k, int words, int W, int border)
{
    if (k >= 0 && k < words)
        return ((const uint4 *)row)[k];
    uint32_t b[4] = {0, 0, 0, 0};
#pragma unroll
    for (int q = 0; q < 16 / C; q++) {
        const long sx = gf_border_index(k * (16 / C) + q, W, border);
        if (sx >= 0)
#pragma unroll
            for (int c = 0; c < C; c++)
                b[(q * C + c) / 4] |= (uint32_t)row[sx * C + c] << (8 * ((q * C + c) % 4));
    }
    return make_uint4(b[0], b[1], b[2], b[3]);
}

// Row `sy` (-1: zero) at word k.
template <int C>
__device__ __forceinline__ uint4 box_fetch(const uint8_t *__restrict__ in, long sy, long k, int words, int W,
                                           int border)
{
    return sy < 0 ? make_uint4(0, 0, 0, 0) : box_word<C>(in + (size_t)sy * words * 16, k, words, W, border);
}

// v (samples 4j, 4j + 2 in vE[j]; 4j + 1, 4j + 3 in vO[j]) += add - sub, lane by lane:
// no lane leaves 0 .. 65535, since sub is one of the rows v holds.
__device__ __forceinline__ void box_slide(uint32_t (&vE)[4], uint32_t (&vO)[4], uint4 add, uint4 sub)
{
    const uint32_t a[4] = {add.x, add.y, add.z, add.w}, d[4] = {sub.x, sub.y, sub.z, sub.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        vE[j] = vE[j] + (a[j] & words3x3::LO) - (d[j] & words3x3::LO);
        vO[j] = vO[j] + ((a[j] >> 8) & words3x3::LO) - ((d[j] >> 8) & words3x3::LO);
    }
}

// Sample 4j + q of a word held as vE[j], vO[j].
__device__ __forceinline__ uint32_t box_sample(const uint32_t (&vE)[4], const uint32_t (&vO)[4], int j, int q)
{
    const uint32_t x = q % 2 ? vO[j] : vE[j];
    return q < 2 ? x & 0xffff : x >> 16;
}

#ifndef GF_BOXMIN
#define GF_BOXMIN 4 // blocks per SM: 64 registers (with 3, 80: r=50 0.68 ms against 0.58)
#endif
template <int C>
__global__ void __launch_bounds__(FT, GF_BOXMIN)
    box_fused(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int words, int R, int hw, int ow,
              int rows, int border, uint32_t half, box_div div)
{
    __shared__ uint32_t s_pre[2][FPAD + C]; // exclusive prefix of sample s at s + s / 16; the totals at FPAD + c
    __shared__ uint32_t s_warp[FT / 32][C];
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const long k = (long)blockIdx.x * ow - hw + t; // this thread's word of the row
    const bool writes = t >= hw && t < hw + ow && k < words;
    const int y0 = blockIdx.y * rows, y1 = min(H, y0 + rows);
    const uint4 zero = make_uint4(0, 0, 0, 0);
    uint32_t vE[4] = {}, vO[4] = {};
    for (long j = (long)y0 - R; j <= (long)y0 + R; j++)
        box_slide(vE, vO, box_fetch<C>(in, gf_border_index(j, H, border), k, words, W, border), zero);
    uint4 add = zero, sub = zero; // the next row's update, on its way
    if (y0 + 1 < y1) {
        add = box_fetch<C>(in, gf_border_index((long)y0 + R + 1, H, border), k, words, W, border);
        sub = box_fetch<C>(in, gf_border_index((long)y0 - R, H, border), k, words, W, border);
    }
    // Output sample 16 t + i reads the prefixes at 16 t + i + (R + 1) C and at
    // 16 t + i - R C, whose words (s + s / 16) are ph[i] and pl[i], one further
    // from i = 16 - rh (16 - rl) on.
    const int dhi = (R + 1) * C, al = (R * C + 15) / 16, rh = dhi % 16, rl = 16 * al - R * C;
    const int fh = 17 * (t + dhi / 16) + rh, fl = 17 * (t - al) + rl; // ph, pl as offsets into a buffer
    for (int y = y0, buf = 0; y < y1; y++, buf ^= 1) {
        uint32_t base[C] = {};
#pragma unroll
        for (int j = 0; j < 4; j++) // the thread's totals per channel (a word starts at channel 0)
#pragma unroll
            for (int q = 0; q < 4; q++)
                base[q % C] += box_sample(vE, vO, j, q);
#pragma unroll
        for (int c = 0; c < C; c++) { // exclusive scan of the threads' totals across the warp
            uint32_t x = base[c];
#pragma unroll
            for (int d = 1; d < 32; d *= 2) {
                const uint32_t u = __shfl_up_sync(0xffffffffu, x, d);
                if (lane >= d)
                    x += u;
            }
            if (lane == 31)
                s_warp[warp][c] = x;
            base[c] = x - base[c];
        }
        __syncthreads();
        for (int w = 0; w < warp; w++)
#pragma unroll
            for (int c = 0; c < C; c++)
                base[c] += s_warp[w][c];
        uint32_t *pre = s_pre[buf];
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                pre[17 * t + 4 * j + q] = base[q % C];
                base[q % C] += box_sample(vE, vO, j, q);
            }
        if (t == FT - 1)
#pragma unroll
            for (int c = 0; c < C; c++)
                pre[FPAD + c] = base[c];
        __syncthreads();
        if (writes) {
            const uint32_t *ph = pre + fh, *pl = pre + fl;
            uint32_t o[4] = {0, 0, 0, 0};
#pragma unroll
            for (int i = 0; i < 16; i++) {
                const uint32_t sum = (i >= 16 - rh ? ph + 1 : ph)[i] - (i >= 16 - rl ? pl + 1 : pl)[i];
                o[i / 4] |= div(sum + half) << (8 * (i % 4));
            }
            ((uint4 *)(out + (size_t)y * words * 16))[k] = make_uint4(o[0], o[1], o[2], o[3]);
        }
        if (y + 1 < y1) {
            box_slide(vE, vO, add, sub);
            if (y + 2 < y1) {
                add = box_fetch<C>(in, gf_border_index((long)y + R + 2, H, border), k, words, W, border);
                sub = box_fetch<C>(in, gf_border_index((long)y - R + 1, H, border), k, words, W, border);
            }
        }
    }
}

template <int C> cudaError_t launch_fused(const gf_image *in, gf_image *out, int R, int border, cudaStream_t st)
{
    const int words = (int)((size_t)in->width * C / 16), hw = (R * C + 15) / 16, ow = FT - 2 * hw;
    int sms = 1;
    const cudaError_t e = gf_sm_count(&sms);
    if (e != cudaSuccess)
        return e;
    // rows per block: enough that the first window (2R + 1 rows) costs little
    // against them, few enough for four blocks per SM
    const unsigned strips = gf_blocks(words, ow);
    const long fill = ((long)in->height * strips + 4L * sms - 1) / (4L * sms);
    const int rows = (int)max(16L, min((long)max(64, 4 * (2 * R + 1)), fill));
    const uint32_t n = (2u * R + 1) * (2u * R + 1);
    box_fused<C><<<dim3(strips, gf_blocks(in->height, rows)), FT, 0, st>>>(
        (const uint8_t *)in->data, (uint8_t *)out->data, in->width, in->height, words, R, hw, ow, rows, border, n / 2,
        make_box_div(n));
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
        const size_t row_threads = (size_t)H * ((W + SEG - 1) / SEG) * C;
        box_rows<T, Mid, C><<<gf_blocks(row_threads, 128), 128, 0, st>>>(src, mid, W, H, R, border);
        GF_LAUNCH_CHECK();
        const size_t col_threads = (size_t)N * ((H + SEG - 1) / SEG);
        box_cols<T, Mid, Acc><<<gf_blocks(col_threads, 256), 256, 0, st>>>(mid, dst, N, H, R, border, n);
    }
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

} // namespace

extern "C" size_t gf_box_scratch_bytes(const gf_image *in, int radius)
{
    return gf_samples(in) * (wide_rows(radius, in->depth) ? 8 : 4);
}

// Radius 1 on 8-bit rows of whole 16-byte words (words3x3.cuh): the nine-sample
// sum (at most 2295) per 16-bit lane, then (sum + 4) / 9 as ((sum + 4) * 7282)
// >> 16, exact for every sum up to 2295 (checked exhaustively).
struct box1_op {
    static __device__ uint32_t div9(uint32_t s) // two 16-bit lanes
    {
        return (((s & 0xffff) + 4) * 7282 >> 16) | (((s >> 16) + 4) * 7282 >> 16) << 16;
    }
    static __device__ uint32_t word(const words3x3::row &a, const words3x3::row &b, const words3x3::row &c, int j)
    {
        return div9(a.hE[j] + b.hE[j] + c.hE[j]) | div9(a.hO[j] + b.hO[j] + c.hO[j]) << 8;
    }
};

extern "C" cudaError_t gf_box_launch(const gf_image *in, gf_image *out, void *scratch, int R, int border,
                                     int variant, cudaStream_t st)
{
    const bool wr = wide_rows(R, in->depth), ws = wide_sums(R, in->depth);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (R == 1 && variant != GF_KERNEL_NAIVE && words3x3::fits(in, out))
            return words3x3::launch<C, box1_op>(in, out, border, st);
        if constexpr (C == 4)
            if (sizeof(T) == 1 && R <= BOX16_R && variant != GF_KERNEL_NAIVE && words3x3::fits(in, out))
                return launch_fused<C>(in, out, R, border, st);
        if (sizeof(T) == 1 && R <= BOX16_R && variant != GF_KERNEL_NAIVE && (in->width * C) % 2 == 0)
            return launch16<C>(in, out, scratch, R, border, st);
        if (wr)
            return launch<T, uint64_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        if (ws)
            return launch<T, uint32_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        return launch<T, uint32_t, uint32_t, C>(in, out, scratch, R, border, variant, st);
    });
}
