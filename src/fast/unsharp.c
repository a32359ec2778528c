/* SPDX-License-Identifier: MIT */
/* -unsharp, the fast CPU path: the fast blur (bit for bit the reference's),
 * then the reference's combination. */
#include "config.h"

#include "../cpu/sample.h"

gf_fast_fn gf_fast_unsharp, gf_fast_blur;

gf_status gf_fast_unsharp(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const gf_step b = gf_unsharp_blur(s);
    gf_status st = gf_fast_blur(&b, in, out, threads);
    if (!st)
        gf_unsharp_combine(s, in, out);
    return st;
}
