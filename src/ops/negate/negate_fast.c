/* SPDX-License-Identifier: MIT */
/* -negate, the fast CPU path: max - v is v XOR max for every sample of a
 * 2^k - 1 range, so each pixel's samples are XORed with a mask (max for
 * colour, 0 for alpha), in loops over constant channel counts the compiler
 * vectorises, over bands of rows on up to `threads` threads.  `out` may be
 * `in` (the descriptor's in_place). */
#include "config.h"

#include "vector.h"

#include "parallel.h"
#include "sample.h"

struct negate {
    const gf_image *in;
    gf_image *out;
    int rows; /* per task */
};

/* n pixels of C samples of type T, each XORed with m[c]; inlined with a constant C */
#define NEGATE_PIXELS(name, T)                                                                                         \
    static inline void name(const T *in, T *out, size_t n, int C, const T m[4])                                        \
    {                                                                                                                  \
        for (size_t p = 0; p < n; p++)                                                                                 \
            for (int c = 0; c < C; c++)                                                                                \
                out[p * C + c] = (T)(in[p * C + c] ^ m[c]);                                                            \
    }
NEGATE_PIXELS(pixels8, uint8_t)
NEGATE_PIXELS(pixels16, uint16_t)

VECTOR_CLONES static void row8(const uint8_t *in, uint8_t *out, size_t n, int C, const uint8_t m[4])
{
    switch (C) {
    case 1: pixels8(in, out, n, 1, m); break;
    case 2: pixels8(in, out, n, 2, m); break;
    case 3: pixels8(in, out, n, 3, m); break;
    default: pixels8(in, out, n, 4, m); break;
    }
}

VECTOR_CLONES static void row16(const uint16_t *in, uint16_t *out, size_t n, int C, const uint16_t m[4])
{
    switch (C) {
    case 1: pixels16(in, out, n, 1, m); break;
    case 2: pixels16(in, out, n, 2, m); break;
    case 3: pixels16(in, out, n, 3, m); break;
    default: pixels16(in, out, n, 4, m); break;
    }
}

static void band(void *ctx, int k)
{
    const struct negate *m = ctx;
    const gf_image *in = m->in;
    const int W = in->width, C = in->channels, alpha = gf_has_alpha(C) ? C - 1 : -1;
    const int y0 = k * m->rows, y1 = y0 + m->rows < in->height ? y0 + m->rows : in->height;
    const size_t first = (size_t)y0 * W * C, n = (size_t)(y1 - y0) * W;
    if (in->depth == 8) {
        uint8_t mask[4];
        for (int c = 0; c < 4; c++)
            mask[c] = c == alpha ? 0 : 0xff;
        row8((const uint8_t *)in->data + first, (uint8_t *)m->out->data + first, n, C, mask);
    } else {
        uint16_t mask[4];
        for (int c = 0; c < 4; c++)
            mask[c] = c == alpha ? 0 : 0xffff;
        row16((const uint16_t *)in->data + first, (uint16_t *)m->out->data + first, n, C, mask);
    }
}

gf_fast_fn gf_fast_negate;

gf_status gf_fast_negate(const gf_step *s, const gf_image *in, gf_image *out, int threads)
{
    (void)s;
    threads = threads < 1 ? 1 : threads;
    struct negate m = {in, out, (in->height + 4 * threads - 1) / (4 * threads)};
    gf_parallel_for((in->height + m.rows - 1) / m.rows, threads, band, &m);
    return GF_OK;
}
