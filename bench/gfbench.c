/* SPDX-License-Identifier: MIT */
/* gpufilter's kernel benchmark: for W x H images of random data (RGBA8, RGB8,
 * gray8, RGBA16, or the formats -f names), the median time (CUDA events, 3
 * warm-ups, 25 runs) of every op's benchmark fragments from the op table
 * (gf_ops[]->bench), enqueued as the pipeline does, with the kernel path each
 * takes; beside them the memory ceiling, a 1-D device-to-device
 * cudaMemcpyAsync of the same bytes, two floors timed the same way (a pass
 * that only reads the image, the fastest of a few launch shapes, and an empty
 * kernel) and, for RGBA8 when built with NPP, NPP's counterpart (each op's
 * in its folder: src/ops/<folder>/<op>_npp.c).
 *   gfbench [-s WxH] [-n RUNS] [-f FORMAT,...] [-op PREFIX] [-csv FILE] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cuda.h"
#include "gf_kernels.h"
#include <cuda_runtime_api.h>
#ifdef HAVE_NPP
#include "npp_peer.h"
#endif
#include "readpass.h"

#define CK(x)                                                                                                         \
    do {                                                                                                              \
        cudaError_t e_ = (x);                                                                                         \
        if (e_ != cudaSuccess) {                                                                                      \
            fprintf(stderr, "gfbench: %s: %s\n", #x, cudaGetErrorString(e_));                                        \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

/* What one timed run does. */
enum kind { K_COPY, K_READ, K_EMPTY, K_OP, K_NPP };
struct job {
    enum kind kind;
    int shape;           /* K_READ */
    const gf_step *step; /* K_OP, K_NPP */
};

static gf_cuda *cu;
static cudaStream_t stream;
static gf_image in, out;
static unsigned *d_sink; /* the read pass's */
static int runs = 25;
static FILE *csv;
static const char *only; /* -op: the fragments that begin with this */

#ifdef HAVE_NPP
/* Each op's NPP counterpart, gfb_npp_<op> in its folder (src/ops/npp_peer.h);
 * NULL where it has none. */
#define GF_OP(name) extern gfb_npp_fn gfb_npp_##name __attribute__((weak));
#include "list.h"
#undef GF_OP
static const struct {
    const char *name;
    gfb_npp_fn *fn;
} npp_peers[] = {
#define GF_OP(name) {#name, gfb_npp_##name},
#include "list.h"
#undef GF_OP
};

static NppStreamContext npp;
static Npp8u *npp_work; /* gfb_npp_scratch's */
static size_t npp_work_cap;

Npp8u *gfb_npp_scratch(size_t bytes)
{
    if (bytes > npp_work_cap) {
        CK(cudaFree(npp_work));
        CK(cudaMalloc((void **)&npp_work, bytes));
        npp_work_cap = bytes;
    }
    return npp_work;
}

/* The step's op's NPP counterpart, or NULL. */
static gfb_npp_fn *npp_peer(const gf_step *s)
{
    for (size_t i = 0; i < sizeof npp_peers / sizeof npp_peers[0]; i++)
        if (!strcmp(npp_peers[i].name, s->op->name))
            return npp_peers[i].fn;
    return NULL;
}

static void npp_run(const gf_step *s)
{
    const int st = npp_peer(s)(GFB_NPP_RUN, &npp, s, &in, &out);
    if (st != NPP_SUCCESS) {
        fprintf(stderr, "gfbench: NPP's %s failed: status %d\n", s->op->name, st);
        exit(1);
    }
}
#endif

static void run(const struct job *j)
{
    switch (j->kind) {
    case K_COPY:
        CK(cudaMemcpyAsync(out.data, in.data, in.stride * in.height, cudaMemcpyDeviceToDevice, stream));
        break;
    case K_READ:
        CK(gfb_read_pass(in.data, in.stride * in.height, j->shape, d_sink, stream));
        break;
    case K_EMPTY:
        CK(gfb_empty_kernel(stream));
        break;
    case K_OP:
        if (j->step->op->cuda->enqueue(cu, j->step, &in, &out)) {
            fprintf(stderr, "gfbench: %s: %s\n", j->step->op->name, gf_error_detail(GF_ECUDA));
            exit(1);
        }
        break;
    case K_NPP:
#ifdef HAVE_NPP
        npp_run(j->step);
#endif
        break;
    }
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Median of `runs` timed runs after 3 warm-ups (5 runs for anything over 50 ms). */
static double timeit(const struct job *j)
{
    cudaEvent_t a, b;
    float t[512];
    int n = runs;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < 3 + n; i++) {
        const int k = i < 3 ? 0 : i - 3;
        CK(cudaEventRecord(a, stream));
        run(j);
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[k], a, b));
        if (i < 3 && t[0] > 50 && n > 5)
            n = 5;
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    qsort(t, (size_t)n, sizeof t[0], cmp_float);
    return t[n / 2];
}

static void bench_format(const char *fmt, int w, int h)
{
    const int c = strstr(fmt, "rgba") ? 4 : strstr(fmt, "rgb") ? 3 : strstr(fmt, "graya") ? 2 : 1;
    const int d = strstr(fmt, "16") ? 16 : 8;
    const size_t bytes = (size_t)w * h * c * d / 8;
    in = (gf_image){w, h, c, d, (size_t)w * c * d / 8, NULL};
    CK(cudaMalloc(&in.data, bytes));
    CK(cudaMalloc(&out.data, bytes * 2)); /* rotate 30 and resize 140% enlarge the image: less than twice */
    uint32_t *host = malloc(bytes);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; host && i < bytes / 4; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        host[i] = (uint32_t)s;
    }
    if (!host)
        exit(1);
    CK(cudaMemcpy(in.data, host, bytes / 4 * 4, cudaMemcpyHostToDevice));
    free(host);

    const double copy_ms = timeit(&(struct job){K_COPY, 0, NULL});
    const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
    double read_ms = 0;
    for (int shape = 0; shape < GFB_READ_SHAPES; shape++) {
        const double t = timeit(&(struct job){K_READ, shape, NULL});
        if (!shape || t < read_ms)
            read_ms = t;
    }
    const double empty_ms = timeit(&(struct job){K_EMPTY, 0, NULL});
    const double read_gbs = bytes / read_ms / 1e6;
    printf("\n%s %dx%d (%.1f MiB): copy ceiling %.3f ms, %.0f GB/s (read + write)\n", fmt, w, h, bytes / 1048576.0,
           copy_ms, copy_gbs);
    printf("  read pass %.4f ms, %.0f GB/s (read only); empty kernel %.4f ms\n", read_ms, read_gbs, empty_ms);
    printf("%-20s %9s %8s %7s %9s %8s  %s\n", "op", "ms", "GB/s", "ofcopy", "npp_ms", "vs_npp", "kernels");
    if (csv)
        fprintf(csv, "%s,copy,%.4f,%.1f,1.000,,,\n%s,read pass,%.4f,%.1f,%.3f,,,\n%s,empty kernel,%.4f,,,,,\n", fmt,
                copy_ms, copy_gbs, fmt, read_ms, read_gbs, read_gbs / copy_gbs, fmt, empty_ms);

    for (int o = 0; o < gf_nops; o++)
        for (const char *const *f = gf_ops[o]->bench; gf_ops[o]->cuda && *f; f++) {
            if (only && strncmp(*f, only, strlen(only)))
                continue;
            gf_plan plan;
            if (gf_cli_parse_ops(*f, &plan) || plan.nsteps != 1) {
                fprintf(stderr, "gfbench: bad fragment '%s'\n", *f);
                exit(2);
            }
            const gf_step *st = &plan.steps[0];
            if (!strcmp(st->op->name, "equalize") && d == 16) {
                gf_plan_free(&plan); /* 65536-level tables: not a kernel comparison */
                continue;
            }
            gf_shape is = gf_image_shape(&in), os = is;
            if (!st->op->passthrough && gf_step_shape(st, &is, &os))
                exit(2);
            out.width = os.width, out.height = os.height, out.channels = os.channels;
            out.stride = (size_t)os.width * os.channels * os.depth / 8;
            const struct job j = {K_OP, 0, st};
            const double ms = timeit(&j);
            const size_t moved = st->op->passthrough ? bytes : bytes + out.stride * out.height;
            const double gbs = moved / ms / 1e6;
            double nppms = 0;
#ifdef HAVE_NPP
            gfb_npp_fn *peer = npp_peer(st);
            if (c == 4 && d == 8 && peer && peer(GFB_NPP_HAS, &npp, st, &in, &out)) {
                if (peer(GFB_NPP_PREPARE, &npp, st, &in, &out)) {
                    fprintf(stderr, "gfbench: NPP's %s could not be prepared\n", st->op->name);
                    exit(1);
                }
                nppms = timeit(&(struct job){K_NPP, 0, st});
            }
#endif
            char pb[16] = "", sb[16] = "";
            if (nppms)
                snprintf(pb, sizeof pb, "%.3f", nppms), snprintf(sb, sizeof sb, "%.2fx", nppms / ms);
            const char *path = st->op->cuda->paths[st->op->cuda->path(st, &in)];
            printf("%-20s %9.3f %8.0f %7.3f %9s %8s  %s\n", *f, ms, gbs, gbs / copy_gbs, pb, sb, path);
            if (csv)
                fprintf(csv, "%s,%s,%.4f,%.1f,%.3f,%s,%s,%s\n", fmt, *f, ms, gbs, gbs / copy_gbs, pb, sb, path);
            gf_plan_free(&plan);
        }
    CK(cudaFree(in.data));
    CK(cudaFree(out.data));
}

#define FORMATS "rgba8 rgb8 graya8 gray8 rgba16 rgb16 graya16 gray16"
#define DEFAULT_FORMATS "rgba8,rgb8,gray8,rgba16"

int main(int argc, char **argv)
{
    int w = 8192, h = 8192;
    const char *formats = DEFAULT_FORMATS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc && sscanf(argv[i + 1], "%dx%d", &w, &h) == 2)
            i++;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-f") && i + 1 < argc)
            formats = argv[++i];
        else if (!strcmp(argv[i], "-op") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "-csv") && i + 1 < argc) {
            if (!(csv = fopen(argv[++i], "w")))
                return 1;
            fprintf(csv, "format,op,ms,GBps,of_copy,npp_ms,speedup_vs_npp,kernels\n");
        } else {
            fprintf(stderr, "usage: gfbench [-s WxH] [-n RUNS] [-f FORMAT,...] [-op PREFIX] [-csv FILE]\n"
                            "  FORMAT: %s (default %s)\n", FORMATS, DEFAULT_FORMATS);
            return 2;
        }
    }
    /* the -f list split once, each name checked before any work */
    char list[128];
    const char *fmt[16];
    int nfmt = 0;
    if (snprintf(list, sizeof list, "%s", formats) >= (int)sizeof list) {
        fprintf(stderr, "gfbench: -f list too long\n");
        return 2;
    }
    for (char *f = strtok(list, ","); f; f = strtok(NULL, ",")) {
        char word[32];
        snprintf(word, sizeof word, " %s ", f);
        if (!strstr(" " FORMATS " ", word)) {
            fprintf(stderr, "gfbench: unknown format '%s' (%s)\n", f, FORMATS);
            return 2;
        }
        if (nfmt == (int)(sizeof fmt / sizeof fmt[0])) {
            fprintf(stderr, "gfbench: -f names more than %d formats\n", nfmt);
            return 2;
        }
        fmt[nfmt++] = f;
    }
    if (runs < 1 || runs > 512 || w < 1 || h < 1)
        return 2;
    if (gf_cuda_open(0, &cu)) {
        fprintf(stderr, "gfbench: %s\n", gf_error_detail(GF_ENODEV));
        return 1;
    }
    stream = gf_cuda_stream(cu);
    struct cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("gfbench: %s, %d SMs, %.0f MiB L2; median of %d runs after 3 warm-ups\n", p.name, p.multiProcessorCount,
           p.l2CacheSize / 1048576.0, runs);
    CK(cudaMalloc((void **)&d_sink, sizeof *d_sink));
#ifdef HAVE_NPP
    npp.hStream = stream;
    npp.nCudaDeviceId = 0;
    npp.nMultiProcessorCount = p.multiProcessorCount;
    npp.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    npp.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    npp.nSharedMemPerBlock = p.sharedMemPerBlock;
    npp.nCudaDevAttrComputeCapabilityMajor = p.major;
    npp.nCudaDevAttrComputeCapabilityMinor = p.minor;
    CK(cudaStreamGetFlags(stream, &npp.nStreamFlags));
    const NppLibraryVersion *v = nppGetLibVersion();
    printf("gfbench: NPP %d.%d.%d side by side (RGBA8, replicate border)\n", v->major, v->minor, v->build);
#else
    printf("gfbench: built without NPP: no side-by-side column\n");
#endif
    for (int i = 0; i < nfmt; i++)
        bench_format(fmt[i], w, h);
    if (csv)
        fclose(csv);
    gf_cuda_close(cu);
    return 0;
}
