/* SPDX-License-Identifier: MIT */
/* -convolve and -edge, the reference.  Output (x, y) of a colour channel
 * sums q[j][i] v(x + i - ox, y + j - oy) over the kernel (a correlation, as
 * ImageMagick applies it), outside the image read by the border rule:
 * -convolve takes gf_convolve_value of it and the bias; -edge sums the
 * kernel (gx) and its transpose (gy) and takes gf_edge_value.  Alpha is
 * copied. */
#include "config.h"

#include "convolve.h"
#include "sample.h"

gf_cpu_fn gf_cpu_convolve;

gf_status gf_cpu_convolve(const gf_step *s, const gf_image *in, gf_image *out)
{
    const struct gf_convolve_args *k = &GF_CONVOLVE_ARGS(s);
    const int W = in->width, H = in->height, C = in->channels, cc = gf_color_channels(C), d = in->depth;
    const long rx = kernel_reach(k->ox, k->w), ry = kernel_reach(k->oy, k->h);
    const int64_t bias = gf_convolve_bias(s, d);
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = border_map(W, rx, s->border, &mx)) || (st = border_map(H, ry, s->border, &my)))
        goto out;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const size_t o = ((size_t)y * W + x) * C;
            for (int c = 0; c < cc; c++) {
                int64_t gx = 0, gy = 0;
                for (int j = 0; j < k->h; j++)
                    for (int i = 0; i < k->w; i++) {
                        const long sx = mx[x + i - k->ox + rx], sy = my[y + j - k->oy + ry];
                        const int64_t v = sx < 0 || sy < 0 ? 0 : ld(in->data, ((size_t)sy * W + sx) * C + c, d);
                        gx += k->q[j * k->w + i] * v;
                        if (k->edge) /* the transpose (-edge's kernels are square) */
                            gy += k->q[i * k->w + j] * v;
                    }
                put(out->data, o + c, d,
                    k->edge ? gf_edge_value(gx, gy, gf_maxval(d)) : gf_convolve_value(gx, bias, gf_maxval(d)));
            }
            if (cc < C)
                put(out->data, o + cc, d, ld(in->data, o + cc, d));
        }
out:
    free(mx);
    free(my);
    return st;
}
