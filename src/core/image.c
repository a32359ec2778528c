/* SPDX-License-Identifier: MIT */
#include "config.h"
#include "image.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

gf_status gf_image_bytes(int w, int h, int c, int depth, size_t *bytes)
{
    if (w <= 0 || h <= 0 || c < 1 || c > 4 || (depth != 8 && depth != 16))
        return gf_error(GF_EINTERNAL, "bad image geometry %dx%dx%d/%d", w, h, c, depth);
    size_t row = (size_t)w * (size_t)c * (size_t)(depth / 8); /* w < 2^31, fits */
    if ((size_t)h > SIZE_MAX / row)
        return gf_error(GF_EOVERFLOW, "image %dx%d is too large for this machine", w, h);
    *bytes = row * (size_t)h;
    return GF_OK;
}

gf_status gf_shape_check(const gf_shape *s, uint64_t limit_pixels)
{
    if (s->width <= 0 || s->height <= 0)
        return gf_error(GF_EFORMAT, "invalid image size %dx%d", s->width, s->height);
    if (s->width > GF_MAX_DIM || s->height > GF_MAX_DIM)
        return gf_error(GF_ELIMIT, "image size %dx%d is above the maximum of %d pixels per side",
                        s->width, s->height, GF_MAX_DIM);
    uint64_t px = (uint64_t)s->width * (uint64_t)s->height;
    if (px > limit_pixels)
        return gf_error(GF_ELIMIT, "image size %dx%d (%llu pixels) is above -limit-pixels %llu",
                        s->width, s->height, (unsigned long long)px, (unsigned long long)limit_pixels);
    size_t bytes;
    return gf_image_bytes(s->width, s->height, s->channels, s->depth, &bytes);
}

static _Thread_local const gf_host_alloc *host_alloc;

void gf_image_use_allocator(const gf_host_alloc *a)
{
    host_alloc = a;
}

gf_status gf_image_alloc(gf_image *img, int w, int h, int c, int depth)
{
    size_t bytes;
    gf_status st = gf_image_bytes(w, h, c, depth, &bytes);
    if (st)
        return st;
    void *p = host_alloc ? host_alloc->alloc(host_alloc->ctx, bytes) : NULL;
    if (!p && (p = malloc(bytes)) && bytes >= ((size_t)8 << 20)) {
#ifdef MADV_HUGEPAGE
        /* a large image is written once, whole: in 2 MiB pages it takes a
         * page fault per 2 MiB instead of per 4 KiB (where the kernel has them) */
        const uintptr_t huge = (uintptr_t)2 << 20, lo = ((uintptr_t)p + huge - 1) & ~(huge - 1),
                        hi = ((uintptr_t)p + bytes) & ~(huge - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
    }
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory allocating a %dx%d image (%zu bytes)", w, h, bytes);
    img->width = w;
    img->height = h;
    img->channels = c;
    img->depth = depth;
    img->stride = bytes / (size_t)h;
    img->data = p;
    return GF_OK;
}

void gf_image_free(gf_image *img)
{
    if (!img->data || !host_alloc || !host_alloc->release(host_alloc->ctx, img->data))
        free(img->data);
    img->data = NULL;
}

gf_shape gf_image_shape(const gf_image *img)
{
    gf_shape s = {img->width, img->height, img->channels, img->depth};
    return s;
}

gf_status gf_image_set_depth(gf_image *img, int depth)
{
    if (img->depth == depth)
        return GF_OK;
    size_t n = (size_t)img->width * img->height * img->channels;
    if (depth == 16) {
        gf_image out;
        gf_status st = gf_image_alloc(&out, img->width, img->height, img->channels, 16);
        if (st)
            return st;
        const uint8_t *s = img->data;
        uint16_t *d = out.data;
        for (size_t i = 0; i < n; i++)
            d[i] = (uint16_t)(s[i] * 257u);
        gf_image_free(img);
        *img = out;
    } else {
        const uint16_t *s = img->data;
        uint8_t *d = img->data; /* shrinking in place, front to back, is safe */
        for (size_t i = 0; i < n; i++)
            d[i] = (uint8_t)((s[i] + 128u) / 257u);
        img->depth = 8;
        img->stride /= 2;
    }
    return GF_OK;
}

void gf_image_drop_alpha(gf_image *img)
{
    if (!gf_has_alpha(img->channels))
        return;
    int c = img->channels, b = img->depth / 8;
    size_t n = (size_t)img->width * img->height;
    uint8_t *p = img->data;
    size_t keep = (size_t)(c - 1) * b;
    for (size_t i = 0; i < n; i++)
        memmove(p + i * keep, p + i * (size_t)c * b, keep);
    img->channels = c - 1;
    img->stride = (size_t)img->width * keep;
}

unsigned gf_image_get(const gf_image *img, int x, int y, int ch)
{
    size_t i = (size_t)y * img->stride / (img->depth / 8) + (size_t)x * img->channels + ch;
    return img->depth == 16 ? ((const uint16_t *)img->data)[i] : ((const uint8_t *)img->data)[i];
}

void gf_image_set(gf_image *img, int x, int y, int ch, unsigned v)
{
    size_t i = (size_t)y * img->stride / (img->depth / 8) + (size_t)x * img->channels + ch;
    if (img->depth == 16)
        ((uint16_t *)img->data)[i] = (uint16_t)v;
    else
        ((uint8_t *)img->data)[i] = (uint8_t)v;
}

const char *gf_channel_name(int channels, int ch)
{
    static const char *const names[4][4] = {
        {"gray"}, {"gray", "alpha"}, {"red", "green", "blue"}, {"red", "green", "blue", "alpha"}};
    return names[channels - 1][ch];
}

const char *gf_layout_name(int channels)
{
    static const char *const names[4] = {"gray", "gray+alpha", "RGB", "RGBA"};
    return names[channels - 1];
}
