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
// pass with no intermediate; other 8-bit images up to radius 127 take
// box_rows16 / box_cols16: a 16-bit intermediate, coalesced in both passes.
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
    uint16_t *s_out = (uint16_t *)(smem + span);
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
    for (int k = threadIdx.x; k < n; k += BTHREADS)
        dst[k] = s_out[k];
}

// Column pass: each thread owns two neighbouring samples (one 32-bit load of
// the intermediate per row) down a strip of BCK rows: it sums the first
// window, then adds the row entering and subtracts the row leaving.  The
// mean, (sum + n/2) / n, is floor((sum + n/2) * (1/n) + 1e-7) in double:
// exact for every sum of every radius up to 127 (checked exhaustively: the
// fraction of a non-multiple is at least 1/n > 1.5e-5, far above the error).
constexpr int BCK = 64;

__device__ __forceinline__ uint32_t box_mean(uint32_t sum, uint32_t half, double inv)
{
    return (uint32_t)__fma_rn((double)(sum + half), inv, 1e-7);
}

__global__ void __launch_bounds__(BTHREADS) box_cols16(const uint32_t *__restrict__ mid, uint16_t *__restrict__ out,
                                                       int pairs, int H, int R, int border, uint32_t half, double inv)
{
    const int p = blockIdx.x * BTHREADS + threadIdx.x;
    if (p >= pairs)
        return;
    const int y0 = blockIdx.y * BCK, y1 = min(H, y0 + BCK);
    uint32_t a = 0, b = 0;
    for (long j = (long)y0 - R; j <= (long)y0 + R; j++) {
        const long sy = gf_border_index(j, H, border);
        if (sy >= 0) {
            const uint32_t v = mid[sy * pairs + p];
            a += v & 0xffff;
            b += v >> 16;
        }
    }
    for (int y = y0;;) {
        out[(size_t)y * pairs + p] = (uint16_t)(box_mean(a, half, inv) | box_mean(b, half, inv) << 8);
        if (++y >= y1)
            break;
        const long add = gf_border_index((long)y + R, H, border), sub = gf_border_index((long)y - R - 1, H, border);
        if (add >= 0) {
            const uint32_t v = mid[add * pairs + p];
            a += v & 0xffff;
            b += v >> 16;
        }
        if (sub >= 0) {
            const uint32_t v = mid[sub * pairs + p];
            a -= v & 0xffff;
            b -= v >> 16;
        }
    }
}

template <int C>
cudaError_t launch16(const gf_image *in, gf_image *out, void *scratch, int R, int border, cudaStream_t st)
{
    const int W = in->width, H = in->height;
    constexpr int TILE = BTHREADS / C * BK;
    const size_t smem = ((size_t)TILE + 2 * (size_t)R) * C * 4 + (size_t)TILE * C * 2;
    if (!gf_fit_smem(box_rows16<C>, smem))
        return cudaErrorInvalidConfiguration; // not reached for R <= BOX16_R (under 40 KB)
    const unsigned tiles = gf_blocks(W, TILE);
    box_rows16<C><<<tiles * H, BTHREADS, smem, st>>>((const uint8_t *)in->data, (uint16_t *)scratch, W, (int)tiles, R,
                                                      border);
    GF_LAUNCH_CHECK();
    const uint32_t n = (2u * R + 1) * (2u * R + 1);
    const int pairs = W * C / 2;
    box_cols16<<<dim3(gf_blocks(pairs, BTHREADS), gf_blocks(H, BCK)), BTHREADS, 0, st>>>(
        (const uint32_t *)scratch, (uint16_t *)out->data, pairs, H, R, border, n / 2, 1.0 / n);
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
        if (sizeof(T) == 1 && R <= BOX16_R && variant != GF_KERNEL_NAIVE && (in->width * C) % 2 == 0)
            return launch16<C>(in, out, scratch, R, border, st);
        if (wr)
            return launch<T, uint64_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        if (ws)
            return launch<T, uint32_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        return launch<T, uint32_t, uint32_t, C>(in, out, scratch, R, border, variant, st);
    });
}
