/* SPDX-License-Identifier: MIT */
/* -erode R and -dilate R, the reference: the minimum (maximum) of each
 * channel over the (2R+1) x (2R+1) square, outside the image read by the
 * border rule; separable, rows then columns.  A radius beyond the side n of
 * an axis gives what n gives (the window then holds every value of the
 * line, and for the zero border a zero): gf_rank_radius. */
#include "config.h"

#include "rank.h"
#include "sample.h"

gf_cpu_fn gf_cpu_rank;

/* One axis over the image's W C sample columns (rows: H C lines of W, step
 * C; columns: W C lines of H, step W C). */
static gf_status pass(const gf_step *s, const gf_image *in, gf_image *out, int rows)
{
    const long W = in->width, H = in->height, C = in->channels, d = in->depth;
    const long len = rows ? W : H, lines = rows ? H * C : W * C;
    const size_t step = rows ? (size_t)C : (size_t)W * C;
    const long R = gf_rank_radius(GF_RANK_ARGS(s).radius, len);
    long *map = NULL;
    gf_status st = border_map(len, R, s->border, &map);
    if (st)
        return st;
    for (long l = 0; l < lines; l++) {
        const size_t base = rows ? (size_t)(l / C) * W * C + (size_t)(l % C) : (size_t)l;
        for (long i = 0; i < len; i++) {
            uint32_t v = GF_RANK_ARGS(s).max ? 0 : gf_maxval((int)d);
            for (long k = i; k <= i + 2 * R; k++) {
                const uint32_t x = map[k] < 0 ? 0 : ld(in->data, base + (size_t)map[k] * step, (int)d);
                v = GF_RANK_ARGS(s).max ? (x > v ? x : v) : (x < v ? x : v);
            }
            put(out->data, base + (size_t)i * step, (int)d, v);
        }
    }
    free(map);
    return GF_OK;
}

gf_status gf_cpu_rank(const gf_step *s, const gf_image *in, gf_image *out)
{
    gf_image rows;
    gf_status st = gf_image_alloc(&rows, in->width, in->height, in->channels, in->depth);
    if (!st && !(st = pass(s, in, &rows, 1)))
        st = pass(s, &rows, out, 0);
    gf_image_free(&rows);
    return st;
}
