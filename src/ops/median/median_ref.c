/* SPDX-License-Identifier: MIT */
/* -median R, the reference: each colour sample becomes the median (the
 * middle of the (2R+1)^2 values sorted) of its channel over the square
 * around it, outside the image read by the border rule; alpha is copied.
 * 8-bit windows are counted into 256 bins rather than sorted. */
#include "config.h"

#include "rank/rank.h"
#include "sample.h"

gf_cpu_fn gf_cpu_median;

static int ascending(const void *a, const void *b);

/* The middle of the n values (n odd): by counting for 8-bit samples (the
 * bins, zero between calls, emptied again after), else by sorting. */
static uint32_t middle(uint32_t *v, long n, int depth, long *count)
{
    if (depth == 8) {
        long seen = 0;
        uint32_t m = 0;
        for (long i = 0; i < n; i++)
            count[v[i]]++;
        while ((seen += count[m]) <= n / 2)
            m++;
        for (long i = 0; i < n; i++)
            count[v[i]] = 0;
        return m;
    }
    qsort(v, (size_t)n, sizeof *v, ascending);
    return v[n / 2];
}

static int ascending(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

gf_status gf_median_rows(const gf_step *s, const gf_image *in, gf_image *out, long y0, long y1)
{
    const int W = in->width, H = in->height, C = in->channels, cc = gf_color_channels(C), d = in->depth;
    const long R = GF_RANK_ARGS(s).radius, n = (2 * R + 1) * (2 * R + 1);
    long *mx = NULL, *my = NULL;
    uint32_t *v = NULL;
    long count[256] = {0};
    gf_status st;
    if ((st = border_map(W, R, s->border, &mx)) || (st = border_map(H, R, s->border, &my)) ||
        (st = alloc_array((size_t)n, sizeof *v, (void **)&v)))
        goto out;
    for (long y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            const size_t o = ((size_t)y * W + x) * C;
            for (int c = 0; c < cc; c++) {
                long k = 0;
                for (long j = 0; j <= 2 * R; j++)
                    for (long i = 0; i <= 2 * R; i++) {
                        const long sx = mx[x + i], sy = my[y + j];
                        v[k++] = sx < 0 || sy < 0 ? 0 : ld(in->data, ((size_t)sy * W + sx) * C + c, d);
                    }
                put(out->data, o + c, d, middle(v, n, d, count));
            }
            if (cc < C)
                put(out->data, o + cc, d, ld(in->data, o + cc, d));
        }
out:
    free(mx);
    free(my);
    free(v);
    return st;
}

gf_status gf_cpu_median(const gf_step *s, const gf_image *in, gf_image *out)
{
    return gf_median_rows(s, in, out, 0, in->height);
}
