/* SPDX-License-Identifier: MIT */
/* The eight symmetries of the rectangle, the fast CPU path: the reference's
 * moves (src/ops/orient/orient_ref.c) on bands of output rows over up to `threads`
 * threads.  An output pixel's source address is affine in (x, y): a step
 * of dx bytes a pixel along an output row, dy a row.  Without a swap of
 * the axes an output row is a source row, copied whole (or pixel by pixel
 * backwards under a left-right mirror); with one, the output is made in
 * tiles of TILE x TILE pixels, so that the source rows a tile reads stay in
 * the cache.  Pixels move as whole words of their size. */
#include "config.h"

#include <string.h>

#include "orient.h"
#include "parallel.h"
#include "sample.h"

enum { TILE = 64 };

struct orient {
    enum gf_orient o;
    const gf_image *in;
    gf_image *out;
    int rows; /* output rows per task, a multiple of TILE */
};

/* Output pixel (x, y)'s source, as a byte offset into the input. */
static ptrdiff_t source(const struct orient *m, int x, int y, size_t px)
{
    int sx, sy;
    gf_orient_source(m->o, m->in->width, m->in->height, x, y, &sx, &sy);
    return ((ptrdiff_t)sy * m->in->width + sx) * (ptrdiff_t)px;
}

/* n pixels of px bytes from s, a step of dx bytes each, to d (a mirrored
 * row, dx = -px, apart: its constant step lets the compiler vectorise). */
#define MOVE(T)                                                                                                        \
    do {                                                                                                               \
        if (dx == -(ptrdiff_t)sizeof(T))                                                                               \
            for (size_t x = 0; x < n; x++)                                                                             \
                memcpy((T *)d + x, s - x * sizeof(T), sizeof(T));                                                      \
        else                                                                                                           \
            for (size_t x = 0; x < n; x++, s += dx)                                                                    \
                memcpy((T *)d + x, s, sizeof(T));                                                                      \
    } while (0)
static void move(uint8_t *d, const uint8_t *s, ptrdiff_t dx, size_t n, size_t px)
{
    struct p3 {
        uint8_t b[3];
    };
    struct p6 {
        uint8_t b[6];
    };
    switch (px) {
    case 1: MOVE(uint8_t); break;
    case 2: MOVE(uint16_t); break;
    case 3: MOVE(struct p3); break;
    case 4: MOVE(uint32_t); break;
    case 6: MOVE(struct p6); break;
    default: MOVE(uint64_t); break;
    }
}
#undef MOVE

static void band(void *ctx, int k)
{
    const struct orient *m = ctx;
    const gf_image *out = m->out;
    const size_t px = (size_t)out->channels * (size_t)(out->depth / 8), row = (size_t)out->width * px;
    const int y0 = k * m->rows, y1 = y0 + m->rows < out->height ? y0 + m->rows : out->height;
    const ptrdiff_t o0 = source(m, 0, 0, px), dx = source(m, 1, 0, px) - o0, dy = source(m, 0, 1, px) - o0;
    const uint8_t *src = (const uint8_t *)m->in->data + o0;
    uint8_t *dst = out->data;
    const int tile = m->o & GF_OR_SWAP ? TILE : out->width;
    for (int ty = y0; ty < y1; ty += tile)
        for (int tx = 0; tx < out->width; tx += tile) {
            const int ye = ty + tile < y1 ? ty + tile : y1, xe = tx + tile < out->width ? tx + tile : out->width;
            for (int y = ty; y < ye; y++) {
                uint8_t *d = dst + (size_t)y * row + (size_t)tx * px;
                const uint8_t *s = src + y * dy + tx * dx;
                if (dx == (ptrdiff_t)px)
                    memcpy(d, s, (size_t)(xe - tx) * px);
                else
                    move(d, s, dx, (size_t)(xe - tx), px);
            }
        }
}

gf_fast_fn gf_fast_orient;

void gf_fast_orient_image(enum gf_orient o, const gf_image *in, gf_image *out, int threads)
{
    threads = threads < 1 ? 1 : threads;
    int rows = (out->height + 4 * threads - 1) / (4 * threads);
    rows = (rows + TILE - 1) / TILE * TILE;
    struct orient m = {o, in, out, rows};
    gf_parallel_for((out->height + rows - 1) / rows, threads, band, &m);
}

gf_status gf_fast_orient(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    gf_fast_orient_image(GF_ORIENT_ARGS(s).orient, in, out, threads);
    return GF_OK;
}
