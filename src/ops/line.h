/* SPDX-License-Identifier: MIT */
/* The padded line the fast stencils read: source row sy of `in` (-1: a
 * line of 0) with its border, W + 2R pixels, position x holding pixel
 * map[x] of the row (0 where map[x] is -1: border_map's convention), each
 * sample in a lane of `lane` bytes (1: uint8, 8-bit images only; 2:
 * uint16, 4: uint32, 8: uint64).  The
 * inside is the row itself, copied in one widening loop; only the 2R border
 * pixels go through the map. */
#ifndef GF_FAST_LINE_H
#define GF_FAST_LINE_H

#include <string.h>

#include "sample.h"

static inline void gf_pad_line(const gf_image *in, long sy, const long *map, int R, void *line, int lane)
{
    const size_t C = (size_t)in->channels, W = (size_t)in->width, n = W * C, r = (size_t)R * C;
    const size_t row = sy >= 0 ? (size_t)sy * n : 0;
    uint8_t *l8 = line;
    uint16_t *l16 = line;
    uint32_t *l32 = line;
    uint64_t *l64 = line;
    if (sy < 0) {
        memset(line, 0, (n + 2 * r) * (size_t)lane);
        return;
    }
    if (in->depth == 8) {
        const uint8_t *s = (const uint8_t *)in->data + row;
        if (lane == 1)
            memcpy(l8 + r, s, n);
        else if (lane == 2)
            for (size_t i = 0; i < n; i++)
                l16[r + i] = s[i];
        else if (lane == 4)
            for (size_t i = 0; i < n; i++)
                l32[r + i] = s[i];
        else
            for (size_t i = 0; i < n; i++)
                l64[r + i] = s[i];
    } else {
        const uint16_t *s = (const uint16_t *)in->data + row;
        if (lane == 2)
            memcpy(l16 + r, s, n * sizeof *s);
        else if (lane == 4)
            for (size_t i = 0; i < n; i++)
                l32[r + i] = s[i];
        else
            for (size_t i = 0; i < n; i++)
                l64[r + i] = s[i];
    }
    for (size_t x = 0; x < 2 * (size_t)R; x++) {     /* the border: R pixels each side */
        const size_t at = x < (size_t)R ? x : W + x; /* position in the line */
        const long sx = map[at];
        for (size_t c = 0; c < C; c++) {
            const uint32_t v = sx >= 0 ? ld(in->data, row + (size_t)sx * C + c, in->depth) : 0;
            if (lane == 1)
                l8[at * C + c] = (uint8_t)v;
            else if (lane == 2)
                l16[at * C + c] = (uint16_t)v;
            else if (lane == 4)
                l32[at * C + c] = v;
            else
                l64[at * C + c] = v;
        }
    }
}

/* Rows a band, for a pass over H rows whose window reaches R rows each way,
 * on `threads` threads, each band keeping its window's rows in a ring: one
 * band for one thread; else a few bands a thread so that uneven cores even
 * out, but bands of at least 8R rows where the image allows (a band makes
 * 2R rows more than it writes), as many as a multiple of the threads. */
static inline long gf_band_rows(long H, long R, int threads)
{
    if (threads <= 1)
        return H;
    long bands = 4L * threads;
    if (H / bands < 8 * R) {
        const long m = H / (8 * R * threads);
        bands = threads * (m < 1 ? 1 : m);
    }
    return (H + bands - 1) / bands;
}

/* Row y of `out` from a row of its samples in lanes of `lane` bytes (1:
 * uint8, 8-bit images only; 2: uint16). */
static inline void gf_store_line(gf_image *out, long y, const void *d, int lane)
{
    const size_t n = (size_t)out->width * out->channels;
    const uint16_t *d16 = d;
    if (lane == 1 || out->depth == 16)
        memcpy((uint8_t *)out->data + (size_t)y * n * (size_t)(out->depth / 8), d, n * (size_t)lane);
    else
        for (size_t j = 0; j < n; j++)
            ((uint8_t *)out->data)[(size_t)y * n + j] = (uint8_t)d16[j];
}

/* The alpha samples of pixels [first, end) of `out` from `in`'s, where the
 * image has alpha (the fast paths that filter colour only). */
static inline void gf_copy_alpha(const gf_image *in, gf_image *out, size_t first, size_t end)
{
    const size_t C = (size_t)in->channels;
    if (gf_has_alpha(in->channels))
        for (size_t e = first * C + C - 1; e < end * C; e += C)
            put(out->data, e, in->depth, ld(in->data, e, in->depth));
}

#endif
