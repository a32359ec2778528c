/* SPDX-License-Identifier: MIT */
#ifndef GF_OPS_H
#define GF_OPS_H

#include <stdint.h>

#include "image.h"
#include "numeric.h"

/* A colour for -background, as 16-bit RGBA. */
typedef struct gf_color {
    uint16_t rgba[4];
    int given; /* 0: default ("none" on images with alpha, else black) */
} gf_color;


struct gf_op;
struct gf_cuda;

/* One operation of the pipeline with its arguments and the settings in force
 * where it was written on the command line. */
typedef struct gf_step {
    const struct gf_op *op;
    gf_border border;
    double sigma;     /* blur */
    int radius;       /* blur (resolved), box */
    int variant;      /* laplacian: 8 or 4; orientation ops: enum gf_orient; rotate: its
                         gf_orient for a right angle, else -1 */
    double angle;     /* rotate, clockwise degrees in [0, 360) */
    gf_color bg;      /* rotate */
    const char *path; /* histogram */
    int bins;         /* histogram: 0 means 256 */
} gf_step;

typedef gf_status (*gf_cpu_fn)(const gf_step *s, const gf_image *in, gf_image *out);
typedef gf_status (*gf_cuda_fn)(struct gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out);

enum gf_argkind { GF_ARG_NONE, GF_ARG_REQUIRED, GF_ARG_OPTIONAL };

/* An operation: one entry of the op table drives parsing, --help, the man
 * page test and both back ends.  `out` is NULL for pass-through ops. */
typedef struct gf_op {
    const char *name;
    enum gf_argkind arg;
    const char *metavar;
    const char *help;
    gf_status (*parse)(gf_step *s, const char *arg); /* NULL: no argument */
    gf_status (*shape)(const gf_step *s, const gf_shape *in, gf_shape *out); /* NULL: same shape */
    gf_cpu_fn cpu;
    gf_cuda_fn cuda; /* NULL: CPU only */
    int passthrough;
} gf_op;

extern const gf_op gf_ops[];
extern const int gf_nops;
const gf_op *gf_op_find(const char *name);

/* The output shape of a step (calls op->shape or keeps the input's). */
gf_status gf_step_shape(const gf_step *s, const gf_shape *in, gf_shape *out);
/* Walks *shape through the steps, checking every result against `limit`;
 * *most is the largest image (in bytes) along the way, the input included. */
gf_status gf_chain_shape(const gf_step *steps, int nsteps, gf_shape *shape, uint64_t limit, size_t *most);

/* CPU reference implementations, src/cpu/<op>.c */
gf_status gf_cpu_blur(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_box(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_laplacian(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_orient(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_rotate(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_histogram(const gf_step *s, const gf_image *in, gf_image *out);
gf_status gf_cpu_equalize(const gf_step *s, const gf_image *in, gf_image *out);

/* Shared by both back ends. */
/* Integer blur taps q[0..radius] (q[i] for offsets +-i), summing to 2^bits. */
gf_status gf_blur_taps(double sigma, int radius, int bits, uint32_t **taps);
int gf_blur_radius(double sigma);
/* Output shape of -rotate at a non-right angle, and the background in the output's depth. */
void gf_rotate_shape(double angle, int w, int h, int *ow, int *oh);
int gf_rotate_channels(const gf_step *s, int channels);
void gf_rotate_background(const gf_step *s, int out_channels, int depth, uint32_t bg[4]);
/* Histogram: counts[ch * bins + b]; bins a power of two <= 2^depth. */
gf_status gf_histogram_count(const gf_image *img, int bins, uint64_t *counts);
gf_status gf_histogram_write(const char *path, const gf_image *img, int bins, const uint64_t *counts);
int gf_histogram_bins(const gf_step *s, int depth);
/* Equalisation lookup tables lut[ch * (maxval+1) + v] from full-resolution counts. */
void gf_equalize_luts(const gf_image *img, const uint64_t *counts, uint32_t *lut);

#endif
