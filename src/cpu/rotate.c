/* SPDX-License-Identifier: MIT */
/* Rotation by any angle, the reference.  Right angles are exact moves
 * (orient.c); other angles sample bilinearly on an enlarged canvas:
 * output pixel centre p' (relative to the output centre) reads the input at
 * R(-angle) p' (relative to the input centre); neighbours outside the input
 * read the background. */
#include "config.h"

#include <math.h>

#include "sample.h"

void gf_rotate_shape(double angle, int w, int h, int *ow, int *oh)
{
    double a = angle * M_PI / 180.0, c = fabs(cos(a)), s = fabs(sin(a));
    /* The 1e-9 keeps 89.9999999999 degrees from growing a column of rounding noise. */
    *ow = (int)ceil(w * c + h * s - 1e-9);
    *oh = (int)ceil(w * s + h * c - 1e-9);
    if (*ow < 1)
        *ow = 1;
    if (*oh < 1)
        *oh = 1;
}

static int opaque(const gf_color *bg)
{
    return bg->rgba[3] == 65535;
}

int gf_rotate_channels(const gf_step *s, int channels)
{
    if (!gf_has_alpha(channels) && s->bg.given && !opaque(&s->bg))
        return channels + 1;
    return channels;
}

void gf_rotate_background(const gf_step *s, int out_channels, int depth, uint32_t bg[4])
{
    uint32_t v[4] = {0, 0, 0, 65535}; /* black */
    if (s->bg.given)
        for (int i = 0; i < 4; i++)
            v[i] = s->bg.rgba[i];
    else if (gf_has_alpha(out_channels))
        v[3] = 0; /* none */
    if (depth == 8)
        for (int i = 0; i < 4; i++)
            v[i] = (v[i] + 128) / 257;
    if (out_channels <= 2) { /* gray: Rec. 601 luma, rounded */
        uint32_t g = (uint32_t)((299ull * v[0] + 587ull * v[1] + 114ull * v[2] + 500) / 1000);
        bg[0] = g;
        bg[1] = v[3];
    } else {
        for (int i = 0; i < 4; i++)
            bg[i] = v[i];
    }
}

gf_status gf_cpu_rotate(const gf_step *s, const gf_image *in, gf_image *out)
{
    if (s->variant >= 0) /* a right angle (parse_rotate) */
        return gf_cpu_orient(s, in, out);
    const int W = in->width, H = in->height, C = in->channels, d = in->depth;
    const int OC = out->channels, OW = out->width, OH = out->height;
    const uint32_t max = gf_maxval(d);
    uint32_t bg[4];
    gf_rotate_background(s, OC, d, bg);
    const double a = s->angle * M_PI / 180.0, ca = cos(a), sa = sin(a);
    for (int y = 0; y < OH; y++)
        for (int x = 0; x < OW; x++) {
            double px = x + 0.5 - OW / 2.0, py = y + 0.5 - OH / 2.0;
            double sx = px * ca + py * sa + W / 2.0 - 0.5;
            double sy = -px * sa + py * ca + H / 2.0 - 0.5;
            double fx0 = floor(sx), fy0 = floor(sy);
            double fx = sx - fx0, fy = sy - fy0;
            long x0 = (long)fx0, y0 = (long)fy0;
            for (int c = 0; c < OC; c++) {
                double v = 0;
                for (int k = 0; k < 4; k++) {
                    long xi = x0 + (k & 1), yi = y0 + (k >> 1);
                    double wgt = ((k & 1) ? fx : 1 - fx) * ((k >> 1) ? fy : 1 - fy);
                    uint32_t sv;
                    if (xi < 0 || yi < 0 || xi >= W || yi >= H)
                        sv = bg[c];
                    else if (c < C)
                        sv = ld(in->data, ((size_t)yi * W + xi) * C + c, d);
                    else
                        sv = max; /* alpha added to an opaque image */
                    v += wgt * sv;
                }
                long r = (long)floor(v + 0.5);
                put(out->data, ((size_t)y * OW + x) * OC + c, d, (uint32_t)(r < 0 ? 0 : r > (long)max ? max : r));
            }
        }
    return GF_OK;
}
