/* SPDX-License-Identifier: MIT */
/* What an op's descriptor file (src/ops/<op>/<op>_op.c) uses: the lists of
 * command-line fragments, the CUDA object where the build has one, and the
 * argument parsers and costs the ops share (src/ops/args.c).  Each
 * descriptor is a `const gf_op gf_op_<name>`, named once in src/ops/list.h. */
#ifndef GF_OP_H
#define GF_OP_H

#include <stdio.h>

#include "ops.h"

/* A NULL-terminated list of fragments; LIST0 the empty one. */
#define LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define LIST0 ((const char *const[]){NULL})
/* a descriptor's settings: SETTINGS(&filter) */
#define SETTINGS(...) ((const gf_op_setting *const[]){__VA_ARGS__, NULL})
/* Declares an implementation's CUDA object; CUDA(op) names it, NULL in a
 * build without CUDA. */
#define GF_CUDA_OP(op) extern const gf_cuda_op gf_cuda_##op
#ifdef HAVE_CUDA
#define CUDA(op) &gf_cuda_##op
#else
#define CUDA(op) NULL
#endif

#define GF_MAX_RADIUS 2000000 /* twice the largest side: any more only repeats the border */

/* A finite number taking the whole string: 0, else -1. */
int gf_arg_number(const char *s, double *v);
/* A decimal integer in [lo, hi], the whole of s (no leading space): 0, else -1. */
int gf_arg_integer(const char *s, long long lo, long long hi, long long *v);
/* A decimal number without a sign or exponent at *p (digits and a point:
 * not strtod's hexadecimal, which would read 0x5 as five), *p moved past
 * it; 0 if there is none. */
int gf_arg_unsigned(const char **p, double *v);
/* An integer radius 1 to most for -op. */
gf_status gf_arg_radius(const char *op, const char *arg, int most, int *r);
/* An ImageMagick geometry, [W][xH][%!^<>...][{+-}X{+-}Y]: sides as numbers
 * (0 where absent), the flags (GF_GEOM_*), and the offset (0 where
 * absent); -1 on anything else. */
enum { GF_GEOM_PERCENT = 1, GF_GEOM_EXACT = 2, GF_GEOM_FILL = 4, GF_GEOM_SHRINK = 8, GF_GEOM_ENLARGE = 16 };
int gf_arg_geometry(const char *a, double *w, double *h, int *flags, long *x, long *y);
/* A report's file name (-histogram, -stats). */
gf_status gf_parse_report(gf_step *s, const char *arg);
/* A report's format, by its file's extension (src/ops/report.c): .csv,
 * .json, .png, else text. */
typedef enum { GF_REPORT_TEXT, GF_REPORT_CSV, GF_REPORT_JSON, GF_REPORT_PNG } gf_report_format;
gf_report_format gf_report_format_of(const char *path);
/* Writes a report to path, its contents from body(f, ctx); a failure is
 * named "WHAT PATH: ...". */
gf_status gf_report_write(const char *what, const char *path, gf_status (*body)(FILE *, void *), void *ctx);
/* -erode (max 0) and -dilate (max 1): the radius. */
gf_status gf_parse_rank(gf_step *s, const char *arg, int max);
/* The shape after a move: sides swapped where `o` transposes. */
void gf_swap_sides(enum gf_orient o, const gf_shape *in, gf_shape *out);

/* CPU time per output sample (ns, one core) of the fast path where the op
 * has one, measured on a 12 MP RGB8 photo with x86-64 cores of 2020-2024;
 * it only needs to be right within a factor of two (-device auto). */
double gf_ns_count(const gf_step *s); /* histogram, equalize, grayscale */
double gf_ns_move(const gf_step *s);  /* the mirrors, rotate by right angles, crop */

#endif
