/* SPDX-License-Identifier: MIT */
#ifndef GF_CODEC_H
#define GF_CODEC_H

#include <stdint.h>
#include <stdio.h>

#include "image.h"

typedef enum gf_format { GF_FMT_NONE = 0, GF_FMT_PNG, GF_FMT_JPEG, GF_FMT_PNM } gf_format;

/* A text: a PNG tEXt, zTXt or iTXt chunk as read (so that a PNG output
 * carries it unchanged, never inflated on the way), or a JPEG comment. */
typedef struct gf_text {
    char type[5];  /* "tEXt", "zTXt", "iTXt", or "COM" for a JPEG comment */
    uint8_t *data; /* the chunk's data (keyword first), or the comment's bytes */
    size_t len;
} gf_text;

/* What a file says about its pixels beyond them, carried to the output
 * unless -strip: the ICC colour profile, EXIF, XMP, IPTC, the density, the
 * texts. */
typedef struct gf_meta {
    uint8_t *icc; /* the profile's bytes, or NULL */
    size_t icc_len;
    uint8_t *exif; /* EXIF's TIFF structure (a JPEG APP1 after "Exif\0\0", a PNG eXIf chunk), or NULL */
    size_t exif_len;
    uint8_t *xmp; /* the XMP packet (a JPEG APP1 after its namespace, a PNG iTXt "XML:com.adobe.xmp"), or NULL */
    size_t xmp_len;
    /* the pixel density: JFIF's (unit 0 aspect only, 1 per inch, 2 per cm)
     * or pHYs's (unit 0 aspect only, 3 per metre); none when x is 0 */
    int density_unit;
    unsigned density_x, density_y;
    /* a JPEG's APP13 "Photoshop 3.0" segment, whole (IPTC-NAA within), or
     * the same from a PNG's tEXt "Raw profile type 8bim" (ImageMagick's), or NULL */
    uint8_t *iptc;
    size_t iptc_len;
    gf_text *text; /* PNG text chunks (XMP's aside) and JPEG comments, in file order */
    size_t ntext;
    /* a PNG's colour chunks, for a PNG output (kept with the profile): gAMA
     * (the gamma x 100000, 0 none), cHRM (white, red, green and blue x and
     * y x 100000; none when chrm[0] is 0), sRGB (its rendering intent + 1,
     * 0 none) */
    unsigned gamma, chrm[8];
    int srgb;
    int no_jfif; /* a JPEG read without a JFIF APP0: a JPEG written from it gets none either */
    int edited;  /* the pixels are changed on the way: EXIF's thumbnail would show the input's */
} gf_meta;
enum { GF_DENSITY_ASPECT = 0, GF_DENSITY_INCH = 1, GF_DENSITY_CM = 2, GF_DENSITY_METRE = 3 };
/* Which of it an output gets (-keep, -strip) */
enum {
    GF_KEEP_ICC = 1,
    GF_KEEP_EXIF = 2,
    GF_KEEP_XMP = 4,
    GF_KEEP_DENSITY = 8,
    GF_KEEP_IPTC = 16,
    GF_KEEP_TEXT = 32,
    GF_KEEP_ALL = 63
};
/* m's parts in `keep` for an output of `channels` channels, sharing m's
 * buffers (a view: not to be freed).  The ICC profile only where its colour
 * space is the output's (GRAY for gray, RGB for colour), as after
 * -grayscale an RGB profile would mislead. */
gf_meta gf_meta_kept(const gf_meta *m, unsigned keep, int channels);
void gf_meta_free(gf_meta *m);
/* 1 when m holds nothing to write. */
int gf_meta_empty(const gf_meta *m);
/* zlib data z[0..n) inflated into a new buffer of at most `most` bytes (the
 * rest dropped): its length, or -1 when it is not zlib data or out of memory. */
long gf_inflate_capped(const uint8_t *z, size_t n, size_t most, uint8_t **out);
/* The view k for a JPEG output: EXIF or XMP larger than one segment holds
 * taken out, each with a warning naming `name` (not when `quiet`). */
void gf_meta_for_jpeg(gf_meta *k, const char *name, int quiet);
#define GF_MAX_ICC ((size_t)4 << 20) /* larger profiles are dropped, with a warning */
/* A JPEG segment holds 65533 bytes after its length: EXIF after "Exif\0\0",
 * XMP after its namespace and NUL (extended XMP is not carried).  More
 * goes into PNG (up to GF_MAX_PNG_META) but not into JPEG: gf_meta_for_jpeg. */
#define GF_MAX_EXIF ((size_t)65533 - 6)
#define GF_XMP_NS "http://ns.adobe.com/xap/1.0/" /* an XMP APP1 starts with it and a NUL */
#define GF_MAX_XMP ((size_t)65533 - sizeof GF_XMP_NS)
#define GF_MAX_PNG_META ((size_t)4 << 20) /* EXIF or XMP read from a PNG; more is dropped, with a warning */
#define GF_IPTC_ID "Photoshop 3.0" /* an APP13 of Photoshop resources starts with it and a NUL */
#define GF_MAX_COMMENT ((size_t)65533) /* what one JPEG COM segment holds */
#define GF_MAX_TEXTS 256                 /* texts kept from one file; more are dropped, with a warning */
#define GF_MAX_TEXT_BYTES ((size_t)4 << 20) /* likewise, their bytes in all */
/* Appends a text of `type` holding data[0..n) to m (taking a copy), unless
 * m holds GF_MAX_TEXTS or the bytes would pass GF_MAX_TEXT_BYTES: then 1
 * (the text dropped); -1 out of memory; 0 kept. */
int gf_meta_add_text(gf_meta *m, const char *type, const uint8_t *data, size_t n);
/* The comment a text holds, for a JPEG COM segment: a JPEG comment itself,
 * or a PNG text whose keyword is "Comment" (any case; zTXt and compressed
 * iTXt inflated, up to GF_MAX_COMMENT bytes): 1 and a new buffer *out of
 * *len bytes; 0 for another text; -1 out of memory. */
int gf_text_comment(const gf_text *t, uint8_t **out, size_t *len);

typedef struct gf_decode_opts {
    uint64_t limit_pixels; /* checked from the header, before any allocation */
    int verbose;           /* print codec warnings */
    int quiet;             /* -q: not even the warnings that say a file was repaired */
    const char *name;      /* for warnings */
    gf_meta *meta;         /* out, when not NULL: the file's metadata (zeroed first) */
    int lenient;           /* keep what the decoder recovered from damaged data, with a warning */
    int libpng_only;       /* PNG: every file through libpng (the plain-file path's oracle, tests/pngdiff.c) */
} gf_decode_opts;

typedef struct gf_encode_opts {
    int quality;  /* JPEG 1..100 */
    int compress; /* PNG zlib level 0..9 */
    int pam;      /* PNM: always write P7 */
    int threads;  /* PNG: deflate on up to this many threads (the file is the same) */
    char *detail; /* out, may be NULL: what the encoder chose, for -v (GF_ENCODE_DETAIL bytes) */
    const gf_meta *meta; /* written where the format holds it; may be NULL */
} gf_encode_opts;
#define GF_ENCODE_DETAIL 32

/* The most scans a JPEG may have (as djpeg -maxscans and TurboJPEG advise). */
#define GF_JPEG_MAX_SCANS 500

/* Walks a JPEG's marker segments from SOI, calling visit(ctx, marker,
 * segment, length) for each one that has a length (the segment without its
 * length bytes), the entropy-coded data after each SOS skipped up to the
 * next marker (stuffed zeros, restarts and fill bytes passed over).  1 when
 * the walk reaches EOI, 0 when the data ends or is out of place first, or
 * when visit returns nonzero. */
int gf_jpeg_walk(const uint8_t *b, size_t n, int (*visit)(void *ctx, uint8_t marker, const uint8_t *seg, size_t len),
                 void *ctx);

/* The EXIF orientation (1-8: which way the stored pixels are to be turned
 * for display), 0 when there is none (src/io/exif.c, libexif). */
int gf_exif_orientation(const gf_meta *m);
/* Where m has no density: EXIF's (XResolution, YResolution and
 * ResolutionUnit of IFD0, per inch or cm), if it holds one. */
void gf_exif_density(gf_meta *m);
/* Sets every EXIF Orientation entry to 1 (upright), changing no other byte. */
void gf_exif_reset_orientation(gf_meta *m);
/* For an output of width x height: EXIF's pixel dimensions (and IFD0's
 * image size, where present) set to it, and when the pixels were `edited`,
 * the thumbnail (IFD1 and its image) zeroed, unlinked, and cut off where it
 * ends the data: it would show what the output does not. */
void gf_exif_update(gf_meta *m, int width, int height, int edited);

/* The metadata of a JPEG file, read from its header alone (for a file a
 * GPU decodes): into *m, which is zeroed first; what is dropped is said as
 * the decoder says it (naming `name`, not when `quiet`). */
gf_status gf_jpeg_read_meta(const uint8_t *buf, size_t n, gf_meta *m, const char *name, int quiet);
/* A copy of the JPEG file buf[0..n) with m's EXIF and XMP (APP1), profile
 * (APP2), IPTC (APP13) and comments (COM) inserted after its SOI (and JFIF)
 * segments, in the order gf_jpeg_encode writes them, and m's density in its
 * JFIF segment (one made where there is none), for JPEG data an encoder
 * wrote without them. */
gf_status gf_jpeg_add_meta(const uint8_t *buf, size_t n, const gf_meta *m, uint8_t **out, size_t *out_len);

/* Recognises the format from the first bytes, never from a name. */
gf_format gf_sniff(const uint8_t *buf, size_t n);
/* The output format an extension asks for (.png, .jpg/.jpeg, .ppm/.pgm/.pam/.pnm), else GF_FMT_NONE. */
gf_format gf_format_from_name(const char *path);
const char *gf_format_name(gf_format f);

/* The CPU time (ms, one core) of decoding an image of shape `in` from
 * format `fin` and encoding one of shape `out` as `fout` (GF_FMT_NONE: no
 * decode, or no encode) at the default settings, measured as the
 * operations' costs are (src/ops/ops.c), on 12 MP photo-like images:
 * libjpeg-turbo 1.1 ns a sample to decode and 1.2 to encode, PNG 6 and 10
 * (one strip at a time), PNM a copy.  Within a factor of two, for -device
 * auto and -codec auto. */
double gf_codec_cpu_ms(gf_format fin, gf_shape in, gf_format fout, gf_shape out);
/* The shape a PNG or JPEG file's header announces (depth 8 for JPEG), read
 * without decoding; 0, or -1 where the header is not there or not such. */
int gf_peek_shape(const uint8_t *buf, size_t n, gf_shape *s);
gf_status gf_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img, gf_format *fmt);
gf_status gf_png_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img);
gf_status gf_jpeg_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img);
gf_status gf_pnm_decode(const uint8_t *buf, size_t n, const gf_decode_opts *o, gf_image *img);

/* Encoders write to an open stream; the JPEG one wants 8-bit gray or RGB. */
gf_status gf_png_encode(FILE *f, const gf_image *img, const gf_encode_opts *o);
gf_status gf_jpeg_encode(FILE *f, const gf_image *img, const gf_encode_opts *o);
gf_status gf_pnm_encode(FILE *f, const gf_image *img, const gf_encode_opts *o);

/* Reads a whole file ("-": standard input) into a new buffer. */
gf_status gf_read_file(const char *path, uint8_t **buf, size_t *n);
/* Writes through `emit` to a temporary file beside `path`, renamed into
 * place only when complete ("-": standard output).  Nothing is left behind on
 * failure and an existing file at `path` stays untouched. */
gf_status gf_write_file(const char *path, gf_status (*emit)(FILE *f, void *ctx), void *ctx);
/* gf_write_file of the bytes p[0..n). */
gf_status gf_write_bytes(const char *path, const uint8_t *p, size_t n);
void gf_fileio_init(void);

const char *gf_codec_versions(void);

#endif
