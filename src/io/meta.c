/* SPDX-License-Identifier: MIT */
/* Metadata an image carries between its decoder and its encoder: freeing,
 * texts, capped inflation of compressed texts, and what an output keeps. */
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
