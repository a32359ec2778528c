/* SPDX-License-Identifier: MIT */
/* What a GPU batch pays before its first JPEG, piece by piece: the CUDA
 * context, nvJPEG's handle (hardware backend), its decoder states, encoder
 * states, a page-locked buffer, and the hybrid backend's handle and state;
 * one after the other (`serial`), or the context and the handle on two
 * threads, then two decoder states, four encoder states and two page-locked
 * buffers on eight (`overlap`).  Each line
 * gives a call's milliseconds and when it ended since the start.  Run each
 * mode in a process of its own (the costs are the first call's):
 *
 *   bench/gpustart serial; bench/gpustart overlap     (make bench) */
#include "config.h"

#include <cuda_runtime.h>
#include <nvjpeg.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double t0;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Prints what the call took, when it ended, and its status (0: success). */
#define TIME(label, call)                                                                                              \
    do {                                                                                                               \
        const double a_ = now_ms();                                                                                    \
        const int rc_ = (int)(call);                                                                                   \
        const double b_ = now_ms();                                                                                    \
        printf("%-34s %8.1f ms  (at %7.1f)  status %d\n", label, b_ - a_, b_ - t0, rc_);                               \
    } while (0)

static nvjpegHandle_t handle;

static void *make_context(void *arg)
{
    (void)arg;
    TIME("CUDA context (cudaFree(0)) [thread]", cudaFree(0));
    return NULL;
}

static void *make_handle(void *arg)
{
    (void)arg;
    TIME("nvjpegCreateEx, hardware [thread]",
         nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION, &handle));
    return NULL;
}

static void *make_state(void *arg)
{
    TIME("nvjpegJpegStateCreate [thread]", nvjpegJpegStateCreate(handle, arg));
    return NULL;
}

static void *make_encoder(void *arg)
{
    TIME("nvjpegEncoderStateCreate [thread]", nvjpegEncoderStateCreate(handle, arg, NULL));
    return NULL;
}

static void *make_pinned(void *arg)
{
    TIME("cudaHostAlloc 64 MiB [thread]", cudaHostAlloc(arg, 64 << 20, cudaHostAllocDefault));
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "serial";
    t0 = now_ms();
    if (!strcmp(mode, "serial")) {
        nvjpegJpegState_t s[3];
        nvjpegEncoderState_t e[2];
        nvjpegHandle_t hybrid;
        nvjpegJpegState_t hs;
        void *pinned;
        TIME("CUDA context (cudaFree(0))", cudaFree(0));
        TIME("nvjpegCreateEx, hardware",
             nvjpegCreateEx(NVJPEG_BACKEND_HARDWARE, NULL, NULL, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION, &handle));
        TIME("nvjpegJpegStateCreate 1", nvjpegJpegStateCreate(handle, &s[0]));
        TIME("nvjpegJpegStateCreate 2", nvjpegJpegStateCreate(handle, &s[1]));
        TIME("nvjpegJpegStateCreate 3", nvjpegJpegStateCreate(handle, &s[2]));
        TIME("nvjpegEncoderStateCreate 1", nvjpegEncoderStateCreate(handle, &e[0], NULL));
        TIME("nvjpegEncoderStateCreate 2", nvjpegEncoderStateCreate(handle, &e[1], NULL));
        TIME("cudaHostAlloc 64 MiB", cudaHostAlloc(&pinned, 64 << 20, cudaHostAllocDefault));
        TIME("nvjpegCreateEx, default (hybrid)", nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, 0, &hybrid));
        TIME("nvjpegJpegStateCreate, hybrid", nvjpegJpegStateCreate(hybrid, &hs));
    } else if (!strcmp(mode, "overlap")) {
        pthread_t a, b, t[8];
        nvjpegJpegState_t s[2];
        nvjpegEncoderState_t e[4];
        void *pinned[2];
        if (pthread_create(&a, NULL, make_context, NULL) || pthread_create(&b, NULL, make_handle, NULL))
            return 1;
        pthread_join(a, NULL);
        pthread_join(b, NULL);
        const double a0 = now_ms();
        int bad = 0;
        for (int i = 0; i < 2; i++)
            bad |= pthread_create(&t[i], NULL, make_state, &s[i]);
        for (int i = 0; i < 4; i++)
            bad |= pthread_create(&t[2 + i], NULL, make_encoder, &e[i]);
        for (int i = 0; i < 2; i++)
            bad |= pthread_create(&t[6 + i], NULL, make_pinned, &pinned[i]);
        if (bad)
            return 1;
        for (int i = 0; i < 8; i++)
            pthread_join(t[i], NULL);
        printf("%-34s %8.1f ms  (at %7.1f)\n", "the eight, together", now_ms() - a0, now_ms() - t0);
    } else {
        fprintf(stderr, "usage: gpustart serial|overlap\n");
        return 2;
    }
    printf("%-34s %8s     (at %7.1f)\n", "end", "", now_ms() - t0);
    return 0;
}
