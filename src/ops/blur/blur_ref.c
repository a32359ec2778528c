/* SPDX-License-Identifier: MIT */
/* Gaussian blur, the reference: separable integer fixed point (numeric.h),
 * horizontal pass first, the border applied in both passes. */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "blur.h"
#include "sample.h"

int gf_blur_radius(double sigma)
{
    return (int)ceil(3.0 * sigma);
}

struct frac {
    double r;
    int i;
};

static int by_fraction(const void *a, const void *b)
{
    const struct frac *x = a, *y = b;
    if (x->r != y->r)
        return x->r > y->r ? -1 : 1;
    return x->i - y->i;
}

gf_status gf_blur_taps(double sigma, int radius, int bits, uint32_t **taps)
{
    double *w = NULL;
    struct frac *fr = NULL;
    uint32_t *q = NULL;
    gf_status st;
    if ((st = alloc_array((size_t)radius + 1, sizeof *w, (void **)&w)) ||
        (st = alloc_array((size_t)radius + 1, sizeof *fr, (void **)&fr)) ||
        (st = alloc_array((size_t)radius + 1, sizeof *q, (void **)&q)))
        goto out;
    double total = 0;
    for (int i = 0; i <= radius; i++) {
        w[i] = exp(-((double)i * i) / (2.0 * sigma * sigma));
        total += i ? 2 * w[i] : w[i];
    }
    /* Largest remainder: floor every tap, then hand the missing units to the
     * taps that lost most, in symmetric pairs, so that the sum is exact. */
    const double one = ldexp(1.0, bits);
    uint64_t sum = 0;
    for (int i = 0; i <= radius; i++) {
        double v = w[i] / total * one;
        q[i] = (uint32_t)floor(v);
        fr[i].r = v - q[i];
        fr[i].i = i;
        sum += i ? 2 * (uint64_t)q[i] : q[i];
    }
    uint64_t missing = ((uint64_t)1 << bits) - sum;
    if (missing & 1) {
        q[0]++;
        missing--;
    }
    qsort(fr + 1, (size_t)radius, sizeof *fr, by_fraction);
    for (int k = 1; k <= radius && missing >= 2; k++, missing -= 2)
        q[fr[k].i]++;
    if (missing) { /* cannot happen: the fractions of the pairs add up to it */
        st = gf_error(GF_EINTERNAL, "blur taps do not sum to 2^%d", bits);
        goto out;
    }
    *taps = q;
    q = NULL;
out:
    free(w);
    free(fr);
    free(q);
    return st;
}

gf_cpu_fn gf_cpu_blur;

gf_status gf_cpu_blur(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, C = in->channels, d = in->depth, R = GF_BLUR_ARGS(s).radius;
    const int sh1 = GF_BLUR_SHIFT1(d), sh2 = GF_BLUR_SHIFT2(d);
    const uint64_t max = gf_maxval(d);
    uint32_t *q = NULL;
    void *t = NULL; /* the horizontal pass: 16-bit for 8-bit images (at most 255 << 8), else 32-bit */
    const int wide = d == 16;
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = gf_blur_taps(GF_BLUR_ARGS(s).sigma, R, GF_BLUR_BITS(d), &q)) ||
        (st = alloc_array((size_t)W * H, (size_t)C * (wide ? 4 : 2), &t)) || (st = border_map(W, R, s->border, &mx)) ||
        (st = border_map(H, R, s->border, &my)))
        goto out;

    for (int y = 0; y < H; y++) {
        const size_t row = (size_t)y * W * C;
        for (int x = 0; x < W; x++)
            for (int c = 0; c < C; c++) {
                uint64_t acc = 0;
                for (int i = -R; i <= R; i++) {
                    long sx = mx[x + i + R];
                    if (sx >= 0)
                        acc += (uint64_t)q[abs(i)] * ld(in->data, row + (size_t)sx * C + c, d);
                }
                const uint32_t v = (uint32_t)((acc + (1ull << (sh1 - 1))) >> sh1);
                if (wide)
                    ((uint32_t *)t)[row + (size_t)x * C + c] = v;
                else
                    ((uint16_t *)t)[row + (size_t)x * C + c] = (uint16_t)v;
            }
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < C; c++) {
                uint64_t acc = 0;
                for (int j = -R; j <= R; j++) {
                    long sy = my[y + j + R];
                    if (sy >= 0) {
                        const size_t k = ((size_t)sy * W + x) * C + c;
                        acc += (uint64_t)q[abs(j)] * (wide ? ((const uint32_t *)t)[k] : ((const uint16_t *)t)[k]);
                    }
                }
                uint64_t v = (acc + (1ull << (sh2 - 1))) >> sh2;
                put(out->data, ((size_t)y * W + x) * C + c, d, (uint32_t)(v > max ? max : v));
            }
out:
    free(q);
    free(t);
    free(mx);
    free(my);
    return st;
}
