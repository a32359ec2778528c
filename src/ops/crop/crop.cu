// SPDX-License-Identifier: MIT
// -crop: a 2-D copy of the region's rows (cudaMemcpy2DAsync, device to
// device), the same bytes as src/ops/crop/crop_ref.c.
#include "crop.h"
#include "kernel_util.cuh"

namespace
{

const char *const paths[] = {"2-D copy", nullptr};

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const size_t px = (size_t)in->channels * (in->depth / 8);
    const long x0 = GF_CROP_ARGS(s).x > 0 ? GF_CROP_ARGS(s).x : 0, y0 = GF_CROP_ARGS(s).y > 0 ? GF_CROP_ARGS(s).y : 0;
    const char *src = (const char *)in->data + (size_t)y0 * in->stride + (size_t)x0 * px;
    return gf_cuda_status(cudaMemcpy2DAsync(out->data, out->stride, src, in->stride, (size_t)out->width * px,
                                            (size_t)out->height, cudaMemcpyDeviceToDevice, gf_cuda_stream(cu)),
                          "crop copy");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_crop = {enqueue, nullptr, gf_one_path, paths};
