/* SPDX-License-Identifier: MIT */
/* Format sniffing and dispatch. */
#include "config.h"
#include "codec.h"

#include <string.h>
#include <strings.h>

gf_format gf_sniff(const uint8_t *b, size_t n)
{
    if (n >= 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0)
        return GF_FMT_PNG;
    if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF)
        return GF_FMT_JPEG;
    if (n >= 2 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7')
        return GF_FMT_PNM;
    return GF_FMT_NONE;
}

gf_format gf_format_from_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash))
        return GF_FMT_NONE;
    dot++;
    if (!strcasecmp(dot, "png"))
        return GF_FMT_PNG;
    if (!strcasecmp(dot, "jpg") || !strcasecmp(dot, "jpeg"))
        return GF_FMT_JPEG;
    if (!strcasecmp(dot, "ppm") || !strcasecmp(dot, "pgm") || !strcasecmp(dot, "pam") || !strcasecmp(dot, "pnm"))
        return GF_FMT_PNM;
    return GF_FMT_NONE;
}

const char *gf_format_name(gf_format f)
{
    switch (f) {
    case GF_FMT_PNG: return "PNG";
    case GF_FMT_JPEG: return "JPEG";
    case GF_FMT_PNM: return "PNM";
    default: return "unknown";
    }
}

static uint32_t be(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    while (bytes--)
        v = v << 8 | *p++;
    return v;
}

/* gf_codec_cpu_ms's cost of a sample, in ns. */
static double sample_ns(gf_format f, int encode)
{
    switch (f) {
    case GF_FMT_NONE: return 0;
    case GF_FMT_JPEG: return encode ? 1.2 : 1.1;
    case GF_FMT_PNG: return encode ? 10.0 : 6.0;
    default: return 0.3;
    }
}

double gf_codec_cpu_ms(gf_format fin, gf_shape in, gf_format fout, gf_shape out)
{
    return (sample_ns(fin, 0) * in.width * in.height * in.channels +
            sample_ns(fout, 1) * out.width * out.height * out.channels) / 1e6;
}

int gf_peek_shape(const uint8_t *b, size_t n, gf_shape *s)
{
    static const int png_channels[7] = {1, 0, 3, 3, 2, 0, 4}; /* by colour type; palettes become RGB (or RGBA) */
    if (gf_sniff(b, n) == GF_FMT_PNG && n >= 29 && !memcmp(b + 12, "IHDR", 4) && b[25] <= 6 && png_channels[b[25]]) {
        *s = (gf_shape){(int)be(b + 16, 4), (int)be(b + 20, 4), png_channels[b[25]], b[24] == 16 ? 16 : 8};
        return s->width > 0 && s->height > 0 ? 0 : -1;
    }
    if (gf_sniff(b, n) != GF_FMT_JPEG)
        return -1;
    for (size_t i = 2; i + 4 <= n && b[i] == 0xFF;) { /* marker segments up to the frame header */
        const uint8_t m = b[i + 1];
        const size_t len = be(b + i + 2, 2);
        if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
            if (i + 10 > n)
                return -1;
            *s = (gf_shape){(int)be(b + i + 7, 2), (int)be(b + i + 5, 2), b[i + 9] >= 3 ? 3 : 1, 8};
            return s->width > 0 && s->height > 0 ? 0 : -1;
        }
        i += 2 + len;
    }
    return -1;
}

gf_status gf_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, gf_format *fmt)
{
    if (o->meta)
        *o->meta = (gf_meta){0};
    *fmt = gf_sniff(buf, n);
    switch (*fmt) {
    case GF_FMT_PNG: return gf_png_decode(buf, n, o, img);
    case GF_FMT_JPEG: return gf_jpeg_decode(buf, n, o, img);
    case GF_FMT_PNM: return gf_pnm_decode(buf, n, o, img);
    default:
        return gf_error(GF_EFORMAT, n ? "not a PNG, JPEG or PNM image" : "empty file, not an image");
    }
}
