// SPDX-License-Identifier: MIT
// -resize: two passes over the taps of gf_resize_plan (computed on the host,
// uploaded once), in the fixed point of numeric.h, as src/cpu/resize.c.
//
// resize_rows: a thread an intermediate pixel (x, y), x < OW, y < H: its n
// taps along row y of the input, every channel, 64-bit sums, into the
// 32-bit intermediate (8 fraction bits, OW x H x C).  resize_cols: a thread
// an output pixel (x, y): its n taps down column x of the intermediate.  A
// block is 128 threads along a row (x) walking rows grid.y apart (as many
// rows a block as keep about 32 blocks a multiprocessor); a warp's taps read neighbouring pixels
// (rows: through L1; columns: whole rows of the intermediate, coalesced).
#include <cstdlib>
#include <cstring>

#include "kernel_util.cuh"

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

enum path { PASSES, COPY };
const char *const paths[] = {"rows then columns", "copy (same size)", nullptr};

int choose(const gf_step *s, const gf_image *in)
{
    const gf_shape is = gf_image_shape(in);
    gf_shape os;
    return gf_step_shape(s, &is, &os) == GF_OK && os.width == is.width && os.height == is.height ? COPY : PASSES;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const cudaStream_t st = gf_cuda_stream(cu);
    if (choose(s, in) == COPY)
        return gf_cuda_status(
            cudaMemcpyAsync(out->data, in->data, in->stride * (size_t)in->height, cudaMemcpyDeviceToDevice, st),
            "resize copy");
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    const int W = in->width, H = in->height, C = in->channels, OW = out->width, OH = out->height;
    gf_resize_taps tx, ty;
    gf_status status = gf_resize_plan(s, &is, &os, &tx, &ty);
    if (status)
        return status;
    // one upload: the rows' starts and weights, then the columns'
    const size_t nx = (size_t)OW * (1 + tx.n), ny = (size_t)OH * (1 + ty.n);
    int32_t *host = (int32_t *)malloc((nx + ny) * sizeof *host), *taps = nullptr;
    void *mid = nullptr;
    if (!host)
        status = gf_error(GF_ENOMEM, "out of memory for resize taps");
    else {
        memcpy(host, tx.start, (size_t)OW * sizeof *host);
        memcpy(host + OW, tx.w, (size_t)OW * tx.n * sizeof *host);
        memcpy(host + nx, ty.start, (size_t)OH * sizeof *host);
        memcpy(host + nx + OH, ty.w, (size_t)OH * ty.n * sizeof *host);
        status = gf_cuda_upload(cu, host, (nx + ny) * sizeof *host, (void **)&taps);
    }
    if (!status)
        status = gf_cuda_scratch(cu, (size_t)OW * H * C * sizeof(int32_t), "resize intermediate", &mid);
    const int n_x = tx.n, n_y = ty.n;
    free(host);
    gf_resize_taps_free(&tx);
    gf_resize_taps_free(&ty);
    if (status)
        return status;
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        resize_rows<T, C><<<gf_lines_grid(OW, THREADS, H), THREADS, 0, st>>>((const T *)in->data, (int32_t *)mid, W, H,
                                                                             OW, taps, taps + OW, n_x);
        GF_LAUNCH_CHECK();
        resize_cols<T, C><<<gf_lines_grid(OW, THREADS, OH), THREADS, 0, st>>>(
            (const int32_t *)mid, (T *)out->data, OW, OH, taps + nx, taps + nx + OH, n_y, gf_maxval(in->depth));
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "resize kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_resize = {enqueue, nullptr, choose, paths};
