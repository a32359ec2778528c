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

gf_status gf_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, gf_format *fmt)
{
    *fmt = gf_sniff(buf, n);
    switch (*fmt) {
    case GF_FMT_PNG: return gf_png_decode(buf, n, o, img);
    case GF_FMT_JPEG: return gf_jpeg_decode(buf, n, o, img);
    case GF_FMT_PNM: return gf_pnm_decode(buf, n, o, img);
    default:
        return gf_error(GF_EFORMAT, n ? "not a PNG, JPEG or PNM image" : "empty file, not an image");
    }
}
