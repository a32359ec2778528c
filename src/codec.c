/* SPDX-License-Identifier: MIT */
/* Format sniffing and dispatch. */
#include "config.h"
#include "codec.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

void gf_meta_free(gf_meta *m)
{
    free(m->icc);
    free(m->exif);
    free(m->xmp);
    free(m->iptc);
    for (size_t i = 0; i < m->ntext; i++)
        free(m->text[i].data);
    free(m->text);
    *m = (gf_meta){0};
}

int gf_meta_empty(const gf_meta *m)
{
    return !m->icc && !m->exif && !m->xmp && !m->density_x && !m->iptc && !m->ntext && !m->gamma && !m->chrm[0] &&
           !m->srgb && !m->no_jfif;
}

int gf_meta_add_text(gf_meta *m, const char *type, const uint8_t *data, size_t n)
{
    size_t bytes = n;
    for (size_t i = 0; i < m->ntext; i++)
        bytes += m->text[i].len;
    if (m->ntext == GF_MAX_TEXTS || bytes > GF_MAX_TEXT_BYTES)
        return 1;
    gf_text *t = realloc(m->text, (m->ntext + 1) * sizeof *t);
    if (!t)
        return -1;
    m->text = t;
    t += m->ntext;
    if (!(t->data = malloc(n ? n : 1)))
        return -1;
    memcpy(t->data, data, n);
    t->len = n;
    snprintf(t->type, sizeof t->type, "%s", type);
    m->ntext++;
    return 0;
}

long gf_inflate_capped(const uint8_t *z, size_t n, size_t most, uint8_t **out)
{
    uint8_t *b = malloc(most ? most : 1);
    z_stream s = {0};
    if (!b || inflateInit(&s) != Z_OK) {
        free(b);
        return -1;
    }
    s.next_in = (Bytef *)z;
    s.avail_in = (uInt)n;
    s.next_out = b;
    s.avail_out = (uInt)most;
    const int rc = inflate(&s, Z_FINISH);
    const long len = (long)s.total_out;
    inflateEnd(&s);
    if (rc != Z_STREAM_END && rc != Z_BUF_ERROR && rc != Z_OK) {
        free(b);
        return -1;
    }
    *out = b;
    return len;
}

int gf_text_comment(const gf_text *t, uint8_t **out, size_t *len)
{
    *out = NULL;
    const uint8_t *d = t->data, *end = t->data + t->len;
    if (!strcmp(t->type, "COM")) {
        if (!(*out = malloc(t->len ? t->len : 1)))
            return -1;
        memcpy(*out, d, t->len);
        *len = t->len;
        return 1;
    }
    const uint8_t *nul = memchr(d, 0, t->len);
    if (!nul || nul - d != 7 || strncasecmp((const char *)d, "comment", 7))
        return 0;
    const uint8_t *text = nul + 1;
    int zipped = !strcmp(t->type, "zTXt");
    if (!strcmp(t->type, "iTXt")) { /* flag, method, language\0, translated keyword\0, text */
        const uint8_t *lang = end - text >= 2 ? text + 2 : NULL;
        const uint8_t *trans = lang ? memchr(lang, 0, (size_t)(end - lang)) : NULL;
        const uint8_t *body = trans ? memchr(trans + 1, 0, (size_t)(end - trans - 1)) : NULL;
        if (!body)
            return 0;
        zipped = text[0] != 0;
        text = body + 1;
    } else if (zipped) { /* method, zlib data */
        if (text == end)
            return 0;
        text++;
    }
    long n = (long)(end - text);
    if (zipped) {
        uint8_t *b;
        if ((n = gf_inflate_capped(text, (size_t)n, GF_MAX_COMMENT, &b)) < 0)
            return 0; /* not inflatable: no comment to give */
        *out = b;
    } else {
        if ((size_t)n > GF_MAX_COMMENT)
            n = (long)GF_MAX_COMMENT;
        if (!(*out = malloc(n ? (size_t)n : 1)))
            return -1;
        memcpy(*out, text, (size_t)n);
    }
    *len = (size_t)n;
    return 1;
}

gf_meta gf_meta_kept(const gf_meta *m, unsigned keep, int channels)
{
    gf_meta k = {0};
    if (!m)
        return k;
    /* a profile's colour space (header bytes 16-19) must be the image's: gray or RGB */
    if ((keep & GF_KEEP_ICC) && m->icc && m->icc_len >= 20 &&
        !memcmp(m->icc + 16, channels <= 2 ? "GRAY" : "RGB ", 4))
        k.icc = m->icc, k.icc_len = m->icc_len;
    if (keep & GF_KEEP_ICC) {
        k.gamma = m->gamma, k.srgb = m->srgb;
        memcpy(k.chrm, m->chrm, sizeof k.chrm);
    }
    k.no_jfif = m->no_jfif;
    if (keep & GF_KEEP_EXIF)
        k.exif = m->exif, k.exif_len = m->exif_len;
    if (keep & GF_KEEP_XMP)
        k.xmp = m->xmp, k.xmp_len = m->xmp_len;
    if (keep & GF_KEEP_DENSITY)
        k.density_unit = m->density_unit, k.density_x = m->density_x, k.density_y = m->density_y;
    if (keep & GF_KEEP_IPTC)
        k.iptc = m->iptc, k.iptc_len = m->iptc_len;
    if (keep & GF_KEEP_TEXT)
        k.text = m->text, k.ntext = m->ntext;
    return k;
}

void gf_meta_for_jpeg(gf_meta *k, const char *name, int quiet)
{
    if (k->exif && k->exif_len > GF_MAX_EXIF) {
        if (!quiet)
            gf_say("%s: warning: EXIF data of %zu bytes not written (a JPEG segment holds %zu)", name, k->exif_len,
                   GF_MAX_EXIF);
        k->exif = NULL, k->exif_len = 0;
    }
    if (k->xmp && k->xmp_len > GF_MAX_XMP) {
        if (!quiet)
            gf_say("%s: warning: XMP of %zu bytes not written (a JPEG segment holds %zu)", name, k->xmp_len,
                   GF_MAX_XMP);
        k->xmp = NULL, k->xmp_len = 0;
    }
}

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

int gf_jpeg_walk(const uint8_t *b, size_t n, int (*visit)(void *ctx, uint8_t marker, const uint8_t *seg, size_t len),
                 void *ctx)
{
    if (n < 4 || b[0] != 0xFF || b[1] != 0xD8)
        return 0;
    for (size_t i = 2;;) {
        if (i + 2 > n || b[i] != 0xFF)
            return 0;
        while (i + 1 < n && b[i + 1] == 0xFF) /* fill bytes */
            i++;
        if (i + 2 > n)
            return 0;
        const uint8_t m = b[i + 1];
        i += 2;
        if (m == 0xD9)
            return 1;
        if (m == 0x00 || m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || i + 2 > n)
            return 0;
        const size_t len = be(b + i, 2);
        if (len < 2 || len > n - i || visit(ctx, m, b + i + 2, len - 2))
            return 0;
        i += len;
        if (m != 0xDA)
            continue;
        for (;;) { /* entropy-coded data: up to a marker other than a stuffed zero or a restart */
            const uint8_t *ff = i < n ? memchr(b + i, 0xFF, n - i) : NULL;
            if (!ff || (size_t)(ff - b) + 1 >= n)
                return 0;
            i = (size_t)(ff - b);
            const uint8_t next = b[i + 1];
            if (next == 0x00 || (next >= 0xD0 && next <= 0xD7) || next == 0xFF)
                i += next == 0xFF ? 1 : 2;
            else
                break;
        }
    }
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
