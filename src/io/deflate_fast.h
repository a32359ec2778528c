/* SPDX-License-Identifier: MIT */
/* PNG's fast level: a deflate stream of literals and runs (matches at
 * distance 1), coded by Huffman codes built from the data's own histogram,
 * as fpnge does; any inflater reads it. */
#ifndef GF_DEFLATE_FAST_H
#define GF_DEFLATE_FAST_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes gf_deflate_fast writes for n input bytes. */
size_t gf_deflate_fast_bound(size_t n);

/* in[0..n) as one dynamic-Huffman deflate block into out (which holds
 * gf_deflate_fast_bound(n) bytes): runs of a byte repeated at least 4
 * times after itself are matches at distance 1, within in[] only (so that each call's stream stands alone after a byte
 * boundary); the rest literals.  With `last` the block is the stream's
 * final one, padded to a byte; else an empty stored block follows it, as
 * zlib's sync flush ends, so that streams made this way concatenate into
 * one.  Returns the length written (the same input gives the same bytes),
 * or 0 where memory ran out. */
size_t gf_deflate_fast(const uint8_t *in, size_t n, int last, uint8_t *out);

#endif
