/* SPDX-License-Identifier: MIT */
/* Netpbm: P5 (gray), P6 (RGB) and P7 (PAM, 1-4 channels), 8 and 16 bit
 * (big-endian on disk).  A maxval other than 255/65535 is scaled to the full
 * range of the depth it fits.  The header is checked against the data size
 * before anything is allocated. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "codec.h"

struct rd {
    const uint8_t *b;
    size_t n, i;
};

static void skip_space(struct rd *r)
{
    for (;;) {
        while (r->i < r->n && isspace(r->b[r->i]))
            r->i++;
        if (r->i < r->n && r->b[r->i] == '#')
            while (r->i < r->n && r->b[r->i] != '\n')
                r->i++;
        else
            return;
    }
}

/* A decimal header number; -1 if missing or above `max`. */
static long number(struct rd *r, long max)
{
    skip_space(r);
    long v = 0;
    size_t start = r->i;
    while (r->i < r->n && isdigit(r->b[r->i])) {
        v = v * 10 + (r->b[r->i++] - '0');
        if (v > max)
            return -1;
    }
    return r->i == start ? -1 : v;
}

static int word(struct rd *r, char *out, size_t size)
{
    skip_space(r);
    size_t k = 0;
    while (r->i < r->n && !isspace(r->b[r->i])) {
        if (k + 1 >= size)
            return -1;
        out[k++] = (char)r->b[r->i++];
    }
    out[k] = '\0';
    return k ? 0 : -1;
}

static gf_status pam_header(struct rd *r, long *w, long *h, long *depth, long *maxval)
{
    char key[32], tupl[32] = "";
    *w = *h = *depth = *maxval = -1;
    for (;;) {
        if (word(r, key, sizeof key))
            return gf_error(GF_EFORMAT, "truncated PAM header");
        if (!strcmp(key, "ENDHDR"))
            break;
        if (!strcmp(key, "WIDTH"))
            *w = number(r, INT32_MAX);
        else if (!strcmp(key, "HEIGHT"))
            *h = number(r, INT32_MAX);
        else if (!strcmp(key, "DEPTH"))
            *depth = number(r, 100);
        else if (!strcmp(key, "MAXVAL"))
            *maxval = number(r, 1000000);
        else if (!strcmp(key, "TUPLTYPE")) {
            if (word(r, tupl, sizeof tupl))
                return gf_error(GF_EFORMAT, "bad PAM TUPLTYPE");
        } else {
            return gf_error(GF_EFORMAT, "unknown PAM header field '%s'", key);
        }
    }
    if (*w < 0 || *h < 0 || *depth < 0 || *maxval < 0)
        return gf_error(GF_EFORMAT, "incomplete PAM header");
    if (*depth < 1 || *depth > 4)
        return gf_error(GF_EFORMAT, "PAM depth %ld is not supported (1 to 4 channels)", *depth);
    /* the single whitespace after ENDHDR */
    if (r->i < r->n && r->b[r->i] == '\n')
        r->i++;
    return GF_OK;
}

gf_status gf_pnm_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img)
{
    struct rd r = {buf, n, 2};
    long w, h, c, maxval;
    char kind = (char)buf[1];
    if (kind != '5' && kind != '6' && kind != '7')
        return gf_error(GF_EFORMAT, "PNM variant P%c is not supported (use P5, P6 or P7)", kind);
    if (kind == '7') {
        gf_status st = pam_header(&r, &w, &h, &c, &maxval);
        if (st)
            return st;
    } else {
        c = kind == '5' ? 1 : 3;
        w = number(&r, INT32_MAX);
        h = number(&r, INT32_MAX);
        maxval = number(&r, 1000000);
        if (w < 0 || h < 0 || maxval < 0)
            return gf_error(GF_EFORMAT, "bad PNM header");
        if (r.i >= n || !isspace(buf[r.i]))
            return gf_error(GF_EFORMAT, "truncated PNM header");
        r.i++;
    }
    if (maxval < 1 || maxval > 65535)
        return gf_error(GF_EFORMAT, "PNM maxval %ld is out of range (1 to 65535)", maxval);
    if (w == 0 || h == 0)
        return gf_error(GF_EFORMAT, "invalid image size %ldx%ld", w, h);
    const int wide = maxval > 255, depth = wide ? 16 : 8;
    gf_shape s = {(int)w, (int)h, (int)c, depth}; /* both at most INT32_MAX (number()) */
    gf_status st = gf_shape_check(&s, o->limit_pixels);
    if (st)
        return st;
    size_t bytes;
    if ((st = gf_image_bytes(s.width, s.height, s.channels, depth, &bytes)))
        return st;
    if (bytes > n - r.i)
        return gf_error(GF_EFORMAT, "truncated PNM data (%zu of %zu bytes)", n - r.i, bytes);
    if ((st = gf_image_alloc(img, s.width, s.height, s.channels, depth)))
        return st;
    const uint8_t *p = buf + r.i;
    const size_t count = bytes / (depth / 8);
    const uint32_t full = wide ? 65535 : 255, m = (uint32_t)maxval;
    for (size_t i = 0; i < count; i++) {
        uint32_t v = wide ? (uint32_t)p[2 * i] << 8 | p[2 * i + 1] : p[i];
        if (v > m) {
            gf_image_free(img);
            return gf_error(GF_EFORMAT, "PNM sample %u is above maxval %u", v, m);
        }
        if (m != full)
            v = (v * full + m / 2) / m;
        if (wide)
            ((uint16_t *)img->data)[i] = (uint16_t)v;
        else
            ((uint8_t *)img->data)[i] = (uint8_t)v;
    }
    return GF_OK;
}

gf_status gf_pnm_encode(FILE *f, const gf_image *img, const gf_encode_opts *o)
{
    static const char *const tupl[4] = {"GRAYSCALE", "GRAYSCALE_ALPHA", "RGB", "RGB_ALPHA"};
    const unsigned maxval = gf_maxval(img->depth);
    int ok;
    if (o->pam || gf_has_alpha(img->channels))
        ok = fprintf(f, "P7\nWIDTH %d\nHEIGHT %d\nDEPTH %d\nMAXVAL %u\nTUPLTYPE %s\nENDHDR\n", img->width,
                     img->height, img->channels, maxval, tupl[img->channels - 1]) > 0;
    else
        ok = fprintf(f, "P%c\n%d %d\n%u\n", img->channels == 1 ? '5' : '6', img->width, img->height, maxval) > 0;
    const size_t row = (size_t)img->width * img->channels;
    uint8_t tmp[4096];
    for (int y = 0; ok && y < img->height; y++) {
        const uint8_t *src = (const uint8_t *)img->data + (size_t)y * img->stride;
        if (img->depth == 8) {
            ok = fwrite(src, 1, row, f) == row;
            continue;
        }
        const uint16_t *s16 = (const uint16_t *)src;
        for (size_t i = 0; ok && i < row; i += sizeof tmp / 2) {
            size_t k = row - i < sizeof tmp / 2 ? row - i : sizeof tmp / 2;
            for (size_t j = 0; j < k; j++) {
                tmp[2 * j] = (uint8_t)(s16[i + j] >> 8);
                tmp[2 * j + 1] = (uint8_t)s16[i + j];
            }
            ok = fwrite(tmp, 2, k, f) == k;
        }
    }
    if (!ok)
        return gf_error(GF_EIO, "cannot write PNM data: %s", strerror(errno));
    return GF_OK;
}
