/* SPDX-License-Identifier: MIT */
/* Writing the reports, a histogram (CSV, JSON, a PNG chart, or a plain text
 * table) and statistics (CSV, JSON or text), chosen by the file's
 * extension; shared by both back ends. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "codec.h"
#include "histogram/histogram.h"
#include "ops.h"
#include "stats/stats.h"

enum hfmt { H_TEXT, H_CSV, H_JSON, H_PNG };

struct hist {
    const gf_image *img;
    int bins, shift;
    const uint64_t *counts;
    enum hfmt fmt;
};

static enum hfmt hist_format(const char *path)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return H_TEXT;
    if (!strcasecmp(dot, ".csv"))
        return H_CSV;
    if (!strcasecmp(dot, ".json"))
        return H_JSON;
    if (!strcasecmp(dot, ".png"))
        return H_PNG;
    return H_TEXT;
}

#define PLOT_W 512
#define PLOT_H 256
#define MARGIN 8

/* A bar chart: one column per 1/512 of the value range, each channel drawn
 * in its colour and multiplied over the others, scaled to the tallest column. */
static gf_status emit_chart(FILE *f, const struct hist *h)
{
    static const uint8_t colors[4][4][3] = {
        {{60, 60, 60}},
        {{60, 60, 60}, {190, 190, 190}},
        {{235, 60, 60}, {60, 200, 60}, {70, 90, 235}},
        {{235, 60, 60}, {60, 200, 60}, {70, 90, 235}, {190, 190, 190}}};
    const int C = h->img->channels;
    uint64_t col[4][PLOT_W] = {{0}}, top = 1;
    for (int c = 0; c < C; c++)
        for (int b = 0; b < h->bins; b++) {
            int x0 = (int)((int64_t)b * PLOT_W / h->bins), x1 = (int)((int64_t)(b + 1) * PLOT_W / h->bins);
            if (x1 == x0)
                x1 = x0 + 1;
            for (int x = x0; x < x1 && x < PLOT_W; x++) {
                col[c][x] += h->counts[(size_t)c * h->bins + b];
                if (col[c][x] > top)
                    top = col[c][x];
            }
        }
    gf_image chart;
    gf_status st = gf_image_alloc(&chart, PLOT_W + 2 * MARGIN, PLOT_H + 2 * MARGIN, 3, 8);
    if (st)
        return st;
    uint8_t *p = chart.data;
    memset(p, 255, chart.stride * chart.height);
    for (int c = 0; c < C; c++)
        for (int x = 0; x < PLOT_W; x++) {
            int hgt = (int)((col[c][x] * PLOT_H + top - 1) / top);
            for (int y = PLOT_H - hgt; y < PLOT_H; y++) {
                uint8_t *px = p + (size_t)(y + MARGIN) * chart.stride + (size_t)(x + MARGIN) * 3;
                for (int k = 0; k < 3; k++)
                    px[k] = (uint8_t)(px[k] * colors[C - 1][c][k] / 255);
            }
        }
    for (int x = 0; x < PLOT_W + 2; x++) /* base line */
        memset(p + (size_t)(PLOT_H + MARGIN) * chart.stride + (size_t)(x + MARGIN - 1) * 3, 0, 3);
    gf_encode_opts o = {.compress = 6};
    st = gf_png_encode(f, &chart, &o);
    gf_image_free(&chart);
    return st;
}

static gf_status emit(FILE *f, void *ctx)
{
    const struct hist *h = ctx;
    const int C = h->img->channels;
    if (h->fmt == H_PNG)
        return emit_chart(f, h);
    if (h->fmt == H_JSON) {
        fprintf(f, "{\n  \"width\": %d,\n  \"height\": %d,\n  \"depth\": %d,\n  \"bins\": %d,\n  \"channels\": [",
                h->img->width, h->img->height, h->img->depth, h->bins);
        for (int c = 0; c < C; c++)
            fprintf(f, "%s\"%s\"", c ? ", " : "", gf_channel_name(C, c));
        fputs("],\n  \"counts\": {\n", f);
        for (int c = 0; c < C; c++) {
            fprintf(f, "    \"%s\": [", gf_channel_name(C, c));
            for (int b = 0; b < h->bins; b++)
                fprintf(f, "%s%llu", b ? "," : "", (unsigned long long)h->counts[(size_t)c * h->bins + b]);
            fprintf(f, "]%s\n", c + 1 < C ? "," : "");
        }
        fputs("  }\n}\n", f);
    } else {
        const char *sep = h->fmt == H_CSV ? "," : " ";
        if (h->fmt == H_TEXT)
            fprintf(f, "# %dx%d %s %d-bit, %d bins\n", h->img->width, h->img->height,
                    gf_layout_name(C), h->img->depth, h->bins);
        fputs("value", f);
        for (int c = 0; c < C; c++)
            fprintf(f, "%s%s", sep, gf_channel_name(C, c));
        fputc('\n', f);
        for (int b = 0; b < h->bins; b++) {
            fprintf(f, "%u", (unsigned)b << h->shift);
            for (int c = 0; c < C; c++)
                fprintf(f, "%s%llu", sep, (unsigned long long)h->counts[(size_t)c * h->bins + b]);
            fputc('\n', f);
        }
    }
    if (ferror(f))
        return gf_error(GF_EIO, "cannot write the histogram: %s", strerror(errno));
    return GF_OK;
}

/* A report to path, its text from body, a failure named "WHAT PATH: ...". */
static gf_status write_report(const char *what, const char *path, gf_status (*body)(FILE *, void *), void *ctx)
{
    gf_status st = gf_write_file(path, body, ctx);
    if (st) {
        char detail[400];
        snprintf(detail, sizeof detail, "%s", gf_error_detail(st));
        return gf_error(st, "%s %s: %s", what, path, detail);
    }
    return GF_OK;
}

gf_status gf_histogram_write(const char *path, const gf_image *img, int bins, const uint64_t *counts)
{
    struct hist h = {img, bins, 0, counts, hist_format(path)};
    while ((1 << (img->depth - h.shift)) > bins)
        h.shift++;
    return write_report("histogram", path, emit, &h);
}

struct stats {
    const gf_image *img;
    const gf_channel_stats *st;
    enum hfmt fmt;
};

static gf_status emit_stats(FILE *f, void *ctx)
{
    const struct stats *s = ctx;
    const int C = s->img->channels;
    const uint64_t n = (uint64_t)s->img->width * s->img->height;
    if (s->fmt == H_JSON)
        fprintf(f, "{\n  \"width\": %d,\n  \"height\": %d,\n  \"depth\": %d,\n  \"channels\": {\n", s->img->width,
                s->img->height, s->img->depth);
    else if (s->fmt == H_CSV)
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
        if (s->fmt == H_JSON)
            fprintf(f, "    \"%s\": {\"min\": %u, \"max\": %u, \"mean\": %.6f, \"stddev\": %.6f, \"sum\": %llu}%s\n",
                    name, t->min, t->max, mean, sd, (unsigned long long)t->sum, c + 1 < C ? "," : "");
        else
            fprintf(f, s->fmt == H_CSV ? "%s,%u,%u,%.6f,%.6f,%llu\n" : "%s %u %u %.6f %.6f %llu\n", name, t->min,
                    t->max, mean, sd, (unsigned long long)t->sum);
    }
    if (s->fmt == H_JSON)
        fputs("  }\n}\n", f);
    if (ferror(f))
        return gf_error(GF_EIO, "cannot write the statistics: %s", strerror(errno));
    return GF_OK;
}

gf_status gf_stats_write(const char *path, const gf_image *img, const gf_channel_stats *st)
{
    struct stats s = {img, st, hist_format(path) == H_PNG ? H_TEXT : hist_format(path)};
    return write_report("stats", path, emit_stats, &s);
}
