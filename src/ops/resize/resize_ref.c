/* SPDX-License-Identifier: MIT */
/* -resize: the taps of each axis (shared with the GPU), and the reference:
 * rows, then columns, in the fixed point of numeric.h.
 *
 * Output sample o of an axis of in_n samples resized to out_n is centred
 * at c = (o + 1/2) in_n / out_n in the input.  Shrinking, the filter is
 * stretched by in_n / out_n (no aliasing).  Input sample k weighs f((k + 1/2
 * - c) / stretch) within the filter's support, the window clipped to the
 * image and the weights normalised to sum 1 (as Pillow and ImageMagick do);
 * box weighs k by how much of [k, k + 1) the output's footprint, of width
 * max(1, in_n / out_n) around c, covers (an area average, as OpenCV's
 * INTER_AREA); point takes sample floor(c). */
#include "config.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

#include "resize.h"
#include "sample.h"

static double sinc(double x)
{
    return x == 0 ? 1 : sin(M_PI * x) / (M_PI * x);
}

/* The cubic of Mitchell and Netravali with parameters B and C, support 2. */
static double cubic(double x, double B, double C)
{
    x = fabs(x);
    if (x < 1)
        return ((12 - 9 * B - 6 * C) * x * x * x + (-18 + 12 * B + 6 * C) * x * x + (6 - 2 * B)) / 6;
    if (x < 2)
        return ((-B - 6 * C) * x * x * x + (6 * B + 30 * C) * x * x + (-12 * B - 48 * C) * x + (8 * B + 24 * C)) / 6;
    return 0;
}

static double weight(enum gf_filter f, double x)
{
    switch (f) {
    case GF_FILTER_LINEAR: return fabs(x) < 1 ? 1 - fabs(x) : 0;
    case GF_FILTER_CATROM: return cubic(x, 0, 0.5);
    case GF_FILTER_MITCHELL: return cubic(x, 1.0 / 3, 1.0 / 3);
    default: return fabs(x) < 3 ? sinc(x) * sinc(x / 3) : 0; /* Lanczos, 3 lobes */
    }
}

void gf_resize_taps_free(gf_resize_taps *t)
{
    free(t->start);
    free(t->w);
    t->start = NULL;
    t->w = NULL;
}

struct axis {
    enum gf_filter f;
    int in_n;
    double scale, stretch, support;
};

/* The weights of output o (unnormalised) in dw, over the window [*lo, *hi),
 * zero weights trimmed from its ends; returns their sum. */
static double window(const struct axis *a, int o, double *dw, long *lo, long *hi)
{
    const double c = (o + 0.5) / a->scale;
    if (a->f == GF_FILTER_POINT) {
        *lo = (long)floor(c) < a->in_n ? (long)floor(c) : a->in_n - 1;
        *hi = *lo + 1;
        dw[0] = 1;
        return 1;
    }
    const double edge = a->f == GF_FILTER_BOX ? 0 : 0.5; /* box: the footprint's own ends */
    *lo = (long)floor(c - a->support + edge);
    *hi = (long)ceil(c + a->support + edge);
    *lo = *lo < 0 ? 0 : *lo;
    *hi = *hi > a->in_n ? a->in_n : *hi;
    double sum = 0;
    for (long k = *lo; k < *hi; k++) {
        const double v = a->f == GF_FILTER_BOX ? fmax(0, fmin(k + 1, c + a->support) - fmax(k, c - a->support))
                                               : weight(a->f, (k + 0.5 - c) / a->stretch);
        dw[k - *lo] = v;
        sum += v;
    }
    long first = 0;
    while (*hi - *lo - first > 1 && dw[*hi - 1 - *lo] == 0)
        (*hi)--;
    while (first < *hi - *lo - 1 && dw[first] == 0)
        first++;
    memmove(dw, dw + first, (size_t)(*hi - *lo - first) * sizeof *dw);
    *lo += first;
    return sum;
}

static gf_status axis_taps(enum gf_filter f, int in_n, int out_n, gf_resize_taps *t)
{
    struct axis a = {f, in_n, (double)out_n / in_n, 1, 0};
    a.stretch = a.scale < 1 ? 1 / a.scale : 1;
    a.support = a.stretch * (a.f == GF_FILTER_POINT || a.f == GF_FILTER_BOX ? 0.5
                             : a.f == GF_FILTER_LINEAR                      ? 1
                             : a.f == GF_FILTER_LANCZOS                     ? 3
                                                                            : 2);
    const double most = ceil(2 * a.support) + 2; /* a window's most samples */
    const size_t wide = most < in_n ? (size_t)most : (size_t)in_n;
    double *dw = NULL, *sum = NULL; /* each output's weights (wide apart), and their sum */
    long *lo = NULL, *hi = NULL;
    memset(t, 0, sizeof *t);
    gf_status st;
    if ((st = alloc_array((size_t)out_n * wide, sizeof *dw, (void **)&dw)) ||
        (st = alloc_array((size_t)out_n, sizeof *sum, (void **)&sum)) ||
        (st = alloc_array((size_t)out_n, sizeof *lo, (void **)&lo)) ||
        (st = alloc_array((size_t)out_n, sizeof *hi, (void **)&hi)))
        goto out;
    t->n = 1;
    for (int o = 0; o < out_n; o++) {
        sum[o] = window(&a, o, dw + (size_t)o * wide, &lo[o], &hi[o]);
        t->n = hi[o] - lo[o] > t->n ? (int)(hi[o] - lo[o]) : t->n;
    }
    if ((st = alloc_array((size_t)out_n, sizeof *t->start, (void **)&t->start)) ||
        (st = alloc_array((size_t)out_n * (size_t)t->n, sizeof *t->w, (void **)&t->w))) {
        gf_resize_taps_free(t);
        goto out;
    }
    for (int o = 0; o < out_n; o++) {
        const double *v = dw + (size_t)o * wide;
        /* the window's first sample at start + d: start + n stays inside the axis */
        const long start = lo[o] < in_n - t->n ? lo[o] : in_n - t->n, d = lo[o] - start;
        int32_t *w = t->w + (size_t)o * t->n;
        memset(w, 0, (size_t)t->n * sizeof *w);
        /* to fixed point summing to 2^GF_RESIZE_BITS exactly: the rounding's remainder goes to the largest weight */
        int64_t total = 0;
        long big = 0;
        for (long k = 0; k < hi[o] - lo[o]; k++) {
            w[d + k] = (int32_t)lround(v[k] / sum[o] * (1 << GF_RESIZE_BITS));
            total += w[d + k];
            big = fabs(v[k]) > fabs(v[big]) ? k : big;
        }
        w[d + big] += (int32_t)((1 << GF_RESIZE_BITS) - total);
        t->start[o] = (int32_t)start;
    }
out:
    free(dw);
    free(sum);
    free(lo);
    free(hi);
    return st;
}

static gf_status copy_taps(const gf_resize_taps *from, int out_n, gf_resize_taps *to)
{
    memset(to, 0, sizeof *to);
    gf_status st;
    if ((st = alloc_array((size_t)out_n, sizeof *to->start, (void **)&to->start)) ||
        (st = alloc_array((size_t)out_n * (size_t)from->n, sizeof *to->w, (void **)&to->w))) {
        gf_resize_taps_free(to);
        return st;
    }
    to->n = from->n;
    memcpy(to->start, from->start, (size_t)out_n * sizeof *to->start);
    memcpy(to->w, from->w, (size_t)out_n * (size_t)from->n * sizeof *to->w);
    return GF_OK;
}

/* The two axes last computed, shared by every thread: the images of a batch
 * mostly share their size, and a square image its two axes. */
static struct {
    pthread_mutex_t lock;
    struct {
        enum gf_filter f;
        int in_n, out_n;
        gf_resize_taps t;
    } slot[2];
    int next;
} cache = {PTHREAD_MUTEX_INITIALIZER, {{0}}, 0};

/* axis_taps through the cache: *t is the caller's own copy. */
static gf_status cached_axis_taps(enum gf_filter f, int in_n, int out_n, gf_resize_taps *t)
{
    gf_status st = GF_OK;
    int hit = 0;
    pthread_mutex_lock(&cache.lock);
    for (int i = 0; i < 2 && !hit; i++)
        if (cache.slot[i].t.w && cache.slot[i].f == f && cache.slot[i].in_n == in_n && cache.slot[i].out_n == out_n)
            hit = 1, st = copy_taps(&cache.slot[i].t, out_n, t);
    pthread_mutex_unlock(&cache.lock);
    if (hit)
        return st;
    if ((st = axis_taps(f, in_n, out_n, t)))
        return st;
    pthread_mutex_lock(&cache.lock);
    const int i = cache.next;
    gf_resize_taps_free(&cache.slot[i].t);
    if (copy_taps(t, out_n, &cache.slot[i].t) == GF_OK) { /* out of memory: just not kept */
        cache.slot[i].f = f, cache.slot[i].in_n = in_n, cache.slot[i].out_n = out_n;
        cache.next = !i;
    }
    pthread_mutex_unlock(&cache.lock);
    return GF_OK;
}

gf_status gf_resize_plan(const gf_step *s, const gf_shape *in, const gf_shape *out, gf_resize_taps *tx,
                         gf_resize_taps *ty)
{
    enum gf_filter f = GF_RESIZE_ARGS(s).filter;
    if (f == GF_FILTER_DEFAULT)
        f = (double)out->width * out->height > (double)in->width * in->height ? GF_FILTER_MITCHELL : GF_FILTER_LANCZOS;
    gf_status st = cached_axis_taps(f, in->width, out->width, tx);
    if (!st && (st = cached_axis_taps(f, in->height, out->height, ty)))
        gf_resize_taps_free(tx);
    return st;
}

gf_cpu_fn gf_cpu_resize;

gf_status gf_cpu_resize(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, C = in->channels, d = in->depth, OW = out->width, OH = out->height;
    if (OW == W && OH == H) { /* the geometry left the size as it is */
        memcpy(out->data, in->data, in->stride * (size_t)H);
        return GF_OK;
    }
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    gf_resize_taps tx, ty;
    int32_t *mid = NULL;
    gf_status st = gf_resize_plan(s, &is, &os, &tx, &ty);
    if (st)
        return st;
    if ((st = alloc_array((size_t)OW * C * (size_t)H, sizeof *mid, (void **)&mid)))
        goto out;
    for (int y = 0; y < H; y++) /* rows: OW x H x C, 8 fraction bits */
        for (int x = 0; x < OW; x++)
            for (int c = 0; c < C; c++) {
                int64_t sum = 0;
                for (int k = 0; k < tx.n; k++)
                    sum += (int64_t)tx.w[(size_t)x * tx.n + k] *
                           ld(in->data, ((size_t)y * W + tx.start[x] + k) * C + c, d);
                mid[((size_t)y * OW + x) * C + c] = gf_resize_mid(sum);
            }
    for (int y = 0; y < OH; y++) /* columns */
        for (int x = 0; x < OW; x++)
            for (int c = 0; c < C; c++) {
                int64_t sum = 0;
                for (int k = 0; k < ty.n; k++)
                    sum += (int64_t)ty.w[(size_t)y * ty.n + k] * mid[((size_t)(ty.start[y] + k) * OW + x) * C + c];
                put(out->data, ((size_t)y * OW + x) * C + c, d, gf_resize_out(sum, gf_maxval(d)));
            }
out:
    free(mid);
    gf_resize_taps_free(&tx);
    gf_resize_taps_free(&ty);
    return st;
}
