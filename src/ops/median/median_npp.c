/* SPDX-License-Identifier: MIT */
/* -median's NPP counterpart: nppiFilterMedian, which has no border mode,
 * over the inside (R from each edge). */
#include "config.h"

#include "npp_peer.h"
#include "rank/rank.h"

gfb_npp_fn gfb_npp_median;

int gfb_npp_median(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                   gf_image *out)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    const int r = GF_RANK_ARGS(s).radius;
    const NppiSize roi = {in->width - 2 * r, in->height - 2 * r}, mask = {2 * r + 1, 2 * r + 1};
    Npp32u bytes = 0;
    if (nppiFilterMedianGetBufferSize_8u_C4R_Ctx(roi, mask, &bytes, *ctx) != NPP_SUCCESS)
        bytes = 0;
    const size_t at = (size_t)r * in->stride + (size_t)r * 4;
    return nppiFilterMedian_8u_C4R_Ctx((const Npp8u *)in->data + at, (int)in->stride, (Npp8u *)out->data + at,
                                       (int)out->stride, roi, mask, (NppiPoint){r, r},
                                       gfb_npp_scratch((size_t)bytes + 1), *ctx);
}
