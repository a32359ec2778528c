/* SPDX-License-Identifier: MIT */
/* -transpose's NPP counterpart: nppiTranspose. */
#include "config.h"

#include "npp_peer.h"

gfb_npp_fn gfb_npp_transpose;

int gfb_npp_transpose(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                      gf_image *out)
{
    (void)s;
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    return nppiTranspose_8u_C4R_Ctx(in->data, (int)in->stride, out->data, (int)out->stride, GFB_NPP_SIZE(in), *ctx);
}
