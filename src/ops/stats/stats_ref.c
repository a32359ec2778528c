/* SPDX-License-Identifier: MIT */
/* -stats, the reference: each channel's minimum, maximum, sum and sum of
 * squares, exact, written by gf_stats_write (which every back end calls);
 * the image passes on. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "op.h"
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

/* ---- the report: CSV, JSON or a text table ----------------------------- */

struct stats {
    const gf_image *img;
    const gf_channel_stats *st;
    gf_report_format fmt;
};

static gf_status emit_stats(FILE *f, void *ctx)
{
    const struct stats *s = ctx;
    const int C = s->img->channels;
    const uint64_t n = (uint64_t)s->img->width * s->img->height;
    if (s->fmt == GF_REPORT_JSON)
        fprintf(f, "{\n  \"width\": %d,\n  \"height\": %d,\n  \"depth\": %d,\n  \"channels\": {\n", s->img->width,
                s->img->height, s->img->depth);
    else if (s->fmt == GF_REPORT_CSV)
        fputs("channel,min,max,mean,stddev,sum\n", f);
    else
        fprintf(f, "# %dx%d %s %d-bit\nchannel min max mean stddev sum\n", s->img->width, s->img->height,
                gf_layout_name(C), s->img->depth);
    for (int c = 0; c < C; c++) {
        const gf_channel_stats *t = &s->st[c];
        /* the variance's numerator n sumsq - sum^2 is exact: below 2^127 for any image that fits memory */
        const unsigned __int128 var = (unsigned __int128)n * t->sumsq - (unsigned __int128)t->sum * t->sum;
        const double mean = (double)t->sum / (double)n, sd = sqrtl((long double)var) / (long double)n;
        const char *name = gf_channel_name(C, c);
        if (s->fmt == GF_REPORT_JSON)
            fprintf(f, "    \"%s\": {\"min\": %u, \"max\": %u, \"mean\": %.6f, \"stddev\": %.6f, \"sum\": %llu}%s\n",
                    name, t->min, t->max, mean, sd, (unsigned long long)t->sum, c + 1 < C ? "," : "");
        else
            fprintf(f, s->fmt == GF_REPORT_CSV ? "%s,%u,%u,%.6f,%.6f,%llu\n" : "%s %u %u %.6f %.6f %llu\n", name,
                    t->min, t->max, mean, sd, (unsigned long long)t->sum);
    }
    if (s->fmt == GF_REPORT_JSON)
        fputs("  }\n}\n", f);
    if (ferror(f))
        return gf_error(GF_EIO, "cannot write the statistics: %s", strerror(errno));
    return GF_OK;
}

gf_status gf_stats_write(const char *path, const gf_image *img, const gf_channel_stats *st)
{
    struct stats s = {img, st, gf_report_format_of(path) == GF_REPORT_PNG ? GF_REPORT_TEXT : gf_report_format_of(path)};
    return gf_report_write("stats", path, emit_stats, &s);
}
