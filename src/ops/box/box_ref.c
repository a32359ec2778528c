/* SPDX-License-Identifier: MIT */
/* Box stencil, the reference: the exact integer mean of the (2R+1)^2 window
 * (zero-border samples count as 0), rounded half up. */
#include "config.h"

#include "box.h"
#include "sample.h"

gf_cpu_fn gf_cpu_box;

gf_status gf_cpu_box(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, C = in->channels, d = in->depth, R = GF_BOX_ARGS(s).radius;
    const uint64_t n = (uint64_t)(2 * R + 1) * (uint64_t)(2 * R + 1);
    uint64_t *t = NULL;
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = alloc_array((size_t)W * H, (size_t)C * sizeof *t, (void **)&t)) ||
        (st = border_map(W, R, s->border, &mx)) || (st = border_map(H, R, s->border, &my)))
        goto out;

    for (int y = 0; y < H; y++) {
        const size_t row = (size_t)y * W * C;
        for (int x = 0; x < W; x++)
            for (int c = 0; c < C; c++) {
                uint64_t acc = 0;
                for (int i = -R; i <= R; i++) {
                    long sx = mx[x + i + R];
                    if (sx >= 0)
                        acc += ld(in->data, row + (size_t)sx * C + c, d);
                }
                t[row + (size_t)x * C + c] = acc;
            }
    }
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < C; c++) {
                uint64_t acc = 0;
                for (int j = -R; j <= R; j++) {
                    long sy = my[y + j + R];
                    if (sy >= 0)
                        acc += t[((size_t)sy * W + x) * C + c];
                }
                put(out->data, ((size_t)y * W + x) * C + c, d, (uint32_t)((acc + n / 2) / n));
            }
out:
    free(t);
    free(mx);
    free(my);
    return st;
}
