/* SPDX-License-Identifier: MIT */
/* PNG through libpng: every colour type and bit depth in (palette and tRNS
 * become RGB/RGBA/GA, sub-8-bit gray becomes 8-bit, Adam7 handled); 8/16-bit
 * G, GA, RGB, RGBA out. */
#include "config.h"

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec.h"

struct pngctx {
    const uint8_t *buf;
    size_t n, off;
    const gf_decode_opts *opts;
    char msg[256];
    gf_status status; /* set before a deliberate png_error */
    gf_image img;
    png_bytep *rows;
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

static void on_error_quiet(png_structp png, png_const_charp msg)
{
    (void)msg;
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg)
{
    struct pngctx *c = png_get_error_ptr(png);
    if (c && c->opts && c->opts->verbose)
        fprintf(stderr, "gpufilter: %s: libpng warning: %s\n", c->opts->name ? c->opts->name : "-", msg);
}

static void mem_read(png_structp png, png_bytep out, size_t len)
{
    struct pngctx *c = png_get_io_ptr(png);
    if (len > c->n - c->off)
        png_error(png, "truncated PNG data");
    memcpy(out, c->buf + c->off, len);
    c->off += len;
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
    png_read_info(png, info);

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
    if (bit_depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1)
            png_set_swap(png); /* our 16-bit samples are native-endian */
    }
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
    png_read_image(png, c->rows);
    png_read_end(png, NULL);
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
    if (decode(png, info, &c)) {
        st = c.status ? c.status : gf_error(GF_EFORMAT, "%s", c.msg);
        gf_image_free(&c.img);
    } else {
        *img = c.img;
    }
    free(c.rows);
    png_destroy_read_struct(&png, &info, NULL);
    return st;
}

/* Writes rows[0..nrows) of `img` as a PNG through `png` (set up by the
 * caller for output), with zlib `level` and `strategy`. */
static int write_png(png_structp png, png_infop info, const gf_image *img, int level, int strategy,
                     png_const_bytep const *rows, int nrows)
{
    static const int types[4] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                 PNG_COLOR_TYPE_RGB_ALPHA};
    if (setjmp(png_jmpbuf(png)))
        return -1;
    png_set_compression_level(png, level);
    png_set_compression_strategy(png, strategy);
    png_set_IHDR(png, info, (png_uint_32)img->width, (png_uint_32)nrows, img->depth, types[img->channels - 1],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (img->depth == 16) {
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1)
            png_set_swap(png);
    }
    for (int y = 0; y < nrows; y++)
        png_write_row(png, rows ? rows[y] : (png_const_bytep)img->data + (size_t)y * img->stride);
    png_write_end(png, NULL);
    return 0;
}

static void count_bytes(png_structp png, png_bytep data, size_t n)
{
    (void)data;
    *(size_t *)png_get_io_ptr(png) += n;
}

static void no_flush(png_structp png)
{
    (void)png;
}

/* The compressed size of some rows under `strategy`; SIZE_MAX on failure. */
static size_t trial_size(const gf_image *img, int level, int strategy, png_const_bytep const *rows, int nrows)
{
    size_t total = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, on_error_quiet, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int rc = -1;
    if (info) {
        png_set_write_fn(png, &total, count_bytes, no_flush);
        rc = write_png(png, info, img, level, strategy, rows, nrows);
    }
    png_destroy_write_struct(&png, &info);
    return rc ? SIZE_MAX : total;
}

/* zlib's RLE strategy (matches at distance 1 only) compresses filtered
 * photographs within a few percent of the filtered one (often smaller) in a
 * fifth to a tenth of the time, but line art and flat graphics much worse.
 * Each image is sampled, 4 bands of 8 rows spread over it (all rows of a
 * small image), compressed both ways at the same level: RLE is kept unless
 * the filtered strategy is smaller by more than 5% (levels 0-6, where speed
 * counts) or at all (levels 7-9, where size does). */
static int pick_strategy(const gf_image *img, int level)
{
    enum { BANDS = 4, BAND_ROWS = 8 };
    if (level == 0)
        return Z_DEFAULT_STRATEGY;
    png_const_bytep rows[BANDS * BAND_ROWS];
    int n = 0;
    if (img->height <= BANDS * BAND_ROWS) {
        for (int y = 0; y < img->height; y++)
            rows[n++] = (png_const_bytep)img->data + (size_t)y * img->stride;
    } else {
        for (int b = 0; b < BANDS; b++) {
            const int y0 = (int)((long long)(img->height - BAND_ROWS) * b / (BANDS - 1));
            for (int y = y0; y < y0 + BAND_ROWS; y++)
                rows[n++] = (png_const_bytep)img->data + (size_t)y * img->stride;
        }
    }
    const size_t rle = trial_size(img, level, Z_RLE, rows, n);
    const size_t filtered = trial_size(img, level, Z_FILTERED, rows, n);
    if (rle == SIZE_MAX || filtered == SIZE_MAX)
        return Z_FILTERED;
    const double slack = level <= 6 ? 1.05 : 1.0;
    return (double)rle <= (double)filtered * slack ? Z_RLE : Z_FILTERED;
}

gf_status gf_png_encode(FILE *f, const gf_image *img, const gf_encode_opts *o)
{
    struct pngctx c = {0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &c, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return gf_error(GF_ENOMEM, "out of memory starting libpng");
    }
    gf_status st = GF_OK;
    const int strategy = pick_strategy(img, o->compress);
    if (o->detail)
        snprintf(o->detail, GF_ENCODE_DETAIL, "zlib %d %s", o->compress,
                 strategy == Z_RLE ? "rle" : strategy == Z_FILTERED ? "filtered" : "default");
    errno = 0;
    png_init_io(png, f);
    if (write_png(png, info, img, o->compress, strategy, NULL, img->height))
        st = gf_error(GF_EIO, "cannot write PNG data: %s", errno ? strerror(errno) : c.msg);
    png_destroy_write_struct(&png, &info);
    return st;
}
