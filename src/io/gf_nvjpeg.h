/* SPDX-License-Identifier: MIT */
/* JPEG on the GPU through nvJPEG (src/io/nvjpeg.c), for batch lanes and large
 * single images: the compressed bytes go up, are decoded into the chain's
 * input buffer (on the hardware JPEG engines where the GPU has them, else
 * with the Huffman code decoded on the SMs or, for small images, on the
 * CPU), and a result is encoded there, only the compressed bytes coming
 * back.  Built without nvJPEG, gf_nvjpeg_open fails and libjpeg-turbo
 * decodes and encodes. */
#ifndef GF_NVJPEG_H
#define GF_NVJPEG_H

#include <stddef.h>
#include <stdint.h>

#include "cuda.h"

typedef struct gf_nvjpeg gf_nvjpeg;

/* nvJPEG for the lane `cu` (its device and stream); GF_ENODEV without it.
 * With `engines`, a batch lane's: the library handle and the engines'
 * decoder state are shared by the lanes of a device and made by its first
 * open, which then sets ms[0] and ms[1] (where ms is given) to the
 * milliseconds each took (a later open sets 0).  Without, a single image's:
 * a handle of its own with the default backend and the GPU-assisted
 * decoder, ms[0] and ms[1] the milliseconds each took. */
gf_status gf_nvjpeg_open(gf_cuda *cu, int engines, gf_nvjpeg **out, double *ms);
void gf_nvjpeg_close(gf_nvjpeg *j);
/* "nvJPEG 13.0.1" for --version; "" built without it. */
void gf_nvjpeg_version(char *buf, size_t size);

/* Decodes the JPEG file buf[0..n) into the input buffer of a chain of
 * `steps` on the lane (gf_cuda_begin), as 8-bit gray or RGB: *shape is its
 * shape.  GF_EFORMAT (with the reason) where nvJPEG does not take the file
 * (CMYK, 12-bit, arithmetic coding, a corrupt stream): decode it on the CPU,
 * which gives the same image or the proper error.  Other failures (limits,
 * the device) stand.  *batch is the number of images the JPEG engines
 * decoded with it; 0 where nvJPEG's hybrid decoder did, the Huffman code on
 * the CPU; -1 where its GPU-assisted decoder did, the Huffman code on the
 * SMs. */
gf_status gf_nvjpeg_decode(gf_nvjpeg *j, gf_cuda *cu, const gf_step *steps, int nsteps, const uint8_t *buf,
                           size_t n, uint64_t limit, gf_shape *shape, int *batch);

/* Encodes the device image `dev` (8-bit gray or RGB) at `quality` with
 * optimized Huffman tables (up to 16384x16384 pixels; the standard tables
 * above) and libjpeg's chroma subsampling (4:2:0 for colour): a new buffer
 * *out of *len bytes. */
gf_status gf_nvjpeg_encode(gf_nvjpeg *j, const gf_image *dev, int quality, uint8_t **out, size_t *len);

#endif
