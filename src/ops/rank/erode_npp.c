/* SPDX-License-Identifier: MIT */
/* -erode's and -dilate's NPP counterparts: nppiFilterMinBorder and
 * nppiFilterMaxBorder over the same square. */
#include "config.h"

#include "npp_peer.h"
#include "rank.h"

gfb_npp_fn gfb_npp_erode, gfb_npp_dilate;

static int rank(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                gf_image *out)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    const int r = GF_RANK_ARGS(s).radius;
    const NppiSize mask = {2 * r + 1, 2 * r + 1};
    const NppiPoint anchor = {r, r};
    return GF_RANK_ARGS(s).max
               ? nppiFilterMaxBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO, out->data,
                                                (int)out->stride, GFB_NPP_SIZE(in), mask, anchor, NPP_BORDER_REPLICATE,
                                                *ctx)
               : nppiFilterMinBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO, out->data,
                                                (int)out->stride, GFB_NPP_SIZE(in), mask, anchor, NPP_BORDER_REPLICATE,
                                                *ctx);
}

int gfb_npp_erode(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                  gf_image *out)
{
    return rank(mode, ctx, s, in, out);
}

int gfb_npp_dilate(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                   gf_image *out)
{
    return rank(mode, ctx, s, in, out);
}
