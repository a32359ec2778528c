/* SPDX-License-Identifier: MIT */
/* Laplacian, the reference: |8c - sum of the 8 neighbours| (or the
 * 4-neighbour kernel), saturated to the sample range; alpha is copied. */
#include "config.h"

#include "laplacian.h"
#include "sample.h"

gf_cpu_fn gf_cpu_laplacian;

gf_status gf_cpu_laplacian(const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, C = in->channels, d = in->depth;
    const int cc = gf_color_channels(C);
    const int64_t max = gf_maxval(d);
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = border_map(W, 1, s->border, &mx)) || (st = border_map(H, 1, s->border, &my)))
        goto out;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t o = ((size_t)y * W + x) * C;
            for (int c = 0; c < cc; c++) {
                int64_t v[3][3];
                for (int j = 0; j < 3; j++)
                    for (int i = 0; i < 3; i++) {
                        long sx = mx[x + i], sy = my[y + j];
                        v[j][i] = (sx < 0 || sy < 0) ? 0 : ld(in->data, ((size_t)sy * W + sx) * C + c, d);
                    }
                int64_t r = GF_LAPLACIAN_ARGS(s).neighbours == 4
                                ? 4 * v[1][1] - v[0][1] - v[1][0] - v[1][2] - v[2][1]
                                : 9 * v[1][1] - (v[0][0] + v[0][1] + v[0][2] + v[1][0] + v[1][1] + v[1][2] + v[2][0] +
                                                 v[2][1] + v[2][2]);
                if (r < 0)
                    r = -r;
                put(out->data, o + c, d, (uint32_t)(r > max ? max : r));
            }
            if (cc < C)
                put(out->data, o + cc, d, ld(in->data, o + cc, d));
        }
out:
    free(mx);
    free(my);
    return st;
}
