/* SPDX-License-Identifier: MIT */
/* -stats, the reference: each channel's minimum, maximum, sum and sum of
 * squares, exact, written by gf_stats_write; the image passes on. */
#include "config.h"

#include "sample.h"
#include "stats.h"

gf_cpu_fn gf_cpu_stats;

gf_status gf_cpu_stats(const gf_step *s, const gf_image *in, gf_image *out)
{
    (void)out;
    const int C = in->channels, d = in->depth;
    gf_channel_stats st[4];
    for (int c = 0; c < C; c++)
        st[c] = (gf_channel_stats){.min = gf_maxval(d)};
    const size_t n = (size_t)in->width * in->height;
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < C; c++) {
            const uint32_t v = ld(in->data, p * C + c, d);
            gf_channel_stats *t = &st[c];
            t->min = v < t->min ? v : t->min;
            t->max = v > t->max ? v : t->max;
            t->sum += v;
            t->sumsq += (uint64_t)v * v;
        }
    return gf_stats_write(GF_REPORT_ARGS(s).path, in, st);
}
