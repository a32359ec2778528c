/* SPDX-License-Identifier: MIT */
/* -histogram's NPP counterpart: nppiHistogramEven, 256 bins a channel. */
#include "config.h"

#include "histogram.h"
#include "npp_peer.h"

gfb_npp_fn gfb_npp_histogram;

int gfb_npp_histogram(enum gfb_npp_mode mode, const NppStreamContext *ctx, const gf_step *s, const gf_image *in,
                      gf_image *out)
{
    (void)s, (void)out;
    static Npp32s *d_hist[4];
    static Npp8u *d_work;
    int levels[4] = {257, 257, 257, 257};
    Npp32s lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256};
    if (mode == GFB_NPP_HAS)
        return 1;
    if (mode == GFB_NPP_PREPARE) {
        size_t bytes = 0;
        for (int i = 0; i < 4; i++)
            if (!d_hist[i])
                if (cudaMalloc((void **)&d_hist[i], sizeof(Npp32s) * 256) != cudaSuccess)
                    return -1;
        if (nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(GFB_NPP_SIZE(in), levels, &bytes, *ctx) != NPP_SUCCESS)
            return -1;
        d_work = gfb_npp_scratch(bytes ? bytes : 1);
        return 0;
    }
    return nppiHistogramEven_8u_C4R_Ctx(in->data, (int)in->stride, GFB_NPP_SIZE(in), d_hist, levels, lo, hi, d_work,
                                        *ctx);
}
