/* SPDX-License-Identifier: MIT */
/* nvJPEG's encoder, measured apart from the rest of a batch.
 *
 *   bench/nvjpegenc                          (make bench)
 *
 * Which image sizes the encoder takes, with optimized Huffman tables and
 * with the standard ones, at 4:2:0 and 4:4:4: for each, the status of
 * nvjpegEncodeImage and nvjpegEncodeRetrieveBitstream, the CUDA error after
 * them, the bitstream's size and the milliseconds (a flat grey RGB image,
 * quality 90).  src/io/nvjpeg.c gives optimized tables only up to the largest
 * size that passes here.  A failure can end the CUDA context (error 700),
 * so the sizes run from small to large and the run stops at the first one.
 *
 *   bench/nvjpegenc -rate FILE.jpg [SECONDS]
 *
 * The encoder's rate on FILE's pixels (decoded once by nvJPEG into device
 * memory): 1, 4, 16 and 32 threads, each with its stream, encoder state and
 * parameters as a batch lane has, encode it at quality 90, 4:2:0, and
 * retrieve the bitstream into host memory, for SECONDS (default 2) each,
 * with optimized tables and with the standard ones.  Prints images a
 * second, megapixels a second and the bitstream's bytes: the ceiling of a
 * JPEG-to-JPEG batch's encode stage. */
#include "config.h"

#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int sizes_probe(void)
{
    static const int sizes[][2] = {{4000, 3000}, {16384, 16384}, {20000, 16384}, {16384, 20000}, {20000, 20000}};
    nvjpegHandle_t h;
    nvjpegEncoderState_t st;
    nvjpegEncoderParams_t p;
    cudaStream_t s;
    if (cudaStreamCreate(&s) != cudaSuccess || nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &h) ||
        nvjpegEncoderStateCreate(h, &st, s) || nvjpegEncoderParamsCreate(h, &p, s) ||
        nvjpegEncoderParamsSetQuality(p, 90, s)) {
        fprintf(stderr, "nvjpegenc: no CUDA device or nvJPEG\n");
        return 1;
    }
    for (int opt = 0; opt < 2; opt++)
        for (int css = 0; css < 2; css++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
                const int w = sizes[i][0], hh = sizes[i][1];
                const size_t pitch = (size_t)w * 3;
                unsigned char *d;
                if (cudaMalloc((void **)&d, pitch * (size_t)hh) != cudaSuccess ||
                    cudaMemset(d, 128, pitch * (size_t)hh) != cudaSuccess) {
                    fprintf(stderr, "nvjpegenc: no room for %dx%d\n", w, hh);
                    return 1;
                }
                nvjpegEncoderParamsSetOptimizedHuffman(p, opt, s);
                nvjpegEncoderParamsSetSamplingFactors(p, css ? NVJPEG_CSS_444 : NVJPEG_CSS_420, s);
                nvjpegImage_t src = {{d}, {pitch}};
                const double t = now_ms();
                const nvjpegStatus_t e = nvjpegEncodeImage(h, st, p, &src, NVJPEG_INPUT_RGBI, w, hh, s);
                size_t n = 0;
                const nvjpegStatus_t r = e ? e : nvjpegEncodeRetrieveBitstream(h, st, NULL, &n, s);
                const cudaError_t c = cudaStreamSynchronize(s);
                printf("%s tables, %s, %dx%d: encode %d, retrieve %d, CUDA %d, %zu bytes, %.1f ms\n",
                       opt ? "optimized" : "standard", css ? "4:4:4" : "4:2:0", w, hh, e, r, c, n, now_ms() - t);
                cudaFree(d);
                if (e || r || c)
                    return 2;
            }
    return 0;
}

/* ---- -rate ------------------------------------------------------------ */

static struct {
    nvjpegHandle_t h;
    unsigned char *pixels; /* device, RGB interleaved */
    int w, hgt, optimized;
    double until;          /* ms */
    pthread_barrier_t go;
} rate;

struct worker {
    pthread_t tid;
    long images;
    size_t bytes;
    int failed;
};

static void *encode_loop(void *arg)
{
    struct worker *wk = arg;
    cudaStream_t s;
    nvjpegEncoderState_t st;
    nvjpegEncoderParams_t p;
    size_t cap = (size_t)rate.w * rate.hgt * 3;
    unsigned char *out = malloc(cap);
    if (!out || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        nvjpegEncoderStateCreate(rate.h, &st, s) || nvjpegEncoderParamsCreate(rate.h, &p, s) ||
        nvjpegEncoderParamsSetQuality(p, 90, s) || nvjpegEncoderParamsSetSamplingFactors(p, NVJPEG_CSS_420, s) ||
        nvjpegEncoderParamsSetOptimizedHuffman(p, rate.optimized, s))
        wk->failed = 1;
    pthread_barrier_wait(&rate.go);
    if (wk->failed)
        return NULL;
    nvjpegImage_t src = {{rate.pixels}, {(size_t)rate.w * 3}};
    while (now_ms() < rate.until) {
        size_t n = 0;
        if (nvjpegEncodeImage(rate.h, st, p, &src, NVJPEG_INPUT_RGBI, rate.w, rate.hgt, s) ||
            nvjpegEncodeRetrieveBitstream(rate.h, st, NULL, &n, s) || cudaStreamSynchronize(s) || n > cap ||
            nvjpegEncodeRetrieveBitstream(rate.h, st, out, &n, s) || cudaStreamSynchronize(s)) {
            wk->failed = 1;
            break;
        }
        wk->images++;
        wk->bytes = n;
    }
    nvjpegEncoderParamsDestroy(p);
    nvjpegEncoderStateDestroy(st);
    cudaStreamDestroy(s);
    free(out);
    return NULL;
}

static int rate_run(const char *path, double seconds)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *jpg = len > 0 ? malloc((size_t)len) : NULL;
    if (!jpg || fread(jpg, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "nvjpegenc: cannot read %s\n", path);
        return 1;
    }
    fclose(f);
    int comps, w[NVJPEG_MAX_COMPONENT], hh[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t css;
    nvjpegJpegState_t js;
    if (nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &rate.h) ||
        nvjpegGetImageInfo(rate.h, jpg, (size_t)len, &comps, &css, w, hh) || nvjpegJpegStateCreate(rate.h, &js)) {
        fprintf(stderr, "nvjpegenc: no nvJPEG, or %s is not a JPEG it takes\n", path);
        return 1;
    }
    rate.w = w[0], rate.hgt = hh[0];
    if (cudaMalloc((void **)&rate.pixels, (size_t)rate.w * rate.hgt * 3) != cudaSuccess) {
        fprintf(stderr, "nvjpegenc: no room for %dx%d\n", rate.w, rate.hgt);
        return 1;
    }
    nvjpegImage_t dst = {{rate.pixels}, {(size_t)rate.w * 3}};
    if (nvjpegDecode(rate.h, js, jpg, (size_t)len, NVJPEG_OUTPUT_RGBI, &dst, 0) || cudaDeviceSynchronize()) {
        fprintf(stderr, "nvjpegenc: nvJPEG does not decode %s\n", path);
        return 1;
    }
    free(jpg);
    static const int threads[] = {1, 4, 16, 32};
    struct worker wk[32];
    printf("encoder rate, %s (%dx%d), quality 90, 4:2:0, %.1f s each\n", path, rate.w, rate.hgt, seconds);
    for (int opt = 1; opt >= 0; opt--)
        for (size_t k = 0; k < sizeof threads / sizeof threads[0]; k++) {
            const int t = threads[k];
            rate.optimized = opt;
            memset(wk, 0, sizeof wk);
            pthread_barrier_init(&rate.go, NULL, (unsigned)t + 1);
            rate.until = 1e300;
            for (int i = 0; i < t; i++)
                if (pthread_create(&wk[i].tid, NULL, encode_loop, &wk[i])) {
                    fprintf(stderr, "nvjpegenc: no threads\n");
                    return 1;
                }
            rate.until = now_ms() + seconds * 1e3; /* set before the barrier releases the threads */
            const double t0 = now_ms();
            pthread_barrier_wait(&rate.go);
            long images = 0;
            size_t bytes = 0;
            int failed = 0;
            for (int i = 0; i < t; i++) {
                pthread_join(wk[i].tid, NULL);
                images += wk[i].images;
                failed |= wk[i].failed;
                if (wk[i].bytes)
                    bytes = wk[i].bytes;
            }
            const double secs = (now_ms() - t0) / 1e3;
            pthread_barrier_destroy(&rate.go);
            if (failed) {
                fprintf(stderr, "nvjpegenc: an encode failed (%s tables, %d threads)\n",
                        opt ? "optimized" : "standard", t);
                return 2;
            }
            printf("%s tables, %2d threads: %7.1f img/s, %7.0f MP/s, %zu bytes\n", opt ? "optimized" : "standard",
                   t, images / secs, images * (double)rate.w * rate.hgt / 1e6 / secs, bytes);
            fflush(stdout);
        }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "-rate"))
        return rate_run(argv[2], argc > 3 ? atof(argv[3]) : 2.0);
    if (argc > 1) {
        fprintf(stderr, "usage: nvjpegenc [-rate FILE.jpg [SECONDS]]\n");
        return 1;
    }
    return sizes_probe();
}
