/* SPDX-License-Identifier: MIT */
/* THE op table (ops.c, gathered from src/ops/list.h): every operation's
 * descriptor (src/ops/<op>/<op>_op.c: name, typed arguments, help line,
 * output shape, test and benchmark arguments) and its implementations,
 * gf_cpu_<op> (<op>_ref.c) and gf_cuda_<op> (<op>.cu).  The command line,
 * --help, the man-page test, the CUDA pipeline, gpucheck and the benchmark
 * all read this table. */
#ifndef GF_OPS_H
#define GF_OPS_H

#include <stdint.h>

#include "image.h"
#include "numeric.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A colour for -background, as 16-bit RGBA. */
typedef struct gf_color {
    uint16_t rgba[4];
    int given; /* 0: the default, "none" on images with alpha, else black */
} gf_color;

/* The typed arguments of each operation: a step holds those of its op. */
struct gf_blur_args { double sigma; int radius; };   /* radius resolved: ceil(3 sigma) unless given */
struct gf_box_args { int radius; };
/* -unsharp RxSIGMA+AMOUNT+THRESHOLD: gain = round(AMOUNT 2^16) */
struct gf_unsharp_args { struct gf_blur_args blur; int64_t gain; double threshold; };
struct gf_laplacian_args { int neighbours; };         /* 8 or 4 */
struct gf_orient_args { enum gf_orient orient; };    /* -transpose, -transverse, -flip, -flop */
struct gf_rotate_args {
    double angle;         /* clockwise degrees in [0, 360) */
    int right;            /* a multiple of 90: an exact move by `orient` */
    enum gf_orient orient;
};
/* -histogram FILE, -stats FILE: the file the report goes to ("-": standard
 * output); -histogram's bins (its -bins setting; 0: 256) */
struct gf_report_args { const char *path; int bins; };
/* -crop WxH+X+Y: the region's size and its top-left corner (which may lie
 * left of or above the image); clipped to the image by the shape. */
struct gf_crop_args { int width, height; long x, y; };
/* -convolve KERNEL: W x H weights in 2^-16 (normalised where they sum to
 * other than 0), row by row, and the origin, and its -bias setting (a
 * fraction of the maximum sample); -edge sobel|prewitt: the integer kernel
 * of the x direction (the y direction is its transpose). */
struct gf_convolve_args { int w, h, ox, oy, edge; int32_t q[GF_KERNEL_MAX * GF_KERNEL_MAX]; double bias; };
/* -erode R (min), -dilate R (max); -median R */
struct gf_rank_args { int radius; int max; };
#define GF_MEDIAN_MAX 15 /* -median's largest radius */
enum gf_gray_weights { GF_GRAY_REC601, GF_GRAY_REC709, GF_GRAY_AVERAGE };
struct gf_grayscale_args { enum gf_gray_weights weights; };
/* -filter, -resize's setting: GF_FILTER_DEFAULT is Lanczos where the area
 * shrinks or stays, Mitchell where it grows (as ImageMagick). */
enum gf_filter {
    GF_FILTER_DEFAULT,
    GF_FILTER_POINT,
    GF_FILTER_BOX,
    GF_FILTER_LINEAR,
    GF_FILTER_CATROM,
    GF_FILTER_MITCHELL,
    GF_FILTER_LANCZOS
};
/* -resize GEOMETRY as ImageMagick's: WxH with its flags (GF_GEOM_*); a
 * side not given is 0 (then kept in proportion); the -filter setting. */
enum { GF_GEOM_PERCENT = 1, GF_GEOM_EXACT = 2, GF_GEOM_FILL = 4, GF_GEOM_SHRINK = 8, GF_GEOM_ENLARGE = 16 };
struct gf_resize_args { double width, height; int flags; enum gf_filter filter; };

/* One operation of the pipeline: its op, its arguments (those of its own
 * settings among them) and the general settings in force where it was
 * written on the command line. */
typedef struct gf_step {
    const struct gf_op *op;
    gf_border border;    /* -border */
    gf_color background; /* -background */
    union {
        struct gf_blur_args blur;
        struct gf_box_args box;
        struct gf_laplacian_args laplacian;
        struct gf_orient_args orient;
        struct gf_rotate_args rotate;
        struct gf_report_args report;
        struct gf_crop_args crop;
        struct gf_grayscale_args grayscale;
        struct gf_resize_args resize;
        struct gf_rank_args rank;
        struct gf_unsharp_args unsharp;
        struct gf_convolve_args convolve;
    };
} gf_step;

enum gf_argkind { GF_ARG_NONE, GF_ARG_REQUIRED, GF_ARG_OPTIONAL };

typedef gf_status gf_parse_fn(gf_step *s, const char *arg);

/* A setting one op owns (-filter of -resize): the command line keeps what
 * it was last given, and each later step of an op that lists it gets it,
 * through `apply`, after the op's own argument.  `apply` also checks the
 * value where the setting is written, so that an error names it there. */
typedef struct gf_op_setting {
    const char *name;
    const char *metavar;
    const char *help;
    gf_parse_fn *apply;
} gf_op_setting;
typedef gf_status gf_shape_fn(const gf_step *s, const gf_shape *in, gf_shape *out);
/* The CPU reference: `out` is allocated in the output shape (NULL for pass-through ops). */
typedef gf_status gf_cpu_fn(const gf_step *s, const gf_image *in, gf_image *out);
/* A fast CPU path (src/ops/<op>/<op>_fast.c): the reference's result bit for bit, on up to
 * `threads` threads. */
typedef gf_status gf_fast_fn(const gf_step *s, const gf_image *in, gf_image *out, int threads);

struct gf_cuda;
/* The GPU side of an op (src/ops/<op>/<op>.cu); images hold device pointers.
 * `enqueue` puts the op's kernels on the back end's stream without waiting;
 * `finish` (pass-through ops) then does the host's part once they are done.
 * `path` names, from `paths`, the kernels enqueue would take for this step
 * and image: -v shows it, and gpucheck makes sure every path is reached. */
typedef struct gf_cuda_op {
    gf_status (*enqueue)(struct gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out);
    gf_status (*finish)(struct gf_cuda *cu, const gf_step *s, const gf_image *in);
    int (*path)(const gf_step *s, const gf_image *in);
    const char *const *paths; /* NULL-terminated */
} gf_cuda_op;

typedef struct gf_op {
    const char *name;
    enum gf_argkind arg;
    const char *metavar;
    const char *help;
    gf_parse_fn *parse;   /* NULL: no argument */
    gf_shape_fn *shape;   /* NULL: the input's shape */
    gf_cpu_fn *cpu;
    gf_fast_fn *fast;       /* NULL: the reference is the CPU path */
    const gf_cuda_op *cuda; /* NULL in a build without CUDA */
    int passthrough;        /* the image passes on unchanged (-histogram) */
    /* The CPU path's time per output sample on one core, in ns, for -device
     * auto's choice of a single image's back end (gf_chain_cpu_ms). */
    double (*cpu_ns)(const gf_step *s);
    /* Command-line fragments for gpucheck, which runs each over its grid of
     * images, and for the benchmark's table; NULL-terminated. */
    const char *const *tests;
    const char *const *bench;
    /* 0, or the only metadata (GF_KEEP_* of codec.h) outputs keep once the
     * op is on the command line: -thumbnail keeps the colour profile alone */
    unsigned keeps;
    /* 1: `fast` may be given out == in (same shape), writing its result over
     * its input, so that the CPU path holds one image instead of two */
    int in_place;
    /* the settings the op owns (NULL-terminated; NULL: none); ops of one
     * family may share one */
    const gf_op_setting *const *settings;
} gf_op;

extern const gf_op *const gf_ops[]; /* src/ops/list.h */
extern const int gf_nops;
const gf_op *gf_op_find(const char *name);
/* The op-owned settings, each name once, in the table's order: up to `max`
 * into out[]; the number there is. */
int gf_op_settings(const gf_op_setting **out, int max);
#define GF_OP_SETTINGS_MAX 32

/* The output shape of a step (op->shape, or the input's). */
gf_status gf_step_shape(const gf_step *s, const gf_shape *in, gf_shape *out);
/* Walks *shape through the steps, checking every result against `limit`;
 * *most is the largest image (in bytes) along the way, the input included. */
gf_status gf_chain_shape(const gf_step *steps, int nsteps, gf_shape *shape, uint64_t limit, size_t *most);

/* The CPU path's estimated wall time for the steps on an image of `shape`,
 * in ms (op->cpu_ns over each step's output, shared by `threads` where the
 * op has a fast path); HUGE_VAL on a bad shape. */
double gf_chain_cpu_ms(const gf_step *steps, int nsteps, gf_shape shape, int threads);

/* Helpers both back ends share. */
/* Integer blur taps q[0..radius] (q[i] for offsets +-i), summing to 2^bits. */
gf_status gf_blur_taps(double sigma, int radius, int bits, uint32_t **taps);
int gf_blur_radius(double sigma);
/* -rotate at other angles: the output shape and channels, the background in
 * the output's depth, and the fixed-point sampling plan (numeric.h). */
void gf_rotate_shape(double angle, int w, int h, int *ow, int *oh);
int gf_rotate_channels(const gf_step *s, int channels);
void gf_rotate_background(const gf_step *s, int out_channels, int depth, uint32_t bg[4]);
gf_rotation gf_rotate_plan(const gf_step *s, const gf_shape *in, const gf_shape *out);
/* -resize: the taps of the rows (tx) and of the columns (ty), the filter
 * chosen; a resize to the input's size is a copy and needs none. */
gf_status gf_resize_plan(const gf_step *s, const gf_shape *in, const gf_shape *out, gf_resize_taps *tx,
                         gf_resize_taps *ty);
void gf_resize_taps_free(gf_resize_taps *t);
/* -convolve: -bias in 2^-16 of a sample at `depth`. */
int64_t gf_convolve_bias(const gf_step *s, int depth);
/* -convolve, -edge: whether every partial sum fits 32 bits (the weights'
 * absolute sum times the largest sample at `depth` below 2^31); the CUDA
 * kernel's launch makes the same test. */
int gf_convolve_narrow(const struct gf_convolve_args *k, int depth);
/* -unsharp: the blur it subtracts, as a -blur step; the threshold t of gf_unsharp_value at `depth`. */
gf_step gf_unsharp_blur(const gf_step *s);
int64_t gf_unsharp_threshold(const gf_step *s, int depth);
/* -stats: one channel's exact moments; written with its mean and standard
 * deviation (population) computed from them (histogram_io.c). */
typedef struct gf_channel_stats {
    uint32_t min, max;
    uint64_t sum;
    unsigned __int128 sumsq;
} gf_channel_stats;
gf_status gf_stats_write(const char *path, const gf_image *img, const gf_channel_stats *st);
/* Histogram: counts[ch * bins + b]; bins a power of two <= 2^depth. */
gf_status gf_histogram_count(const gf_image *img, int bins, uint64_t *counts);
gf_status gf_histogram_write(const char *path, const gf_image *img, int bins, const uint64_t *counts);
int gf_histogram_bins(const gf_step *s, int depth);
/* Equalisation lookup tables lut[ch * (maxval+1) + v] from full-resolution counts. */
void gf_equalize_luts(const gf_image *img, const uint64_t *counts, uint32_t *lut);

#ifdef __cplusplus
}
#endif
#endif
