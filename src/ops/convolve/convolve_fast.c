/* SPDX-License-Identifier: MIT */
/* -convolve and -edge, the fast CPU path: the reference's sums
 * (src/ops/convolve/convolve_ref.c) bit for bit, over bands of output rows on up to
 * `threads` threads.  For an output row, each kernel row's source line is
 * padded by the border rule (line.h) and each weight adds the line, shifted
 * by its column, into a row of sums: w h contiguous loops the compiler
 * vectorises, where the reference looks every tap up through the border
 * maps.  The sums are 32-bit where the weights' absolute sum times the
 * largest sample stays below 2^31 (no partial sum can overflow), else
 * 64-bit. */
#include "config.h"

#include "vector.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "convolve.h"
#include "line.h"
#include "parallel.h"

struct convolve {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    const long *mx, *my; /* border maps, padded by rx and ry */
    long rx, ry;
    int rows;   /* per task */
    int narrow; /* 32-bit sums */
    atomic_int failed;
};

VECTOR_CLONES static void convolve_add(int64_t *acc, const uint32_t *line, int32_t q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += (int64_t)q * line[i];
}

VECTOR_CLONES static void convolve_add32(int32_t *acc, const uint32_t *line, int32_t q, size_t n)
{
    for (size_t i = 0; i < n; i++)
        acc[i] += q * (int32_t)line[i];
}

/* gf_convolve_value of 32-bit sums, as 8- or 16-bit samples: with bias +
 * 2^15 = bq 2^16 + br (0 <= br < 2^16), floor((sum + bias + 2^15) / 2^16) =
 * bq + (sum >> 16) + (((sum & 0xffff) + br) >> 16), every term in 32 bits
 * (bq clamped to +-2^20: beyond, the sample clamps the same). */
static inline int32_t convolve_round(int32_t sum, int32_t bq, int32_t br, int32_t max)
{
    const int32_t t = bq + (sum >> 16) + (((sum & 0xffff) + br) >> 16);
    return t < 0 ? 0 : t > max ? max : t;
}

VECTOR_CLONES static void convolve_out8(uint8_t *o, const int32_t *sum, int32_t bq, int32_t br, int32_t max, size_t n)
{
    for (size_t i = 0; i < n; i++)
        o[i] = (uint8_t)convolve_round(sum[i], bq, br, max);
}

VECTOR_CLONES static void convolve_out16(uint16_t *o, const int32_t *sum, int32_t bq, int32_t br, int32_t max, size_t n)
{
    for (size_t i = 0; i < n; i++)
        o[i] = (uint16_t)convolve_round(sum[i], bq, br, max);
}

static void band(void *ctx, int k)
{
    struct convolve *m = ctx;
    const struct gf_convolve_args *kn = &GF_CONVOLVE_ARGS(m->s);
    const gf_image *in = m->in;
    const long W = in->width, C = in->channels, cc = gf_color_channels((int)C), n = W * C;
    const long y0 = (long)k * m->rows, y1 = y0 + m->rows < in->height ? y0 + m->rows : in->height;
    const uint32_t max = gf_maxval(in->depth);
    const int64_t bias = gf_convolve_bias(m->s, in->depth);
    /* convolve_round's bq and br: bias + 2^15 = bq 2^16 + br (arithmetic shift: a floor) */
    const int64_t b = bias + 32768, bq = b >> 16;
    const int32_t bq32 = (int32_t)(bq < -(1 << 20) ? -(1 << 20)
                                   : bq > 1 << 20  ? 1 << 20
                                                   : bq),
                  br = (int32_t)(b & 0xffff);
    uint32_t *line = malloc((size_t)(W + 2 * m->rx) * C * sizeof *line);
    int64_t *gx = malloc((size_t)n * 2 * sizeof *gx), *gy = gx ? gx + n : NULL;
    if (!line || !gx) {
        atomic_store(&m->failed, 1);
        free(line);
        free(gx);
        return;
    }
    int32_t *nx = (int32_t *)gx, *ny = nx + n; /* the narrow sums, in the same buffer */
    for (long y = y0; y < y1; y++) {
        memset(gx, 0, (size_t)n * 2 * sizeof *gx);
        for (int j = 0; j < kn->h; j++) {
            gf_pad_line(in, m->my[y + j - kn->oy + m->ry], m->mx, (int)m->rx, line, 4);
            for (int i = 0; i < kn->w; i++) {
                const uint32_t *at = line + (i - kn->ox + m->rx) * C;              /* sample x C + c reads x + i - ox */
                const int32_t q = kn->q[j * kn->w + i], qt = kn->q[i * kn->w + j]; /* qt: -edge's transpose */
                if (m->narrow) {
                    convolve_add32(nx, at, q, (size_t)n);
                    if (kn->edge)
                        convolve_add32(ny, at, qt, (size_t)n);
                } else {
                    convolve_add(gx, at, q, (size_t)n);
                    if (kn->edge)
                        convolve_add(gy, at, qt, (size_t)n);
                }
            }
        }
        const size_t row = (size_t)y * n;
        if (m->narrow && !kn->edge) { /* whole rows, alpha patched after */
            if (in->depth == 8)
                convolve_out8((uint8_t *)m->out->data + row, nx, bq32, br, (int32_t)max, (size_t)n);
            else
                convolve_out16((uint16_t *)m->out->data + row, nx, bq32, br, (int32_t)max, (size_t)n);
        } else
            for (long x = 0; x < W; x++)
                for (long c = 0; c < cc; c++) {
                    const long e = x * C + c;
                    const int64_t sx = m->narrow ? nx[e] : gx[e], sy = m->narrow ? ny[e] : gy[e];
                    put(m->out->data, row + e, in->depth,
                        kn->edge ? gf_edge_value(sx, sy, max) : gf_convolve_value(sx, bias, max));
                }
        gf_copy_alpha(in, m->out, (size_t)y * (size_t)W, (size_t)(y + 1) * (size_t)W);
    }
    free(line);
    free(gx);
}

gf_fast_fn gf_fast_convolve;

gf_status gf_fast_convolve(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    const struct gf_convolve_args *k = &GF_CONVOLVE_ARGS(s);
    threads = threads < 1 ? 1 : threads;
    struct convolve m = {.s = s, .in = in, .out = out};
    m.rx = kernel_reach(k->ox, k->w), m.ry = kernel_reach(k->oy, k->h);
    long *mx = NULL, *my = NULL;
    gf_status st;
    if (!(st = border_map(in->width, m.rx, s->border, &mx)) && !(st = border_map(in->height, m.ry, s->border, &my))) {
        m.mx = mx, m.my = my;
        m.rows = (in->height + 4 * threads - 1) / (4 * threads);
        m.narrow = gf_convolve_narrow(k, in->depth);
        atomic_init(&m.failed, 0);
        gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, band, &m);
        if (atomic_load(&m.failed))
            st = gf_error(GF_ENOMEM, "out of memory for convolution rows");
    }
    free(mx);
    free(my);
    return st;
}
