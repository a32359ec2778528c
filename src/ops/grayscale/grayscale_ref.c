/* SPDX-License-Identifier: MIT */
/* -grayscale, the reference: each pixel's colour to one sample by
 * gf_gray_value (numeric.h); alpha is copied; gray stays as it is. */
#include "config.h"

#include "grayscale.h"
#include "sample.h"

gf_cpu_fn gf_cpu_grayscale;

gf_status gf_cpu_grayscale(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int C = in->channels, OC = out->channels, d = in->depth;
    const size_t n = (size_t)in->width * in->height;
    for (size_t p = 0; p < n; p++) {
        const size_t i = p * C, o = p * OC;
        put(out->data, o, d,
            C >= 3 ? gf_gray_value(ld(in->data, i, d), ld(in->data, i + 1, d), ld(in->data, i + 2, d),
                                   GF_GRAYSCALE_ARGS(s).weights)
                   : ld(in->data, i, d));
        if (OC == 2)
            put(out->data, o + 1, d, ld(in->data, i + C - 1, d));
    }
    return GF_OK;
}
