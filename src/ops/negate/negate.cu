// SPDX-License-Identifier: MIT
// -negate: each colour sample v to max - v, alpha copied, as
// src/ops/negate/negate_ref.c.  A grid-stride loop over the image's samples
// (width * height * channels, contiguous), a sample a thread: the channel
// is the sample's index modulo C, so a thread needs no row geometry; max -
// v is v XOR max (max = 2^8 - 1 or 2^16 - 1).
#include "kernel_util.cuh"

namespace
{

template <typename T, int C> __global__ void negate(const T *__restrict__ in, T *__restrict__ out, size_t samples)
{
    constexpr unsigned MAX = sizeof(T) == 1 ? 0xffu : 0xffffu;
    constexpr bool ALPHA = C == 2 || C == 4;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < samples; i += step)
        out[i] = ALPHA && i % C == C - 1 ? in[i] : (T)(in[i] ^ MAX);
}

const char *const paths[] = {"a thread a sample", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *, const gf_image *in, gf_image *out)
{
    const size_t samples = (size_t)in->width * in->height * in->channels;
    const unsigned blocks = gf_loop_blocks(gf_blocks(samples, 256));
    const cudaStream_t st = gf_cuda_stream(cu);
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        negate<T, C><<<blocks, 256, 0, st>>>((const T *)in->data, (T *)out->data, samples);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "negate kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_negate = {enqueue, nullptr, gf_one_path, paths};
