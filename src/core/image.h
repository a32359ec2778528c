/* SPDX-License-Identifier: MIT */
#ifndef GF_IMAGE_H
#define GF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An image of 8- or 16-bit samples (uint8_t / native-endian uint16_t),
 * 1 to 4 interleaved channels: gray, gray+alpha, RGB, RGBA.  `data` is host
 * memory for the CPU path and device memory inside the CUDA path; rows are
 * `stride` bytes apart (always width * channels * bytes per sample here). */
typedef struct gf_image {
    int width, height;
    int channels; /* 1..4 */
    int depth;    /* 8 or 16 */
    size_t stride;
    void *data;
} gf_image;

/* The geometry of an image without its pixels. */
typedef struct gf_shape {
    int width, height, channels, depth;
} gf_shape;

#define GF_MAX_DIM 1000000 /* per side; far above any real image */

static inline int gf_has_alpha(int channels) { return channels == 2 || channels == 4; }
static inline int gf_color_channels(int channels) { return gf_has_alpha(channels) ? channels - 1 : channels; }
static inline unsigned gf_maxval(int depth) { return depth == 16 ? 65535u : 255u; }

/* Bytes of a w x h x c image at `depth`, checked: GF_EOVERFLOW if it would not fit size_t. */
gf_status gf_image_bytes(int w, int h, int c, int depth, size_t *bytes);
/* Checks the shape against the per-side maximum and `limit_pixels` before anything is allocated. */
gf_status gf_shape_check(const gf_shape *s, uint64_t limit_pixels);
/* Allocates an uninitialised image of the given shape (data freed by gf_image_free). */
gf_status gf_image_alloc(gf_image *img, int w, int h, int c, int depth);
void gf_image_free(gf_image *img);

/* Where this thread's image pixels come from: `alloc` may return NULL (then
 * malloc is used) and `release` returns 1 when the block was its own.  Batch
 * workers use page-locked memory this way, so that images go to and from
 * the GPU without a copy.  NULL: malloc and free. */
typedef struct gf_host_alloc {
    void *(*alloc)(void *ctx, size_t bytes);
    int (*release)(void *ctx, void *p);
    void *ctx;
} gf_host_alloc;
void gf_image_use_allocator(const gf_host_alloc *a);
gf_shape gf_image_shape(const gf_image *img);
/* Converts 8 <-> 16 bit in place (v * 257 / round(v / 257)). */
gf_status gf_image_set_depth(gf_image *img, int depth);
/* Drops the alpha channel in place (for JPEG output). */
void gf_image_drop_alpha(gf_image *img);
/* Sample (x, y, ch) as an unsigned value; for tests and cold paths only. */
unsigned gf_image_get(const gf_image *img, int x, int y, int ch);
void gf_image_set(gf_image *img, int x, int y, int ch, unsigned v);
const char *gf_channel_name(int channels, int ch);
const char *gf_layout_name(int channels);

#ifdef __cplusplus
}
#endif
#endif
