/* SPDX-License-Identifier: MIT */
/* -flip's and -flop's NPP counterparts: nppiMirror about the horizontal
 * and the vertical axis. */
#include "config.h"

#include "npp_peer.h"

gfb_npp_fn gfb_npp_flip, gfb_npp_flop;

static int mirror(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_image *in, gf_image *out, NppiAxis axis)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    return nppiMirror_8u_C4R_Ctx(in->data, (int)in->stride, out->data, (int)out->stride, GFB_NPP_SIZE(in), axis, *ctx);
}

int gfb_npp_flip(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                 gf_image *out)
{
    (void)s;
    return mirror(mode, ctx, in, out, NPP_HORIZONTAL_AXIS);
}

int gfb_npp_flop(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                 gf_image *out)
{
    (void)s;
    return mirror(mode, ctx, in, out, NPP_VERTICAL_AXIS);
}
