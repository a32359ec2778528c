/* SPDX-License-Identifier: MIT */
/* -laplacian's NPP counterpart: nppiFilterLaplaceBorder's 3x3 mask, the
 * 8-neighbour form only. */
#include "config.h"

#include "laplacian.h"
#include "npp_peer.h"

gfb_npp_fn gfb_npp_laplacian;

int gfb_npp_laplacian(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                      gf_image *out)
{
    if (mode == GFB_NPP_HAS)
        return GF_LAPLACIAN_ARGS(s).neighbours == 8;
    if (mode == GFB_NPP_PREPARE)
        return 0;
    return nppiFilterLaplaceBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO, out->data,
                                              (int)out->stride, GFB_NPP_SIZE(in), NPP_MASK_SIZE_3_X_3,
                                              NPP_BORDER_REPLICATE, *ctx);
}
