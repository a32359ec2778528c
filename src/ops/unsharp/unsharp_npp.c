/* SPDX-License-Identifier: MIT */
/* -unsharp's NPP counterpart: nppiFilterUnsharpBorder with the same radius,
 * sigma, gain and threshold. */
#include "config.h"

#include "npp_peer.h"
#include "unsharp.h"

gfb_npp_fn gfb_npp_unsharp;

int gfb_npp_unsharp(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                    gf_image *out)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    const float r = (float)GF_UNSHARP_ARGS(s).blur.radius, sigma = (float)GF_UNSHARP_ARGS(s).blur.sigma;
    int bytes = 0;
    if (nppiFilterUnsharpGetBufferSize_8u_C4R(r, sigma, &bytes) != NPP_SUCCESS)
        bytes = 0;
    return nppiFilterUnsharpBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_ZERO, out->data, (int)out->stride,
                                              GFB_NPP_SIZE(in), r, sigma, (float)(GF_UNSHARP_ARGS(s).gain / 65536.0),
                                              (float)GF_UNSHARP_ARGS(s).threshold, NPP_BORDER_REPLICATE,
                                              gfb_npp_scratch((size_t)bytes + 1), *ctx);
}
