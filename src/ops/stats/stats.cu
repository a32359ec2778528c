// SPDX-License-Identifier: MIT
// -stats: an exact block reduction, as src/ops/stats/stats_ref.c.  Each thread takes
// pixels a grid apart (a pixel a load where C is 2 or 4) and keeps, for
// each channel, its least and greatest sample and the 64-bit sums of the
// samples and of their squares; CUB's
// BlockReduce folds the block's into one record a channel; finish() brings
// the records to the host and adds them up, the squares in 128 bits.  A
// block's sums stay far below 2^64: at most 2^32 a square times the
// pixels a block takes (gf_loop_blocks keeps blocks many).
#include <cstdlib>

#include <cub/block/block_reduce.cuh>

#include "kernel_util.cuh"
#include "stats.h"

namespace
{

constexpr int THREADS = 256;

struct record {
    unsigned long long sum, sumsq;
    unsigned min, max;
};

template <typename T, int C>
__global__ void __launch_bounds__(THREADS) stats_blocks(const T *__restrict__ in, size_t pixels, record *out)
{
    using R64 = cub::BlockReduce<unsigned long long, THREADS>;
    using R32 = cub::BlockReduce<unsigned, THREADS>;
    __shared__ union {
        typename R64::TempStorage wide;
        typename R32::TempStorage narrow;
    } tmp;
    unsigned lo[C], hi[C];
    unsigned long long sum[C], sq[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        lo[c] = 0xffffffffu, hi[c] = 0, sum[c] = sq[c] = 0;
    for (size_t p = blockIdx.x * (size_t)THREADS + threadIdx.x; p < pixels; p += (size_t)gridDim.x * THREADS) {
        uint32_t v[C];
        gf_load_pixel<T, C>(in + p * C, v);
#pragma unroll
        for (int c = 0; c < C; c++) {
            lo[c] = min(lo[c], v[c]), hi[c] = max(hi[c], v[c]);
            sum[c] += v[c], sq[c] += (unsigned long long)v[c] * v[c];
        }
    }
#pragma unroll
    for (int c = 0; c < C; c++) {
        record r;
        r.sum = R64(tmp.wide).Sum(sum[c]);
        __syncthreads();
        r.sumsq = R64(tmp.wide).Sum(sq[c]);
        __syncthreads();
        r.min = R32(tmp.narrow).Reduce(lo[c], [](unsigned a, unsigned b) { return min(a, b); });
        __syncthreads();
        r.max = R32(tmp.narrow).Reduce(hi[c], [](unsigned a, unsigned b) { return max(a, b); });
        __syncthreads();
        if (threadIdx.x == 0)
            out[(size_t)blockIdx.x * C + c] = r;
    }
}

const char *const paths[] = {"block reduction", nullptr};

unsigned blocks_of(const gf_image *in)
{
    return gf_loop_blocks(gf_blocks((size_t)in->width * in->height, THREADS));
}

gf_status records(gf_cuda *cu, const gf_image *in, record **d)
{
    return gf_cuda_scratch(cu, (size_t)blocks_of(in) * in->channels * sizeof **d, "stats records", (void **)d);
}

gf_status enqueue(gf_cuda *cu, const gf_step *, const gf_image *in, gf_image *)
{
    record *d;
    gf_status status = records(cu, in, &d);
    if (status)
        return status;
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        stats_blocks<T, C>
            <<<blocks_of(in), THREADS, 0, gf_cuda_stream(cu)>>>((const T *)in->data, (size_t)in->width * in->height, d);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "stats kernel");
}

// Once the kernel is done: the records to the host, added up, and the file.
gf_status finish(gf_cuda *cu, const gf_step *s, const gf_image *in)
{
    const size_t n = (size_t)blocks_of(in) * in->channels;
    record *d;
    gf_status st = records(cu, in, &d);
    record *host = st ? nullptr : (record *)malloc(n * sizeof *host);
    if (!st && !host)
        st = gf_error(GF_ENOMEM, "out of memory");
    if (!st)
        st = gf_cuda_status(cudaMemcpy(host, d, n * sizeof *host, cudaMemcpyDeviceToHost), "stats download");
    if (!st) {
        gf_channel_stats total[4];
        for (int c = 0; c < in->channels; c++)
            total[c] = gf_channel_stats{gf_maxval(in->depth), 0, 0, 0};
        for (size_t i = 0; i < n; i++) {
            gf_channel_stats *t = &total[i % in->channels];
            t->min = std::min(t->min, host[i].min), t->max = std::max(t->max, host[i].max);
            t->sum += host[i].sum, t->sumsq += host[i].sumsq;
        }
        st = gf_stats_write(GF_REPORT_ARGS(s).path, in, total);
    }
    free(host);
    return st;
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_stats = {enqueue, finish, gf_one_path, paths};
