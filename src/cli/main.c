/* SPDX-License-Identifier: MIT */
/* argv -> plan -> one image or a batch -> exit status.  A single image picks
 * its back end from the input's header and opens the GPU beside its decode. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "codec.h"
#include "gf_nvjpeg.h"
#include "parallel.h"
#include "pipeline.h"

static void version(void)
{
    char cuda[160], nvjpeg[64];
    gf_cuda_versions(cuda, sizeof cuda);
    gf_nvjpeg_version(nvjpeg, sizeof nvjpeg);
    printf("gpufilter %s\n%s\n%s\n", PACKAGE_VERSION, gf_codec_versions(), cuda);
    if (*nvjpeg)
        printf("%s\n", nvjpeg);
}

static int usage_error(const char *detail)
{
    gf_say("%s (see 'gpufilter --help')", detail);
    return 2;
}

/* Under -device auto, a single image whose chain the CPU is estimated to run
 * in less than this stays on the CPU: creating a CUDA context alone takes
 * 0.2-0.35 s, and the results are the same either way. */
#define CPU_RATHER_MS 150.0
/* Under -codec auto, a single JPEG whose decode (and, for JPEG output,
 * encode) libjpeg-turbo is estimated to take longer than this goes through
 * nvJPEG on the GPU instead: above the CUDA context's start and nvJPEG's
 * own (its handle and GPU-assisted decoder), which libjpeg-turbo's decode
 * otherwise overlaps. */
#define NVJPEG_RATHER_MS 500.0

/* The back end of a single-image run: NULL (the CPU) or a CUDA device, opened
 * on a thread of its own while the input is decoded, or, for a JPEG that
 * nvJPEG is to decode, with nvJPEG before it. */
struct device {
    const gf_plan *plan;
    const char *output;
    pthread_t thread;
    int started;
    int jpeg; /* the input goes to nvJPEG */
    gf_cuda *cu;
    gf_nvjpeg *nj; /* where jpeg and nvJPEG opened */
    gf_status st;
    char detail[512];
};

static void *open_device(void *arg)
{
    struct device *d = arg;
    const gf_settings *set = &d->plan->set;
    const double t0 = gf_now_ms();
    d->st = gf_cuda_open(set->device_index, &d->cu);
    if (d->st && gf_gpu_fallback(set, d->st)) {
        d->st = GF_OK;
        return NULL;
    } else if (d->st) {
        snprintf(d->detail, sizeof d->detail, "%s", gf_error_detail(d->st));
        return NULL;
    }
    if (set->verbose)
        gf_say("running on %s (CUDA context %.0f ms)", gf_cuda_device_name(d->cu), gf_now_ms() - t0);
    double ms[2];
    if (!d->jpeg) {
        gf_cuda_prepare_transfers(d->cu);
    } else if (gf_nvjpeg_open(d->cu, 0, &d->nj, ms)) {
        if (set->verbose)
            gf_say("nvJPEG: %s; decoding with libjpeg-turbo", gf_error_detail(GF_ENODEV));
        gf_error_clear();
    } else if (set->verbose) {
        gf_say("nvJPEG: library %.0f ms, GPU-assisted decoder %.0f ms", ms[0], ms[1]);
    }
    return NULL;
}

/* With the input's bytes, before they are decoded: refuses an image above
 * -limit-memory, else chooses the back end (and whether nvJPEG decodes the
 * input) and starts opening it. */
static gf_status choose_device(struct device *d, const uint8_t *buf, size_t n)
{
    const gf_settings *set = &d->plan->set;
    gf_status st = gf_memory_check(set, gf_memory_need(d->plan, buf, n));
    if (st || set->device == GF_DEVICE_CPU || (d->plan->nsteps == 0 && set->device != GF_DEVICE_CUDA))
        return st; /* -device cuda is a demand: without a working GPU it fails, operations or not */
    gf_shape in = {0}, out;
    size_t most;
    const int known = !gf_peek_shape(buf, n, &in);
    out = in;
    if (known && d->plan->nsteps && d->output && gf_sniff(buf, n) == GF_FMT_JPEG && set->codec != GF_CODEC_CPU &&
        !gf_chain_shape(d->plan->steps, d->plan->nsteps, &out, UINT64_MAX, &most)) {
        const int jpeg_out = gf_output_format(set, d->output, GF_FMT_JPEG) == GF_FMT_JPEG;
        const double ms = gf_codec_cpu_ms(GF_FMT_JPEG, in, jpeg_out ? GF_FMT_JPEG : GF_FMT_NONE, out);
        d->jpeg = set->codec == GF_CODEC_GPU || ms >= NVJPEG_RATHER_MS;
        if (d->jpeg && set->verbose && set->codec == GF_CODEC_AUTO)
            gf_say("nvJPEG rather than libjpeg-turbo (about %.0f ms of JPEG work on one core)", ms);
    }
    gf_error_clear();
    if (set->device == GF_DEVICE_AUTO && known && !d->jpeg) {
        const double ms = gf_chain_cpu_ms(d->plan->steps, d->plan->nsteps, in,
                                          set->threads ? set->threads : gf_cpu_count());
        if (ms < CPU_RATHER_MS) {
            if (set->verbose)
                gf_say("running on the CPU (about %.0f ms of work, less than a GPU's start)", ms);
            return GF_OK;
        }
    }
    if (pthread_create(&d->thread, NULL, open_device, d) == 0)
        d->started = 1;
    else
        open_device(d);
    return GF_OK;
}

/* The back end chosen, once it is open. */
static gf_status device_ready(struct device *d)
{
    if (d->started)
        pthread_join(d->thread, NULL);
    d->started = 0;
    return d->st ? gf_error(d->st, "%s", d->detail) : GF_OK;
}

/* Reads, decodes, filters and writes one image; the message of a failure
 * names *failed. */
static gf_status process(const gf_plan *plan, struct device *d, const char *input, const char *output,
                         const char **failed)
{
    const gf_settings *set = &plan->set;
    gf_image img = {0};
    gf_meta meta = {0};
    gf_format fmt = GF_FMT_JPEG;
    uint8_t *buf = NULL, *bytes = NULL; /* the input's file; the output's, where nvJPEG encoded it */
    size_t n = 0, len = 0;
    const char *name = strcmp(input, "-") ? input : "(stdin)";
    *failed = name;
    const double t0 = gf_now_ms();
    gf_status st = gf_read_file(input, &buf, &n);
    const double read_ms = gf_now_ms() - t0;
    if (!st)
        st = choose_device(d, buf, n);
    if (!st && d->jpeg)
        gf_jpeg_meta(set, buf, n, name, &meta);
    else if (!st)
        st = gf_decode_timed(set, name, buf, n, read_ms, &img, &fmt, &meta);
    gf_status dev = device_ready(d);
    if (dev) {
        *failed = set->device_text;
        st = dev;
    }
    gf_plan oriented;
    gf_step *owned = NULL;
    if (!st)
        st = gf_plan_oriented(plan, &meta, &oriented, &owned);
    int cpu = !d->nj; /* the chain runs on a decoded host image */
    if (!st && !cpu) {
        double mp;
        st = gf_gpu_jpeg(&oriented, d->cu, d->nj, buf, n, read_ms, &meta, name, output, &bytes, &len, &img, &cpu,
                         &mp);
    }
    if (!st && cpu && d->jpeg) /* left for nvJPEG, which did not open or take it: metadata read above */
        st = gf_decode_timed(set, name, buf, n, read_ms, &img, &fmt, NULL);
    free(buf);
    const int threads = set->threads ? set->threads : gf_cpu_count();
    if (!st && cpu && oriented.nsteps)
        st = gf_filter(&oriented, d->cu, &img, name, threads);
    free(owned);
    if (!st && output) {
        *failed = strcmp(output, "-") ? output : "(stdout)";
        if (bytes) {
            const double t1 = gf_now_ms();
            st = gf_write_bytes(output, bytes, len);
            if (!st && set->verbose)
                gf_timing(name, "write", gf_now_ms() - t1, NULL);
        } else {
            st = gf_store(set, threads, &img, &meta, fmt, output, name);
        }
    }
    free(bytes);
    gf_image_free(&img);
    gf_meta_free(&meta);
    return st;
}

int main(int argc, char **argv)
{
    gf_plan plan;
    gf_fileio_init();
    if (gf_cli_parse(argc, argv, &plan)) {
        int rc = usage_error(gf_error_detail(GF_EINVAL));
        gf_plan_free(&plan);
        return rc;
    }
    if (plan.help || plan.version) {
        if (plan.help)
            gf_cli_help(stdout);
        else
            version();
        gf_plan_free(&plan);
        return fflush(stdout) ? 1 : 0;
    }
    /* what the output can be, checked before any work */
    const char *input = plan.args[0], *output = !plan.set.outdir && plan.nargs > 1 ? plan.args[1] : NULL;
    const char *slash = output ? strrchr(output, '/') : NULL, *dot = output ? strrchr(output, '.') : NULL;
    if (output && !plan.set.format && dot && (!slash || dot > slash + 1) && !gf_format_from_name(output)) {
        char msg[256];
        snprintf(msg, sizeof msg,
                 "cannot write '%s': gpufilter writes .png, .jpg, .jpeg, .ppm, .pgm, .pam and .pnm "
                 "(or what -format names)",
                 output);
        gf_plan_free(&plan);
        return usage_error(msg);
    }
    const gf_format outfmt = output && strcmp(output, "-") ? gf_output_format(&plan.set, output, GF_FMT_NONE)
                                                          : plan.set.format;
    if (plan.set.depth == 16 && outfmt == GF_FMT_JPEG) {
        gf_plan_free(&plan);
        return usage_error("JPEG cannot hold 16-bit samples (-depth 16)");
    }
    if (plan.set.outdir) {
        int rc = gf_batch(&plan);
        gf_plan_free(&plan);
        return rc;
    }
    if (output && !strcmp(output, "-") && isatty(STDOUT_FILENO)) {
        gf_plan_free(&plan);
        return usage_error("refusing to write image data to a terminal");
    }
    for (int i = 0; output && !strcmp(output, "-") && i < plan.nsteps; i++)
        if (plan.steps[i].op->passthrough && !strcmp(GF_REPORT_ARGS(&plan.steps[i]).path, "-")) {
            char detail[128];
            snprintf(detail, sizeof detail, "the image and -%s's report cannot both go to standard output",
                     plan.steps[i].op->name);
            gf_plan_free(&plan);
            return usage_error(detail);
        }

    struct device d = {.plan = &plan, .output = output};
    const char *failed = input;
    gf_status st = process(&plan, &d, input, output, &failed);
    if (st)
        gf_say("%s: %s", failed, gf_error_detail(st));
    if (d.cu)
        gf_exit_fast(st ? 1 : 0); /* nvJPEG's handle and the device go with the process */
    gf_plan_free(&plan);
    return st ? 1 : 0;
}
