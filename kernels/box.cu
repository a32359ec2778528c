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
// pass with no intermediate.
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
        if (wr)
            return launch<T, uint64_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        if (ws)
            return launch<T, uint32_t, uint64_t, C>(in, out, scratch, R, border, variant, st);
        return launch<T, uint32_t, uint32_t, C>(in, out, scratch, R, border, variant, st);
    });
}
