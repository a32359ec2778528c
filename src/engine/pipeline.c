/* SPDX-License-Identifier: MIT */
/* One image end to end: read, decode, the operation chain (CPU or GPU),
 * depth and format conversion, atomic write. */
#include "config.h"
#include "pipeline.h"
#include "parallel.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void gf_exit_fast(int rc)
{
    if (fflush(stdout) && !rc) {
        gf_say("cannot write to standard output: %s", strerror(errno));
        rc = 1;
    }
    fflush(stderr);
    _exit(rc);
}

gf_status gf_pipeline_cpu(const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                          const char *name, int threads)
{
    for (int i = 0; i < nsteps; i++) {
        const gf_step *s = &steps[i];
        double t0 = gf_now_ms();
        gf_status st;
        if (s->op->passthrough) {
            if ((st = s->op->fast ? s->op->fast(s, img, NULL, threads) : s->op->cpu(s, img, NULL)))
                return st;
        } else {
            gf_shape in = gf_image_shape(img), out;
            gf_image next;
            if ((st = gf_step_shape(s, &in, &out)) || (st = gf_shape_check(&out, limit)))
                return st;
            if (s->op->fast && s->op->in_place && !memcmp(&in, &out, sizeof in)) { /* over the input */
                if ((st = s->op->fast(s, img, img, threads)))
                    return st;
            } else {
                if ((st = gf_image_alloc(&next, out.width, out.height, out.channels, out.depth)))
                    return st;
                st = s->op->fast ? s->op->fast(s, img, &next, threads) : s->op->cpu(s, img, &next);
                if (st) {
                    gf_image_free(&next);
                    return st;
                }
                gf_image_free(img);
                *img = next;
            }
        }
        if (verbose) {
            char info[32] = "(cpu)";
            if (s->op->fast)
                snprintf(info, sizeof info, "(cpu, %d thread%s)", threads, threads == 1 ? "" : "s");
            gf_timing(name, s->op->name, gf_now_ms() - t0, info);
        }
    }
    return GF_OK;
}

struct encode_ctx {
    gf_format fmt;
    const gf_image *img;
    gf_encode_opts opts;
};

static gf_status emit_image(FILE *f, void *ctx)
{
    const struct encode_ctx *e = ctx;
    switch (e->fmt) {
    case GF_FMT_PNG: return gf_png_encode(f, e->img, &e->opts);
    case GF_FMT_JPEG: return gf_jpeg_encode(f, e->img, &e->opts);
    default: return gf_pnm_encode(f, e->img, &e->opts);
    }
}

gf_status gf_decode_timed(const gf_settings *set, const char *name, const uint8_t *buf, size_t n, double read_ms,
                          gf_image *img, gf_format *fmt, gf_meta *meta)
{
    const double t0 = gf_now_ms();
    gf_decode_opts dopts = {.limit_pixels = set->limit_pixels,
                            .verbose = set->verbose,
                            .quiet = set->quiet,
                            .name = name,
                            .meta = !set->keep && !set->auto_orient ? NULL : meta,
                            .lenient = set->lenient};
    if (meta)
        *meta = (gf_meta){0};
    gf_status st = gf_decode(buf, n, &dopts, img, fmt);
    if (!st && dopts.meta)
        gf_exif_density(dopts.meta); /* a density EXIF alone holds */
    if (!st && set->verbose) {
        char info[128];
        gf_timing(name, "read", read_ms, NULL);
        snprintf(info, sizeof info, "(%s %dx%d %s %d-bit)", gf_format_name(*fmt), img->width, img->height,
                 gf_layout_name(img->channels), img->depth);
        gf_timing(name, "decode", gf_now_ms() - t0, info);
    }
    return st;
}

uint64_t gf_memory_need(const gf_plan *plan, const uint8_t *buf, size_t n)
{
    gf_shape s;
    size_t in, most = 0;
    if (gf_peek_shape(buf, n, &s) || gf_image_bytes(s.width, s.height, s.channels, s.depth, &in))
        return n > UINT64_MAX / 3 ? UINT64_MAX : 3 * (uint64_t)n;
    if ((uint64_t)s.width * (uint64_t)s.height > plan->set.limit_pixels)
        return 0; /* the decoder refuses it, with -limit-pixels's message */
    if (gf_chain_shape(plan->steps, plan->nsteps, &s, UINT64_MAX, &most)) {
        gf_error_clear();
        most = in;
    }
    return (uint64_t)in + 2 * (uint64_t)most;
}

gf_status gf_memory_check(const gf_settings *set, uint64_t need)
{
    if (need <= set->limit_memory)
        return GF_OK;
    return gf_error(GF_ELIMIT, "the image needs about %llu MiB of memory, above -limit-memory (%llu MiB)",
                    (unsigned long long)((need + (1u << 20) - 1) >> 20),
                    (unsigned long long)(set->limit_memory >> 20));
}

gf_status gf_plan_oriented(const gf_plan *plan, gf_meta *meta, gf_plan *out, gf_step **steps)
{
    /* EXIF orientation -> the op (and its argument) that makes the stored
     * pixels upright, as the command line would write it */
    static const struct {
        const char *op, *arg;
    } upright[9] = {{NULL, NULL},        {NULL, NULL},     {"flop", NULL},       {"rotate", "180"}, {"flip", NULL},
                    {"transpose", NULL}, {"rotate", "90"}, {"transverse", NULL}, {"rotate", "270"}};
    *out = *plan;
    *steps = NULL;
    for (int i = 0; meta && i < plan->nsteps; i++)
        meta->edited |= !plan->steps[i].op->passthrough;
    const int o = plan->set.auto_orient && meta ? gf_exif_orientation(meta) : 0;
    if (o <= 1)
        return GF_OK;
    if (!(*steps = calloc((size_t)plan->nsteps + 1, sizeof **steps)))
        return gf_error(GF_ENOMEM, "out of memory");
    gf_step *s = &(*steps)[0];
    s->op = gf_op_find(upright[o].op);
    gf_status st = s->op && s->op->parse ? s->op->parse(s, upright[o].arg) : GF_OK;
    if (st || !s->op) {
        free(*steps);
        *steps = NULL;
        return st ? st : gf_error(GF_EINTERNAL, "no -%s for -auto-orient", upright[o].op);
    }
    if (plan->nsteps)
        memcpy(*steps + 1, plan->steps, sizeof **steps * (size_t)plan->nsteps);
    out->steps = *steps;
    out->nsteps = plan->nsteps + 1;
    meta->edited = 1;
    gf_exif_reset_orientation(meta);
    return GF_OK;
}

int gf_gpu_fallback(const gf_settings *set, gf_status st)
{
    if (set->device != GF_DEVICE_AUTO || st == GF_EINVAL)
        return 0;
    if (set->verbose)
        gf_say("no usable GPU (%s); running on the CPU", gf_error_detail(st));
    return 1;
}

gf_status gf_filter(const gf_plan *plan, gf_cuda *cu, gf_image *img, const char *name, int threads)
{
    const gf_settings *set = &plan->set;
    gf_status st = GF_OK;
    if (plan->nsteps && cu) {
        st = gf_cuda_run(cu, plan->steps, plan->nsteps, img, set->limit_pixels, set->verbose, name);
        if (st != GF_EDEVMEM || set->device != GF_DEVICE_AUTO)
            return st;
        if (!set->quiet)
            gf_say("%s: %s; running on the CPU instead", name, gf_error_detail(st));
    }
    return gf_pipeline_cpu(plan->steps, plan->nsteps, img, set->limit_pixels, set->verbose, name, threads);
}

gf_format gf_output_format(const gf_settings *set, const char *output, gf_format infmt)
{
    gf_format f = set->format;
    if (!f && strcmp(output, "-"))
        f = gf_format_from_name(output);
    return f ? f : infmt;
}

gf_meta gf_meta_out(const gf_settings *set, gf_meta *meta, gf_shape shape, gf_format fmt, const char *name)
{
    if (meta)
        gf_exif_update(meta, shape.width, shape.height, meta->edited);
    gf_meta kept = gf_meta_kept(meta, set->keep, shape.channels);
    if (fmt == GF_FMT_JPEG)
        gf_meta_for_jpeg(&kept, name, set->quiet);
    return kept;
}

gf_status gf_store(const gf_settings *set, int threads, gf_image *img, gf_meta *meta, gf_format infmt,
                   const char *output, const char *name)
{
    char detail[GF_ENCODE_DETAIL] = "";
    const gf_format fmt = gf_output_format(set, output, infmt);
    gf_meta kept = gf_meta_out(set, meta, gf_image_shape(img), fmt, name);
    struct encode_ctx e = {fmt, img, {set->quality, set->compress, 0, threads > 0 ? threads : 1, detail, &kept}};
    if (e.fmt == GF_FMT_PNM) {
        const char *dot = strrchr(output, '.');
        e.opts.pam = dot && !strcmp(dot, ".pam");
    }
    /* under -v, once: a setting the output's format has no use for */
    static atomic_flag quality_noted = ATOMIC_FLAG_INIT, compress_noted = ATOMIC_FLAG_INIT;
    if (set->verbose && set->quality_given && e.fmt != GF_FMT_JPEG && !atomic_flag_test_and_set(&quality_noted))
        gf_say("note: -quality applies to JPEG output only; %s is %s", output, gf_format_name(e.fmt));
    if (set->verbose && set->compress_given && e.fmt != GF_FMT_PNG && !atomic_flag_test_and_set(&compress_noted))
        gf_say("note: -compress applies to PNG output only; %s is %s", output, gf_format_name(e.fmt));
    double t0 = gf_now_ms();
    gf_status st = GF_OK;
    if (set->depth)
        st = gf_image_set_depth(img, set->depth);
    if (!st && e.fmt == GF_FMT_JPEG) {
        if (set->depth == 16)
            st = gf_error(GF_EINVAL, "JPEG cannot hold 16-bit samples (-depth 16)");
        else {
            gf_image_drop_alpha(img);
            st = gf_image_set_depth(img, 8);
        }
    }
    if (!st)
        st = gf_write_file(output, emit_image, &e);
    if (!st && set->verbose) {
        char info[128];
        snprintf(info, sizeof info, "(%s %dx%d %s %d-bit%s%s)", gf_format_name(e.fmt), img->width, img->height,
                 gf_layout_name(img->channels), img->depth, *detail ? ", " : "", detail);
        gf_timing(name, "encode", gf_now_ms() - t0, info);
    }
    return st;
}

void gf_jpeg_meta(const gf_settings *set, const uint8_t *buf, size_t n, const char *name, gf_meta *meta)
{
    *meta = (gf_meta){0};
    if (!set->keep && !set->auto_orient)
        return;
    if (gf_jpeg_read_meta(buf, n, meta, name, set->quiet))
        gf_error_clear(); /* the decoder that takes the file says what is wrong with it */
    gf_exif_density(meta);
}

gf_status gf_gpu_jpeg(const gf_plan *plan, gf_cuda *cu, gf_nvjpeg *nj, const uint8_t *buf, size_t n, double read_ms,
                      gf_meta *meta, const char *name, const char *output, uint8_t **bytes, size_t *len,
                      gf_image *img, int *cpu, double *mp)
{
    const gf_settings *set = &plan->set;
    *bytes = NULL, *len = 0, *cpu = 0, *mp = 0;
    gf_shape shape;
    int engines;
    const double t0 = gf_now_ms();
    gf_status st = gf_nvjpeg_decode(nj, cu, plan->steps, plan->nsteps, buf, n, set->limit_pixels, &shape, &engines);
    const double t1 = gf_now_ms();
    gf_image dev;
    const int decoded = !st;
    if (decoded)
        st = gf_cuda_chain(cu, plan->steps, plan->nsteps, shape, &dev);
    /* a stream nvJPEG refuses, or (under -device auto) a chain whose buffers
     * the GPU cannot hold, decoded or not: the file goes to libjpeg-turbo,
     * and out of GPU memory gf_filter meets the shortage again, says so and
     * runs the chain on the CPU */
    if ((st == GF_EFORMAT && !decoded) || (st == GF_EDEVMEM && set->device == GF_DEVICE_AUTO)) {
        if (set->verbose)
            gf_timing(name, "nvjpeg", gf_now_ms() - t0, gf_error_detail(st));
        gf_error_clear();
        *cpu = 1;
        return GF_OK;
    }
    if (st)
        return st;
    const int jpeg_out = gf_output_format(set, output, GF_FMT_JPEG) == GF_FMT_JPEG && set->depth != 16 &&
                         dev.depth == 8 && (dev.channels == 1 || dev.channels == 3);
    st = jpeg_out ? gf_nvjpeg_encode(nj, &dev, set->quality, bytes, len) : gf_cuda_download(cu, &dev, img);
    if (!st && jpeg_out) { /* nvJPEG writes no metadata: the input's goes in (a download's, in gf_store) */
        const gf_meta kept = gf_meta_out(set, meta, gf_image_shape(&dev), GF_FMT_JPEG, name);
        uint8_t *with;
        size_t with_len;
        if (!gf_meta_empty(&kept) && !(st = gf_jpeg_add_meta(*bytes, *len, &kept, &with, &with_len))) {
            free(*bytes);
            *bytes = with;
            *len = with_len;
        }
    }
    if (!st && set->verbose) {
        char info[128], how[40] = "hybrid";
        if (engines > 0)
            snprintf(how, sizeof how, "hardware, batch of %d", engines);
        else if (engines < 0)
            snprintf(how, sizeof how, "hybrid, Huffman on the GPU");
        snprintf(info, sizeof info, "(JPEG %dx%d %s 8-bit, nvjpeg %s)", shape.width, shape.height,
                 gf_layout_name(shape.channels), how);
        gf_timing(name, "read", read_ms, NULL);
        gf_timing(name, "nvjpeg-dec", t1 - t0, info);
        gf_timing(name, jpeg_out ? "chain+enc" : "chain", gf_now_ms() - t1,
                  jpeg_out ? "(cuda, nvjpeg encode)" : "(cuda, downloaded)");
    }
    if (st) {
        free(*bytes);
        *bytes = NULL, *len = 0;
    }
    *mp = (double)shape.width * shape.height / 1e6;
    return st;
}
