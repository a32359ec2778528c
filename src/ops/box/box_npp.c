/* SPDX-License-Identifier: MIT */
/* -box's NPP counterpart: nppiFilterBoxBorder, the same square. */
#include "config.h"

#include "box.h"
#include "npp_peer.h"

gfb_npp_fn gfb_npp_box;

int gfb_npp_box(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                gf_image *out)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    const int r = GF_BOX_ARGS(s).radius;
    return nppiFilterBoxBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO, out->data,
                                          (int)out->stride, GFB_NPP_SIZE(in), (NppiSize){2 * r + 1, 2 * r + 1},
                                          (NppiPoint){r, r}, NPP_BORDER_REPLICATE, *ctx);
}
