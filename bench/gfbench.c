/* SPDX-License-Identifier: MIT */
/* gpufilter's kernel benchmark: for W x H images of random data (RGBA8, RGB8,
 * gray8, RGBA16, or the formats -f names, gray+alpha among them), the median
 * time (CUDA events, warm-up, 25 runs) of every kernel, its naive
 * global-memory variant, the NPP counterpart (RGBA8, when built with NPP) and,
 * as the ceiling, a 1-D device-to-device cudaMemcpyAsync of the same bytes, all
 * in one run; beside the ceiling, two floors timed the same way: a pass that
 * only reads the image (the fastest of a few launch shapes) and an empty
 * kernel.
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

#include "gf_kernels.h"
#include "ops.h"
#include "readpass.h"

#define CK(x)                                                                                                         \
    do {                                                                                                              \
        cudaError_t e_ = (x);                                                                                         \
        if (e_ != cudaSuccess) {                                                                                      \
            fprintf(stderr, "gfbench: %s: %s\n", #x, cudaGetErrorString(e_));                                        \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

enum kind { K_COPY, K_READ, K_EMPTY, K_BLUR, K_BOX, K_LAP, K_ORIENT, K_ROTATE, K_HIST, K_EQ, K_NPP };

struct job {
    enum kind kind;
    const char *name;
    double arg;  /* sigma, radius, variant, orientation, angle */
    int variant; /* GF_KERNEL_TILED / NAIVE, or the NPP op */
};

static cudaStream_t stream;
static gf_image in, out;
static void *scratch, *d_taps;
static uint32_t centre_tap; /* taps[0] of the sigma uploaded last */
static unsigned long long *d_counts;
static unsigned *d_sink; /* the read pass's */
static int runs = 25;
static FILE *csv;
static const char *only; /* -op: the ops whose names begin with this */
#ifdef HAVE_NPP
static NppStreamContext npp;
static Npp32f *d_gauss;
static Npp8u *npp_buf;
static Npp32s *npp_hist[4];
#endif

static void run(const struct job *j)
{
    switch (j->kind) {
    case K_COPY:
        CK(cudaMemcpyAsync(out.data, in.data, in.stride * in.height, cudaMemcpyDeviceToDevice, stream));
        break;
    case K_READ:
        CK(gfb_read_pass(in.data, in.stride * in.height, j->variant, d_sink, stream));
        break;
    case K_EMPTY:
        CK(gfb_empty_kernel(stream));
        break;
    case K_BLUR:
        CK(gf_blur_launch(&in, &out, scratch, d_taps, centre_tap, gf_blur_radius(j->arg), GF_BORDER_CLAMP, j->variant,
                          stream));
        break;
    case K_BOX:
        CK(gf_box_launch(&in, &out, scratch, (int)j->arg, GF_BORDER_CLAMP, j->variant, stream));
        break;
    case K_LAP:
        CK(gf_laplacian_launch(&in, &out, j->arg == 4, GF_BORDER_CLAMP, j->variant, stream));
        break;
    case K_ORIENT:
        CK(gf_orient_launch(&in, &out, (int)j->arg, stream));
        break;
    case K_ROTATE: {
        const uint32_t bg[4] = {0, 0, 0, 0};
        const double a = j->arg * M_PI / 180;
        CK(gf_rotate_launch(&in, &out, cos(a), sin(a), bg, stream));
        break;
    }
    case K_HIST:
        CK(gf_histogram_launch(&in, 256, d_counts, stream));
        break;
    case K_EQ:
        CK(gf_equalize_launch(&in, &out, scratch, stream));
        break;
    case K_NPP: {
#ifdef HAVE_NPP
        const NppiSize size = {in.width, in.height};
        const NppiPoint zero = {0, 0};
        const int step = (int)in.stride, ostep = (int)out.stride;
        NppStatus s = NPP_SUCCESS;
        switch (j->variant) {
        case 0: {
            const int taps = 2 * gf_blur_radius(j->arg) + 1;
            s = nppiFilterGaussAdvancedBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size, taps,
                                                         d_gauss, NPP_BORDER_REPLICATE, npp);
            break;
        }
        case 1: {
            const NppiSize mask = {2 * (int)j->arg + 1, 2 * (int)j->arg + 1};
            const NppiPoint anchor = {(int)j->arg, (int)j->arg};
            s = nppiFilterBoxBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size, mask, anchor,
                                               NPP_BORDER_REPLICATE, npp);
            break;
        }
        case 2:
            s = nppiFilterLaplaceBorder_8u_C4R_Ctx(in.data, step, size, zero, out.data, ostep, size,
                                                   NPP_MASK_SIZE_3_X_3, NPP_BORDER_REPLICATE, npp);
            break;
        case 3:
            s = nppiTranspose_8u_C4R_Ctx(in.data, step, out.data, (int)(in.height * 4), size, npp);
            break;
        case 4:
            s = nppiMirror_8u_C4R_Ctx(in.data, step, out.data, ostep, size,
                                      j->arg == 0 ? NPP_HORIZONTAL_AXIS : NPP_VERTICAL_AXIS, npp);
            break;
        case 5: {
            const NppiRect src = {0, 0, in.width, in.height}, dst = {0, 0, in.height, in.width};
            s = nppiRotate_8u_C4R_Ctx(in.data, size, step, src, out.data, (int)(in.height * 4), dst, j->arg, 0,
                                      j->arg == 90 ? in.width - 1 : 0, NPPI_INTER_NN, npp);
            break;
        }
        case 6: {
            int levels[4] = {257, 257, 257, 257};
            Npp32s lo[4] = {0, 0, 0, 0}, hi[4] = {256, 256, 256, 256};
            s = nppiHistogramEven_8u_C4R_Ctx(in.data, step, size, npp_hist, levels, lo, hi, npp_buf, npp);
            break;
        }
        }
        if (s != NPP_SUCCESS) {
            fprintf(stderr, "gfbench: NPP %s failed: status %d\n", j->name, (int)s);
            exit(1);
        }
#endif
        break;
    }
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
    for (int i = 0; i < 3; i++) {
        CK(cudaEventRecord(a, stream));
        run(j);
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[0], a, b));
        if (t[0] > 50 && n > 5)
            n = 5;
    }
    for (int i = 0; i < n; i++) {
        CK(cudaEventRecord(a, stream));
        run(j);
        CK(cudaEventRecord(b, stream));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    qsort(t, (size_t)n, sizeof t[0], cmp_float);
    return t[n / 2];
}

static void upload_taps(double sigma, int depth)
{
    uint32_t *q;
    int r = gf_blur_radius(sigma);
    if (gf_blur_taps(sigma, r, GF_BLUR_BITS(depth), &q))
        exit(1);
    CK(cudaMemcpy(d_taps, q, ((size_t)r + 1) * 4, cudaMemcpyHostToDevice));
    centre_tap = q[0];
    free(q);
#ifdef HAVE_NPP
    float k[4096];
    double tot = 0;
    for (int i = -r; i <= r; i++)
        tot += k[i + r] = (float)exp(-(double)i * i / (2 * sigma * sigma));
    for (int i = 0; i < 2 * r + 1; i++)
        k[i] = (float)(k[i] / tot);
    CK(cudaMemcpy(d_gauss, k, sizeof(float) * (2 * r + 1), cudaMemcpyHostToDevice));
#endif
}

static void bench_format(const char *fmt, int w, int h)
{
    const int c = strstr(fmt, "rgba") ? 4 : strstr(fmt, "rgb") ? 3 : strstr(fmt, "graya") ? 2 : 1;
    const int d = strstr(fmt, "16") ? 16 : 8;
    const size_t bytes = (size_t)w * h * c * d / 8;
    in = (gf_image){w, h, c, d, (size_t)w * c * d / 8, NULL};
    out = in;
    CK(cudaMalloc(&in.data, bytes));
    CK(cudaMalloc(&out.data, bytes * 2)); /* rotate 30 enlarges the canvas */
    uint32_t *host = malloc(bytes);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < bytes / 4; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        host[i] = (uint32_t)s;
    }
    CK(cudaMemcpy(in.data, host, bytes / 4 * 4, cudaMemcpyHostToDevice));
    free(host);
    size_t need = gf_box_scratch_bytes(&in, 50, GF_KERNEL_NAIVE);
    if (gf_blur_scratch_bytes(&in) > need)
        need = gf_blur_scratch_bytes(&in);
    if (gf_equalize_scratch_bytes(&in) > need)
        need = gf_equalize_scratch_bytes(&in);
    CK(cudaMalloc(&scratch, need));

    const double copy_ms = timeit(&(struct job){K_COPY, "copy", 0, 0});
    const double copy_gbs = 2.0 * bytes / copy_ms / 1e6;
    double read_ms = 0;
    for (int shape = 0; shape < GFB_READ_SHAPES; shape++) {
        const double t = timeit(&(struct job){K_READ, "read", 0, shape});
        if (!shape || t < read_ms)
            read_ms = t;
    }
    const double empty_ms = timeit(&(struct job){K_EMPTY, "empty", 0, 0});
    const double read_gbs = bytes / read_ms / 1e6;
    printf("\n%s %dx%d (%.1f MiB): copy ceiling %.3f ms, %.0f GB/s (read + write)\n", fmt, w, h, bytes / 1048576.0,
           copy_ms, copy_gbs);
    printf("  read pass %.4f ms, %.0f GB/s (read only); empty kernel %.4f ms\n", read_ms, read_gbs, empty_ms);
    printf("%-16s %9s %8s %7s %9s %7s %9s %8s\n", "op", "ms", "GB/s", "ofcopy", "naive_ms", "tiling", "npp_ms",
           "vs_npp");
    if (csv)
        fprintf(csv, "%s,copy,%.4f,%.1f,1.000,,,,\n%s,read pass,%.4f,%.1f,%.3f,,,,\n%s,empty kernel,%.4f,,,,,,\n", fmt,
                copy_ms, copy_gbs, fmt, read_ms, read_gbs, read_gbs / copy_gbs, fmt, empty_ms);

    static const struct {
        enum kind k;
        const char *name;
        double arg;
        int naive, npp;
    } ops[] = {
        {K_BLUR, "blur s=1", 1, 1, 0},       {K_BLUR, "blur s=2", 2, 1, 0},
        {K_BLUR, "blur s=5", 5, 1, 0},       {K_BLUR, "blur s=20", 20, 1, 0},
        {K_BLUR, "blur s=50", 50, 0, 0},     {K_BOX, "box r=1", 1, 1, 1},
        {K_BOX, "box r=5", 5, 1, 1},         {K_BOX, "box r=15", 15, 1, 1},
        {K_BOX, "box r=50", 50, 1, 1},       {K_LAP, "laplacian 8", 8, 1, 2},
        {K_LAP, "laplacian 4", 4, 1, -1},    {K_ORIENT, "transpose", GF_ORIENT_TRANSPOSE, 0, 3},
        {K_ORIENT, "flip", GF_ORIENT_FLIP, 0, 4}, {K_ORIENT, "flop", GF_ORIENT_FLOP, 0, 4},
        {K_ORIENT, "rotate 90", GF_ORIENT_ROT90, 0, 5}, {K_ORIENT, "rotate 180", GF_ORIENT_ROT180, 0, -1},
        {K_ROTATE, "rotate 30", 30, 0, -1},  {K_HIST, "histogram", 0, 0, 6},
        {K_EQ, "equalize", 0, 0, -1},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (only && strncmp(ops[i].name, only, strlen(only)))
            continue;
        if (ops[i].k == K_BLUR)
            upload_taps(ops[i].arg, d);
        if (ops[i].k == K_EQ && d == 16) /* 65536-level tables: allocate on demand */
            continue;
        struct job j = {ops[i].k, ops[i].name, ops[i].arg, GF_KERNEL_TILED};
        if (ops[i].k == K_ROTATE) { /* the enlarged canvas */
            int ow, oh;
            gf_rotate_shape(ops[i].arg, w, h, &ow, &oh);
            out.width = ow, out.height = oh, out.stride = (size_t)ow * c * d / 8;
        } else if (ops[i].k == K_ORIENT && (ops[i].arg == GF_ORIENT_TRANSPOSE || ops[i].arg == GF_ORIENT_ROT90)) {
            out.width = h, out.height = w, out.stride = (size_t)h * c * d / 8;
        } else {
            out.width = w, out.height = h, out.stride = in.stride;
        }
        const double ms = timeit(&j);
        const size_t moved = ops[i].k == K_HIST ? bytes : bytes + out.stride * out.height;
        const double gbs = moved / ms / 1e6;
        double naive = 0, nppms = 0;
        if (ops[i].naive) {
            j.variant = GF_KERNEL_NAIVE;
            naive = timeit(&j);
        }
#ifdef HAVE_NPP
        if (ops[i].npp >= 0 && c == 4 && d == 8) {
            struct job n = {K_NPP, ops[i].name, ops[i].k == K_ORIENT && ops[i].npp == 4 ? (ops[i].arg != GF_ORIENT_FLIP)
                                                : ops[i].k == K_ORIENT && ops[i].npp == 5 ? 90 : ops[i].arg,
                            ops[i].npp};
            if (!(ops[i].k == K_BLUR && ops[i].arg > 20)) /* NPP's Gauss beyond 121 taps is far off the chart */
                nppms = timeit(&n);
            if (ops[i].npp == 5) { /* check that NPP's rotate, as called, covered the whole output */
                const size_t ob = out.stride * out.height;
                unsigned char *o = malloc(ob);
                CK(cudaMemset(out.data, 0, ob));
                run(&n);
                CK(cudaMemcpy(o, out.data, ob, cudaMemcpyDeviceToHost));
                size_t nz = 0;
                for (size_t b = 0; b < ob; b++)
                    nz += o[b] != 0;
                printf("(NPP rotate wrote %.2f%% non-zero bytes of its output)\n", 100.0 * nz / ob);
                free(o);
            }
        }
#endif
        char nb[16] = "", tb[16] = "", pb[16] = "", sb[16] = "";
        if (naive)
            snprintf(nb, sizeof nb, "%.3f", naive), snprintf(tb, sizeof tb, "%.2fx", naive / ms);
        if (nppms)
            snprintf(pb, sizeof pb, "%.3f", nppms), snprintf(sb, sizeof sb, "%.2fx", nppms / ms);
        printf("%-16s %9.3f %8.0f %7.3f %9s %7s %9s %8s\n", ops[i].name, ms, gbs, gbs / copy_gbs, nb, tb, pb, sb);
        if (csv)
            fprintf(csv, "%s,%s,%.4f,%.1f,%.3f,%s,%s,%s,%s\n", fmt, ops[i].name, ms, gbs, gbs / copy_gbs, nb, tb, pb,
                    sb);
    }
    CK(cudaFree(in.data));
    CK(cudaFree(out.data));
    CK(cudaFree(scratch));
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
            fprintf(csv, "format,op,ms,GBps,of_copy,naive_ms,tiling_gain,npp_ms,speedup_vs_npp\n");
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
    struct cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    printf("gfbench: %s, %d SMs, %.0f MiB L2; median of %d runs after 3 warm-ups\n", p.name, p.multiProcessorCount,
           p.l2CacheSize / 1048576.0, runs);
    CK(cudaMalloc(&d_taps, 4 * 4096));
    CK(cudaMalloc((void **)&d_counts, sizeof(unsigned long long) * 4 * 256));
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
    return 0;
}
