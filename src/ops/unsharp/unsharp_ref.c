/* SPDX-License-Identifier: MIT */
/* -unsharp, the reference: the -blur of the same radius and sigma, then
 * gf_unsharp_value (numeric.h) of each colour sample and its blur; alpha
 * is kept. */
#include "config.h"

#include "sample.h"
#include "unsharp.h"

void gf_unsharp_combine(const gf_step *s, const gf_image *in, gf_image *out, size_t first, size_t end)
{
    const int C = in->channels, cc = gf_color_channels(C), d = in->depth;
    const int64_t t = gf_unsharp_threshold(s, d);
    for (size_t p = first; p < end; p++)
        for (int c = 0; c < C; c++) {
            const size_t i = p * C + c;
            put(out->data, i, d,
                c < cc ? gf_unsharp_value(ld(in->data, i, d), ld(out->data, i, d), GF_UNSHARP_ARGS(s).gain, t,
                                          gf_maxval(d))
                       : ld(in->data, i, d));
        }
}

gf_cpu_fn gf_cpu_unsharp, gf_cpu_blur;

gf_status gf_cpu_unsharp(const gf_step *s, const gf_image *in, gf_image *out)
{
    const gf_step b = gf_unsharp_blur(s);
    gf_status st = gf_cpu_blur(&b, in, out);
    if (!st)
        gf_unsharp_combine(s, in, out, 0, (size_t)in->width * in->height);
    return st;
}
