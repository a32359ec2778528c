/* SPDX-License-Identifier: MIT */
/* PNG in through libpng: every colour type and bit depth (palette and tRNS
 * become RGB/RGBA/GA, sub-8-bit gray becomes 8-bit, Adam7 handled), a plain
 * file's rows inflated in bands and unfiltered here.  PNG out: 8/16-bit G, GA, RGB, RGBA,
 * filtered here and deflated in strips on every thread by zlib or libdeflate. */
#include "config.h"

#include <errno.h>
#include <libdeflate.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec.h"
#include "deflate_fast.h"
#include "parallel.h"

/* Whether this machine's 16-bit samples (ours: native) differ from PNG's
 * (big-endian). */
static int little_endian(void)
{
    const uint16_t probe = 1;
    return *(const uint8_t *)&probe == 1;
}

/* n bytes of 16-bit samples from src into dst, each pair's bytes swapped;
 * dst may be src. */
static void swap16(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i += 2) {
        const uint8_t hi = src[i], lo = src[i + 1];
        dst[i] = lo;
        dst[i + 1] = hi;
    }
}

struct pngctx {
    const uint8_t *buf;
    size_t n, off;
    const gf_decode_opts *opts;
    char msg[256];
    gf_status status; /* set before a deliberate png_error */
    gf_image img;
    png_bytep *rows;
    gf_meta meta;
    int text_dropped;
    int exif_seen; /* libpng gave the eXIf chunk (kept or dropped) */
    int reading; /* the pixels are being read: under -lenient, what came is kept */
};

static void on_error(png_structp png, png_const_charp msg)
{
    struct pngctx *c = png_get_error_ptr(png);
    if (!strncmp(msg, "truncated", 9))
        snprintf(c->msg, sizeof c->msg, "%s", msg);
    else
        snprintf(c->msg, sizeof c->msg, "corrupt PNG: %s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    struct pngctx *c = png_get_error_ptr(png);
    if (c && c->opts && c->opts->verbose)
        gf_say("%s: libpng warning: %s", c->opts->name ? c->opts->name : "-", msg);
}

static void mem_read(png_structp png, png_bytep out, size_t len)
{
    struct pngctx *c = png_get_io_ptr(png);
    if (len > c->n - c->off)
        png_error(png, "truncated PNG data");
    memcpy(out, c->buf + c->off, len);
    c->off += len;
}

/* IPTC in PNG, as ImageMagick writes it: a tEXt "Raw profile type 8bim"
 * holding "\n8bim\n", the length in 8 columns, and the Photoshop resources
 * of a JPEG's APP13 (without its "Photoshop 3.0" header) in hexadecimal,
 * 36 bytes a line, each line after a newline, and a last newline. */
static const char RAW_8BIM[] = "Raw profile type 8bim";
static const char RAW_EXIF[] = "Raw profile type exif";
#define IPTC_HEAD (sizeof GF_IPTC_ID) /* "Photoshop 3.0" and its NUL */

/* The bytes a raw profile of `kind` ("8bim", "exif") holds in text[0..n)
 * ("\nKIND\n", its length, then hexadecimal), at most `most` of them, after
 * `head` bytes left for the caller: a new buffer (*len bytes in all), or
 * NULL where the text is not such a profile. */
static uint8_t *raw_profile(const uint8_t *text, size_t n, const char *kind, size_t head, size_t most, size_t *len)
{
    const uint8_t *end = text + n, *s = text + 2 + strlen(kind);
    if (n < 3 + strlen(kind) || text[0] != '\n' || memcmp(text + 1, kind, strlen(kind)) || s[-1] != '\n')
        return NULL;
    while (s < end && *s == ' ')
        s++;
    size_t bytes = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++)
        if ((bytes = bytes * 10 + (size_t)(*s - '0')) > most)
            return NULL;
    uint8_t *b = malloc(head + bytes + 1);
    if (!b)
        return NULL;
    size_t got = 0;
    for (int half = 0, v = 0; s < end && got < bytes; s++) {
        const int h = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10 : -1;
        if (h < 0 && (*s == '\n' || *s == ' '))
            continue;
        if (h < 0)
            break;
        v = v << 4 | h;
        if ((half ^= 1) == 0)
            b[head + got++] = (uint8_t)v, v = 0;
    }
    if (got != bytes) {
        free(b);
        return NULL;
    }
    *len = head + bytes;
    return b;
}

/* The APP13 segment a raw profile's text[0..n) holds, into *iptc (0), or 1
 * where it is not one. */
static int iptc_from_raw_profile(const uint8_t *text, size_t n, uint8_t **iptc, size_t *len)
{
    if (!(*iptc = raw_profile(text, n, "8bim", IPTC_HEAD, 65533 - IPTC_HEAD, len)))
        return 1;
    memcpy(*iptc, GF_IPTC_ID, IPTC_HEAD);
    return 0;
}

/* EXIF in PNG as older ImageMagick writes it: a tEXt or zTXt "Raw profile
 * type exif", the APP1 payload ("Exif\0\0" optional, then TIFF) as above.
 * Into c's EXIF (0), or 1 where the text is not one. */
static int exif_from_raw_profile(struct pngctx *c, const char *type, const uint8_t *text, size_t n)
{
    uint8_t *z = NULL;
    if (!memcmp(type, "zTXt", 4)) { /* method 0, zlib; hexadecimal takes twice the bytes */
        long got = n > 1 && !text[0] ? gf_inflate_capped(text + 1, n - 1, 2 * GF_MAX_PNG_META + 64, &z) : -1;
        if (got < 0)
            return 1;
        text = z, n = (size_t)got;
    }
    size_t len = 0;
    uint8_t *b = raw_profile(text, n, "exif", 0, GF_MAX_PNG_META, &len);
    free(z);
    if (!b)
        return 1;
    const size_t skip = len >= 6 && !memcmp(b, "Exif\0\0", 6) ? 6 : 0;
    if (len - skip < 8 || !(b[skip] == b[skip + 1] && (b[skip] == 'I' || b[skip] == 'M'))) {
        free(b);
        return 1;
    }
    memmove(b, b + skip, len - skip);
    c->meta.exif = b;
    c->meta.exif_len = len - skip;
    return 0;
}

/* libpng's callback for the chunks it passes on unread (only those asked
 * for): an uncompressed iTXt "XML:com.adobe.xmp" is the XMP packet; a tEXt
 * "Raw profile type 8bim" the IPTC; other tEXt, zTXt and iTXt chunks are the
 * texts.  All are taken raw, never inflated (a zTXt is a thousandfold zlib
 * bomb of its own). */
static int on_chunk(png_structp png, png_unknown_chunkp k)
{
    struct pngctx *c = png_get_user_chunk_ptr(png);
    static const char key[] = "XML:com.adobe.xmp";
    const char *type = (const char *)k->name;
    if (memcmp(type, "iTXt", 4) && memcmp(type, "tEXt", 4) && memcmp(type, "zTXt", 4))
        return (k->name[0] & 0x20) != 0; /* an ancillary chunk passed over; a critical one libpng's error */
    if (!k->size)
        return 1; /* no keyword (and k->data is NULL) */
    const uint8_t *d = k->data, *end = k->data + k->size;
    if (memcmp(type, "iTXt", 4) || k->size < sizeof key + 2 || memcmp(d, key, sizeof key) || d[sizeof key] != 0) {
        const uint8_t *nul = memchr(d, 0, k->size < 80 ? k->size : 80);
        if (!nul || nul == d)
            return 1; /* no keyword of 1 to 79 bytes: not a text to carry */
        if (!memcmp(type, "tEXt", 4) && !c->meta.iptc && (size_t)(nul - d) == sizeof RAW_8BIM - 1 &&
            !memcmp(d, RAW_8BIM, sizeof RAW_8BIM - 1) &&
            !iptc_from_raw_profile(nul + 1, (size_t)(end - nul - 1), &c->meta.iptc, &c->meta.iptc_len))
            return 1;
        if (memcmp(type, "iTXt", 4) && !c->meta.exif && !c->exif_seen && (size_t)(nul - d) == sizeof RAW_EXIF - 1 &&
            !memcmp(d, RAW_EXIF, sizeof RAW_EXIF - 1) &&
            !exif_from_raw_profile(c, type, nul + 1, (size_t)(end - nul - 1)))
            return 1;
        char t[5] = {type[0], type[1], type[2], type[3], 0};
        const int rc = gf_meta_add_text(&c->meta, t, d, k->size);
        if (rc < 0) {
            c->status = gf_error(GF_ENOMEM, "out of memory");
            png_error(png, "alloc");
        }
        if (rc > 0 && !c->text_dropped++ && !c->opts->quiet)
            gf_say("%s: warning: text chunks past %d or %zu bytes dropped", c->opts->name ? c->opts->name : "-",
                   GF_MAX_TEXTS, GF_MAX_TEXT_BYTES);
        return 1;
    }
    if (c->meta.xmp)
        return 1; /* a second XMP packet */
    const uint8_t *lang = d + sizeof key + 2, *trans = memchr(lang, 0, (size_t)(end - lang));
    const uint8_t *text = trans ? memchr(trans + 1, 0, (size_t)(end - trans - 1)) : NULL;
    if (text && (size_t)(end - text - 1) > GF_MAX_PNG_META) {
        if (!c->opts->quiet)
            gf_say("%s: warning: XMP of %zu bytes dropped (more than %zu)", c->opts->name ? c->opts->name : "-",
                   (size_t)(end - text - 1), GF_MAX_PNG_META);
        return 1;
    }
    if (!text || !(c->meta.xmp = malloc((size_t)(end - text - 1) + 1)))
        return 1;
    c->meta.xmp_len = (size_t)(end - text - 1);
    memcpy(c->meta.xmp, text + 1, c->meta.xmp_len);
    return 1;
}

/* A copy of data[0..n) into *to, unless larger than `most` (then dropped,
 * with a warning naming `what`). */
static void keep(png_structp png, struct pngctx *c, const char *what, const png_byte *data, size_t n, size_t most,
                 uint8_t **to, size_t *to_len)
{
    if (n > most) {
        if (!c->opts->quiet)
            gf_say("%s: warning: %s of %zu bytes dropped (more than %zu)", c->opts->name ? c->opts->name : "-", what, n,
                   most);
    } else if (!(*to = malloc(n))) {
        c->status = gf_error(GF_ENOMEM, "out of memory");
        png_error(png, "alloc");
    } else {
        memcpy(*to, data, n);
        *to_len = n;
    }
}

/* The eXIf chunk, once libpng has read it (before or after the image data). */
static void read_exif(png_structp png, png_infop info, struct pngctx *c)
{
    png_uint_32 len;
    png_bytep data;
    if (png_get_eXIf_1(png, info, &len, &data) && len && !c->exif_seen++) {
        free(c->meta.exif); /* an eXIf chunk over a raw profile's EXIF */
        c->meta.exif = NULL, c->meta.exif_len = 0;
        keep(png, c, "EXIF data", data, len, GF_MAX_PNG_META, &c->meta.exif, &c->meta.exif_len);
    }
}

/* The ICC profile, EXIF, gAMA, cHRM, sRGB and density libpng read (the XMP
 * comes through on_chunk). */
static void read_meta(png_structp png, png_infop info, struct pngctx *c)
{
    png_charp name;
    png_bytep data;
    png_uint_32 len, px, py;
    int comp, unit;
    if (png_get_iCCP(png, info, &name, &comp, &data, &len) && len)
        keep(png, c, "ICC profile", data, len, GF_MAX_ICC, &c->meta.icc, &c->meta.icc_len);
    read_exif(png, info, c);
    png_fixed_point g, w[8];
    if (png_get_gAMA_fixed(png, info, &g) && g > 0)
        c->meta.gamma = (unsigned)g;
    if (png_get_cHRM_fixed(png, info, &w[0], &w[1], &w[2], &w[3], &w[4], &w[5], &w[6], &w[7]) && w[0] > 0)
        for (int i = 0; i < 8; i++)
            c->meta.chrm[i] = w[i] > 0 ? (unsigned)w[i] : 0;
    if (png_get_sRGB(png, info, &comp) && comp >= 0 && comp <= 3)
        c->meta.srgb = comp + 1;
    if (png_get_pHYs(png, info, &px, &py, &unit) && px && py && px <= 0x7FFFFFFF && py <= 0x7FFFFFFF) {
        c->meta.density_unit = unit == PNG_RESOLUTION_METER ? GF_DENSITY_METRE : GF_DENSITY_ASPECT;
        c->meta.density_x = px;
        c->meta.density_y = py;
    }
}

/* ---- the rows of a plain file, without libpng ------------------------------
 *
 * libpng inflates a row at a time, and unfilters a row at a time through
 * generic code.  Where a file is plain (not interlaced; 8 or 16-bit gray,
 * GA, RGB or RGBA without tRNS; its IDAT chunks in one run with good CRCs,
 * then only chunks libpng would skip unread, each named by four letters,
 * then a good IEND; one zlib stream with a 32 KiB window that fills the rows
 * exactly, every row's filter one of the five), the rows are inflated by
 * zlib (libpng's inflater, so that the verdict on every stream is libpng's:
 * libdeflate accepts streams zlib refuses) a band at a time, and unfiltered
 * here.
 * Any other file, damaged ones included, is read by libpng as before, from
 * where png_read_info left it: its errors, warnings and -lenient rescue are
 * libpng's. */
enum { PLAIN_AFTER = 16, PLAIN_BAND = 256 << 10 };

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The chunk at p, with n bytes from p on: 1 with its data length in *len if
 * it is whole, its length at most 2^31 - 1 and its CRC good, else 0. */
static int good_chunk(const uint8_t *p, size_t n, uint32_t *len)
{
    if (n < 12)
        return 0;
    *len = get32(p);
    return *len <= 0x7FFFFFFF && *len <= n - 12 && libdeflate_crc32(0, p + 4, (size_t)*len + 4) == get32(p + 8 + *len);
}

/* Whether libpng would pass over a chunk of this type after the image data
 * without a word: one not critical, and not one asked for (with `meta`: the
 * profile, EXIF, density and texts, which reach read_meta or on_chunk). */
static int passed_over(const uint8_t *type, int meta)
{
    static const char asked[] = "iCCPeXIfpHYstEXtzTXtiTXt";
    for (int i = 0; i < 4; i++) /* a name of four ASCII letters, else libpng's error */
        if ((type[i] | 0x20) < 'a' || (type[i] | 0x20) > 'z')
            return 0;
    if (!(type[0] & 0x20))
        return 0;
    for (size_t i = 0; meta && i + 4 < sizeof asked; i += 4)
        if (!memcmp(type, asked + i, 4))
            return 0;
    return 1;
}

/* A Paeth-filtered row: each of the bpp byte columns is a chain through its
 * left (a) and upper-left (c) neighbours, kept in registers. */
static inline __attribute__((always_inline)) void paeth(const uint8_t *in, const uint8_t *up, uint8_t *out, size_t n,
                                                        const size_t bpp)
{
    int a[8], c[8];
    for (size_t k = 0; k < bpp; k++) /* Paeth(0, b, 0) = b */
        a[k] = out[k] = (uint8_t)(in[k] + up[k]), c[k] = up[k];
    for (size_t i = bpp; i < n; i += bpp)
        for (size_t k = 0; k < bpp; k++) {
            const int b = up[i + k], p = b - c[k], q = a[k] - c[k]; /* pa = |p|, pb = |q|, pc = |p + q| */
            const int pa = p < 0 ? -p : p, pb = q < 0 ? -q : q, pc = p + q < 0 ? -(p + q) : p + q;
            const int ab = pb < pa ? b : a[k], least = pb < pa ? pb : pa;
            a[k] = out[i + k] = (uint8_t)(in[i + k] + (pc < least ? c[k] : ab));
            c[k] = b;
        }
}

/* Row y of `img` from its filtered bytes `in` (the filter type first) and the
 * row above, already unfiltered (`up`; zeros for the first): 0 on a filter
 * type PNG has not. */
static int unfilter(const uint8_t *in, const uint8_t *up, uint8_t *out, size_t n, size_t bpp)
{
    const int type = in[0];
    in++;
    switch (type) {
    case 0: memcpy(out, in, n); return 1;
    case 1:
        memcpy(out, in, bpp);
        for (size_t i = bpp; i < n; i++)
            out[i] = (uint8_t)(in[i] + out[i - bpp]);
        return 1;
    case 2:
        for (size_t i = 0; i < n; i++)
            out[i] = (uint8_t)(in[i] + up[i]);
        return 1;
    case 3:
        for (size_t i = 0; i < bpp; i++)
            out[i] = (uint8_t)(in[i] + (up[i] >> 1));
        for (size_t i = bpp; i < n; i++)
            out[i] = (uint8_t)(in[i] + ((out[i - bpp] + up[i]) >> 1));
        return 1;
    case 4:
        switch (bpp) { /* a constant bpp: its chains in registers, side by side */
        case 1: paeth(in, up, out, n, 1); break;
        case 2: paeth(in, up, out, n, 2); break;
        case 3: paeth(in, up, out, n, 3); break;
        case 4: paeth(in, up, out, n, 4); break;
        case 6: paeth(in, up, out, n, 6); break;
        default: paeth(in, up, out, n, 8); break;
        }
        return 1;
    }
    return 0;
}

/* The IDAT chunks not yet given to zlib: the next one, and how many. */
struct idat {
    const uint8_t *next;
    size_t left;
};

/* Gives zs the next IDAT chunk's data once it has used up the last: 1 if it
 * did. */
static int feed(z_stream *zs, struct idat *in)
{
    if (zs->avail_in || !in->left)
        return 0;
    zs->next_in = (Bytef *)(in->next + 8);
    zs->avail_in = get32(in->next);
    in->next += 12 + (size_t)get32(in->next);
    in->left--;
    return 1;
}

/* Reads the rows of c->img as above where the file is plain (libpng has read
 * up to the first IDAT chunk's data, at c->off): 1 if it did, 0 if the file
 * is libpng's (c->off untouched). */
static int read_plain_rows(struct pngctx *c, int meta)
{
    gf_image *im = &c->img;
    const size_t bpp = (size_t)im->channels * (size_t)(im->depth / 8), n = (size_t)im->width * bpp;
    if (c->off < 8)
        return 0;
    const size_t total = (n + 1) * (size_t)im->height;
    const uint8_t *first = c->buf + c->off - 8, *p = first, *end = c->buf + c->n;
    size_t nidat = 0;
    uint32_t len;
    for (; good_chunk(p, (size_t)(end - p), &len) && !memcmp(p + 4, "IDAT", 4); p += 12 + (size_t)len)
        nidat++;
    for (int k = 0; good_chunk(p, (size_t)(end - p), &len); k++, p += 12 + (size_t)len) {
        if (!memcmp(p + 4, "IEND", 4)) {
            p = len ? p : NULL; /* NULL: the file is whole */
            break;
        }
        if (k == PLAIN_AFTER || !passed_over(p + 4, meta) || len > (1u << 20))
            break;
    }
    if (p || get32(first) < 2 || first[8] != 0x78) /* deflate, a 32 KiB window */
        return 0;
    /* zlib, as libpng's, inflates the IDAT chunks' data in turn, a band of
     * rows at a time into `raw`, each band unfiltered into the image */
    const size_t band = (n + 1) * (size_t)(n + 1 < PLAIN_BAND ? PLAIN_BAND / (n + 1) : 1);
    uint8_t *raw = malloc(band), *zero = calloc(1, n), *row = NULL;
    z_stream zs = {0};
    int ok = raw && zero && inflateInit2(&zs, 15) == Z_OK, rc = Z_OK;
    const int opened = ok, swap = im->depth == 16 && little_endian();
    struct idat in = {first, nidat};
    size_t filled = 0; /* bytes of the band inflated */
    int y = 0;
    while (ok && y < im->height) {
        if (feed(&zs, &in))
            continue;
        const size_t rest = total - (size_t)y * (n + 1), want = band < rest ? band : rest;
        zs.next_out = raw + filled;
        zs.avail_out = (uInt)(want - filled);
        rc = inflate(&zs, Z_SYNC_FLUSH);
        filled = want - zs.avail_out;
        if (filled == want) { /* a band whole: its rows into the image */
            for (const uint8_t *r = raw; ok && r < raw + want; r += n + 1, y++) {
                row = (uint8_t *)im->data + (size_t)y * im->stride;
                ok = unfilter(r, y ? row - im->stride : zero, row, n, bpp);
                if (swap && y) /* the row above, no longer wanted as PNG stores it */
                    swap16(row - im->stride, row - im->stride, n);
            }
            filled = 0;
        }
        ok = ok && (rc == Z_OK || (rc == Z_STREAM_END && y == im->height));
    }
    /* every row in: the stream must end there, with the last IDAT chunk */
    uint8_t extra;
    while (ok && rc == Z_OK) {
        if (feed(&zs, &in))
            continue;
        zs.next_out = &extra;
        zs.avail_out = 1;
        rc = inflate(&zs, Z_SYNC_FLUSH);
        ok = zs.avail_out == 1; /* not a byte more */
    }
    ok = ok && rc == Z_STREAM_END && !zs.avail_in && !in.left;
    if (ok && swap)
        swap16(row, row, n);
    if (opened)
        inflateEnd(&zs);
    free(zero);
    free(raw);
    return ok;
}

/* The decoding proper, separate so that the longjmp target's frame holds no
 * automatic variable modified after setjmp: all state is in *c. */
static int decode(png_structp png, png_infop info, struct pngctx *c)
{
    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_read_fn(png, c, mem_read);
    png_set_user_limits(png, GF_MAX_DIM, GF_MAX_DIM);
    png_set_chunk_cache_max(png, 1000);
    png_set_chunk_malloc_max(png, 64u << 20);
    /* Only IHDR, PLTE, tRNS, IDAT and IEND matter here.  Every other chunk is
     * skipped unread (its CRC still checked), so no text, ICC or palette
     * chunk can make libpng inflate or keep anything: a zTXt chunk is a
     * thousandfold zlib bomb of its own. */
    static const png_byte skip[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0pHYs\0"
                                   "sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, skip, (int)(sizeof skip / 5));
    if (c->opts->meta) { /* the profile, inflated within the chunk limit, EXIF, the density; XMP */
        png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT,
                                    (png_const_bytep) "iCCP\0eXIf\0pHYs\0gAMA\0cHRM\0sRGB", 6);
        png_set_read_user_chunk_fn(png, c, on_chunk);
    }
    png_read_info(png, info);
    if (c->opts->meta)
        read_meta(png, info, c);

    png_uint_32 w, h;
    int bit_depth, color_type, interlace;
    png_get_IHDR(png, info, &w, &h, &bit_depth, &color_type, &interlace, NULL, NULL);
    int ch = (color_type & PNG_COLOR_MASK_COLOR) ? 3 : 1;
    if ((color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS))
        ch++;
    gf_shape s = {(int)w, (int)h, ch, bit_depth == 16 ? 16 : 8};
    if ((c->status = gf_shape_check(&s, c->opts->limit_pixels)))
        png_error(png, "limit");

    if (color_type == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (bit_depth == 16 && little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if ((int)png_get_channels(png, info) != ch || png_get_bit_depth(png, info) != s.depth) {
        c->status = gf_error(GF_EINTERNAL, "unexpected PNG layout after transforms");
        png_error(png, "layout");
    }
    if ((c->status = gf_image_alloc(&c->img, s.width, s.height, ch, s.depth)))
        png_error(png, "alloc");
    c->rows = malloc(sizeof *c->rows * h);
    if (!c->rows) {
        c->status = gf_error(GF_ENOMEM, "out of memory");
        png_error(png, "alloc");
    }
    for (png_uint_32 y = 0; y < h; y++)
        c->rows[y] = (png_bytep)c->img.data + (size_t)y * c->img.stride;
    if (c->opts->lenient) { /* rows never reached stay 0: black, and transparent */
        memset(c->img.data, 0, c->img.stride * (size_t)c->img.height);
        png_set_crc_action(png, PNG_CRC_WARN_USE, PNG_CRC_WARN_USE);
    }
    if (!c->opts->lenient && !c->opts->libpng_only && interlace == PNG_INTERLACE_NONE && bit_depth >= 8 &&
        color_type != PNG_COLOR_TYPE_PALETTE && !png_get_valid(png, info, PNG_INFO_tRNS) &&
        read_plain_rows(c, c->opts->meta != NULL))
        return 0;
    c->reading = 1;
    png_read_image(png, c->rows);
    png_read_end(png, info); /* texts after the image data reach on_chunk too */
    if (c->opts->meta)
        read_exif(png, info, c); /* an eXIf chunk after the image data */
    return 0;
}

gf_status gf_png_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img)
{
    struct pngctx c = {.buf = buf, .n = n, .opts = o};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return gf_error(GF_ENOMEM, "out of memory starting libpng");
    }
    gf_status st = GF_OK;
    int failed = decode(png, info, &c);
    if (failed && o->lenient && c.reading && !c.status) {
        if (!o->quiet)
            gf_say("%s: warning: %s; kept what was decoded (-lenient)", o->name ? o->name : "-", c.msg);
        failed = 0;
    }
    if (failed) {
        st = c.status ? c.status : gf_error(GF_EFORMAT, "%s", c.msg);
        gf_image_free(&c.img);
        gf_meta_free(&c.meta);
    } else {
        *img = c.img;
        if (o->meta)
            *o->meta = c.meta;
        else
            gf_meta_free(&c.meta);
    }
    free(c.rows);
    png_destroy_read_struct(&png, &info, NULL);
    return st;
}

/* ---- writing -------------------------------------------------------------
 *
 * Rows are filtered as libpng filters them by default: each row takes the one
 * of the five filters whose output has the least sum of absolute values (as
 * signed bytes), the first such in the order None, Sub, Up, Average, Paeth;
 * at level 1 (the fast level) the same of Sub, Up and Paeth; at level 0
 * every row is None.  The filtered rows are deflated in strips of
 * about STRIP_BYTES, each strip a raw deflate stream ended with a sync flush
 * (the last one with the end of the stream), as pigz does: the strips
 * concatenated are one zlib stream, and the file does not depend on how many
 * threads made it.  A strip is deflated one of three ways (enum method).
 * Each strip is one IDAT chunk; the zlib header leads the first one and the
 * Adler-32, combined from the strips', is an IDAT chunk of its own. */

enum { STRIP_BYTES = 1 << 20, WINDOW = 32768 };

/* How a strip is deflated: STORED (level 0) and RLE by zlib, each strip primed
 * with the 32 KiB of filtered data before it; LIBDEFLATE by libdeflate's
 * compressor at the same level (faster than zlib's for the same size),
 * unprimed, since libdeflate takes no dictionary; FAST (level 1) by
 * gf_deflate_fast, each strip on its own. */
enum method { STORED, RLE, LIBDEFLATE, FAST };

struct strip {
    int k;              /* which strip */
    enum method method; /* deflated how */
    uint8_t *chunk;     /* a whole IDAT chunk: length, type, data, CRC */
    size_t n;
    uLong adler; /* of the strip's filtered bytes */
    size_t len;  /* how many */
    int failed;
};

struct writer {
    const gf_image *img;
    size_t rowbytes; /* of one row, without its filter byte */
    int bpp;         /* bytes per pixel: the filters' left neighbour */
    int level;
    int strip_rows, nstrips;
    struct strip *strip; /* the tasks of a wave */
};

/* The five filters of one row, each writing out[0..n) and returning the sum
 * of its output's absolute values as signed bytes; prev is the row above
 * (zeros for the first).  One loop per filter, each of which compilers
 * vectorise. */
#define ABS8(v) ((v) < 128 ? (unsigned)(v) : 256u - (v))

static size_t filter_none(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out)
{
    size_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t v = row[i];
        out[i] = v;
        sum += ABS8(v);
    }
    return sum;
}

static size_t filter_sub(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out)
{
    size_t sum = filter_none(row, prev, (size_t)bpp, bpp, out);
    for (size_t i = (size_t)bpp; i < n; i++) {
        const uint8_t v = (uint8_t)(row[i] - row[i - bpp]);
        out[i] = v;
        sum += ABS8(v);
    }
    return sum;
}

static size_t filter_up(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out)
{
    size_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t v = (uint8_t)(row[i] - prev[i]);
        out[i] = v;
        sum += ABS8(v);
    }
    return sum;
}

static size_t filter_average(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out)
{
    size_t sum = 0;
    for (size_t i = 0; i < (size_t)bpp; i++) {
        const uint8_t v = (uint8_t)(row[i] - (prev[i] >> 1));
        out[i] = v;
        sum += ABS8(v);
    }
    for (size_t i = (size_t)bpp; i < n; i++) {
        const uint8_t v = (uint8_t)(row[i] - ((row[i - bpp] + prev[i]) >> 1));
        out[i] = v;
        sum += ABS8(v);
    }
    return sum;
}

static size_t filter_paeth(const uint8_t *row, const uint8_t *prev, size_t n, int bpp, uint8_t *out)
{
    size_t sum = filter_up(row, prev, (size_t)bpp, bpp, out); /* Paeth(0, b, 0) = b */
    for (size_t i = (size_t)bpp; i < n; i++) {
        const int a = row[i - bpp], b = prev[i], c = prev[i - bpp];
        const int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
        const uint8_t v = (uint8_t)(row[i] - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c));
        out[i] = v;
        sum += ABS8(v);
    }
    return sum;
}

static size_t (*const filters[5])(const uint8_t *, const uint8_t *, size_t, int,
                                  uint8_t *) = {filter_none, filter_sub, filter_up, filter_average, filter_paeth};

/* Row y as PNG stores it: big-endian samples, through `scratch` if need be. */
static const uint8_t *png_row(const struct writer *w, int y, uint8_t *scratch)
{
    const uint8_t *row = w->img->data + (size_t)y * w->img->stride;
    if (w->img->depth != 16 || !little_endian())
        return row;
    swap16(scratch, row, w->rowbytes);
    return scratch;
}

/* Rows [y0, y1) filtered into out, (rowbytes + 1) bytes each; `scratch` holds
 * 4 * (rowbytes + 1) bytes. */
static void filter_rows(const struct writer *w, int y0, int y1, uint8_t *out, uint8_t *scratch)
{
    const size_t n = w->rowbytes, stride = n + 1;
    uint8_t *cur = scratch, *above = scratch + stride, *cand[2] = {scratch + 2 * stride, scratch + 3 * stride};
    const uint8_t *prev = above;
    memset(above, 0, n);
    if (y0 > 0)
        prev = png_row(w, y0 - 1, above);
    for (int y = y0; y < y1; y++, out += stride) {
        const uint8_t *row = png_row(w, y, cur);
        if (w->level == 0) {
            out[0] = 0;
            memcpy(out + 1, row, n);
        } else {
            /* the fast level tries the three filters that win on photographs
             * and graphics alike, not None and Average */
            static const int all[5] = {0, 1, 2, 3, 4}, fast[3] = {1, 2, 4};
            const int *try = w->level == 1 ? fast : all, ntry = w->level == 1 ? 3 : 5;
            size_t best = SIZE_MAX;
            int k = 0;
            for (int t = 0; t < ntry; t++) {
                const int f = try[t];
                const size_t sum = filters[f](row, prev, n, w->bpp, cand[k] + 1);
                cand[k][0] = (uint8_t)f;
                if (sum < best) {
                    best = sum;
                    k ^= 1;
                }
            }
            memcpy(out, cand[k ^ 1], stride);
        }
        /* the next row's "above": this row's bytes, kept out of `cur` */
        if (row == cur) {
            uint8_t *t = cur;
            cur = above;
            above = t;
        }
        prev = row;
    }
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The zlib header for `level`, as zlib writes it. */
static void zlib_header(int level, uint8_t h[2])
{
    const int flevel = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3;
    h[0] = 0x78;
    h[1] = (uint8_t)(flevel << 6);
    h[1] += (uint8_t)(31 - (h[0] * 256 + h[1]) % 31);
}

/* The raw deflate stream c[0..n), which ends, made not to: its final block's
 * BFINAL bit cleared and an empty stored block appended, as a sync flush ends
 * (zlib's examples/gzjoin.c does the same).  zlib's inflate walks the blocks
 * (Z_BLOCK stops at each boundary) to find the final one's header.  Returns
 * the new length, at most n + 5 (c has room), or 0 if c is not such a stream
 * or memory ran out. */
static size_t unfinish(uint8_t *c, size_t n)
{
    enum { JUNK = 1 << 16 };
    uint8_t *junk = malloc(JUNK);
    z_stream z = {.next_in = c, .avail_in = (uInt)n};
    if (!junk || inflateInit2(&z, -15) != Z_OK) {
        free(junk);
        return 0;
    }
    int last = c[0] & 1, ok = 1; /* a block's header starts with its BFINAL bit */
    c[0] &= (uint8_t)~1u;
    while (ok) {
        z.next_out = junk;
        z.avail_out = JUNK;
        ok = inflate(&z, Z_BLOCK) == Z_OK;
        if (!ok || !(z.data_type & 128)) /* within a block */
            continue;
        if (last)
            break;
        const int unused = z.data_type & 7; /* bits of the last byte read: the next header's */
        uint8_t *b = unused ? z.next_in - 1 : z.avail_in ? z.next_in : NULL;
        const uint8_t bit = (uint8_t)(unused ? 0x100 >> unused : 1);
        ok = b != NULL;
        if (ok) {
            last = *b & bit;
            *b &= (uint8_t)~bit;
        }
    }
    const int unused = z.data_type & 7;
    size_t end = (size_t)(z.next_in - c);
    inflateEnd(&z);
    free(junk);
    if (!ok)
        return 0;
    if (unused) /* the padding after the final block's end zeroed: the stored block's header */
        c[end - 1] &= (uint8_t)((1u << (8 - unused)) - 1);
    if (unused < 3) /* that header's three bits, and the pad to a byte */
        c[end++] = 0;
    memcpy(c + end, "\0\0\xff\xff", 4); /* LEN 0, NLEN */
    return end + 4;
}

/* Deflates `n` bytes at `in` by libdeflate into s->chunk after `lead` bytes,
 * leaving 4 for the CRC; the stream ends if `last`, else it is made to end as
 * a sync flush. */
static int libdeflate_strip(const struct writer *w, struct strip *s, const uint8_t *in, size_t n, int last, size_t lead)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(w->level);
    if (!c)
        return -1;
    const size_t bound = libdeflate_deflate_compress_bound(c, n);
    size_t m = 0;
    if ((s->chunk = malloc(lead + bound + 5 + 4)))
        m = libdeflate_deflate_compress(c, in, n, s->chunk + lead, bound);
    libdeflate_free_compressor(c);
    if (m && !last)
        m = unfinish(s->chunk + lead, m);
    s->n = lead + m + 4;
    return m ? 0 : -1;
}

/* Deflates `n` bytes at `in` (less than 1 GiB; the `dict` bytes before it
 * already seen) into s->chunk after `lead` bytes, leaving 4 for the CRC; the
 * stream ends if `last`, else it is sync-flushed to a byte boundary. */
static int deflate_strip(const struct writer *w, struct strip *s, const uint8_t *in, size_t n, size_t dict, int last,
                         size_t lead)
{
    if (s->method == LIBDEFLATE)
        return libdeflate_strip(w, s, in, n, last, lead);
    if (s->method == FAST) {
        if (!(s->chunk = malloc(lead + gf_deflate_fast_bound(n) + 4)))
            return -1;
        const size_t m = gf_deflate_fast(in, n, last, s->chunk + lead);
        s->n = lead + m + 4;
        return m ? 0 : -1;
    }
    z_stream z = {0};
    if (deflateInit2(&z, w->level, Z_DEFLATED, -15, 8, s->method == RLE ? Z_RLE : Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    const size_t cap = lead + deflateBound(&z, n) + 16 + 4; /* + a sync flush's empty stored block */
    int rc = dict ? deflateSetDictionary(&z, in - dict, (uInt)dict) : Z_OK;
    if (rc == Z_OK && (s->chunk = malloc(cap))) {
        z.next_in = (Bytef *)in;
        z.avail_in = (uInt)n;
        z.next_out = s->chunk + lead;
        z.avail_out = (uInt)(cap - lead - 4);
        rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
        if (rc == (last ? Z_STREAM_END : Z_OK) && !z.avail_in && z.avail_out) {
            s->n = lead + (size_t)z.total_out + 4;
            rc = Z_STREAM_END;
        }
    }
    deflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* Task i of a wave: its strip filtered, deflated and made a chunk. */
static void make_strip(void *ctx, int i)
{
    const struct writer *w = ctx;
    struct strip *s = &w->strip[i];
    const int k = s->k;
    const size_t stride = w->rowbytes + 1;
    const int y0 = k * w->strip_rows, y1 = y0 + w->strip_rows < w->img->height ? y0 + w->strip_rows : w->img->height;
    const int back = y0 < (int)((WINDOW + stride - 1) / stride) ? y0 : (int)((WINDOW + stride - 1) / stride);
    const size_t lead = 8 + (k == 0 ? 2 : 0);
    uint8_t *rows = malloc(stride * (size_t)(y1 - y0 + back)), *scratch = malloc(4 * stride);
    s->failed = 1;
    if (rows && scratch) {
        filter_rows(w, y0 - back, y1, rows, scratch);
        const uint8_t *in = rows + stride * (size_t)back;
        const size_t dict = stride * (size_t)back < WINDOW ? stride * (size_t)back : WINDOW;
        s->len = stride * (size_t)(y1 - y0);
        if (!deflate_strip(w, s, in, s->len, dict, y1 == w->img->height, lead)) {
            s->adler = libdeflate_adler32(1, in, s->len);
            put32(s->chunk, (uint32_t)(s->n - 12));
            memcpy(s->chunk + 4, "IDAT", 4);
            if (k == 0)
                zlib_header(w->level, s->chunk + 8);
            put32(s->chunk + s->n - 4, libdeflate_crc32(0, s->chunk + 4, s->n - 8));
            s->failed = 0;
        }
    }
    free(rows);
    free(scratch);
}

/* zlib's RLE strategy (matches at distance 1 only) compresses filtered
 * photographs within a few percent of libdeflate, often smaller, and faster,
 * but line art, flat graphics and smooth images much worse.  Each image is
 * compressed both ways: a small one (one strip) whole, a larger one on a
 * sample, BANDS bands of rows spread over it, SAMPLE_BYTES in all.  RLE is kept
 * unless libdeflate is smaller by more than 2% (levels 2-6, where speed
 * counts) or at all (levels 7-9, where size does). */
enum { SAMPLE_BYTES = 1 << 19, BANDS = 8 };

static int prefer_rle(int level, size_t rle, size_t other)
{
    return (double)rle <= (double)other * (level <= 6 ? 1.02 : 1.0);
}

struct trial {
    const struct writer *w;
    const uint8_t *in;
    size_t n;
    size_t size[2]; /* RLE, libdeflate; SIZE_MAX if it failed */
};

static void try_method(void *ctx, int t)
{
    struct trial *tr = ctx;
    struct strip s = {.method = t ? LIBDEFLATE : RLE};
    if (!deflate_strip(tr->w, &s, tr->in, tr->n, 0, 1, 0))
        tr->size[t] = s.n;
    free(s.chunk);
}

/* The method for an image of several strips, from a sample. */
static enum method sample_method(const struct writer *w, int threads)
{
    const size_t stride = w->rowbytes + 1;
    const int h = w->img->height;
    int rows = (int)(SAMPLE_BYTES / BANDS / stride);
    rows = rows < 1 ? 1 : rows > h / BANDS ? h / BANDS : rows;
    struct trial tr = {.w = w, .n = stride * (size_t)(BANDS * rows), .size = {SIZE_MAX, SIZE_MAX}};
    uint8_t *buf = malloc(tr.n), *scratch = malloc(4 * stride);
    if (buf && scratch) {
        for (int b = 0; b < BANDS; b++) {
            const int y0 = (int)((long long)(h - rows) * b / (BANDS - 1));
            filter_rows(w, y0, y0 + rows, buf + stride * (size_t)(b * rows), scratch);
        }
        tr.in = buf;
        gf_parallel_for(2, threads, try_method, &tr);
    }
    free(buf);
    free(scratch);
    if (tr.size[0] == SIZE_MAX || tr.size[1] == SIZE_MAX)
        return LIBDEFLATE;
    return prefer_rle(w->level, tr.size[0], tr.size[1]) ? RLE : LIBDEFLATE;
}

/* A chunk whose data is key[0..nk) then data[0..n) (a text's keyword and
 * fields, then its text): 0, or -1 on a write error. */
static int write_keyed_chunk(FILE *f, const char *type, const void *key, size_t nk, const uint8_t *data, size_t n)
{
    uint8_t head[8], crc[4];
    put32(head, (uint32_t)(nk + n));
    memcpy(head + 4, type, 4);
    put32(crc, (uint32_t)crc32(crc32(crc32(0, (const Bytef *)type, 4), key, (uInt)nk), data, (uInt)n));
    return fwrite(head, 1, 8, f) == 8 && fwrite(key, 1, nk, f) == nk && fwrite(data, 1, n, f) == n &&
                   fwrite(crc, 1, 4, f) == 4
               ? 0
               : -1;
}

static int write_chunk(FILE *f, const char *type, const uint8_t *data, size_t n)
{
    return write_keyed_chunk(f, type, "", 0, data, n);
}

/* The profile as an iCCP chunk (named "ICC profile", zlib at level 9):
 * 0, -1 on a write error, -2 out of memory. */
static int write_iccp(FILE *f, const gf_meta *m)
{
    static const char name[] = "ICC profile"; /* and its NUL, then compression method 0 */
    uLongf zlen = compressBound((uLong)m->icc_len);
    uint8_t *chunk = malloc(sizeof name + 1 + zlen);
    if (!chunk)
        return -2;
    memcpy(chunk, name, sizeof name);
    chunk[sizeof name] = 0;
    int rc = compress2(chunk + sizeof name + 1, &zlen, m->icc, (uLong)m->icc_len, 9) == Z_OK
                 ? write_chunk(f, "iCCP", chunk, sizeof name + 1 + zlen)
                 : -2;
    free(chunk);
    return rc;
}

/* 1 when s[0..n) is UTF-8 holding more than ASCII. */
static int utf8_beyond_ascii(const uint8_t *s, size_t n)
{
    int beyond = 0;
    for (size_t i = 0; i < n;) {
        const uint8_t c = s[i];
        const size_t more = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (more == 9 || more > n - i - 1)
            return 0;
        for (size_t k = 1; k <= more; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        beyond |= more > 0;
        i += more + 1;
    }
    return beyond;
}

/* m's IPTC as ImageMagick's raw profile (above): 0, -1 on a write error,
 * -2 out of memory. */
static int write_raw_profile(FILE *f, const gf_meta *m)
{
    static const char hex[] = "0123456789abcdef";
    const size_t n = m->iptc_len - IPTC_HEAD, key = sizeof RAW_8BIM; /* and its NUL */
    uint8_t *chunk = malloc(key + 16 + 2 * n + n / 36 + 2);
    if (!chunk)
        return -2;
    memcpy(chunk, RAW_8BIM, key);
    size_t o = key + (size_t)sprintf((char *)chunk + key, "\n8bim\n%8zu", n);
    for (size_t i = 0; i < n; i++) {
        if (i % 36 == 0)
            chunk[o++] = '\n';
        chunk[o++] = (uint8_t)hex[m->iptc[IPTC_HEAD + i] >> 4];
        chunk[o++] = (uint8_t)hex[m->iptc[IPTC_HEAD + i] & 15];
    }
    chunk[o++] = '\n';
    const int rc = write_chunk(f, "tEXt", chunk, o);
    free(chunk);
    return rc;
}

/* A text as a chunk: a PNG text as it was read; a JPEG comment as tEXt
 * "Comment", or iTXt where it is UTF-8 beyond ASCII (none if it holds a NUL,
 * which no PNG text can).  0, or -1 on a write error. */
static int write_text(FILE *f, const gf_text *t)
{
    if (strcmp(t->type, "COM"))
        return write_chunk(f, t->type, t->data, t->len);
    size_t n = t->len;
    while (n && !t->data[n - 1]) /* a C string's terminator, as some writers leave it */
        n--;
    if (memchr(t->data, 0, n))
        return 0;
    const int itxt = utf8_beyond_ascii(t->data, n);
    static const char key[] = "Comment\0\0\0\0"; /* iTXt: not compressed, no language or translation */
    return write_keyed_chunk(f, itxt ? "iTXt" : "tEXt", key, itxt ? sizeof key : 8, t->data, n);
}

gf_status gf_png_encode(FILE *f, const gf_image *img, const gf_encode_opts *o)
{
    static const uint8_t types[4] = {0, 4, 2, 6}; /* G, GA, RGB, RGBA */
    struct writer w = {.img = img, .level = o->compress};
    w.bpp = img->channels * img->depth / 8;
    w.rowbytes = (size_t)img->width * (size_t)w.bpp;
    w.strip_rows = (int)(STRIP_BYTES / (w.rowbytes + 1)) + 1;
    w.nstrips = (img->height + w.strip_rows - 1) / w.strip_rows;
    const int threads = o->threads > 0 ? o->threads : 1, wave = threads < 1 ? 2 : threads * 2;
    if (!(w.strip = calloc((size_t)wave, sizeof *w.strip)))
        return gf_error(GF_ENOMEM, "out of memory encoding PNG");
    enum method method = STORED;
    int first = 0, oom = 0;
    if (w.level == 1) {
        method = FAST;
    } else if (w.level > 0 && w.nstrips == 1) { /* the trial is the encoding */
        w.strip[0].method = RLE;
        w.strip[1].method = LIBDEFLATE;
        gf_parallel_for(2, threads, make_strip, &w);
        oom = w.strip[0].failed || w.strip[1].failed;
        const int rle = !oom && prefer_rle(w.level, w.strip[0].n, w.strip[1].n);
        method = rle ? RLE : LIBDEFLATE;
        if (!rle) {
            struct strip t = w.strip[0];
            w.strip[0] = w.strip[1];
            w.strip[1] = t;
        }
        free(w.strip[1].chunk);
        w.strip[1].chunk = NULL;
        first = 1;
    } else if (w.level > 0) {
        method = sample_method(&w, threads);
    }
    if (o->detail && method == FAST)
        snprintf(o->detail, GF_ENCODE_DETAIL, "fast");
    else if (o->detail && method == LIBDEFLATE)
        snprintf(o->detail, GF_ENCODE_DETAIL, "libdeflate %d", w.level);
    else if (o->detail)
        snprintf(o->detail, GF_ENCODE_DETAIL, "zlib %d %s", w.level, method == RLE ? "rle" : "stored");

    uint8_t ihdr[13];
    put32(ihdr, (uint32_t)img->width);
    put32(ihdr + 4, (uint32_t)img->height);
    ihdr[8] = (uint8_t)img->depth;
    ihdr[9] = types[img->channels - 1];
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    errno = 0;
    int io = fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) == 8 ? write_chunk(f, "IHDR", ihdr, sizeof ihdr) : -1;
    if (!io && o->meta && o->meta->icc) {
        const int rc = write_iccp(f, o->meta);
        io = rc == -1 ? -1 : 0;
        oom = rc == -2;
    }
    if (!io && !oom && o->meta && o->meta->srgb && !o->meta->icc) { /* not both: PNG says one or the other */
        const uint8_t intent = (uint8_t)(o->meta->srgb - 1);
        io = write_chunk(f, "sRGB", &intent, 1);
    }
    if (!io && !oom && o->meta && o->meta->gamma) {
        uint8_t g[4];
        put32(g, o->meta->gamma);
        io = write_chunk(f, "gAMA", g, 4);
    }
    if (!io && !oom && o->meta && o->meta->chrm[0]) {
        uint8_t xy[32];
        for (int i = 0; i < 8; i++)
            put32(xy + 4 * i, o->meta->chrm[i]);
        io = write_chunk(f, "cHRM", xy, 32);
    }
    if (!io && !oom && o->meta && o->meta->exif)
        io = write_chunk(f, "eXIf", o->meta->exif, o->meta->exif_len);
    if (!io && !oom && o->meta && o->meta->xmp) { /* iTXt: key, not compressed, no language or translation */
        static const char head[] = "XML:com.adobe.xmp\0\0\0\0"; /* and its own NUL: the fifth */
        io = write_keyed_chunk(f, "iTXt", head, sizeof head, o->meta->xmp, o->meta->xmp_len);
    }
    if (!io && !oom && o->meta && o->meta->density_x) { /* per inch or cm become per metre, rounded */
        const gf_meta *m = o->meta;
        const double to_metre = m->density_unit == GF_DENSITY_INCH ? 1 / 0.0254
                                : m->density_unit == GF_DENSITY_CM ? 100
                                                                   : 1;
        uint8_t phys[9];
        put32(phys, (uint32_t)(m->density_x * to_metre + 0.5));
        put32(phys + 4, (uint32_t)(m->density_y * to_metre + 0.5));
        phys[8] = m->density_unit == GF_DENSITY_ASPECT ? 0 : 1;
        io = write_chunk(f, "pHYs", phys, sizeof phys);
    }
    if (!io && !oom && o->meta && o->meta->iptc && o->meta->iptc_len > IPTC_HEAD &&
        !memcmp(o->meta->iptc, GF_IPTC_ID, IPTC_HEAD)) {
        const int rc = write_raw_profile(f, o->meta);
        io = rc == -1 ? -1 : 0;
        oom = rc == -2;
    }
    for (size_t i = 0; !io && !oom && o->meta && i < o->meta->ntext; i++)
        io = write_text(f, &o->meta->text[i]);
    uLong adler = 1;
    for (int k = 0; !oom && k < w.nstrips;) {
        const int n = first ? 1 : w.nstrips - k < wave ? w.nstrips - k : wave;
        for (int i = 0; i < n && !first; i++)
            w.strip[i] = (struct strip){.k = k + i, .method = method};
        if (!first)
            gf_parallel_for(n, threads, make_strip, &w);
        first = 0;
        for (int i = 0; i < n; i++) {
            struct strip *s = &w.strip[i];
            oom |= s->failed;
            if (!io && !oom) {
                io = fwrite(s->chunk, 1, s->n, f) == s->n ? 0 : -1;
                adler = adler32_combine(adler, s->adler, (z_off_t)s->len);
            }
            free(s->chunk);
            s->chunk = NULL;
        }
        k += n;
    }
    for (int i = 0; i < wave; i++) /* what a failure left unwritten */
        free(w.strip[i].chunk);
    free(w.strip);
    if (oom)
        return gf_error(GF_ENOMEM, "out of memory encoding PNG");
    uint8_t tail[4];
    put32(tail, (uint32_t)adler);
    if (io || write_chunk(f, "IDAT", tail, 4) || write_chunk(f, "IEND", tail, 0))
        return gf_error(GF_EIO, "cannot write PNG data: %s", errno ? strerror(errno) : "short write");
    return GF_OK;
}
