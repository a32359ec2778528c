// SPDX-License-Identifier: MIT
// Rotation by a non-right angle: bilinear on the enlarged canvas, one thread
// per output pixel (a gather: each output reads a 2x2 neighbourhood that
// moves diagonally through the input, so there is no tile to share; the
// neighbourhoods of a warp overlap and hit the L1/L2 caches).
// The arithmetic is the reference's, in float64 with every product and sum
// rounded on its own (__dmul_rn/__dadd_rn: no fused multiply-add), and cos/sin
// come from the host, so the result matches src/cpu/rotate.c; the contract
// allows it to differ by 1.
#include "kernel_util.cuh"

namespace
{

template <typename T, int C, int OC>
__global__ void rotate_bilinear(const T *__restrict__ in, T *__restrict__ out, int W, int H, int OW, int OH, double ca,
                                double sa, uint4 bg, uint32_t maxval)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= OW)
        return;
    for (int y = blockIdx.y; y < OH; y += gridDim.y) { // 2-D grid, rows beyond 65535 by grid stride
        const size_t k = (size_t)y * OW + x;
        const double px = __dadd_rn(__dadd_rn((double)x, 0.5), -(OW / 2.0));
        const double py = __dadd_rn(__dadd_rn((double)y, 0.5), -(OH / 2.0));
        const double sx = __dadd_rn(__dadd_rn(__dadd_rn(__dmul_rn(px, ca), __dmul_rn(py, sa)), W / 2.0), -0.5);
        const double sy = __dadd_rn(__dadd_rn(__dadd_rn(-__dmul_rn(px, sa), __dmul_rn(py, ca)), H / 2.0), -0.5);
        const double fx0 = floor(sx), fy0 = floor(sy);
        const double fx = __dadd_rn(sx, -fx0), fy = __dadd_rn(sy, -fy0);
        const long x0 = (long)fx0, y0 = (long)fy0;
        const uint32_t bgv[4] = {bg.x, bg.y, bg.z, bg.w};
#pragma unroll
        for (int c = 0; c < OC; c++) {
            double v = 0;
#pragma unroll
            for (int q = 0; q < 4; q++) {
                const long xi = x0 + (q & 1), yi = y0 + (q >> 1);
                const double wgt = __dmul_rn((q & 1) ? fx : __dadd_rn(1.0, -fx), (q >> 1) ? fy : __dadd_rn(1.0, -fy));
                uint32_t s;
                if (xi < 0 || yi < 0 || xi >= W || yi >= H)
                    s = bgv[c];
                else if (c < C)
                    s = in[((size_t)yi * W + xi) * C + c];
                else
                    s = maxval;
                v = __dadd_rn(v, __dmul_rn(wgt, (double)s));
            }
            const long r = (long)floor(__dadd_rn(v, 0.5));
            out[k * OC + c] = (T)(r < 0 ? 0 : r > (long)maxval ? maxval : r);
        }
    }
}

} // namespace

extern "C" cudaError_t gf_rotate_launch(const gf_image *in, gf_image *out, double ca, double sa, const uint32_t bg[4],
                                        cudaStream_t st)
{
    const uint4 b = make_uint4(bg[0], bg[1], bg[2], bg[3]);
    const uint32_t maxval = gf_maxval(in->depth);
    const int OC = out->channels;
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        const dim3 grid(gf_blocks(out->width, 256), out->height < 65535 ? out->height : 65535);
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        if (OC == C)
            rotate_bilinear<T, C, C>
                <<<grid, 256, 0, st>>>(src, dst, in->width, in->height, out->width, out->height, ca, sa, b, maxval);
        else if constexpr (C == 1 || C == 3)
            rotate_bilinear<T, C, C + 1>
                <<<grid, 256, 0, st>>>(src, dst, in->width, in->height, out->width, out->height, ca, sa, b, maxval);
        else
            return cudaErrorInvalidValue;
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
