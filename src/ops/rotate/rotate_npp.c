/* SPDX-License-Identifier: MIT */
/* -rotate's NPP counterpart, for 90 degrees only: nppiRotate with the
 * nearest neighbour, shifted onto the output. */
#include "config.h"

#include "npp_peer.h"
#include "rotate.h"

gfb_npp_fn gfb_npp_rotate;

int gfb_npp_rotate(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                   gf_image *out)
{
    if (mode == GFB_NPP_HAS)
        return GF_ROTATE_ARGS(s).orient == GF_ORIENT_ROT90;
    if (mode == GFB_NPP_PREPARE)
        return 0;
    const NppiRect src = {0, 0, in->width, in->height}, dst = {0, 0, in->height, in->width};
    return nppiRotate_8u_C4R_Ctx(in->data, GFB_NPP_SIZE(in), (int)in->stride, src, out->data, (int)out->stride, dst, 90,
                                 0, in->width - 1, NPPI_INTER_NN, *ctx);
}
