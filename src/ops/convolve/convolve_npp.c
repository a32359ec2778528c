/* SPDX-License-Identifier: MIT */
/* -convolve's NPP counterpart: nppiFilterBorder with the weights (kept in
 * 2^-16) as integers over 16; not -edge's two-kernel magnitude. */
#include "config.h"

#include <math.h>

#include "convolve.h"
#include "npp_peer.h"

gfb_npp_fn gfb_npp_convolve;

int gfb_npp_convolve(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                     gf_image *out)
{
    static Npp32s *d_q;
    const struct gf_convolve_args *k = &GF_CONVOLVE_ARGS(s);
    if (mode == GFB_NPP_HAS)
        return !k->edge;
    if (mode == GFB_NPP_PREPARE) {
        Npp32s q[GF_KERNEL_MAX * GF_KERNEL_MAX];
        for (int i = 0; i < k->w * k->h; i++)
            q[i] = (Npp32s)lround(k->q[i] / 4096.0);
        if (!d_q)
            if (cudaMalloc((void **)&d_q, sizeof q) != cudaSuccess)
                return -1;
        return cudaMemcpy(d_q, q, sizeof(Npp32s) * k->w * k->h, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
    }
    return nppiFilterBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO, out->data,
                                       (int)out->stride, GFB_NPP_SIZE(in), d_q, (NppiSize){k->w, k->h},
                                       (NppiPoint){k->ox, k->oy}, 16, NPP_BORDER_REPLICATE, *ctx);
}
