/* SPDX-License-Identifier: MIT */
/* Rotation, the fast CPU path: at angles other than right ones, bands of
 * output rows over up to `threads` threads, each output pixel computed as
 * the reference computes it (src/cpu/rotate.c, numeric.h): where all four
 * neighbours of an 8-bit pixel lie inside the input (and no alpha is added),
 * straight from the rows with the same bilinear mix in 32-bit arithmetic
 * (its sums stay under 2^25); where all four lie outside, the background
 * itself (the mix of four equal samples is that sample); elsewhere by the
 * reference's own gf_rotate_pixel.  Right angles are the fast moves
 * (src/fast/orient.c). */
#include "config.h"

#include "../cpu/sample.h"
#include "../parallel.h"

struct rotate {
    const gf_image *in;
    gf_image *out;
    gf_rotation r;
    uint32_t bg[4];
    int rows; /* per task */
};

static void band(void *ctx, int k)
{
    const struct rotate *m = ctx;
    const gf_image *in = m->in;
    gf_image *out = m->out;
    const gf_rotation *r = &m->r;
    const int W = in->width, H = in->height, C = in->channels;
    const int inside8 = in->depth == 8 && out->channels == C; /* the direct mix applies */
    const int y0 = k * m->rows, y1 = y0 + m->rows < out->height ? y0 + m->rows : out->height;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < out->width; x++) {
            long ix, iy;
            uint32_t fx, fy;
            gf_rotate_axis(r->x0 + x * r->xx + y * r->xy, r->bits, &ix, &fx);
            gf_rotate_axis(r->y0 + x * r->yx + y * r->yy, r->bits, &iy, &fy);
            if (ix + 1 < 0 || iy + 1 < 0 || ix >= W || iy >= H) { /* the background alone */
                for (int c = 0; c < out->channels; c++)
                    put(out->data, ((size_t)y * (size_t)out->width + (size_t)x) * (size_t)out->channels + (size_t)c,
                        out->depth, m->bg[c]);
                continue;
            }
            if (!inside8 || ix < 0 || iy < 0 || ix + 1 >= W || iy + 1 >= H) {
                gf_rotate_pixel(r, m->bg, in, out, x, y);
                continue;
            }
            const uint8_t *a = (const uint8_t *)in->data + ((size_t)iy * (size_t)W + (size_t)ix) * (size_t)C;
            const uint8_t *b = a + (size_t)W * (size_t)C; /* the row below */
            uint8_t *o = (uint8_t *)out->data + ((size_t)y * (size_t)out->width + (size_t)x) * (size_t)C;
            const uint32_t gx = 256 - fx, gy = 256 - fy;
            for (int c = 0; c < C; c++) {
                const uint32_t top = a[c] * gx + a[c + C] * fx, bottom = b[c] * gx + b[c + C] * fx;
                o[c] = (uint8_t)((top * gy + bottom * fy + 32768) >> 16);
            }
        }
}

gf_fast_fn gf_fast_rotate;

gf_status gf_fast_rotate(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    if (s->rotate.right) {
        gf_fast_orient_image(s->rotate.orient, in, out, threads);
        return GF_OK;
    }
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    int rows = (out->height + 4 * threads - 1) / (4 * threads);
    struct rotate m = {in, out, gf_rotate_plan(s, &is, &os), {0}, rows};
    gf_rotate_background(s, out->channels, in->depth, m.bg);
    gf_parallel_for((out->height + m.rows - 1) / m.rows, threads, band, &m);
    return GF_OK;
}
