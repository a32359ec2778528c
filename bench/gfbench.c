/* SPDX-License-Identifier: MIT */
/* gpufilter's kernel benchmark: for W x H images of random data (RGBA8, RGB8,
 * gray8, RGBA16, or the formats -f names), the median time (CUDA events, 3
 * warm-ups, 25 runs) of every op's benchmark fragments from the op table
 * (gf_ops[]->bench), enqueued as the pipeline does, with the kernel path each
 * takes; beside them the memory ceiling, a 1-D device-to-device
 * cudaMemcpyAsync of the same bytes, two floors timed the same way (a pass
 * that only reads the image, the fastest of a few launch shapes, and an empty
 * kernel) and, for RGBA8 when built with NPP, NPP's counterpart.
 *   gfbench [-s WxH] [-n RUNS] [-f FORMAT,...] [-op PREFIX] [-csv FILE] */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#ifdef HAVE_NPP
#include <npp.h>
#endif

#include "blur/blur.h"
#include "box/box.h"
#include "cli.h"
#include "convolve/convolve.h"
#include "cuda.h"
#include "gf_kernels.h"
#include "laplacian/laplacian.h"
#include "rank/rank.h"
#include "readpass.h"
#include "resize/resize.h"
#include "rotate/rotate.h"
#include "unsharp/unsharp.h"

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
static NppStreamContext npp;
static Npp32f *d_gauss;
static Npp8u *npp_buf;
static Npp32s *npp_hist[4];
static Npp8u *npp_work; /* unsharp's and median's device buffers, grown as needed */
static size_t npp_work_cap;

static Npp8u *npp_scratch(size_t bytes)
{
    if (bytes > npp_work_cap) {
        CK(cudaFree(npp_work));
        CK(cudaMalloc((void **)&npp_work, bytes));
        npp_work_cap = bytes;
    }
    return npp_work;
}

/* NPP's counterpart of a step on RGBA8 (replicate border), or 0 where it has none. */
static int npp_has(const gf_step *s)
{
    const char *n = s->op->name;
    if (!strcmp(n, "blur"))
        return GF_BLUR_ARGS(s).sigma <= 20; /* beyond 121 taps NPP's Gauss is far off the chart */
    if (!strcmp(n, "laplacian"))
        return GF_LAPLACIAN_ARGS(s).neighbours == 8;
    if (!strcmp(n, "rotate"))
        return GF_ROTATE_ARGS(s).orient == GF_ORIENT_ROT90;
    if (!strcmp(n, "convolve"))
        return !GF_CONVOLVE_ARGS(s).edge;
    return !strcmp(n, "box") || !strcmp(n, "transpose") || !strcmp(n, "flip") || !strcmp(n, "flop") ||
           !strcmp(n, "histogram") || !strcmp(n, "resize") || !strcmp(n, "unsharp") || !strcmp(n, "erode") ||
           !strcmp(n, "dilate") || !strcmp(n, "median");
}

static void npp_gauss_taps(double sigma, int r)
{
    float k[4096];
    double tot = 0;
    for (int i = -r; i <= r; i++)
        tot += k[i + r] = (float)exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i < 2 * r + 1; i++)
        k[i] = (float)(k[i] / tot);
    CK(cudaMemcpy(d_gauss, k, sizeof(float) * (2 * r + 1), cudaMemcpyHostToDevice));
}

static void npp_run(const gf_step *s)
{
    const NppiSize size = {in.width, in.height};
    const NppiPoint zero = {0, 0};
    const int step = (int)in.stride, ostep = (int)out.stride;
    const char *n = s->op->name;
    NppStatus st;
    if (!strcmp(n, "blur")) {
        st = nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size,
                                                      2 * GF_BLUR_ARGS(s).radius + 1, d_gauss, NPP_BORDER_REPLICATE,
                                                      npp);
    } else if (!strcmp(n, "box")) {
        const int r = GF_BOX_ARGS(s).radius;
        const NppiSize mask = {2 * r + 1, 2 * r + 1};
        const NppiPoint anchor = {r, r};
        st = nppiFilterBoxBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size, mask, anchor,
                                            NPP_BORDER_REPLICATE, npp);
    } else if (!strcmp(n, "laplacian")) {
        st = nppiFilterLaplaceBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size,
                                                NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE, npp);
    } else if (!strcmp(n, "transpose")) {
        st = nppiTranspose_8u_C4R_Ctx(in.data, step, out.data, ostep, size, npp);
    } else if (!strcmp(n, "flip") || !strcmp(n, "flop")) {
        st = nppiMirror_8u_C4R_Ctx(in.data, step, out.data, ostep, size,
                                   !strcmp(n, "flip") ? NPP_HORIZONTAL_AXIS : NPP_VERTICAL_AXIS, npp);
    } else if (!strcmp(n, "rotate")) { /* 90 degrees, nearest neighbour, shifted onto the output */
        const NppiRect src = {0, 0, in.width, in.height}, dst = {0, 0, in.height, in.width};
        st = nppiRotate_8u_C4R_Ctx(in.data, size, step, src, out.data, ostep, dst, 90, 0, in.width - 1,
                                   NPPI_INTER_NN, npp);
    } else if (!strcmp(n, "convolve")) { /* the weights in 2^-16 as integers over 16 */
        const struct gf_convolve_args *k = &GF_CONVOLVE_ARGS(s);
        Npp32s q[GF_KERNEL_MAX * GF_KERNEL_MAX];
        for (int i = 0; i < k->w * k->h; i++)
            q[i] = (Npp32s)lround(k->q[i] / 4096.0);
        static Npp32s *d_q;
        if (!d_q)
            CK(cudaMalloc((void **)&d_q, sizeof q));
        CK(cudaMemcpyAsync(d_q, q, sizeof(Npp32s) * k->w * k->h, cudaMemcpyHostToDevice, stream));
        st = nppiFilterBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size, d_q,
                                         (NppiSize){k->w, k->h}, (NppiPoint){k->ox, k->oy}, 16,
                                         NPP_BORDER_REPLICATE, npp);
    } else if (!strcmp(n, "unsharp")) {
        const float r = (float)GF_UNSHARP_ARGS(s).blur.radius, sigma = (float)GF_UNSHARP_ARGS(s).blur.sigma;
        int bytes = 0;
        if (nppiFilterUnsharpGetBufferSize_8u_C4R(r, sigma, &bytes) != NPP_SUCCESS)
            bytes = 0;
        st = nppiFilterUnsharpBorder_8u_C4R_Ctx(
            in.data, step, zero, out.data, ostep, size, r, sigma, (float)(GF_UNSHARP_ARGS(s).gain / 65536.0),
            (float)GF_UNSHARP_ARGS(s).threshold, NPP_BORDER_REPLICATE, npp_scratch((size_t)bytes + 1), npp);
    } else if (!strcmp(n, "erode") || !strcmp(n, "dilate")) {
        const int r = GF_RANK_ARGS(s).radius;
        const NppiSize mask = {2 * r + 1, 2 * r + 1};
        const NppiPoint anchor = {r, r};
        st = GF_RANK_ARGS(s).max ? nppiFilterMaxBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size,
                                                                  mask, anchor, NPP_BORDER_REPLICATE, npp)
                                 : nppiFilterMinBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size,
                                                                  mask, anchor, NPP_BORDER_REPLICATE, npp);
    } else if (!strcmp(n, "median")) { /* no border mode: the inside, R from each edge */
        const int r = GF_RANK_ARGS(s).radius;
        const NppiSize roi = {in.width - 2 * r, in.height - 2 * r}, mask = {2 * r + 1, 2 * r + 1};
        Npp32u bytes = 0;
        if (nppiFilterMedianGetBufferSize_8u_C4R_Ctx(roi, mask, &bytes, npp) != NPP_SUCCESS)
            bytes = 0;
        const size_t at = (size_t)r * in.stride + (size_t)r * 4;
        st = nppiFilterMedian_8u_C4R_Ctx((const Npp8u *)in.data + at, step, (Npp8u *)out.data + at, ostep, roi, mask,
                                         (NppiPoint){r, r}, npp_scratch((size_t)bytes + 1), npp);
    } else if (!strcmp(n, "resize")) { /* box shrinking: super-sampling; enlarging: cubic; else Lanczos */
        const NppiRect src = {0, 0, in.width, in.height}, dst = {0, 0, out.width, out.height};
        const int mode = GF_RESIZE_ARGS(s).filter == GF_FILTER_BOX ? NPPI_INTER_SUPER
                         : out.width > in.width                    ? NPPI_INTER_CUBIC
                                                                   : NPPI_INTER_LANCZOS;
        st = nppiResize_8u_C4R_Ctx(in.data, step, size, src, out.data, ostep, (NppiSize){out.width, out.height}, dst,
                                   mode, npp);
    } else {
        int levels[4] = {257, 257, 257, 257};
        Npp32s lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256};
        st = nppiHistogramEven_8u_C4R_Ctx(in.data, step, size, npp_hist, levels, lo, hi, npp_buf, npp);
    }
    if (st != NPP_SUCCESS) {
        fprintf(stderr, "gfbench: NPP's %s failed: status %d\n", n, (int)st);
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
            if (c == 4 && d == 8 && npp_has(st)) {
                if (!strcmp(st->op->name, "blur"))
                    npp_gauss_taps(GF_BLUR_ARGS(st).sigma, GF_BLUR_ARGS(st).radius);
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
    CK(cudaMalloc((void **)&d_gauss, sizeof(Npp32f) * 4096));
    for (int i = 0; i < 4; i++)
        CK(cudaMalloc((void **)&npp_hist[i], sizeof(Npp32s) * 256));
    {
        int levels[4] = {257, 257, 257, 257};
        size_t bsize = 0;
        const NppiSize size = {w, h};
        if (nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(size, levels, &bsize, npp) != NPP_SUCCESS)
            return 1;
        CK(cudaMalloc((void **)&npp_buf, bsize ? bsize : 1));
    }
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
