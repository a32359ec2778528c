/* SPDX-License-Identifier: MIT */
/* The eight symmetries of the rectangle, the fast CPU path: the reference's
 * moves (src/cpu/orient.c) on bands of output rows over up to `threads`
 * threads.  Without a swap of the axes an output row is a source row, copied
 * whole (or pixel by pixel backwards under a left-right mirror); with one,
 * the output is made in tiles of TILE x TILE pixels, so that the source
 * rows a tile reads stay in the cache. */
#include "config.h"

#include <string.h>

#include "../cpu/sample.h"
#include "../parallel.h"

enum { TILE = 64 };

struct orient {
    enum gf_orient o;
    const gf_image *in;
    gf_image *out;
    int rows; /* output rows per task, a multiple of TILE */
};

/* Output pixel (x, y)'s source. */
static const uint8_t *source(const struct orient *m, int x, int y, size_t px)
{
    int sx, sy;
    gf_orient_source(m->o, m->in->width, m->in->height, x, y, &sx, &sy);
    return (const uint8_t *)m->in->data + ((size_t)sy * (size_t)m->in->width + (size_t)sx) * px;
}

static void band(void *ctx, int k)
{
    const struct orient *m = ctx;
    const gf_image *out = m->out;
    const size_t px = (size_t)out->channels * (size_t)(out->depth / 8), row = (size_t)out->width * px;
    const int y0 = k * m->rows, y1 = y0 + m->rows < out->height ? y0 + m->rows : out->height;
    uint8_t *dst = out->data;
    if (!(m->o & GF_OR_SWAP)) {
        for (int y = y0; y < y1; y++) {
            uint8_t *d = dst + (size_t)y * row;
            if (!(m->o & GF_OR_FX)) {
                memcpy(d, source(m, 0, y, px), row);
                continue;
            }
            const uint8_t *s = source(m, 0, y, px); /* the source row's last pixel; x runs backwards there */
            for (int x = 0; x < out->width; x++)
                memcpy(d + (size_t)x * px, s - (size_t)x * px, px);
        }
        return;
    }
    for (int ty = y0; ty < y1; ty += TILE)
        for (int tx = 0; tx < out->width; tx += TILE) {
            const int ye = ty + TILE < y1 ? ty + TILE : y1, xe = tx + TILE < out->width ? tx + TILE : out->width;
            for (int y = ty; y < ye; y++)
                for (int x = tx; x < xe; x++)
                    memcpy(dst + (size_t)y * row + (size_t)x * px, source(m, x, y, px), px);
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
    gf_fast_orient_image(s->orient.orient, in, out, threads);
    return GF_OK;
}
