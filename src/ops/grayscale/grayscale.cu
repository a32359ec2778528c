// SPDX-License-Identifier: MIT
// -grayscale: gf_gray_value (numeric.h) of each pixel's colour and its alpha
// copied, as src/ops/grayscale/grayscale_ref.c; a gray image is copied as it is.
#include "grayscale.h"
#include "kernel_util.cuh"

namespace
{

// Four pixels a thread, read and written as whole 32-bit words (four pixels
// of C samples are C words of 8-bit samples, 2 C of 16-bit); the last
// pixels % 4 a pixel at a time.
template <typename T, int C>
__global__ void grayscale(const T *__restrict__ in, T *__restrict__ out, size_t pixels, int weights)
{
    constexpr int OC = C == 4 ? 2 : 1, B = sizeof(T), IW = C * B, OW = OC * B; // words in, out
    const size_t step = (size_t)gridDim.x * blockDim.x, first = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    auto get = [](const uint32_t *w, int s) -> uint32_t { // sample s of the words
        return B == 1 ? (w[s / 4] >> 8 * (s % 4)) & 0xffu : (w[s / 2] >> 16 * (s % 2)) & 0xffffu;
    };
    for (size_t g = first; g < pixels / 4; g += step) {
        uint32_t w[IW], o[OW] = {};
#pragma unroll
        for (int i = 0; i < IW; i++)
            w[i] = ((const uint32_t *)in)[g * IW + i];
#pragma unroll
        for (int p = 0; p < 4; p++) {
            uint32_t v[OC];
            v[0] = gf_gray_value(get(w, p * C), get(w, p * C + 1), get(w, p * C + 2), weights);
            if constexpr (OC == 2)
                v[1] = get(w, p * C + 3);
#pragma unroll
            for (int c = 0; c < OC; c++) {
                const int s = p * OC + c;
                o[s * B / 4] |= v[c] << 8 * (s * B % 4);
            }
        }
#pragma unroll
        for (int i = 0; i < OW; i++)
            ((uint32_t *)out)[g * OW + i] = o[i];
    }
    for (size_t p = pixels / 4 * 4 + first; p < pixels; p += step) {
        const T *i = in + p * C;
        out[p * OC] = (T)gf_gray_value(i[0], i[1], i[2], weights);
        if constexpr (OC == 2)
            out[p * OC + 1] = i[3];
    }
}

enum path { PIXELS, COPY };
const char *const paths[] = {"four pixels a thread", "copy (gray input)", nullptr};

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
    const unsigned blocks = gf_loop_blocks(gf_blocks(pixels / 4 + 1, 256));
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if constexpr (C >= 3) {
            grayscale<T, C><<<blocks, 256, 0, st>>>((const T *)in->data, (T *)out->data, pixels,
                                                    (int)GF_GRAYSCALE_ARGS(s).weights);
            GF_LAUNCH_CHECK();
        }
        return cudaSuccess;
    });
    return gf_cuda_status(e, "grayscale kernel");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_grayscale = {enqueue, nullptr, choose, paths};
