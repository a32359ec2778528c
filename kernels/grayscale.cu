// SPDX-License-Identifier: MIT
// -grayscale: a thread a pixel, gf_gray_value (numeric.h) of its colour and
// its alpha copied, as src/cpu/grayscale.c; a gray image is copied as it is.
#include "kernel_util.cuh"

namespace
{

template <typename T, int C>
__global__ void grayscale(const T *__restrict__ in, T *__restrict__ out, size_t pixels, int weights)
{
    constexpr int OC = C == 4 ? 2 : 1;
    for (size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x; p < pixels; p += (size_t)gridDim.x * blockDim.x) {
        const T *i = in + p * C;
        out[p * OC] = (T)gf_gray_value(i[0], i[1], i[2], weights);
        if constexpr (OC == 2)
            out[p * OC + 1] = i[3];
    }
}

enum path { PIXELS, COPY };
const char *const paths[] = {"a thread a pixel", "copy (gray input)", nullptr};

int choose(const gf_step *, const gf_image *in)
{
    return in->channels >= 3 ? PIXELS : COPY;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const cudaStream_t st = gf_cuda_stream(cu);
    if (choose(s, in) == COPY)
        return gf_cuda_status(
            cudaMemcpyAsync(out->data, in->data, in->stride * (size_t)in->height, cudaMemcpyDeviceToDevice, st),
            "grayscale copy");
    const size_t pixels = (size_t)in->width * in->height;
    const unsigned blocks = gf_loop_blocks(gf_blocks(pixels, 256));
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if constexpr (C >= 3) {
            grayscale<T, C>
                <<<blocks, 256, 0, st>>>((const T *)in->data, (T *)out->data, pixels, (int)s->grayscale.weights);
            GF_LAUNCH_CHECK();
        }
        return cudaSuccess;
    });
    return gf_cuda_status(e, "grayscale kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_grayscale = {enqueue, nullptr, choose, paths};
