/* SPDX-License-Identifier: MIT */
#ifndef GF_CLI_H
#define GF_CLI_H

#include <stdint.h>

#include "codec.h"
#include "ops.h"

#define GF_MAX_DEVICES 64

enum gf_device { GF_DEVICE_AUTO, GF_DEVICE_CPU, GF_DEVICE_CUDA };
/* JPEG in GPU batches: libjpeg-turbo until nvJPEG is up, then nvJPEG; nvJPEG
 * only; libjpeg-turbo only */
enum gf_codec { GF_CODEC_AUTO, GF_CODEC_GPU, GF_CODEC_CPU };

/* Settings in force at a point of the command line. */
typedef struct gf_settings {
    gf_border border;
    gf_color bg;
    enum gf_device device;
    int device_index;                /* single image: -1 = any (device 0) */
    int devices[GF_MAX_DEVICES];     /* batch: cuda:0,1 (device_index is the first) */
    int ndevices;                    /* 0: device_index alone */
    int all_devices;                 /* cuda:all */
    char device_text[24];            /* as written, for messages ("cuda" by default) */
    int quality, compress;
    int quality_given, compress_given; /* on the command line, for -v's note when the output cannot use them */
    enum gf_codec codec;
    gf_format format;
    int depth; /* 0: as decoded */
    int threads;
    uint64_t limit_pixels;
    uint64_t limit_memory; /* -limit-memory: bytes the images in hand may take (default half the physical memory) */
    int verbose, quiet, progress;
    const char *outdir; /* -o DIR: batch mode */
    int nul_lists;      /* -0: @LIST entries end in NUL bytes, not newlines */
    int mirror;         /* -mirror: outputs under DIR at the input's relative path */
    unsigned keep;      /* GF_KEEP_* bits: the metadata outputs get (-keep, -strip) */
    int auto_orient;    /* -auto-orient: the EXIF orientation applied first, the tag reset */
    int lenient;        /* -lenient: what a damaged file's decoder recovered is kept, with a warning */
} gf_settings;

/* What the command line asks for. */
typedef struct gf_plan {
    gf_settings set;
    gf_step *steps;
    int nsteps;
    char **args; /* INPUT [OUTPUT], or with -o DIR the INPUTs (@LIST included) */
    int nargs;
    int help, version;
    const char *report; /* the name of an op that writes a report file (-histogram, -stats), or NULL */
    char *text; /* gf_cli_parse_ops: the fragment's copy the steps point into */
} gf_plan;

/* A setting: one entry of the settings table (cli.c). */
typedef struct gf_setting {
    const char *name;
    enum gf_argkind arg;
    const char *metavar;
    const char *help;
    gf_status (*apply)(gf_settings *s, const char *arg);
} gf_setting;

extern const gf_setting gf_settings_table[];
extern const int gf_nsettings;

/* Parses argv into *plan (GF_EINVAL with the detail recorded on a usage error). */
gf_status gf_cli_parse(int argc, char **argv, gf_plan *plan);
/* Parses the settings and operations of a command-line fragment
 * ("-border wrap -blur 2 -box 1"), as the command line would: for the tests
 * and the benchmark, which run the op table's fragments. */
gf_status gf_cli_parse_ops(const char *ops, gf_plan *plan);
void gf_plan_free(gf_plan *plan);
void gf_cli_help(FILE *f);

#endif
