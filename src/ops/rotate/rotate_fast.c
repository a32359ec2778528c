/* SPDX-License-Identifier: MIT */
/* Rotation, the fast CPU path: at angles other than right ones, bands of
 * output rows over up to `threads` threads, each output pixel computed as
 * the reference computes it (src/ops/rotate/rotate_ref.c, numeric.h).  On each row the
 * pixels whose four neighbours all lie inside the input form one run (the
 * inside is convex); for an 8-bit image (no alpha added) the run steps its
 * source positions by one 64-bit add a pixel and takes the same bilinear mix
 * in 32-bit arithmetic (its sums stay under 2^25), the channel count a
 * constant.  Elsewhere, where all four neighbours lie outside, the
 * background itself (the mix of four equal samples is that sample), else
 * the reference's own gf_rotate_pixel.  Right angles are the fast moves
 * (src/ops/orient/orient_fast.c). */
#include "config.h"

#include <math.h>

#include "parallel.h"
#include "rotate.h"
#include "sample.h"

struct rotate {
    const gf_image *in;
    gf_image *out;
    gf_rotation r;
    uint32_t bg[4];
    int rows; /* per task */
};

/* A row's source positions: v = a + x d (2^-32 pixel, the rounding's half
 * included), the left (upper) neighbour v >> 32, its weight the top `bits`
 * of v's low word. */
struct axis {
    int64_t a, d;
};

/* Whether pixel x's neighbours along this axis, v >> 32 and the next, lie in [0, n). */
static int within(struct axis s, long x, int n)
{
    const int64_t v = s.a + x * s.d;
    return v >= 0 && (v >> 32) < n - 1;
}

/* Narrows [*x0, *x1) towards the pixels whose neighbours along s lie in [0, n), from the
 * real solution of 0 <= a + x d < (n - 1) 2^32 (its ends checked by within after). */
static void clip(struct axis s, int n, long *x0, long *x1)
{
    const double hi = ldexp((double)n - 1, 32);
    double lo_x, hi_x;
    if (s.d == 0) {
        if (!within(s, 0, n))
            *x1 = *x0;
        return;
    }
    lo_x = -(double)s.a / (double)s.d, hi_x = (hi - (double)s.a) / (double)s.d;
    if (lo_x > hi_x) {
        const double t = lo_x;
        lo_x = hi_x, hi_x = t;
    }
    if (lo_x > (double)*x0)
        *x0 = lo_x < (double)*x1 ? (long)ceil(lo_x) : *x1;
    if (hi_x + 1 < (double)*x1)
        *x1 = hi_x + 1 > (double)*x0 ? (long)floor(hi_x) + 1 : *x0;
}

/* Pixels [x0, x1) of an output row of 8-bit samples, every neighbour inside. */
static inline void run8(const uint8_t *in, uint8_t *o, struct axis sx, struct axis sy, long x0, long x1, size_t W,
                        int C)
{
    int64_t vx = sx.a + x0 * sx.d, vy = sy.a + x0 * sy.d;
    for (long x = x0; x < x1; x++, vx += sx.d, vy += sy.d) {
        const uint32_t fx = (uint32_t)vx >> 24, fy = (uint32_t)vy >> 24, gx = 256 - fx, gy = 256 - fy;
        const uint8_t *a = in + ((size_t)(vy >> 32) * W + (size_t)(vx >> 32)) * (size_t)C, *b = a + W * (size_t)C;
        for (int c = 0; c < C; c++) {
            const uint32_t top = a[c] * gx + a[c + C] * fx, bottom = b[c] * gx + b[c + C] * fx;
            o[x * C + c] = (uint8_t)((top * gy + bottom * fy + 32768) >> 16);
        }
    }
}

/* Output pixel (x, y) outside the run: the background, or the reference. */
static void edge_pixel(const struct rotate *m, struct axis sx, struct axis sy, long x, long y)
{
    const gf_image *in = m->in;
    gf_image *out = m->out;
    const int64_t vx = sx.a + x * sx.d, vy = sy.a + x * sy.d;
    if ((vx >> 32) < -1 || (vy >> 32) < -1 || (vx >> 32) >= in->width || (vy >> 32) >= in->height) {
        for (int c = 0; c < out->channels; c++)
            put(out->data, ((size_t)y * (size_t)out->width + (size_t)x) * (size_t)out->channels + (size_t)c, out->depth,
                m->bg[c]);
        return;
    }
    gf_rotate_pixel(&m->r, m->bg, in, out, (int)x, (int)y);
}

static void band(void *ctx, int k)
{
    const struct rotate *m = ctx;
    const gf_image *in = m->in;
    gf_image *out = m->out;
    const gf_rotation *r = &m->r;
    const int W = in->width, H = in->height, C = in->channels, OW = out->width;
    const int inside8 = in->depth == 8 && out->channels == C; /* the direct mix applies */
    const int64_t half = (int64_t)1 << (31 - r->bits);
    const int y0 = k * m->rows, y1 = y0 + m->rows < out->height ? y0 + m->rows : out->height;
    for (long y = y0; y < y1; y++) {
        const struct axis sx = {r->x0 + y * r->xy + half, r->xx}, sy = {r->y0 + y * r->yy + half, r->yx};
        long xa = 0, xb = inside8 ? OW : 0; /* the run */
        clip(sx, W, &xa, &xb);
        clip(sy, H, &xa, &xb);
        while (xa < xb && !(within(sx, xa, W) && within(sy, xa, H)))
            xa++;
        while (xb > xa && !(within(sx, xb - 1, W) && within(sy, xb - 1, H)))
            xb--;
        for (long x = 0; x < xa; x++)
            edge_pixel(m, sx, sy, x, y);
        uint8_t *o = (uint8_t *)out->data + (size_t)y * (size_t)OW * (size_t)C;
        switch (C) { /* the channel count a constant */
        case 1: run8(in->data, o, sx, sy, xa, xb, (size_t)W, 1); break;
        case 2: run8(in->data, o, sx, sy, xa, xb, (size_t)W, 2); break;
        case 3: run8(in->data, o, sx, sy, xa, xb, (size_t)W, 3); break;
        default: run8(in->data, o, sx, sy, xa, xb, (size_t)W, 4); break;
        }
        for (long x = xb > xa ? xb : xa; x < OW; x++)
            edge_pixel(m, sx, sy, x, y);
    }
}

gf_fast_fn gf_fast_rotate;

gf_status gf_fast_rotate(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    if (GF_ROTATE_ARGS(s).right) {
        gf_fast_orient_image(GF_ROTATE_ARGS(s).orient, in, out, threads);
        return GF_OK;
    }
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    int rows = (out->height + 4 * threads - 1) / (4 * threads);
    struct rotate m = {in, out, gf_rotate_plan(s, &is, &os), {0}, rows};
    gf_rotate_background(s, out->channels, in->depth, m.bg);
    gf_parallel_for((out->height + m.rows - 1) / m.rows, threads, band, &m);
    return GF_OK;
}
