/* SPDX-License-Identifier: MIT */
/* -negate, the reference: each colour sample v becomes max - v (255 or
 * 65535); alpha is copied. */
#include "config.h"

#include "sample.h"

gf_cpu_fn gf_cpu_negate;

gf_status gf_cpu_negate(const gf_step *s, const gf_image *in, gf_image *out)
{
    (void)s;
    const int C = in->channels, d = in->depth, alpha = gf_has_alpha(C) ? C - 1 : -1;
    const uint32_t max = gf_maxval(d);
    const size_t n = (size_t)in->width * in->height * C;
    for (size_t i = 0; i < n; i++) {
        const uint32_t v = ld(in->data, i, d);
        put(out->data, i, d, (int)(i % C) == alpha ? v : max - v);
    }
    return GF_OK;
}
