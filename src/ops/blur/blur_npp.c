/* SPDX-License-Identifier: MIT */
/* -blur's NPP counterpart: nppiFilterGaussAdvancedBorder with the same
 * sigma and radius (normalised float taps), up to sigma 20 (121 taps:
 * beyond, NPP's Gauss is far off the chart). */
#include "config.h"

#include <math.h>

#include "blur.h"
#include "npp_peer.h"

gfb_npp_fn gfb_npp_blur;

int gfb_npp_blur(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                 gf_image *out)
{
    static Npp32f *d_taps;
    const int r = GF_BLUR_ARGS(s).radius;
    if (mode == GFB_NPP_HAS)
        return GF_BLUR_ARGS(s).sigma <= 20;
    if (mode == GFB_NPP_PREPARE) {
        const double sigma = GF_BLUR_ARGS(s).sigma;
        static float k[4096];
        double tot = 0;
        if (2 * r + 1 > 4096)
            return -1;
        for (int i = -r; i <= r; i++)
            tot += k[i + r] = (float)exp(-(double)i * i / (2 * sigma * sigma));
        for (int i = 0; i < 2 * r + 1; i++)
            k[i] = (float)(k[i] / tot);
        if (!d_taps)
            if (cudaMalloc((void **)&d_taps, sizeof k) != cudaSuccess)
                return -1;
        return cudaMemcpy(d_taps, k, sizeof(float) * (2 * r + 1), cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
    }
    return nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), GFB_NPP_ZERO,
                                                    out->data, (int)out->stride, GFB_NPP_SIZE(in), 2 * r + 1, d_taps,
                                                    NPP_BORDER_REPLICATE, *ctx);
}
