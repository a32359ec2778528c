/* SPDX-License-Identifier: MIT */
/* THE op table (ops.c, gathered from src/ops/list.h): every operation's
 * descriptor (src/ops/<op>/<op>_op.c: name, parser, help line, output
 * shape, owned settings, test and benchmark arguments) and its
 * implementations, gf_cpu_<op> (<op>_ref.c) and gf_cuda_<op> (<op>.cu).
 * The command line, --help, the man-page test, the CUDA pipeline, gpucheck
 * and the benchmark all read this table.  No op is declared here: an op's
 * typed arguments live in its folder's header (src/ops/<op>/<op>.h), in
 * a step's `args` bytes. */
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

/* The most bytes an op's arguments may take (the largest, a 31x31
 * convolution kernel, takes under 4,000). */
#define GF_ARGS_MAX 4096
/* A step's arguments as its op's struct `type` (an lvalue). */
#define GF_ARGS(step, type) (*(type *)(void *)(step)->args.bytes)
/* In an op's header: its arguments fit a step. */
#ifdef __cplusplus
#define GF_ARGS_FIT(type) static_assert(sizeof(type) <= GF_ARGS_MAX, #type " must fit gf_step's args")
#else
#define GF_ARGS_FIT(type) _Static_assert(sizeof(type) <= GF_ARGS_MAX, #type " must fit gf_step's args")
#endif

/* The arguments of a pass-through op (one that writes a report and passes
 * the image on) begin with these: the file the report goes to ("-":
 * standard output). */
struct gf_report_args {
    const char *path;
};
#define GF_REPORT_ARGS(step) GF_ARGS(step, struct gf_report_args)

/* One operation of the pipeline: its op, its arguments (those of its own
 * settings among them) and the general settings in force where it was
 * written on the command line. */
typedef struct gf_step {
    const struct gf_op *op;
    gf_border border;    /* -border */
    gf_color background; /* -background */
    /* the op's typed arguments (struct gf_<op>_args, declared in its folder's
     * header with an accessor GF_<OP>_ARGS(step)); zero before its parser */
    union {
        long double align_;
        void *pointer_;
        int64_t integer_;
        unsigned char bytes[GF_ARGS_MAX];
    } args;
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

#ifdef __cplusplus
}
#endif
#endif
