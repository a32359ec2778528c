// SPDX-License-Identifier: MIT
// -unsharp: the blur's kernels (blur.cu) write the blurred image into the
// output, then one pass, a thread a pixel, makes each colour sample
// gf_unsharp_value (numeric.h) of the input's and the blur's, in place, and
// copies alpha: as src/ops/unsharp/unsharp_ref.c.
#include "kernel_util.cuh"
#include "unsharp.h"

namespace
{

template <typename T, int C>
__global__ void unsharp(const T *__restrict__ in, T *out, size_t pixels, int64_t gain, int64_t t, uint32_t maxval)
{
    constexpr int CC = C == 2 || C == 4 ? C - 1 : C;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < pixels; p += (size_t)gridDim.x * blockDim.x) {
#pragma unroll
        for (int c = 0; c < CC; c++)
            out[p * C + c] = (T)gf_unsharp_value(in[p * C + c], out[p * C + c], gain, t, maxval);
        if constexpr (CC < C)
            out[p * C + CC] = in[p * C + CC];
    }
}

const char *const paths[] = {"blur, then a thread a pixel", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const gf_step b = gf_unsharp_blur(s);
    gf_status status = gf_cuda_blur.enqueue(cu, &b, in, out);
    if (status)
        return status;
    const size_t pixels = (size_t)in->width * in->height;
    const unsigned blocks = gf_loop_blocks(gf_blocks(pixels, 256));
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        unsharp<T, C><<<blocks, 256, 0, gf_cuda_stream(cu)>>>((const T *)in->data, (T *)out->data, pixels,
                                                              GF_UNSHARP_ARGS(s).gain,
                                                              gf_unsharp_threshold(s, in->depth), gf_maxval(in->depth));
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "unsharp kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_unsharp = {enqueue, nullptr, gf_one_path, paths};
