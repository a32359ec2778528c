/* SPDX-License-Identifier: MIT */
/* Histogram, the reference: exact counts per channel; the image passes on.
 * And the report every back end writes (gf_histogram_write). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "histogram.h"
#include "op.h"
#include "sample.h"

int gf_histogram_bins(const gf_step *s, int depth)
{
    int bins = GF_HISTOGRAM_ARGS(s).bins ? GF_HISTOGRAM_ARGS(s).bins : 256;
    return depth == 8 && bins > 256 ? 256 : bins;
}

gf_status gf_histogram_count(const gf_image *img, int bins, uint64_t *counts)
{
    const int C = img->channels, d = img->depth;
    int shift = 0;
    while ((1 << (d - shift)) > bins)
        shift++;
    for (size_t i = 0; i < (size_t)C * bins; i++)
        counts[i] = 0;
    const size_t n = (size_t)img->width * img->height;
    for (size_t p = 0; p < n; p++)
        for (int c = 0; c < C; c++)
            counts[(size_t)c * bins + (ld(img->data, p * C + c, d) >> shift)]++;
    return GF_OK;
}

gf_cpu_fn gf_cpu_histogram;

gf_status gf_cpu_histogram(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int bins = gf_histogram_bins(s, in->depth);
    uint64_t *counts = NULL;
    gf_status st = alloc_array((size_t)in->channels * bins, sizeof *counts, (void **)&counts);
    if (st)
        return st;
    if (!(st = gf_histogram_count(in, bins, counts)))
        st = gf_histogram_write(GF_REPORT_ARGS(s).path, in, bins, counts);
    free(counts);
    return st;
}

/* ---- the report: CSV, JSON, a PNG chart or a text table ---------------- */

struct hist {
    const gf_image *img;
    int bins, shift;
    const uint64_t *counts;
    gf_report_format fmt;
};

#define PLOT_W 512
#define PLOT_H 256
#define MARGIN 8

/* A bar chart: one column per 1/512 of the value range, each channel drawn
 * in its colour and multiplied over the others, scaled to the tallest column. */
static gf_status emit_chart(FILE *f, const struct hist *h)
{
    static const uint8_t colors[4][4][3] = {{{60, 60, 60}},
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
    if (h->fmt == GF_REPORT_PNG)
        return emit_chart(f, h);
    if (h->fmt == GF_REPORT_JSON) {
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
        const char *sep = h->fmt == GF_REPORT_CSV ? "," : " ";
        if (h->fmt == GF_REPORT_TEXT)
            fprintf(f, "# %dx%d %s %d-bit, %d bins\n", h->img->width, h->img->height, gf_layout_name(C), h->img->depth,
                    h->bins);
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

gf_status gf_histogram_write(const char *path, const gf_image *img, int bins, const uint64_t *counts)
{
    struct hist h = {img, bins, 0, counts, gf_report_format_of(path)};
    while ((1 << (img->depth - h.shift)) > bins)
        h.shift++;
    return gf_report_write("histogram", path, emit, &h);
}
