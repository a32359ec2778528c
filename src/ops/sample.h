/* SPDX-License-Identifier: MIT */
/* Sample access and border maps for the CPU reference implementations. */
#ifndef GF_CPU_SAMPLE_H
#define GF_CPU_SAMPLE_H

#include <stdlib.h>

#include "ops.h"

static inline uint32_t ld(const void *p, size_t i, int depth)
{
    return depth == 16 ? ((const uint16_t *)p)[i] : ((const uint8_t *)p)[i];
}

static inline void put(void *p, size_t i, int depth, uint32_t v)
{
    if (depth == 16)
        ((uint16_t *)p)[i] = (uint16_t)v;
    else
        ((uint8_t *)p)[i] = (uint8_t)v;
}

/* map[k] = source index of position k - r in a line of n (or -1: zero),
 * for k in [0, n + 2r).  Caller frees. */
static inline gf_status border_map(long n, long r, int border, long **out)
{
    if ((size_t)r > (SIZE_MAX / sizeof(long) - (size_t)n) / 2)
        return gf_error(GF_EOVERFLOW, "radius %ld is too large", r);
    long *m = malloc(((size_t)n + 2 * (size_t)r) * sizeof *m);
    if (!m)
        return gf_error(GF_ENOMEM, "out of memory for a border map of %ld entries", n + 2 * r);
    for (long k = 0; k < n + 2 * r; k++)
        m[k] = gf_border_index(k - r, n, border);
    *out = m;
    return GF_OK;
}

/* The source (*sx, *sy) of output pixel (x, y) under symmetry o of a W x H
 * input. */
static inline void gf_orient_source(enum gf_orient o, int W, int H, int x, int y, int *sx, int *sy)
{
    *sx = (o & GF_OR_SWAP) ? y : x;
    *sy = (o & GF_OR_SWAP) ? x : y;
    if (o & GF_OR_FX)
        *sx = W - 1 - *sx;
    if (o & GF_OR_FY)
        *sy = H - 1 - *sy;
}

/* The pixel moves of orient.c, also -rotate's at right angles; and the same
 * on up to `threads` threads (src/ops/orient/orient_fast.c). */
void gf_orient_image(enum gf_orient o, const gf_image *in, gf_image *out);
void gf_fast_orient_image(enum gf_orient o, const gf_image *in, gf_image *out, int threads);
/* -rotate at other angles (rotate.c): output pixel (x, y) of `out` by plan
 * r (gf_rotate_plan) over the background bg (gf_rotate_background). */
void gf_rotate_pixel(const gf_rotation *r, const uint32_t bg[4], const gf_image *in, gf_image *out, int x, int y);

/* -unsharp: out holds the blur of in; each colour sample of pixels [first,
 * end) becomes gf_unsharp_value of in's and it, alpha in's (unsharp.c). */
void gf_unsharp_combine(const gf_step *s, const gf_image *in, gf_image *out, size_t first, size_t end);

/* How far a kernel of `size` taps with its origin at `origin` reaches on
 * its longer side: the border maps' padding (-convolve, -edge). */
static inline long kernel_reach(int origin, int size)
{
    return origin > size - 1 - origin ? origin : size - 1 - origin;
}

/* -median's reference on output rows [y0, y1), for the fast path's threads. */
gf_status gf_median_rows(const gf_step *s, const gf_image *in, gf_image *out, long y0, long y1);

/* Allocates n elements of `size` bytes with the multiplication checked. */
static inline gf_status alloc_array(size_t n, size_t size, void **out)
{
    if (size && n > SIZE_MAX / size)
        return gf_error(GF_EOVERFLOW, "work buffer too large");
    void *p = malloc(n * size > 0 ? n * size : 1);
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory for a work buffer of %zu bytes", n * size);
    *out = p;
    return GF_OK;
}

#endif
