/* SPDX-License-Identifier: MIT */
/* Rotation by any angle, the reference.  Right angles are exact moves
 * (orient.c); other angles sample bilinearly on an enlarged canvas, in the
 * fixed point of numeric.h (gf_rotate_axis, gf_rotate_mix): output pixel
 * centre p' (relative to the output centre) reads the input at R(-angle) p'
 * (relative to the input centre); neighbours outside the input read the
 * background. */
#include "config.h"

#include <math.h>

#include "rotate.h"
#include "sample.h"

gf_cpu_fn gf_cpu_rotate;

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
    if (!gf_has_alpha(channels) && s->background.given && !opaque(&s->background))
        return channels + 1;
    return channels;
}

void gf_rotate_background(const gf_step *s, int out_channels, int depth, uint32_t bg[4])
{
    uint32_t v[4] = {0, 0, 0, 65535}; /* black */
    if (s->background.given)
        for (int i = 0; i < 4; i++)
            v[i] = s->background.rgba[i];
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

gf_rotation gf_rotate_plan(const gf_step *s, const gf_shape *in, const gf_shape *out)
{
    const double a = GF_ROTATE_ARGS(s).angle * M_PI / 180.0, ca = cos(a), sa = sin(a), one = 4294967296.0;
    /* the source of output pixel (0, 0): its centre, 0.5 - OW / 2, 0.5 - OH / 2 from the output's */
    const double px = 0.5 - out->width / 2.0, py = 0.5 - out->height / 2.0;
    gf_rotation r = {
        llround((px * ca + py * sa + in->width / 2.0 - 0.5) * one),
        llround((-px * sa + py * ca + in->height / 2.0 - 0.5) * one),
        llround(ca * one), llround(sa * one), llround(-sa * one), llround(ca * one),
        in->depth == 16 ? 16 : 8,
    };
    return r;
}

void gf_rotate_pixel(const gf_rotation *r, const uint32_t bg[4], const gf_image *in, gf_image *out, int x, int y)
{
    const int W = in->width, H = in->height, C = in->channels, d = in->depth, OC = out->channels;
    long ix, iy;
    uint32_t fx, fy;
    gf_rotate_axis(r->x0 + x * r->xx + y * r->xy, r->bits, &ix, &fx);
    gf_rotate_axis(r->y0 + x * r->yx + y * r->yy, r->bits, &iy, &fy);
    for (int c = 0; c < OC; c++) {
        uint32_t v[4]; /* the neighbours (ix, iy), (ix + 1, iy), (ix, iy + 1), (ix + 1, iy + 1) */
        for (int k = 0; k < 4; k++) {
            const long xi = ix + (k & 1), yi = iy + (k >> 1);
            if (xi < 0 || yi < 0 || xi >= W || yi >= H)
                v[k] = bg[c];
            else if (c < C)
                v[k] = ld(in->data, ((size_t)yi * W + xi) * C + c, d);
            else
                v[k] = gf_maxval(d); /* alpha added to an opaque image */
        }
        put(out->data, ((size_t)y * out->width + x) * OC + c, d,
            gf_rotate_mix(v[0], v[1], v[2], v[3], fx, fy, r->bits));
    }
}

gf_status gf_cpu_rotate(const gf_step *s, const gf_image *in, gf_image *out)
{
    if (GF_ROTATE_ARGS(s).right) {
        gf_orient_image(GF_ROTATE_ARGS(s).orient, in, out);
        return GF_OK;
    }
    const gf_shape is = gf_image_shape(in), os = gf_image_shape(out);
    const gf_rotation r = gf_rotate_plan(s, &is, &os);
    uint32_t bg[4];
    gf_rotate_background(s, out->channels, in->depth, bg);
    for (int y = 0; y < out->height; y++)
        for (int x = 0; x < out->width; x++)
            gf_rotate_pixel(&r, bg, in, out, x, y);
    return GF_OK;
}
