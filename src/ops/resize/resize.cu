// SPDX-License-Identifier: MIT
// -resize: the taps of gf_resize_plan (computed on the host, uploaded once),
// in the fixed point of numeric.h, as src/ops/resize/resize_ref.c.  Two paths:
//
// resize_tile (when its shared memory fits): a block of 256 threads makes a
// tile of TX = 128 / C output pixels by ty rows (32, 16 or 8, the most that
// fit in 48 KB).  It stages the tile's taps, makes the rows of the
// intermediate its outputs read (rows start_y[first] .. start_y[last] + n_y
// of the input, TX pixels each) in shared memory, then sums down them into
// the outputs: a thread a pixel, all its channels (whole-pixel loads and
// stores where C is 2 or 4), consecutive threads consecutive pixels.  The
// intermediate never reaches global memory.
//
// resize_rows then resize_cols (any scale): resize_rows a thread an
// intermediate pixel (x, y), x < OW, y < H: its n taps along row y of the
// input, every channel, 64-bit sums, into the 32-bit intermediate (8
// fraction bits, OW x H x C).  resize_cols: a thread an output pixel (x,
// y): its n taps down column x of the intermediate.  A block is 128 threads
// along a row (x) walking rows grid.y apart; a warp's taps read
// neighbouring pixels (rows: through L1; columns: whole rows of the
// intermediate, coalesced).
#include <climits>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include "kernel_util.cuh"
#include "resize.h"

namespace
{

constexpr int THREADS = 128;

template <typename T, int C>
__global__ void __launch_bounds__(THREADS)
    resize_rows(const T *__restrict__ in, int32_t *__restrict__ mid, int W, int H, int OW,
                const int32_t *__restrict__ start, const int32_t *__restrict__ w, int n)
{
    const int x = blockIdx.x * THREADS + threadIdx.x;
    if (x >= OW)
        return;
    const int32_t *wx = w + (size_t)x * n;
    for (int y = blockIdx.y; y < H; y += gridDim.y) {
        const T *p = in + ((size_t)y * W + start[x]) * C;
        int64_t sum[C] = {};
        for (int k = 0; k < n; k++) {
            const int32_t q = wx[k];
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] += (int64_t)q * p[k * C + c];
        }
        int32_t *o = mid + ((size_t)y * OW + x) * C;
#pragma unroll
        for (int c = 0; c < C; c++)
            o[c] = gf_resize_mid(sum[c]);
    }
}

template <typename T, int C>
__global__ void __launch_bounds__(THREADS)
    resize_cols(const int32_t *__restrict__ mid, T *__restrict__ out, int OW, int OH, const int32_t *__restrict__ start,
                const int32_t *__restrict__ w, int n, uint32_t maxval)
{
    const int x = blockIdx.x * THREADS + threadIdx.x;
    if (x >= OW)
        return;
    for (int y = blockIdx.y; y < OH; y += gridDim.y) {
        const int32_t *p = mid + ((size_t)start[y] * OW + x) * C, *wy = w + (size_t)y * n;
        int64_t sum[C] = {};
        for (int k = 0; k < n; k++) {
            const int32_t q = wy[k];
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] += (int64_t)q * p[(size_t)k * OW * C + c];
        }
        T *o = out + ((size_t)y * OW + x) * C;
#pragma unroll
        for (int c = 0; c < C; c++)
            o[c] = (T)gf_resize_out(sum[c], maxval);
    }
}

// ---- The tile.  8-bit rows sum in 32 bits: at most 255 times the weights'
// absolute sum, below 2^23 (as src/ops/resize/resize_fast.c).  Shared memory: the
// intermediate rows (span x TX pixels of C words), then the columns' taps
// (k-major: lane x reads word k TX + x) and starts, then the rows' (a row's
// taps together: a warp's lanes mostly share its row) and starts.
constexpr int TILE_THREADS = 256, TILE_SMEM = 48 * 1024;

template <int C> constexpr int TX = 128 / C;

struct tile_taps {
    const int32_t *sx, *wx, *sy, *wy; // starts and weights of the columns, of the rows
    int nx, ny;
};

template <typename T, int C>
__global__ void __launch_bounds__(TILE_THREADS)
    resize_tile(const T *__restrict__ in, T *__restrict__ out, int W, int OW, int OH, int tiles_x, int ty, int span_max,
                tile_taps q, uint32_t maxval)
{
    using Acc = typename std::conditional<sizeof(T) == 1, int32_t, int64_t>::type;
    constexpr int P = TX<C>; // pixels a row of the tile
    extern __shared__ __align__(16) int32_t s_tile[];
    const int x0 = (int)(blockIdx.x % tiles_x) * P, y0 = (int)(blockIdx.x / tiles_x) * ty;
    const int nx = q.nx, ny = q.ny, cols = min(P, OW - x0), rows = min(ty, OH - y0);
    int32_t *mid = s_tile, *s_wx = mid + span_max * P * C, *s_sx = s_wx + nx * P, *s_wy = s_sx + P;
    int32_t *s_sy = s_wy + ty * ny;
    for (int i = threadIdx.x; i < cols * nx; i += TILE_THREADS) {
        const int x = i / nx, k = i - x * nx;
        s_wx[k * P + x] = q.wx[(size_t)x0 * nx + i];
    }
    for (int i = threadIdx.x; i < cols; i += TILE_THREADS)
        s_sx[i] = q.sx[x0 + i];
    for (int i = threadIdx.x; i < rows * ny; i += TILE_THREADS)
        s_wy[i] = q.wy[(size_t)y0 * ny + i];
    for (int i = threadIdx.x; i < rows; i += TILE_THREADS)
        s_sy[i] = q.sy[y0 + i];
    __syncthreads();
    const int first = s_sy[0], span = s_sy[rows - 1] + ny - first; // intermediate rows
    for (int e = threadIdx.x; e < span * P; e += TILE_THREADS) {
        const int r = e / P, x = e - r * P;
        if (x >= cols)
            continue;
        const T *p = in + ((size_t)(first + r) * W + s_sx[x]) * C;
        Acc sum[C] = {};
        for (int k = 0; k < nx; k++) {
            const int32_t w = s_wx[k * P + x];
            uint32_t v[C];
            gf_load_pixel<T, C>(p + k * C, v);
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] += (Acc)w * v[c];
        }
        int32_t m[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            m[c] = gf_resize_mid(sum[c]);
        gf_store_pixel<int32_t, C>(mid + e * C, m);
    }
    __syncthreads();
    for (int e = threadIdx.x; e < rows * P; e += TILE_THREADS) {
        const int r = e / P, x = e - r * P;
        if (x >= cols)
            continue;
        const int32_t *m = mid + ((s_sy[r] - first) * P + x) * C, *w = s_wy + r * ny;
        int64_t sum[C] = {};
        for (int k = 0; k < ny; k++) {
            int32_t v[C];
            gf_load_pixel<int32_t, C>(m + k * P * C, v);
#pragma unroll
            for (int c = 0; c < C; c++)
                sum[c] += (int64_t)w[k] * v[c];
        }
        uint32_t o[C];
#pragma unroll
        for (int c = 0; c < C; c++)
            o[c] = gf_resize_out(sum[c], maxval);
        gf_store_pixel<T, C>(out + ((size_t)(y0 + r) * OW + x0 + x) * C, o);
    }
}

// The tile's rows (32, 16 or 8) whose shared memory (*bytes) fits, or 0;
// *span: the most intermediate rows a tile of them reads.
int tile_rows(const gf_resize_taps *tx, const gf_resize_taps *ty, int OW, int OH, int C, int *span, size_t *bytes)
{
    for (int rows = 32; rows >= 8; rows /= 2) {
        *span = 0;
        for (int y0 = 0; y0 < OH; y0 += rows)
            *span = max(*span, ty->start[min(y0 + rows, OH) - 1] + ty->n - ty->start[y0]);
        const int width = 128 / C; // TX<C>
        *bytes = 4 * ((size_t)*span * width * C + (size_t)width * (tx->n + 1) + (size_t)rows * (ty->n + 1));
        if (*bytes <= TILE_SMEM && (long)gf_blocks(OW, width) * gf_blocks(OH, rows) <= INT_MAX)
            return rows;
    }
    return 0;
}

enum path { TILE, PASSES, COPY };
const char *const paths[] = {"one tiled pass", "rows then columns", "copy (same size)", nullptr};

// The step's path, and for TILE and PASSES its taps (which the caller frees) and the tile's rows and shared memory.
struct plan {
    int path, rows, span;
    size_t smem;
    gf_resize_taps tx, ty;
};

gf_status make_plan(const gf_step *s, const gf_image *in, plan *p)
{
    const gf_shape is = gf_image_shape(in);
    gf_shape os;
    *p = plan{};
    gf_status st = gf_step_shape(s, &is, &os);
    if (st)
        return st;
    if (os.width == is.width && os.height == is.height) {
        p->path = COPY;
        return GF_OK;
    }
    if ((st = gf_resize_plan(s, &is, &os, &p->tx, &p->ty)))
        return st;
    p->rows = tile_rows(&p->tx, &p->ty, os.width, os.height, in->channels, &p->span, &p->smem);
    p->path = p->rows ? TILE : PASSES;
    return GF_OK;
}

int choose(const gf_step *s, const gf_image *in)
{
    plan p;
    const int path = make_plan(s, in, &p) ? PASSES : p.path;
    gf_resize_taps_free(&p.tx);
    gf_resize_taps_free(&p.ty);
    return path;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const cudaStream_t st = gf_cuda_stream(cu);
    plan p;
    gf_status status = make_plan(s, in, &p);
    if (status)
        return status;
    if (p.path == COPY)
        return gf_cuda_status(
            cudaMemcpyAsync(out->data, in->data, in->stride * (size_t)in->height, cudaMemcpyDeviceToDevice, st),
            "resize copy");
    const int W = in->width, H = in->height, C = in->channels, OW = out->width, OH = out->height;
    // one upload: the rows' starts and weights, then the columns'
    const size_t nx = (size_t)OW * (1 + p.tx.n), ny = (size_t)OH * (1 + p.ty.n);
    int32_t *host = (int32_t *)malloc((nx + ny) * sizeof *host), *taps = nullptr;
    void *mid = nullptr;
    if (!host)
        status = gf_error(GF_ENOMEM, "out of memory for resize taps");
    else {
        memcpy(host, p.tx.start, (size_t)OW * sizeof *host);
        memcpy(host + OW, p.tx.w, (size_t)OW * p.tx.n * sizeof *host);
        memcpy(host + nx, p.ty.start, (size_t)OH * sizeof *host);
        memcpy(host + nx + OH, p.ty.w, (size_t)OH * p.ty.n * sizeof *host);
        status = gf_cuda_upload(cu, host, (nx + ny) * sizeof *host, (void **)&taps);
    }
    if (!status && p.path == PASSES)
        status = gf_cuda_scratch(cu, (size_t)OW * H * C * sizeof(int32_t), "resize intermediate", &mid);
    const tile_taps q = {taps, taps + OW, taps + nx, taps + nx + OH, p.tx.n, p.ty.n};
    free(host);
    gf_resize_taps_free(&p.tx);
    gf_resize_taps_free(&p.ty);
    if (status)
        return status;
    const uint32_t maxval = gf_maxval(in->depth);
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (p.path == TILE) {
            const int tiles_x = (int)gf_blocks(OW, TX<C>), tiles = tiles_x * (int)gf_blocks(OH, p.rows);
            resize_tile<T, C><<<tiles, TILE_THREADS, p.smem, st>>>((const T *)in->data, (T *)out->data, W, OW, OH,
                                                                   tiles_x, p.rows, p.span, q, maxval);
            GF_LAUNCH_CHECK();
            return cudaSuccess;
        }
        resize_rows<T, C><<<gf_lines_grid(OW, THREADS, H), THREADS, 0, st>>>((const T *)in->data, (int32_t *)mid, W, H,
                                                                             OW, q.sx, q.wx, q.nx);
        GF_LAUNCH_CHECK();
        resize_cols<T, C><<<gf_lines_grid(OW, THREADS, OH), THREADS, 0, st>>>((const int32_t *)mid, (T *)out->data, OW,
                                                                              OH, q.sy, q.wy, q.ny, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "resize kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_resize = {enqueue, nullptr, choose, paths};
