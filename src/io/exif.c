/* SPDX-License-Identifier: MIT */
/* The EXIF orientation: read with libexif.  Edits (the orientation reset,
 * the thumbnail dropped, the size written) are made in place, because
 * re-serialising EXIF moves blocks (a maker note) whose offsets inside them
 * would then point elsewhere. */
#include "config.h"
#include "codec.h"

#include <libexif/exif-data.h>
#include <stdlib.h>
#include <string.h>

/* m's EXIF as libexif reads it (to be unref'd), NULL where there is none
 * or no memory. */
static ExifData *load(const gf_meta *m)
{
    if (!m->exif || m->exif_len < 8)
        return NULL;
    uint8_t *app1 = malloc(6 + m->exif_len); /* libexif reads an APP1's payload: "Exif\0\0", TIFF */
    ExifData *ed = app1 ? exif_data_new() : NULL;
    if (ed) {
        memcpy(app1, "Exif\0\0", 6);
        memcpy(app1 + 6, m->exif, m->exif_len);
        exif_data_unset_option(ed, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION); /* read, change nothing */
        exif_data_load_data(ed, app1, (unsigned int)(6 + m->exif_len));
    }
    free(app1);
    return ed;
}

/* The first value of IFD0's SHORT entry `tag`, or `none`. */
static int short_value(ExifData *ed, ExifTag tag, int none)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], tag);
    return e && e->format == EXIF_FORMAT_SHORT && e->components >= 1 && e->data
               ? exif_get_short(e->data, exif_data_get_byte_order(ed))
               : none;
}

int gf_exif_orientation(const gf_meta *m)
{
    ExifData *ed = load(m);
    const int o = ed ? short_value(ed, EXIF_TAG_ORIENTATION, 0) : 0;
    if (ed)
        exif_data_unref(ed);
    return o >= 1 && o <= 8 ? o : 0;
}

/* EXIF's TIFF structure, edited in place. */
struct tiff {
    uint8_t *t;
    size_t n;
    int big; /* "MM": big-endian */
};

/* A RATIONAL entry of IFD0 rounded, 0 where absent or not positive. */
static unsigned rational(ExifData *ed, ExifTag tag)
{
    ExifEntry *e = exif_content_get_entry(ed->ifd[EXIF_IFD_0], tag);
    if (!e || e->format != EXIF_FORMAT_RATIONAL || e->components < 1 || !e->data)
        return 0;
    const ExifRational r = exif_get_rational(e->data, exif_data_get_byte_order(ed));
    const double v = r.denominator ? (double)r.numerator / r.denominator : 0;
    return v >= 0.5 && v < 65535.5 ? (unsigned)(v + 0.5) : 0;
}

void gf_exif_density(gf_meta *m)
{
    ExifData *ed = m->density_x ? NULL : load(m);
    if (!ed)
        return;
    const int unit = short_value(ed, EXIF_TAG_RESOLUTION_UNIT, 2); /* EXIF's default: inches */
    const unsigned x = rational(ed, EXIF_TAG_X_RESOLUTION), y = rational(ed, EXIF_TAG_Y_RESOLUTION);
    if (x && y && (unit == 2 || unit == 3)) {
        m->density_unit = unit == 2 ? GF_DENSITY_INCH : GF_DENSITY_CM;
        m->density_x = x;
        m->density_y = y;
    }
    exif_data_unref(ed);
}

static unsigned get(const struct tiff *x, size_t at, int bytes)
{
    unsigned v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (unsigned)x->t[at + (x->big ? (size_t)i : (size_t)(bytes - 1 - i))] << (8 * (bytes - 1 - i));
    return v;
}

static void put(struct tiff *x, size_t at, int bytes, unsigned v)
{
    for (int i = 0; i < bytes; i++)
        x->t[at + (x->big ? (size_t)(bytes - 1 - i) : (size_t)i)] = (uint8_t)(v >> (8 * i));
}

static int open_tiff(gf_meta *m, struct tiff *x)
{
    *x = (struct tiff){m->exif, m->exif_len, 0};
    if (!x->t || x->n < 8 || !(x->t[0] == x->t[1] && (x->t[0] == 'I' || x->t[0] == 'M')))
        return 0;
    x->big = x->t[0] == 'M';
    return 1;
}

/* The number of entries of the IFD at `ifd`, those that lie whole in the
 * data (0 where the IFD itself does not). */
static unsigned entries(const struct tiff *x, size_t ifd)
{
    if (ifd < 8 || ifd > x->n - 2)
        return 0;
    const size_t count = get(x, ifd, 2), fit = (x->n - ifd - 2) / 12;
    return (unsigned)(count < fit ? count : fit);
}

/* Where the value of the entry at `e` lies, whole, for `bytes` bytes of it
 * (in the entry when its values take at most 4 bytes); 0 if outside. */
static size_t value_at(const struct tiff *x, size_t e, size_t bytes)
{
    static const unsigned size[13] = {0, 1, 1, 2, 4, 8, 1, 1, 2, 4, 8, 4, 8};
    const unsigned type = get(x, e + 2, 2);
    const size_t count = get(x, e + 4, 4);
    if (type >= 13 || !size[type] || count > SIZE_MAX / 8)
        return 0;
    if (count * size[type] <= 4)
        return e + 8;
    const size_t at = get(x, e + 8, 4);
    return at >= 8 && at <= x->n && bytes <= x->n - at ? at : 0;
}

void gf_exif_reset_orientation(gf_meta *m)
{
    struct tiff x;
    if (!open_tiff(m, &x))
        return;
    /* every Orientation SHORT of IFD0, each of its values, wherever they
     * lie: a reader may take any of them */
    const size_t ifd = get(&x, 4, 4);
    for (unsigned i = 0, k = entries(&x, ifd); i < k; i++) {
        const size_t e = ifd + 2 + 12 * (size_t)i, count = get(&x, e + 4, 4);
        const size_t at = count <= x.n / 2 ? value_at(&x, e, 2 * count) : 0;
        for (size_t c = 0; get(&x, e, 2) == 0x0112 && get(&x, e + 2, 2) == 3 && at && c < count; c++)
            put(&x, at + 2 * c, 2, 1);
    }
}

/* Zeroes bytes [at, at + len) where they lie whole in the data; trims them
 * off where they end it. */
static void wipe(struct tiff *x, size_t at, size_t len)
{
    if (at < 8 || at > x->n || len > x->n - at)
        return;
    memset(x->t + at, 0, len);
    if (at + len == x->n)
        x->n = at;
}

void gf_exif_update(gf_meta *m, int width, int height, int edited)
{
    struct tiff x;
    if (!open_tiff(m, &x))
        return;
    const size_t ifd0 = get(&x, 4, 4);
    const unsigned k0 = entries(&x, ifd0);
    if (!k0)
        return;
    /* IFD1, the thumbnail's: its image (JPEG or strips) and itself wiped,
     * and unlinked from IFD0 */
    const size_t link = ifd0 + 2 + 12 * (size_t)k0;
    if (edited && link <= x.n - 4 && get(&x, link, 4)) {
        const size_t ifd1 = get(&x, link, 4);
        const unsigned k1 = entries(&x, ifd1);
        size_t jpeg = 0, jpeg_len = 0, strip = 0, strip_len = 0;
        for (unsigned i = 0; i < k1; i++) {
            const size_t e = ifd1 + 2 + 12 * (size_t)i, at = value_at(&x, e, 4);
            const unsigned tag = get(&x, e, 2), type = get(&x, e + 2, 2);
            if (!at || get(&x, e + 4, 4) != 1 || (type != 3 && type != 4))
                continue;
            const size_t v = get(&x, at, type == 3 ? 2 : 4);
            if (tag == 0x0201)
                jpeg = v;
            else if (tag == 0x0202)
                jpeg_len = v;
            else if (tag == 0x0111)
                strip = v;
            else if (tag == 0x0117)
                strip_len = v;
        }
        put(&x, link, 4, 0);
        wipe(&x, jpeg, jpeg_len);
        wipe(&x, strip, strip_len);
        if (k1)
            wipe(&x, ifd1, 2 + 12 * (size_t)k1 + 4);
    }
    /* PixelXDimension and PixelYDimension of the Exif IFD, and IFD0's
     * ImageWidth and ImageLength where present: the output's size (a SHORT
     * that cannot hold it becomes a LONG, which fits the same field) */
    size_t exif_ifd = 0;
    for (unsigned i = 0; i < k0; i++) {
        const size_t e = ifd0 + 2 + 12 * (size_t)i;
        if (get(&x, e, 2) == 0x8769 && get(&x, e + 4, 4) == 1)
            exif_ifd = get(&x, e + 8, 4);
    }
    for (int pass = 0; pass < 2; pass++) {
        const size_t ifd = pass ? exif_ifd : ifd0;
        const unsigned w = pass ? 0xA002 : 0x0100, h = pass ? 0xA003 : 0x0101;
        for (unsigned i = 0, k = entries(&x, ifd); i < k; i++) {
            const size_t e = ifd + 2 + 12 * (size_t)i;
            const unsigned tag = get(&x, e, 2), type = get(&x, e + 2, 2);
            if ((tag != w && tag != h) || get(&x, e + 4, 4) != 1 || (type != 3 && type != 4))
                continue;
            const unsigned v = (unsigned)(tag == w ? width : height);
            if (type == 3 && v > 0xFFFF)
                put(&x, e + 2, 2, 4);
            put(&x, e + 8, 4, 0);
            put(&x, e + 8, get(&x, e + 2, 2) == 3 ? 2 : 4, v);
        }
    }
    m->exif_len = x.n;
}
