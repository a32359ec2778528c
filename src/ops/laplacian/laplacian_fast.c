/* SPDX-License-Identifier: MIT */
/* Laplacian, the fast CPU path: the reference's stencil (src/ops/laplacian/laplacian_ref.c)
 * bit for bit, split over up to `threads` threads by bands of rows.  The
 * three source rows an output row reads are padded lines of W + 2 pixels
 * (the border's samples at each end, a line of 0 where the border map names
 * no row), so that the stencil runs over contiguous memory without a branch,
 * on every channel at once in 32-bit lanes; alpha is then copied over. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "laplacian.h"
#include "line.h"
#include "parallel.h"
#include "sample.h"

struct laplacian {
    const gf_image *in;
    gf_image *out;
    const long *mx, *my;
    int four, rows; /* the 4-neighbour kernel; rows per task */
    atomic_int failed;
};

/* |stencil| over the padded lines a, b, c (the rows above, at and below),
 * clamped to max, for the n = W*C samples of a row. */
VECTOR_CLONES static void stencil(const int32_t *a, const int32_t *b, const int32_t *c, int32_t *r, size_t n, size_t C,
                                  int four, int32_t max)
{
    if (four) {
        for (size_t e = 0; e < n; e++) {
            int32_t v = 4 * b[e + C] - a[e + C] - b[e] - b[e + 2 * C] - c[e + C];
            v = v < 0 ? -v : v;
            r[e] = v > max ? max : v;
        }
    } else {
        for (size_t e = 0; e < n; e++) {
            int32_t v = 9 * b[e + C] - (a[e] + a[e + C] + a[e + 2 * C] + b[e] + b[e + C] + b[e + 2 * C] + c[e] +
                                        c[e + C] + c[e + 2 * C]);
            v = v < 0 ? -v : v;
            r[e] = v > max ? max : v;
        }
    }
}

/* Source row sy (-1: none) as a padded line (samples below 2^16: the same
 * bits as int32). */
static void pad(const struct laplacian *l, long sy, int32_t *line)
{
    gf_pad_line(l->in, sy, l->mx, 1, line, 4);
}

static void band(void *ctx, int k)
{
    struct laplacian *l = ctx;
    const gf_image *in = l->in;
    const int W = in->width, H = in->height, C = in->channels, d = in->depth;
    const size_t n = (size_t)W * (size_t)C, line = ((size_t)W + 2) * (size_t)C;
    int32_t *buf = malloc((3 * line + n) * sizeof *buf);
    if (!buf) {
        atomic_store(&l->failed, 1);
        return;
    }
    int32_t *rows[3] = {buf, buf + line, buf + 2 * line}, *r = buf + 3 * line;
    const int y0 = k * l->rows, y1 = (k + 1) * l->rows < H ? (k + 1) * l->rows : H;
    pad(l, l->my[y0], rows[0]); /* my[y + j]: the source row at y - 1 + j */
    pad(l, l->my[y0 + 1], rows[1]);
    for (int y = y0; y < y1; y++) {
        pad(l, l->my[y + 2], rows[2]);
        stencil(rows[0], rows[1], rows[2], r, n, (size_t)C, l->four, (int32_t)gf_maxval(d));
        const size_t o = (size_t)y * n;
        for (size_t e = 0; e < n; e++)
            put(l->out->data, o + e, d, (uint32_t)r[e]);
        gf_copy_alpha(in, l->out, (size_t)y * (size_t)W, (size_t)(y + 1) * (size_t)W);
        int32_t *t = rows[0];
        rows[0] = rows[1], rows[1] = rows[2], rows[2] = t;
    }
    free(buf);
}

gf_fast_fn gf_fast_laplacian;

gf_status gf_fast_laplacian(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    struct laplacian l = {.in = in, .out = out, .four = GF_LAPLACIAN_ARGS(s).neighbours == 4};
    long *mx = NULL, *my = NULL;
    gf_status st;
    if ((st = border_map(in->width, 1, s->border, &mx)) || (st = border_map(in->height, 1, s->border, &my)))
        goto out;
    l.mx = mx, l.my = my;
    threads = threads < 1 ? 1 : threads;
    l.rows = (in->height + 4 * threads - 1) / (4 * threads);
    gf_parallel_for((in->height + l.rows - 1) / l.rows, threads, band, &l);
    if (atomic_load(&l.failed))
        st = gf_error(GF_ENOMEM, "out of memory for the Laplacian's rows");
out:
    free(mx);
    free(my);
    return st;
}
