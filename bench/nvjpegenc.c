/* SPDX-License-Identifier: MIT */
/* Which image sizes nvJPEG's encoder takes, with optimized Huffman tables
 * and with the standard ones, at 4:2:0 and 4:4:4: for each, the status of
 * nvjpegEncodeImage and nvjpegEncodeRetrieveBitstream, the CUDA error after
 * them, the bitstream's size and the milliseconds (a flat grey RGB image,
 * quality 90).  src/nvjpeg.c gives optimized tables only up to the largest
 * size that passes here.  A failure can end the CUDA context (error 700),
 * so the sizes run from small to large and the run stops at the first one:
 *
 *   bench/nvjpegenc                                        (make bench) */
#include "config.h"

#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <stdio.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
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
