// SPDX-License-Identifier: MIT
// -erode and -dilate: the minimum (maximum) over the (2R+1)^2 square, exact
// as src/ops/rank/rank_ref.c.  Two paths:
//
// rank_tile (R up to TILE_R): a block of 256 threads makes a tile of TILE x
// TILE pixels.  It stages the footprint, TILE + 2R pixels square (the
// border rule applied while loading), in shared memory as 16-bit lanes, two
// samples a word, takes each footprint row's extreme over 2R + 1 pixels into
// TILE + 2R rows of TILE pixels, then each output's over 2R + 1 of those
// rows: a thread a word, three words an instruction (__vimin3_u16x2), one
// read and one write of the image.
//
// Van Herk / Gil-Werman (any R), a cost per sample independent of R.  One
// pass runs down the columns: each of the image's W C sample columns is
// a line of H samples, padded by R each side by the border rule (length
// P = H + 2R) and cut into segments of K = 2R + 1.  rank_scan: a thread a
// (sample column, segment) walks its segment forward for the prefix
// extremes g and back for the suffix extremes h (neighbouring threads,
// neighbouring columns: every access coalesced), into scratch arrays of P
// rows.  rank_out: output y is op(h[y], g[y + 2R]), the window [y, y + 2R]
// of the padded line being the end of one segment and the start of the
// next.  The rows go the same way between two transposes (orient.cu).
#include <algorithm>

#include "kernel_util.cuh"
#include "rank.h"

namespace
{

constexpr int THREADS = 128;

template <typename T, bool MAX> __device__ __forceinline__ T pick(T a, T b)
{
    return MAX ? (a > b ? a : b) : (a < b ? a : b);
}

// g, h: P rows of N samples.  in: H rows of N samples, N = W C, lines of stride C samples along a row.
template <typename T, bool MAX>
__global__ void __launch_bounds__(THREADS)
    rank_scan(const T *__restrict__ in, T *__restrict__ g, T *__restrict__ h, size_t N, int H, int R, int border)
{
    const size_t j = blockIdx.x * (size_t)THREADS + threadIdx.x;
    if (j >= N)
        return;
    const long P = (long)H + 2 * R, K = 2L * R + 1;
    for (long p0 = blockIdx.y * K; p0 < P; p0 += (long)gridDim.y * K) {
        const long p1 = min(p0 + K, P);
        auto at = [&](long p) -> T {
            const long y = gf_border_index(p - R, H, border);
            return y < 0 ? T(0) : in[(size_t)y * N + j];
        };
        T v = at(p0);
        g[(size_t)p0 * N + j] = v;
        for (long p = p0 + 1; p < p1; p++)
            g[(size_t)p * N + j] = v = pick<T, MAX>(v, at(p));
        v = at(p1 - 1);
        h[(size_t)(p1 - 1) * N + j] = v;
        for (long p = p1 - 2; p >= p0; p--)
            h[(size_t)p * N + j] = v = pick<T, MAX>(v, at(p));
    }
}

template <typename T, bool MAX>
__global__ void __launch_bounds__(THREADS)
    rank_out(const T *__restrict__ g, const T *__restrict__ h, T *__restrict__ out, size_t N, int H, int R)
{
    const size_t j = blockIdx.x * (size_t)THREADS + threadIdx.x;
    if (j >= N)
        return;
    for (int y = blockIdx.y; y < H; y += gridDim.y)
        out[(size_t)y * N + j] = pick<T, MAX>(h[(size_t)y * N + j], g[((size_t)y + 2 * R) * N + j]);
}

constexpr int TILE = 32, TILE_R = 8, TILE_THREADS = 256;

// The least (largest) of three words' 16-bit lanes.
template <bool MAX> __device__ __forceinline__ uint32_t extreme3(uint32_t a, uint32_t b, uint32_t c)
{
    return MAX ? __vimax3_u16x2(a, b, c) : __vimin3_u16x2(a, b, c);
}

template <typename T, int C, bool MAX>
__global__ void __launch_bounds__(TILE_THREADS)
    rank_tile(const T *__restrict__ in, T *__restrict__ out, int W, int H, int R, int border)
{
    extern __shared__ __align__(16) uint32_t s_rank[];
    constexpr int S = TILE * C, SW = S / 2; // samples, words a row of the tile
    const int side = TILE + 2 * R, fw = gf_lane_words(side * C), x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    uint32_t *foot = s_rank, *rows = foot + side * fw; // side rows of fw words; side rows of SW words
    gf_stage_footprint<T, C, uint16_t>(in, (uint16_t *)foot, W, H, x0 - R, y0 - R, side, side, border, 2 * fw);
    __syncthreads();
    for (int e = threadIdx.x; e < side * SW; e += TILE_THREADS) { // word j: samples 2j, 2j + 1 of the row
        const int r = e / SW, j = e - r * SW;
        const uint32_t *f = foot + r * fw;
        uint32_t v = f[j];
        for (int i = 1; i < 2 * R; i += 2)
            v = extreme3<MAX>(v, gf_lanes_at(f, 2 * j + i * C), gf_lanes_at(f, 2 * j + (i + 1) * C));
        rows[e] = v;
    }
    __syncthreads();
    const size_t line = (size_t)W * C;
    for (int e = threadIdx.x; e < TILE * SW; e += TILE_THREADS) {
        const int r = e / SW, j = e - r * SW;
        const long s = (long)x0 * C + 2 * j; // the word's first sample in the image's row
        if (y0 + r >= H || s >= (long)line)
            continue;
        const uint32_t *f = rows + e;
        uint32_t v = f[0];
        for (int i = 1; i < 2 * R; i += 2)
            v = extreme3<MAX>(v, f[i * SW], f[(i + 1) * SW]);
        const size_t at = (size_t)(y0 + r) * line + s;
        gf_store_lanes<T>(out + at, at, v, s + 1 < (long)line);
    }
}

enum path { TILED, VHGW };
const char *const paths[] = {"tiled (radius up to 8)", "van Herk / Gil-Werman columns, rows between transposes",
                             nullptr};

int choose(const gf_step *s, const gf_image *)
{
    return GF_RANK_ARGS(s).radius <= TILE_R ? TILED : VHGW;
}

// One pass down the columns of in (W x H) into out, through g and h.
template <typename T, bool MAX>
cudaError_t columns(const gf_image *in, gf_image *out, T *g, T *h, int radius, int border, cudaStream_t st)
{
    const size_t N = (size_t)in->width * in->channels;
    const int H = in->height, R = (int)gf_rank_radius(radius, H);
    const long segs = (H + 2L * R + 2L * R) / (2L * R + 1);
    rank_scan<T, MAX><<<gf_lines_grid(N, THREADS, segs), THREADS, 0, st>>>((const T *)in->data, g, h, N, H, R, border);
    GF_LAUNCH_CHECK();
    rank_out<T, MAX><<<gf_lines_grid(N, THREADS, H), THREADS, 0, st>>>(g, h, (T *)out->data, N, H, R);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, C = in->channels, B = in->depth / 8;
    const cudaStream_t st = gf_cuda_stream(cu);
    if (choose(s, in) == TILED) {
        const int R = (int)GF_RANK_ARGS(s).radius, side = TILE + 2 * R;
        const size_t smem = ((size_t)side * gf_lane_words(side * C) + (size_t)side * TILE * C / 2) * 4;
        const cudaError_t e = gf_dispatch(in, [&]<typename T, int CC>() -> cudaError_t {
            auto run = [&]<bool MAX>() -> cudaError_t {
                rank_tile<T, CC, MAX><<<dim3(gf_blocks(W, TILE), gf_blocks(H, TILE)), TILE_THREADS, smem, st>>>(
                    (const T *)in->data, (T *)out->data, W, H, R, s->border);
                GF_LAUNCH_CHECK();
                return cudaSuccess;
            };
            return GF_RANK_ARGS(s).max ? run.template operator()<true>() : run.template operator()<false>();
        });
        return gf_cuda_status(e, "erode/dilate kernel");
    }
    const size_t image = (size_t)W * H * C * B;
    // g and h for the longer pass: P = side + 2R <= 3 side rows of the other side's samples
    const long rw = gf_rank_radius(GF_RANK_ARGS(s).radius, W), rh = gf_rank_radius(GF_RANK_ARGS(s).radius, H);
    const size_t gh = std::max((size_t)(H + 2 * rh) * W, (size_t)(W + 2 * rw) * H) * C * B;
    void *scratch;
    gf_status status = gf_cuda_scratch(cu, 2 * image + 2 * gh, "erode/dilate buffers", &scratch);
    if (status)
        return status;
    char *p = (char *)scratch;
    gf_image a = *in, b = {H, W, C, in->depth, (size_t)H * C * B, p};
    a.data = p + image;
    void *g = p + 2 * image, *h = p + 2 * image + gh;
    cudaError_t e = gf_dispatch(in, [&]<typename T, int>() -> cudaError_t {
        auto run = [&]<bool MAX>() -> cudaError_t {
            cudaError_t e2 =
                columns<T, MAX>(in, &a, (T *)g, (T *)h, GF_RANK_ARGS(s).radius, s->border, st); // a: columns
            if (e2 == cudaSuccess)
                e2 = gf_orient_launch(&a, &b, GF_ORIENT_TRANSPOSE, st); // b: H x W
            gf_image c = b;
            c.data = a.data;
            if (e2 == cudaSuccess)
                e2 = columns<T, MAX>(&b, &c, (T *)g, (T *)h, GF_RANK_ARGS(s).radius, s->border, st); // the rows
            if (e2 == cudaSuccess)
                e2 = gf_orient_launch(&c, out, GF_ORIENT_TRANSPOSE, st);
            return e2;
        };
        return GF_RANK_ARGS(s).max ? run.template operator()<true>() : run.template operator()<false>();
    });
    return gf_cuda_status(e, "erode/dilate kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_rank = {enqueue, nullptr, choose, paths};
