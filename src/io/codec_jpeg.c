/* SPDX-License-Identifier: MIT */
/* JPEG through the libjpeg API (libjpeg-turbo): baseline and progressive,
 * gray and YCbCr at any subsampling in, CMYK and YCCK converted to RGB; 8-bit
 * gray/RGB out.
 * Warnings that mean lost data (premature end, bad Huffman code, hit a marker
 * mid-scan) are errors: a partial image is returned only under -lenient, and
 * then with a warning.
 *
 * Decompression bombs: besides -limit-pixels (checked from the header, before
 * jpeg_start_decompress), libjpeg's working memory is capped (progressive
 * files keep every coefficient: 128 bytes per 8x8 block, which a few hundred
 * bytes of EOB runs can claim) and so is the number of scans (each one is a
 * pass over the coefficients, and a file may repeat them). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "codec.h"

/* libjpeg's working memory: at least 256 MiB (any baseline image and a
 * 16-megapixel progressive one fit), else 4096 bytes per byte of input.  A
 * Huffman-coded progressive scan spends at least one bit per block on DC, so
 * files that code every block stay under 1024 bytes of coefficients per byte. */
#define JPEG_MEMORY_FLOOR ((size_t)256 << 20)
#define JPEG_MEMORY_PER_BYTE 4096

struct jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
    char msg[JMSG_LENGTH_MAX + 64];
    const gf_decode_opts *opts;
    size_t memory; /* the cap, for the message */
    int eof;       /* the data ended early (JWRN_JPEG_EOF) */
    int lenient;   /* data lost is noted in msg, once, and decoding goes on */
    int lost;      /* data was lost */
};

static void on_error_exit(j_common_ptr cinfo)
{
    struct jerr *e = (struct jerr *)cinfo->err;
    char buf[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, buf);
    if (cinfo->err->msg_code == JERR_NO_BACKING_STORE) /* the memory cap, nothing else asks for it */
        snprintf(e->msg, sizeof e->msg, "JPEG decoding needs more than %zu MiB of memory for this file (a "
                 "decompression bomb?)", e->memory >> 20);
    else
        snprintf(e->msg, sizeof e->msg, "%s", buf);
    longjmp(e->jb, 1);
}

static void on_progress(j_common_ptr cinfo)
{
    j_decompress_ptr d = (j_decompress_ptr)cinfo;
    if (cinfo->is_decompressor && d->input_scan_number > GF_JPEG_MAX_SCANS) {
        struct jerr *e = (struct jerr *)cinfo->err;
        snprintf(e->msg, sizeof e->msg, "JPEG has more than %d scans", GF_JPEG_MAX_SCANS);
        longjmp(e->jb, 1);
    }
}

static void on_message(j_common_ptr cinfo, int level)
{
    struct jerr *e = (struct jerr *)cinfo->err;
    if (level >= 0)
        return; /* trace messages */
    int code = cinfo->err->msg_code;
    char buf[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, buf);
    if (code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC || code == JWRN_HUFF_BAD_CODE) {
        if (!e->lost) {
            if (code == JWRN_JPEG_EOF)
                snprintf(e->msg, sizeof e->msg, "truncated JPEG data");
            else
                snprintf(e->msg, sizeof e->msg, "corrupt JPEG data: %s", buf);
        }
        e->eof |= code == JWRN_JPEG_EOF;
        e->lost = 1;
        if (!e->lenient)
            longjmp(e->jb, 1);
        return;
    }
    if (e->opts && e->opts->verbose)
        gf_say("%s: libjpeg warning: %s", e->opts->name ? e->opts->name : "-", buf);
}

static void save_meta_markers(struct jpeg_decompress_struct *ci)
{
    jpeg_save_markers(ci, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(ci, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(ci, JPEG_APP0 + 13, 0xFFFF);
    jpeg_save_markers(ci, JPEG_COM, 0xFFFF);
}

#define XMP_EXTENSION_NS "http://ns.adobe.com/xmp/extension/" /* an extended XMP APP1, and a NUL */

/* Takes the note that announces extended XMP (xmpNote:HasExtendedXMP, as
 * an attribute or an element) out of the packet xmp[0..*len): the extension
 * is not carried, and a reader would look for it.  1 if there was one. */
static int drop_extension_note(uint8_t *xmp, size_t *len)
{
    static const char note[] = ":HasExtendedXMP";
    const uint8_t *end = xmp + *len;
    for (uint8_t *p = xmp; (p = memchr(p, ':', (size_t)(end - p))); p++) {
        if ((size_t)(end - p) < sizeof note || memcmp(p, note, sizeof note - 1))
            continue;
        uint8_t *from = p, *to = p + sizeof note - 1;
        while (from > xmp && from[-1] != ' ' && from[-1] != '\t' && from[-1] != '\n' && from[-1] != '\r' &&
               from[-1] != '<')
            from--; /* the prefix */
        if (from > xmp && from[-1] == '<') { /* <x:HasExtendedXMP>GUID</x:HasExtendedXMP> */
            from--;
            const uint8_t *closing = memmem(to, (size_t)(end - to), note, sizeof note - 1);
            const uint8_t *gt = closing ? memchr(closing, '>', (size_t)(end - closing)) : NULL;
            if (!gt)
                return 0;
            to = (uint8_t *)gt + 1;
        } else if (to < end && *to == '=' && to + 1 < end && (to[1] == '"' || to[1] == '\'')) { /* x:Has...="GUID" */
            const uint8_t *q = memchr(to + 2, to[1], (size_t)(end - to - 2));
            if (!q)
                return 0;
            to = (uint8_t *)q + 1;
            while (from > xmp && (from[-1] == ' ' || from[-1] == '\t' || from[-1] == '\n' || from[-1] == '\r'))
                from--; /* and the space before it */
        } else {
            continue;
        }
        memmove(from, to, (size_t)(end - to));
        *len -= (size_t)(to - from);
        return 1;
    }
    return 0;
}

/* The ICC profile (libjpeg's reassembly of the APP2 markers, unless too
 * large, or numbered out of sequence: dropped, with a warning), the
 * density, the first EXIF and XMP APP1s (extended XMP dropped, with a
 * warning, and the main packet's note of it), the first Photoshop APP13
 * and the comments among the saved markers. */
static void read_meta(struct jpeg_decompress_struct *ci, gf_meta *m, const gf_decode_opts *o)
{
    JOCTET *icc = NULL;
    unsigned int len = 0;
    const char *name = o && o->name ? o->name : "-";
    const int quiet = !o || o->quiet;
    int icc_segments = 0, extended = 0;
    for (jpeg_saved_marker_ptr k = ci->marker_list; k; k = k->next)
        if (k->marker == JPEG_APP0 + 2 && k->data_length > 14 && !memcmp(k->data, "ICC_PROFILE", 12))
            icc_segments++;
        else if (k->marker == JPEG_APP0 + 1 && k->data_length >= sizeof XMP_EXTENSION_NS &&
                 !memcmp(k->data, XMP_EXTENSION_NS, sizeof XMP_EXTENSION_NS))
            extended = 1;
    if (!jpeg_read_icc_profile(ci, &icc, &len) && icc_segments && !quiet)
        gf_say("%s: warning: ICC profile dropped: its %d APP2 segments are not numbered 1 to %d", name, icc_segments,
               icc_segments);
    if (icc) {
        if (len > GF_MAX_ICC) {
            if (o && !o->quiet)
                gf_say("%s: warning: ICC profile of %u bytes dropped (more than %zu)", o->name ? o->name : "-", len,
                       GF_MAX_ICC);
            free(icc);
        } else {
            m->icc = icc;
            m->icc_len = len;
        }
    }
    m->no_jfif = !ci->saw_JFIF_marker;
    if (ci->saw_JFIF_marker && ci->X_density && ci->Y_density && ci->density_unit <= 2 &&
        !(ci->density_unit == 0 && ci->X_density == 1 && ci->Y_density == 1)) { /* 1:1 without a unit says nothing */
        m->density_unit = ci->density_unit;
        m->density_x = ci->X_density;
        m->density_y = ci->Y_density;
    }
    int dropped = 0;
    for (jpeg_saved_marker_ptr k = ci->marker_list; k; k = k->next) {
        if (k->marker == JPEG_COM) {
            dropped |= gf_meta_add_text(m, "COM", k->data, k->data_length) != 0;
        } else if (k->marker == JPEG_APP0 + 13) {
            if (!m->iptc && k->data_length > sizeof GF_IPTC_ID && !memcmp(k->data, GF_IPTC_ID, sizeof GF_IPTC_ID) &&
                (m->iptc = malloc(k->data_length))) {
                memcpy(m->iptc, k->data, k->data_length);
                m->iptc_len = k->data_length;
            }
        } else if (k->marker != JPEG_APP0 + 1) {
            continue;
        } else if (!m->exif && k->data_length > 6 && !memcmp(k->data, "Exif\0\0", 6) &&
            (m->exif = malloc(k->data_length - 6))) {
            memcpy(m->exif, k->data + 6, k->data_length - 6);
            m->exif_len = k->data_length - 6;
        } else if (!m->xmp && k->data_length > sizeof GF_XMP_NS && !memcmp(k->data, GF_XMP_NS, sizeof GF_XMP_NS) &&
                   (m->xmp = malloc(k->data_length - sizeof GF_XMP_NS))) {
            memcpy(m->xmp, k->data + sizeof GF_XMP_NS, k->data_length - sizeof GF_XMP_NS);
            m->xmp_len = k->data_length - sizeof GF_XMP_NS;
        }
    }
    if ((extended | (m->xmp && drop_extension_note(m->xmp, &m->xmp_len))) && !quiet)
        gf_say("%s: warning: extended XMP not carried; the main packet is kept without its note of it", name);
    if (dropped && o && !o->quiet)
        gf_say("%s: warning: comments past %d or %zu bytes dropped", o->name ? o->name : "-", GF_MAX_TEXTS,
               GF_MAX_TEXT_BYTES);
}

/* An APP1 of `prefix` (its NUL included) and data[0..n) through libjpeg. */
static void write_app1(struct jpeg_compress_struct *ci, const char *prefix, size_t plen, const uint8_t *data,
                       size_t n)
{
    jpeg_write_m_header(ci, JPEG_APP0 + 1, (unsigned int)(plen + n));
    for (size_t i = 0; i < plen + n; i++)
        jpeg_write_m_byte(ci, i < plen ? prefix[i] : data[i - plen]);
}

struct jdec {
    struct jpeg_decompress_struct cinfo;
    struct jerr err;
    struct jpeg_progress_mgr progress;
    gf_image img;
    uint8_t *cmyk_row; /* a CMYK or YCCK file's row, as libjpeg gives it */
    gf_meta meta;      /* when asked for */
    int complete;      /* every coefficient of every component arrived (progressive) */
    gf_status status;
};

/* CMYK (libjpeg converts YCCK to it) to RGB without colour management:
 * R = (1 - C)(1 - K), likewise G from M and B from Y, rounded to nearest.
 * Files with an Adobe marker (Photoshop's, and most others) store every ink
 * inverted (255 - ink), as libjpeg documents; the others store the ink. */
static void cmyk_to_rgb(const uint8_t *in, uint8_t *out, int width, int inverted)
{
    for (int x = 0; x < width; x++, in += 4, out += 3) {
        const unsigned k = inverted ? in[3] : 255u - in[3];
        for (int c = 0; c < 3; c++)
            out[c] = (uint8_t)(((inverted ? in[c] : 255u - in[c]) * k + 127) / 255);
    }
}

static int decode(struct jdec *d, const uint8_t *buf, size_t n)
{
    struct jpeg_decompress_struct *ci = &d->cinfo;
    if (setjmp(d->err.jb))
        return -1;
    jpeg_create_decompress(ci);
    d->err.memory = n > LONG_MAX / JPEG_MEMORY_PER_BYTE ? LONG_MAX : n * JPEG_MEMORY_PER_BYTE;
    if (d->err.memory < JPEG_MEMORY_FLOOR)
        d->err.memory = JPEG_MEMORY_FLOOR;
    ci->mem->max_memory_to_use = (long)d->err.memory;
    d->progress.progress_monitor = on_progress;
    ci->progress = &d->progress;
    jpeg_mem_src(ci, buf, (unsigned long)n);
    if (d->err.opts->meta)
        save_meta_markers(ci);
    jpeg_read_header(ci, TRUE);
    if (d->err.opts->meta)
        read_meta(ci, &d->meta, d->err.opts);
    const int cmyk = ci->jpeg_color_space == JCS_CMYK || ci->jpeg_color_space == JCS_YCCK;
    gf_shape s = {(int)ci->image_width, (int)ci->image_height, ci->num_components == 1 ? 1 : 3, 8};
    if ((d->status = gf_shape_check(&s, d->err.opts->limit_pixels)))
        return -1;
    ci->out_color_space = cmyk ? JCS_CMYK : s.channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_start_decompress(ci);
    if ((int)ci->output_components != (cmyk ? 4 : s.channels)) {
        d->status = gf_error(GF_EINTERNAL, "unexpected JPEG output layout");
        return -1;
    }
    if ((d->status = gf_image_alloc(&d->img, s.width, s.height, s.channels, 8)))
        return -1;
    if (cmyk && !(d->cmyk_row = malloc((size_t)s.width * 4))) {
        d->status = gf_error(GF_ENOMEM, "out of memory");
        return -1;
    }
    while (ci->output_scanline < ci->output_height) {
        uint8_t *out = (uint8_t *)d->img.data + (size_t)ci->output_scanline * d->img.stride;
        JSAMPROW row = cmyk ? d->cmyk_row : out;
        jpeg_read_scanlines(ci, &row, 1);
        if (cmyk)
            cmyk_to_rgb(d->cmyk_row, out, s.width, ci->saw_Adobe_marker);
    }
    /* a progressive file's scans were all read by jpeg_start_decompress; the
     * table is freed by jpeg_finish_decompress */
    d->complete = 1;
    for (int c = 0; ci->progressive_mode && c < ci->num_components; c++)
        for (int k = 0; k < DCTSIZE2; k++)
            d->complete &= ci->coef_bits[c][k] == 0; /* -1: never sent; > 0: not refined to the last bit */
    jpeg_finish_decompress(ci);
    return 0;
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
        const size_t len = (size_t)b[i] << 8 | b[i + 1];
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

/* gf_jpeg_walk's visitor: the frame's component ids, those some scan codes,
 * and whether the frame is arithmetic-coded. */
struct coverage {
    uint8_t frame[4], scanned[4];
    int nframe, arithmetic;
};

static int cover(void *ctx, uint8_t m, const uint8_t *seg, size_t len)
{
    struct coverage *c = ctx;
    if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC && len >= 6) {
        c->arithmetic = m >= 0xC9;
        c->nframe = seg[5] < 4 ? seg[5] : 4;
        for (int i = 0; i < c->nframe && 6 + 3 * (size_t)i < len; i++)
            c->frame[i] = seg[6 + 3 * i];
    } else if (m == 0xDA && len >= 1) {
        for (int i = 0; i < seg[0] && 1 + 2 * (size_t)i < len; i++)
            for (int f = 0; f < c->nframe; f++)
                c->scanned[f] |= seg[1 + 2 * i] == c->frame[f];
    }
    return 0;
}

/* Whether the scans of a Huffman-coded file cover every component of its
 * frame.  Never for an arithmetic-coded one: its decoder reads zeros at any
 * marker, and its encoder leaves the scan's trailing zero bytes out, so a
 * scan cut short decodes as cleanly as a whole one. */
static int scans_cover_frame(const uint8_t *b, size_t n)
{
    struct coverage c = {{0}, {0}, 0, 0};
    gf_jpeg_walk(b, n, cover, &c);
    for (int f = 0; f < c.nframe; f++)
        if (!c.scanned[f])
            return 0;
    return c.nframe > 0 && !c.arithmetic;
}

/* A decoder's state with gpufilter's error and message handlers; NULL out of memory. */
static struct jdec *new_jdec(const gf_decode_opts *o)
{
    struct jdec *d = calloc(1, sizeof *d);
    if (d) {
        d->cinfo.err = jpeg_std_error(&d->err.pub);
        d->err.pub.error_exit = on_error_exit;
        d->err.pub.emit_message = on_message;
        d->err.opts = o;
    }
    return d;
}

/* One decode's outcome beyond its status. */
struct attempt {
    int lenient;  /* in: go on past lost data */
    int eof;      /* the data ended early */
    int lost;     /* data was lost (what `why` says) */
    int complete; /* a progressive file's coefficients all arrived */
    char why[JMSG_LENGTH_MAX + 64];
};

/* One decode of buf[0..n). */
static gf_status decode_once(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, struct attempt *a)
{
    struct jdec *d = new_jdec(o);
    if (!d)
        return gf_error(GF_ENOMEM, "out of memory");
    d->err.lenient = a->lenient;
    gf_status st = GF_OK;
    if (decode(d, buf, n)) {
        st = d->status ? d->status : gf_error(GF_EFORMAT, "%s", d->err.msg);
        gf_image_free(&d->img);
    } else {
        *img = d->img;
    }
    a->eof = d->err.eof;
    a->lost = d->err.lost && !d->status;
    a->complete = d->complete;
    snprintf(a->why, sizeof a->why, "%s", d->err.msg);
    if (!st && o->meta) {
        gf_meta_free(o->meta);
        *o->meta = d->meta;
    } else {
        gf_meta_free(&d->meta);
    }
    jpeg_destroy_decompress(&d->cinfo);
    free(d->cmyk_row);
    free(d);
    return st;
}

/* A file whose data ends early is tried once more with an end marker (EOI)
 * appended: when that decodes cleanly and nothing is missing (every
 * coefficient of a progressive file refined to its last bit, every
 * component of a sequential one scanned), the marker was all that was
 * missing (as when a writer forgets it), and the image is kept with a
 * warning; else the data was cut short, and the file stays an error.  An
 * arithmetic-coded file cannot tell the two apart, and stays an error. */
/* Where data was lost: a missing end marker alone repaired (above), else
 * under -lenient what libjpeg recovered (the rest of a truncated scan, or of
 * a damaged one after resynchronising, is filled as libjpeg fills it), with
 * a warning; else the error stands. */
static gf_status missing_eoi(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, gf_status st);

gf_status gf_jpeg_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img)
{
    struct attempt a = {0};
    gf_status st = decode_once(buf, n, o, img, &a);
    if (!st || !a.lost)
        return st;
    if (a.eof && !(n >= 2 && buf[n - 2] == 0xFF && buf[n - 1] == 0xD9) && !missing_eoi(buf, n, o, img, st))
        return GF_OK;
    if (!o->lenient)
        return st;
    struct attempt l = {.lenient = 1};
    gf_status st2 = decode_once(buf, n, o, img, &l);
    if (st2)
        return st; /* an error libjpeg cannot go past */
    gf_error_clear();
    if (!o->quiet)
        gf_say("%s: warning: %s; kept what was decoded (-lenient)", o->name ? o->name : "-", l.why);
    return GF_OK;
}

static gf_status missing_eoi(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, gf_status st)
{
    char why[sizeof "truncated JPEG data"];
    snprintf(why, sizeof why, "%s", gf_error_detail(st));
    uint8_t *whole = malloc(n + 2);
    if (!whole)
        return st;
    memcpy(whole, buf, n);
    whole[n] = 0xFF;
    whole[n + 1] = 0xD9;
    struct attempt a = {0};
    gf_status st2 = decode_once(whole, n + 2, o, img, &a);
    const int whole_scans = scans_cover_frame(whole, n + 2);
    free(whole);
    if (!st2 && (!a.complete || !whole_scans)) {
        gf_image_free(img);
        st2 = GF_EFORMAT;
    }
    if (st2)
        return gf_error(st, "%s", why);
    if (!o->quiet)
        gf_say("%s: warning: the JPEG has no end marker; decoded without it", o->name ? o->name : "-");
    return GF_OK;
}

/* m's density as JFIF writes it (pixels per metre become per inch,
 * rounded): 1, or 0 when there is none that JFIF can hold. */
static int jfif_density(const gf_meta *m, unsigned *unit, unsigned *x, unsigned *y)
{
    if (!m || !m->density_x)
        return 0;
    const int metre = m->density_unit == GF_DENSITY_METRE;
    const double fx = metre ? m->density_x * 0.0254 + 0.5 : m->density_x;
    const double fy = metre ? m->density_y * 0.0254 + 0.5 : m->density_y;
    if (fx < 1 || fy < 1 || fx > 65535 || fy > 65535)
        return 0;
    *unit = metre ? GF_DENSITY_INCH : (unsigned)m->density_unit;
    *x = (unsigned)fx;
    *y = (unsigned)fy;
    return 1;
}

/* Whether a JPEG written with m gets a JFIF APP0: always, but where m came
 * from a JPEG without one, only for a density that no EXIF carries. */
static int want_jfif(const gf_meta *m)
{
    unsigned unit, x, y;
    return !m || !m->no_jfif || (!m->exif && jfif_density(m, &unit, &x, &y));
}

struct jenc {
    struct jpeg_compress_struct cinfo;
    struct jerr err;
};

static int encode(struct jenc *e, FILE *f, const gf_image *img, const gf_encode_opts *o)
{
    struct jpeg_compress_struct *ci = &e->cinfo;
    switch (setjmp(e->err.jb)) {
    case 0: break;
    case 2: return 2; /* out of memory */
    default: return 1; /* libjpeg failed */
    }
    jpeg_create_compress(ci);
    jpeg_stdio_dest(ci, f);
    ci->image_width = (JDIMENSION)img->width;
    ci->image_height = (JDIMENSION)img->height;
    ci->input_components = img->channels;
    ci->in_color_space = img->channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(ci);
    jpeg_set_quality(ci, o->quality, TRUE);
    unsigned unit, x, y;
    ci->write_JFIF_header = want_jfif(o->meta);
    if (ci->write_JFIF_header && jfif_density(o->meta, &unit, &x, &y)) {
        ci->density_unit = (UINT8)unit;
        ci->X_density = (UINT16)x;
        ci->Y_density = (UINT16)y;
    }
    jpeg_start_compress(ci, TRUE);
    if (o->meta && o->meta->exif && o->meta->exif_len <= GF_MAX_EXIF)
        write_app1(ci, "Exif\0", 6, o->meta->exif, o->meta->exif_len);
    if (o->meta && o->meta->xmp && o->meta->xmp_len <= GF_MAX_XMP)
        write_app1(ci, GF_XMP_NS, sizeof GF_XMP_NS, o->meta->xmp, o->meta->xmp_len);
    if (o->meta && o->meta->icc)
        jpeg_write_icc_profile(ci, o->meta->icc, (unsigned int)o->meta->icc_len);
    if (o->meta && o->meta->iptc && o->meta->iptc_len <= 65533)
        jpeg_write_marker(ci, JPEG_APP0 + 13, o->meta->iptc, (unsigned int)o->meta->iptc_len);
    for (size_t i = 0; o->meta && i < o->meta->ntext; i++) {
        uint8_t *com;
        size_t len;
        if (gf_text_comment(&o->meta->text[i], &com, &len) < 0)
            longjmp(e->err.jb, 2);
        if (com)
            jpeg_write_marker(ci, JPEG_COM, com, (unsigned int)len);
        free(com);
    }
    while (ci->next_scanline < ci->image_height) {
        JSAMPROW row = (JSAMPROW)img->data + (size_t)ci->next_scanline * img->stride;
        jpeg_write_scanlines(ci, &row, 1);
    }
    jpeg_finish_compress(ci);
    return 0;
}

gf_status gf_jpeg_encode(FILE *f, const gf_image *img, const gf_encode_opts *o)
{
    if (img->depth != 8 || (img->channels != 1 && img->channels != 3))
        return gf_error(GF_EINTERNAL, "JPEG encoder needs 8-bit gray or RGB");
    struct jenc *e = calloc(1, sizeof *e);
    if (!e)
        return gf_error(GF_ENOMEM, "out of memory");
    e->cinfo.err = jpeg_std_error(&e->err.pub);
    e->err.pub.error_exit = on_error_exit;
    e->err.pub.emit_message = on_message;
    gf_status st = GF_OK;
    errno = 0;
    const int r = encode(e, f, img, o);
    if (r == 2)
        st = gf_error(GF_ENOMEM, "out of memory");
    else if (r)
        st = gf_error(GF_EIO, "cannot write JPEG data: %s", errno ? strerror(errno) : e->err.msg);
    jpeg_destroy_compress(&e->cinfo);
    free(e);
    return st;
}

gf_status gf_jpeg_read_meta(const uint8_t *buf, size_t n, gf_meta *m, const char *name, int quiet)
{
    *m = (gf_meta){0};
    const gf_decode_opts o = {.quiet = quiet, .name = name};
    struct jdec *d = new_jdec(&o);
    if (!d)
        return gf_error(GF_ENOMEM, "out of memory");
    gf_status st = GF_OK;
    if (setjmp(d->err.jb)) {
        st = gf_error(GF_EFORMAT, "%s", d->err.msg);
        gf_meta_free(&d->meta);
    } else {
        jpeg_create_decompress(&d->cinfo);
        jpeg_mem_src(&d->cinfo, buf, (unsigned long)n);
        save_meta_markers(&d->cinfo);
        jpeg_read_header(&d->cinfo, TRUE);
        read_meta(&d->cinfo, &d->meta, &o);
        *m = d->meta;
    }
    jpeg_destroy_decompress(&d->cinfo);
    free(d);
    return st;
}

/* A marker segment FF `marker`, its length, prefix[0..np) and data[0..n)
 * at b + o: the offset after it. */
static size_t put_segment(uint8_t *b, size_t o, uint8_t marker, const void *prefix, size_t np, const uint8_t *data,
                          size_t n)
{
    const size_t len = 2 + np + n;
    const uint8_t head[4] = {0xFF, marker, (uint8_t)(len >> 8), (uint8_t)len};
    memcpy(b + o, head, 4);
    memcpy(b + o + 4, prefix, np);
    memcpy(b + o + 4 + np, data, n);
    return o + 2 + len;
}

gf_status gf_jpeg_add_meta(const uint8_t *buf, size_t n, const gf_meta *m, uint8_t **out, size_t *out_len)
{
    enum { HEAD = 14, MOST = 65533 - HEAD }; /* "ICC_PROFILE\0", sequence, count; data per APP2 */
    *out = NULL;
    if (n < 4 || buf[0] != 0xFF || buf[1] != 0xD8)
        return gf_error(GF_EINTERNAL, "not JPEG data");
    const size_t count = m->icc ? (m->icc_len + MOST - 1) / MOST : 0;
    if (count > 255)
        return gf_error(GF_EINTERNAL, "ICC profile too large for JPEG");
    size_t at = 2; /* after SOI, and after a JFIF APP0 that follows it */
    const int had_jfif = n >= 20 && buf[2] == 0xFF && buf[3] == 0xE0 && ((size_t)buf[4] << 8 | buf[5]) >= 16 &&
                         !memcmp(buf + 6, "JFIF", 5) && 4 + ((size_t)buf[4] << 8 | buf[5]) <= n;
    if (had_jfif)
        at = 4 + ((size_t)buf[4] << 8 | buf[5]);
    /* the encoder's JFIF APP0 kept, or dropped where m wants none */
    const int jfif = had_jfif && want_jfif(m);
    const size_t lead = jfif ? at : 2;
    unsigned unit, dx, dy;
    const int density = want_jfif(m) && jfif_density(m, &unit, &dx, &dy);
    const int exif = m->exif && m->exif_len <= GF_MAX_EXIF, xmp = m->xmp && m->xmp_len <= GF_MAX_XMP;
    const int iptc = m->iptc && m->iptc_len <= 65533;
    /* the comments, each a COM segment */
    uint8_t **com = m->ntext ? calloc(m->ntext, sizeof *com) : NULL;
    size_t *com_len = m->ntext ? calloc(m->ntext, sizeof *com_len) : NULL, coms = 0;
    int oom = m->ntext && (!com || !com_len);
    for (size_t i = 0; !oom && i < m->ntext; i++) {
        oom = gf_text_comment(&m->text[i], &com[i], &com_len[i]) < 0;
        coms += com[i] ? 4 + com_len[i] : 0;
    }
    const size_t len = n + (density && !jfif ? 18 : 0) + (exif ? 10 + m->exif_len : 0) +
                       (xmp ? 4 + sizeof GF_XMP_NS + m->xmp_len : 0) + (m->icc ? m->icc_len : 0) + count * (4 + HEAD) +
                       (iptc ? 4 + m->iptc_len : 0) + coms;
    uint8_t *b = oom ? NULL : malloc(len);
    if (!b) {
        for (size_t i = 0; com && i < m->ntext; i++)
            free(com[i]);
        free(com);
        free(com_len);
        return gf_error(GF_ENOMEM, "out of memory");
    }
    memcpy(b, buf, lead);
    size_t o = lead;
    if (density && !jfif) { /* a JFIF APP0 of its own, version 1.01 */
        static const uint8_t app0[11] = {0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1};
        memcpy(b + o, app0, sizeof app0);
        memset(b + o + 11, 0, 7);
        o += 18;
    }
    if (density) { /* units, X and Y of the JFIF APP0 just after SOI */
        b[13] = (uint8_t)unit;
        b[14] = (uint8_t)(dx >> 8), b[15] = (uint8_t)dx;
        b[16] = (uint8_t)(dy >> 8), b[17] = (uint8_t)dy;
    }
    if (exif)
        o = put_segment(b, o, 0xE1, "Exif\0\0", 6, m->exif, m->exif_len);
    if (xmp)
        o = put_segment(b, o, 0xE1, GF_XMP_NS, sizeof GF_XMP_NS, m->xmp, m->xmp_len);
    for (size_t i = 0, done = 0; i < count; i++) {
        const size_t part = m->icc_len - done < MOST ? m->icc_len - done : MOST;
        uint8_t head[HEAD] = "ICC_PROFILE"; /* and its NUL, the sequence number, the count */
        head[12] = (uint8_t)(i + 1);
        head[13] = (uint8_t)count;
        o = put_segment(b, o, 0xE2, head, HEAD, m->icc + done, part);
        done += part;
    }
    if (iptc)
        o = put_segment(b, o, 0xED, "", 0, m->iptc, m->iptc_len);
    for (size_t i = 0; i < m->ntext; i++) {
        if (com[i])
            o = put_segment(b, o, 0xFE, "", 0, com[i], com_len[i]);
        free(com[i]);
    }
    free(com);
    free(com_len);
    memcpy(b + o, buf + at, n - at);
    *out = b;
    *out_len = o + n - at;
    return GF_OK;
}
