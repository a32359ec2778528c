/* SPDX-License-Identifier: MIT */
/* -grayscale, the fast CPU path: gf_gray_value's weights (numeric.h) bit for
 * bit, over bands of rows on up to `threads` threads; 8-bit rows in a loop
 * of 32-bit lanes the compiler vectorises, 16-bit ones through the
 * reference's own function. */
#include "config.h"

#include "vector.h"

#include "grayscale.h"
#include "parallel.h"
#include "sample.h"

struct gray {
    const gf_step *s;
    const gf_image *in;
    gf_image *out;
    int rows; /* per task */
};

/* n pixels of C 8-bit samples to OC (1 or 2) with weights wr, wg, wb (average: all 0); inlined with
 * constant C and OC so that the loop vectorises. */
static inline void pixels8(const uint8_t *in, uint8_t *out, size_t n, int C, int OC, uint32_t wr, uint32_t wg,
                           uint32_t wb)
{
    if (!wr) {
        for (size_t p = 0; p < n; p++) {
            out[p * OC] = (uint8_t)((in[p * C] + in[p * C + 1] + in[p * C + 2] + 1u) / 3);
            if (OC == 2)
                out[p * OC + 1] = in[p * C + 3];
        }
        return;
    }
    for (size_t p = 0; p < n; p++) {
        out[p * OC] =
            (uint8_t)((wr * in[p * C] + wg * in[p * C + 1] + wb * in[p * C + 2] + (1u << (GF_GRAY_BITS - 1))) >>
                      GF_GRAY_BITS);
        if (OC == 2)
            out[p * OC + 1] = in[p * C + 3];
    }
}

VECTOR_CLONES static void gray_row8(const uint8_t *in, uint8_t *out, size_t n, int C, uint32_t wr, uint32_t wg,
                                    uint32_t wb)
{
    if (C == 3)
        pixels8(in, out, n, 3, 1, wr, wg, wb);
    else
        pixels8(in, out, n, 4, 2, wr, wg, wb);
}

static void band(void *ctx, int k)
{
    const struct gray *m = ctx;
    const gf_image *in = m->in;
    const int W = in->width, C = in->channels, OC = m->out->channels, weights = GF_GRAYSCALE_ARGS(m->s).weights;
    const int y0 = k * m->rows, y1 = y0 + m->rows < in->height ? y0 + m->rows : in->height;
    const size_t first = (size_t)y0 * W, n = (size_t)(y1 - y0) * W;
    if (in->depth == 8) {
        const int avg = weights == GF_GRAY_AVERAGE;
        const uint32_t wr = avg ? 0 : gf_gray_weight(weights, 0), wg = avg ? 0 : gf_gray_weight(weights, 1),
                       wb = avg ? 0 : gf_gray_weight(weights, 2);
        gray_row8((const uint8_t *)in->data + first * C, (uint8_t *)m->out->data + first * OC, n, C, wr, wg, wb);
        return;
    }
    for (size_t p = first; p < first + n; p++) {
        const size_t i = p * C, o = p * OC;
        put(m->out->data, o, 16,
            gf_gray_value(ld(in->data, i, 16), ld(in->data, i + 1, 16), ld(in->data, i + 2, 16), weights));
        if (OC == 2)
            put(m->out->data, o + 1, 16, ld(in->data, i + 3, 16));
    }
}

gf_fast_fn gf_fast_grayscale;
gf_cpu_fn gf_cpu_grayscale;

gf_status gf_fast_grayscale(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    if (in->channels < 3) /* gray stays as it is */
        return gf_cpu_grayscale(s, in, out);
    threads = threads < 1 ? 1 : threads;
    struct gray m = {s, in, out, (in->height + 4 * threads - 1) / (4 * threads)};
    gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, band, &m);
    return GF_OK;
}
