/* SPDX-License-Identifier: MIT */
/* -resize's NPP counterpart: nppiResize, super-sampling where the box
 * filter shrinks, cubic where it enlarges, else Lanczos. */
#include "config.h"

#include "npp_peer.h"
#include "resize.h"

gfb_npp_fn gfb_npp_resize;

int gfb_npp_resize(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                   gf_image *out)
{
    if (mode != GFB_NPP_RUN)
        return mode == GFB_NPP_HAS;
    const NppiRect src = {0, 0, in->width, in->height}, dst = {0, 0, out->width, out->height};
    const int how = GF_RESIZE_ARGS(s).filter == GF_FILTER_BOX ? NPPI_INTER_SUPER
                    : out->width > in->width                  ? NPPI_INTER_CUBIC
                                                              : NPPI_INTER_LANCZOS;
    return nppiResize_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), src, out->data, (int)out->stride,
                                 (NppiSize){out->width, out->height}, dst, how, *ctx);
}
