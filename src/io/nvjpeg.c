/* SPDX-License-Identifier: MIT */
/* nvJPEG for batch lanes and single images.  A batch lane shares one
 * library handle per device, created with the hardware backend where the
 * GPU has JPEG engines (A100, H100, H200) and the default (hybrid) backend
 * elsewhere (NVJPEG_STATUS_ARCH_MISMATCH); a single image has a handle of
 * its own with the default backend, which starts in a fraction of the
 * engines' time.  Every handle upsamples chroma by interpolation as
 * libjpeg-turbo does (which brings the pixels within 2 of libjpeg-turbo's
 * instead of 32) and is strict about the bitstream.  The engines work best
 * on many images at once, so the lanes' baseline streams meet in the
 * device's queue: the first lane to find the engines idle decodes every
 * waiting request in one nvjpegDecodeBatched call, while the next batch
 * gathers behind it.  The engines' decoder state sizes its pools once, at
 * its first batch, for MAX_BATCH images like that batch's first (at most
 * POOL_PIXELS in all), so that no call allocates.  A stream the engines do not take (progressive, too
 * large for them, no engines) is decoded on the lane's stream: by the
 * GPU-assisted decoder (Huffman decoding on the SMs) where it takes the
 * stream and the image has at least GPU_HUFFMAN_MIN pixels, else by
 * nvjpegDecode (Huffman decoding on the calling thread).  Each lane has its
 * own encode state.  A stream whose markers do not walk cleanly from SOI to
 * EOI, or that has more scans than the CPU decoder allows, is left to
 * libjpeg-turbo, whose messages name the fault.  Every nvJPEG and CUDA call
 * is checked. */
#include "config.h"
#include "gf_nvjpeg.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvjpeg.h>

#include "codec.h"
#include "gf_kernels.h"

#define MAX_DEVICES 64 /* as -device cuda:N allows */
#define MAX_BATCH 32  /* images in one call to the engines */
/* The fewest pixels the GPU-assisted decoder takes: below, decoding the
 * Huffman code on the CPU costs less than the decoder's launches (as
 * nvImageCodec's nvJPEG CUDA decoder chooses by default). */
#define GPU_HUFFMAN_MIN (1000 * 1000)
/* The most pixels nvJPEG's encoder is given optimized Huffman tables for. */
#define OPTIMIZED_MAX (16384ull * 16384ull)
/* The most pixels the engines' decoder state keeps pools for: MAX_BATCH
 * images of the first size it decodes, fewer where they are larger (32
 * 12-megapixel images take about 1.7 GB of device memory). */
#define POOL_PIXELS (32ull * 12000000ull)
/* the flags every handle is tried with, then without strictness */
#define HANDLE_FLAGS (NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION | NVJPEG_FLAGS_BITSTREAM_STRICT)

static const char *nvjpeg_error(nvjpegStatus_t s)
{
    switch (s) {
    case NVJPEG_STATUS_SUCCESS: return "success";
    case NVJPEG_STATUS_NOT_INITIALIZED: return "not initialized";
    case NVJPEG_STATUS_INVALID_PARAMETER: return "invalid parameter";
    case NVJPEG_STATUS_BAD_JPEG: return "bad JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED: return "JPEG not supported";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE: return "allocation failed";
    case NVJPEG_STATUS_EXECUTION_FAILED: return "execution failed";
    case NVJPEG_STATUS_ARCH_MISMATCH: return "not on this GPU";
    case NVJPEG_STATUS_INTERNAL_ERROR: return "internal error";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED: return "not implemented";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM: return "incomplete bitstream";
    }
    return "unknown status";
}

/* A failed nvJPEG call `what` as `st` (out of device memory when it says so). */
static gf_status fail(gf_status st, nvjpegStatus_t s, const char *what)
{
    if (s == NVJPEG_STATUS_ALLOCATOR_FAILURE)
        return gf_error(GF_EDEVMEM, "out of GPU memory (%s)", what);
    return gf_error(st, "nvJPEG %s: %s", what, nvjpeg_error(s));
}

#define NVJ(st, call)                                                                                                 \
    do {                                                                                                              \
        nvjpegStatus_t s_ = (call);                                                                                   \
        if (s_ != NVJPEG_STATUS_SUCCESS)                                                                              \
            return fail(st, s_, #call);                                                                               \
    } while (0)

/* ---- the handles and the engines' queues, one per device -------------- */

/* A lane's baseline stream, waiting for the engines. */
struct request {
    const unsigned char *data;
    size_t n;
    nvjpegImage_t dst; /* device memory no GPU work is using */
    nvjpegOutputFormat_t fmt;
    int width, height;
    nvjpegChromaSubsampling_t css;
    nvjpegStatus_t status;
    cudaError_t cuda;
    int done;
    struct request *next;
};

/* The requests waiting for a device's engines.  `busy` while a lane is
 * decoding a batch; its state and stream are used by that lane alone. */
struct engines {
    pthread_mutex_t lock;
    pthread_cond_t done;
    struct request *waiting;
    int busy;
    nvjpegJpegState_t state; /* made with the handle (or at first use) */
    int pooled;              /* the state's pools are sized (or could not be) */
    cudaStream_t stream;
};

static struct {
    pthread_mutex_t lock;
    nvjpegHandle_t handle[MAX_DEVICES];
    int hardware[MAX_DEVICES];
    int users[MAX_DEVICES];
    struct engines engines[MAX_DEVICES];
} devices = {.lock = PTHREAD_MUTEX_INITIALIZER}; /* a device's engines are set up with its handle */

/* The device's handle, made at first use; ms[0] and ms[1] (where ms is
 * given) the milliseconds its creation and the engines' state's took, 0
 * where they were made before. */
static gf_status take_handle(int dev, nvjpegHandle_t *h, int *hardware, double *ms)
{
    if (ms)
        ms[0] = ms[1] = 0;
    if (dev < 0 || dev >= MAX_DEVICES)
        return gf_error(GF_ENODEV, "nvJPEG: device %d out of range", dev);
    pthread_mutex_lock(&devices.lock);
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (!devices.handle[dev]) {
        /* the engines where there are any; interpolated upsampling always, strictness where taken */
        static const struct {
            nvjpegBackend_t backend;
            unsigned flags;
        } tries[] = {
            {NVJPEG_BACKEND_HARDWARE, HANDLE_FLAGS},
            {NVJPEG_BACKEND_HARDWARE, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION},
            {NVJPEG_BACKEND_DEFAULT, HANDLE_FLAGS},
            {NVJPEG_BACKEND_DEFAULT, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION},
        };
        double t = gf_now_ms();
        for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
            devices.handle[dev] = NULL;
            s = nvjpegCreateEx(tries[i].backend, NULL, NULL, tries[i].flags, &devices.handle[dev]);
            devices.hardware[dev] = tries[i].backend == NVJPEG_BACKEND_HARDWARE;
            if (s == NVJPEG_STATUS_SUCCESS)
                break;
        }
        if (s == NVJPEG_STATUS_SUCCESS) {
            struct engines *e = &devices.engines[dev];
            pthread_mutex_init(&e->lock, NULL);
            pthread_cond_init(&e->done, NULL);
            e->waiting = NULL, e->busy = 0, e->state = NULL, e->pooled = 0, e->stream = NULL;
            if (ms) {
                ms[0] = gf_now_ms() - t;
                t = gf_now_ms();
            }
            /* made now, with the handle, since it takes as long (a failure is met again at first use) */
            if (devices.hardware[dev] && nvjpegJpegStateCreate(devices.handle[dev], &e->state) != NVJPEG_STATUS_SUCCESS)
                e->state = NULL;
            if (ms)
                ms[1] = gf_now_ms() - t;
        }
    }
    if (s == NVJPEG_STATUS_SUCCESS) {
        devices.users[dev]++;
        *h = devices.handle[dev];
        *hardware = devices.hardware[dev];
    } else {
        devices.handle[dev] = NULL;
    }
    pthread_mutex_unlock(&devices.lock);
    return s == NVJPEG_STATUS_SUCCESS ? GF_OK : fail(GF_ENODEV, s, "nvjpegCreateEx");
}

static void give_handle(int dev)
{
    pthread_mutex_lock(&devices.lock);
    if (--devices.users[dev] == 0) {
        struct engines *e = &devices.engines[dev];
        if (e->state)
            nvjpegJpegStateDestroy(e->state);
        if (e->stream)
            cudaStreamDestroy(e->stream);
        pthread_mutex_destroy(&e->lock);
        pthread_cond_destroy(&e->done);
        nvjpegDestroy(devices.handle[dev]);
        devices.handle[dev] = NULL;
    }
    pthread_mutex_unlock(&devices.lock);
}

/* One call to the engines for r[0..k), all of output format `fmt`: its
 * status, or in *cuda the CUDA error that stopped it. */
static nvjpegStatus_t engines_call(struct engines *e, nvjpegHandle_t h, struct request **r, int k,
                                   nvjpegOutputFormat_t fmt, cudaError_t *cuda)
{
    const unsigned char *data[MAX_BATCH];
    size_t n[MAX_BATCH];
    nvjpegImage_t dst[MAX_BATCH];
    for (int i = 0; i < k; i++)
        data[i] = r[i]->data, n[i] = r[i]->n, dst[i] = r[i]->dst;
    *cuda = cudaSuccess;
    if (!e->stream && (*cuda = cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        e->stream = NULL;
        return NVJPEG_STATUS_EXECUTION_FAILED;
    }
    nvjpegStatus_t s = NVJPEG_STATUS_SUCCESS;
    if (!e->state && (s = nvjpegJpegStateCreate(h, &e->state)) != NVJPEG_STATUS_SUCCESS) {
        e->state = NULL;
        return s;
    }
    if (!e->pooled) {
        /* pools sized once, for a full batch of images like the first (fewer
         * if they are large): without them every call allocates and frees its
         * own buffers.  A pool that cannot be had leaves the calls to do so. */
        const uint64_t px = (uint64_t)r[0]->width * (uint64_t)r[0]->height;
        const uint64_t most = px ? POOL_PIXELS / px : 0;
        const int images = most < 1 ? 1 : most > MAX_BATCH ? MAX_BATCH : (int)most;
        if (nvjpegDecodeBatchedPreAllocate(h, e->state, images, r[0]->width, r[0]->height, r[0]->css, fmt) !=
            NVJPEG_STATUS_SUCCESS)
            (void)cudaGetLastError(); /* a failed allocation's, not the stream's */
        e->pooled = 1;
    }
    /* initialised for each batch (its size), which also clears a failed one */
    if ((s = nvjpegDecodeBatchedInitialize(h, e->state, k, 1, fmt)) != NVJPEG_STATUS_SUCCESS ||
        (s = nvjpegDecodeBatched(h, e->state, data, n, dst, e->stream)) != NVJPEG_STATUS_SUCCESS)
        return s;
    if ((*cuda = cudaStreamSynchronize(e->stream)) != cudaSuccess)
        return NVJPEG_STATUS_EXECUTION_FAILED;
    return NVJPEG_STATUS_SUCCESS;
}

/* Decodes a batch, and where the engines refuse it, each of its images alone
 * (so that one broken stream does not fail the others). */
static void engines_run(struct engines *e, nvjpegHandle_t h, struct request **r, int k, nvjpegOutputFormat_t fmt)
{
    cudaError_t cuda;
    const nvjpegStatus_t s = engines_call(e, h, r, k, fmt, &cuda);
    for (int i = 0; i < k; i++)
        r[i]->status = s, r[i]->cuda = cuda;
    if (s != NVJPEG_STATUS_SUCCESS && cuda == cudaSuccess && k > 1)
        for (int i = 0; i < k; i++)
            r[i]->status = engines_call(e, h, &r[i], 1, fmt, &r[i]->cuda);
}

/* Queues `r` for the device's engines and returns when it is decoded: as
 * part of a batch another lane ran, or of one this lane runs, of every
 * request of its format waiting then (up to MAX_BATCH); *batch is its size. */
static void engines_decode(int dev, nvjpegHandle_t h, struct request *r, int *batch)
{
    struct engines *e = &devices.engines[dev];
    pthread_mutex_lock(&e->lock);
    struct request **end = &e->waiting;
    while (*end)
        end = &(*end)->next;
    *end = r;
    r->next = NULL;
    *batch = 0;
    while (!r->done) {
        if (e->busy) {
            pthread_cond_wait(&e->done, &e->lock);
            continue;
        }
        struct request *take[MAX_BATCH];
        const nvjpegOutputFormat_t fmt = e->waiting->fmt;
        int k = 0;
        for (struct request **p = &e->waiting; *p && k < MAX_BATCH;)
            if ((*p)->fmt == fmt) {
                take[k++] = *p;
                *p = (*p)->next;
            } else {
                p = &(*p)->next;
            }
        e->busy = 1;
        pthread_mutex_unlock(&e->lock);
        engines_run(e, h, take, k, fmt);
        pthread_mutex_lock(&e->lock);
        for (int i = 0; i < k; i++)
            take[i]->done = k;
        e->busy = 0;
        pthread_cond_broadcast(&e->done);
    }
    *batch = r->done;
    pthread_mutex_unlock(&e->lock);
}

/* ---- a lane's states ------------------------------------------------- */

struct gf_nvjpeg {
    int device, hardware, own; /* own: the handle is this lane's (a single image's), not the device's */
    nvjpegHandle_t h;
    cudaStream_t stream;
    nvjpegJpegStream_t parsed;
    nvjpegJpegState_t single; /* nvjpegDecode's; made at first use */
    /* the GPU-assisted decoder, its state and buffers: made at first use, or
     * with a single image's handle; gpu_failed where it could not be */
    nvjpegJpegDecoder_t gpu;
    nvjpegJpegState_t gpu_state;
    nvjpegBufferPinned_t pinned;
    nvjpegBufferDevice_t devbuf;
    nvjpegDecodeParams_t params_dec;
    int gpu_failed;
    nvjpegEncoderState_t enc;
    nvjpegEncoderParams_t params;
};

/* Makes the lane's GPU-assisted decoder (once). */
static nvjpegStatus_t gpu_decoder(gf_nvjpeg *j)
{
    if (j->gpu_state)
        return NVJPEG_STATUS_SUCCESS;
    if (j->gpu_failed)
        return NVJPEG_STATUS_NOT_INITIALIZED;
    nvjpegStatus_t s;
    if ((s = nvjpegDecoderCreate(j->h, NVJPEG_BACKEND_GPU_HYBRID, &j->gpu)) != NVJPEG_STATUS_SUCCESS)
        j->gpu = NULL;
    else if ((s = nvjpegDecoderStateCreate(j->h, j->gpu, &j->gpu_state)) != NVJPEG_STATUS_SUCCESS)
        j->gpu_state = NULL;
    else if ((s = nvjpegBufferPinnedCreate(j->h, NULL, &j->pinned)) != NVJPEG_STATUS_SUCCESS)
        j->pinned = NULL;
    else if ((s = nvjpegBufferDeviceCreate(j->h, NULL, &j->devbuf)) != NVJPEG_STATUS_SUCCESS)
        j->devbuf = NULL;
    else if ((s = nvjpegDecodeParamsCreate(j->h, &j->params_dec)) != NVJPEG_STATUS_SUCCESS)
        j->params_dec = NULL;
    else if ((s = nvjpegStateAttachPinnedBuffer(j->gpu_state, j->pinned)) == NVJPEG_STATUS_SUCCESS)
        s = nvjpegStateAttachDeviceBuffer(j->gpu_state, j->devbuf);
    if (s != NVJPEG_STATUS_SUCCESS) {
        j->gpu_failed = 1;
        if (j->gpu_state) /* a state that exists but could not be set up is not used */
            nvjpegJpegStateDestroy(j->gpu_state);
        j->gpu_state = NULL;
    }
    return s;
}

/* A single image's handle: the default backend, with the library's flags. */
static gf_status own_handle(gf_nvjpeg *j, double *ms)
{
    const double t = gf_now_ms();
    nvjpegStatus_t s = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, HANDLE_FLAGS, &j->h);
    if (s != NVJPEG_STATUS_SUCCESS) {
        j->h = NULL;
        s = nvjpegCreateEx(NVJPEG_BACKEND_DEFAULT, NULL, NULL, NVJPEG_FLAGS_UPSAMPLING_WITH_INTERPOLATION, &j->h);
    }
    if (s != NVJPEG_STATUS_SUCCESS) {
        j->h = NULL;
        return fail(GF_ENODEV, s, "nvjpegCreateEx");
    }
    j->own = 1;
    const double t1 = gf_now_ms();
    s = gpu_decoder(j);
    if (ms)
        ms[0] = t1 - t, ms[1] = gf_now_ms() - t1;
    return s == NVJPEG_STATUS_SUCCESS ? GF_OK : fail(GF_ENODEV, s, "creating the GPU-assisted decoder");
}

gf_status gf_nvjpeg_open(gf_cuda *cu, int engines, gf_nvjpeg **out, double *ms)
{
    *out = NULL;
    if (ms)
        ms[0] = ms[1] = 0;
    gf_nvjpeg *j = calloc(1, sizeof *j);
    if (!j)
        return gf_error(GF_ENOMEM, "out of memory");
    j->device = gf_cuda_device_index(cu);
    j->stream = gf_cuda_stream(cu);
    gf_status st = gf_cuda_status(cudaSetDevice(j->device), "cudaSetDevice");
    if (!st)
        st = engines ? take_handle(j->device, &j->h, &j->hardware, ms) : own_handle(j, ms);
    if (st) {
        gf_nvjpeg_close(j);
        return st;
    }
    nvjpegStatus_t s = nvjpegJpegStreamCreate(j->h, &j->parsed);
    if (s == NVJPEG_STATUS_SUCCESS)
        s = nvjpegEncoderStateCreate(j->h, &j->enc, j->stream);
    if (s == NVJPEG_STATUS_SUCCESS)
        s = nvjpegEncoderParamsCreate(j->h, &j->params, j->stream);
    if (s != NVJPEG_STATUS_SUCCESS) {
        st = fail(GF_ENODEV, s, "creating the lane's states");
        gf_nvjpeg_close(j);
        return st;
    }
    *out = j;
    return GF_OK;
}

void gf_nvjpeg_close(gf_nvjpeg *j)
{
    if (!j)
        return;
    if (j->params)
        nvjpegEncoderParamsDestroy(j->params);
    if (j->enc)
        nvjpegEncoderStateDestroy(j->enc);
    if (j->params_dec)
        nvjpegDecodeParamsDestroy(j->params_dec);
    if (j->gpu_state)
        nvjpegJpegStateDestroy(j->gpu_state);
    if (j->pinned)
        nvjpegBufferPinnedDestroy(j->pinned);
    if (j->devbuf)
        nvjpegBufferDeviceDestroy(j->devbuf);
    if (j->gpu)
        nvjpegDecoderDestroy(j->gpu);
    if (j->single)
        nvjpegJpegStateDestroy(j->single);
    if (j->parsed)
        nvjpegJpegStreamDestroy(j->parsed);
    if (j->own)
        nvjpegDestroy(j->h);
    else if (j->h)
        give_handle(j->device);
    free(j);
}

void gf_nvjpeg_version(char *buf, size_t size)
{
    int v[3] = {0, 0, 0};
    const libraryPropertyType what[3] = {MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL};
    for (int i = 0; i < 3; i++)
        if (nvjpegGetProperty(what[i], &v[i]) != NVJPEG_STATUS_SUCCESS)
            v[i] = -1;
    snprintf(buf, size, "nvJPEG %d.%d.%d", v[0], v[1], v[2]);
}

/* gf_jpeg_walk's visitor: counts the scans, stopping past the CPU
 * decoder's limit. */
static int count_scan(void *ctx, uint8_t marker, const uint8_t *seg, size_t len)
{
    (void)seg, (void)len;
    int *scans = ctx;
    return marker == 0xDA && ++*scans > GF_JPEG_MAX_SCANS;
}

/* 1 when the markers walk cleanly from SOI to EOI through at least one scan
 * and at most the CPU decoder's number. */
static int clean_markers(const uint8_t *b, size_t n)
{
    int scans = 0;
    return gf_jpeg_walk(b, n, count_scan, &scans) && scans > 0;
}

gf_status gf_nvjpeg_decode(gf_nvjpeg *j, gf_cuda *cu, const gf_step *steps, int nsteps, const uint8_t *buf,
                           size_t n, uint64_t limit, gf_shape *shape, int *batch)
{
    int comps = 0, w[NVJPEG_MAX_COMPONENT], h[NVJPEG_MAX_COMPONENT];
    nvjpegChromaSubsampling_t css;
    *batch = 0;
    if (!clean_markers(buf, n))
        return gf_error(GF_EFORMAT, "nvJPEG: markers out of place");
    NVJ(GF_EFORMAT, nvjpegGetImageInfo(j->h, buf, n, &comps, &css, w, h));
    if (comps != 1 && comps != 3)
        return gf_error(GF_EFORMAT, "nvJPEG: %d components", comps);
    NVJ(GF_EFORMAT, nvjpegJpegStreamParse(j->h, buf, n, 0, 0, j->parsed));
    unsigned int bits = 0;
    NVJ(GF_EFORMAT, nvjpegJpegStreamGetSamplePrecision(j->parsed, &bits));
    if (bits != 8)
        return gf_error(GF_EFORMAT, "nvJPEG: %u-bit samples", bits);
    *shape = (gf_shape){w[0], h[0], comps, 8};
    gf_status st = gf_shape_check(shape, limit);
    void *in;
    if (st || (st = gf_cuda_begin(cu, steps, nsteps, *shape, limit, &in)))
        return st;
    nvjpegImage_t dst = {{in}, {(size_t)shape->width * (size_t)comps}};
    const nvjpegOutputFormat_t fmt = comps == 1 ? NVJPEG_OUTPUT_Y : NVJPEG_OUTPUT_RGBI;
    int unsupported = 1;
    if (j->hardware)
        NVJ(GF_EFORMAT, nvjpegDecodeBatchedSupported(j->h, j->parsed, &unsupported));
    if (unsupported) {
        int gpu = (uint64_t)shape->width * (uint64_t)shape->height >= GPU_HUFFMAN_MIN &&
                  gpu_decoder(j) == NVJPEG_STATUS_SUCCESS;
        if (gpu) {
            NVJ(GF_ECUDA, nvjpegDecodeParamsSetOutputFormat(j->params_dec, fmt));
            NVJ(GF_EFORMAT, nvjpegDecoderJpegSupported(j->gpu, j->parsed, j->params_dec, &unsupported));
            gpu = !unsupported;
        }
        if (gpu) { /* in stream order, the Huffman code decoded on the SMs */
            NVJ(GF_EFORMAT, nvjpegDecodeJpegHost(j->h, j->gpu, j->gpu_state, j->params_dec, j->parsed));
            NVJ(GF_EFORMAT, nvjpegDecodeJpegTransferToDevice(j->h, j->gpu, j->gpu_state, j->parsed, j->stream));
            NVJ(GF_EFORMAT, nvjpegDecodeJpegDevice(j->h, j->gpu, j->gpu_state, &dst, j->stream));
            *batch = -1;
        } else {
            if (!j->single)
                NVJ(GF_ECUDA, nvjpegJpegStateCreate(j->h, &j->single));
            NVJ(GF_EFORMAT, nvjpegDecode(j->h, j->single, buf, n, fmt, &dst, j->stream));
        }
        return gf_cuda_status(cudaStreamSynchronize(j->stream), "nvJPEG decode");
    }
    /* the engines do not follow stream order: the buffer must be free first */
    if ((st = gf_cuda_status(cudaStreamSynchronize(j->stream), "before the JPEG engines")))
        return st;
    struct request r = {.data = buf, .n = n, .dst = dst, .fmt = fmt, .width = w[0], .height = h[0], .css = css};
    engines_decode(j->device, j->h, &r, batch);
    if (r.cuda != cudaSuccess)
        return gf_cuda_status(r.cuda, "the JPEG engines");
    if (r.status != NVJPEG_STATUS_SUCCESS)
        return fail(GF_EFORMAT, r.status, "nvjpegDecodeBatched");
    return GF_OK;
}

gf_status gf_nvjpeg_encode(gf_nvjpeg *j, const gf_image *dev, int quality, uint8_t **out, size_t *len)
{
    *out = NULL;
    if (dev->depth != 8 || (dev->channels != 1 && dev->channels != 3))
        return gf_error(GF_EINTERNAL, "nvJPEG encodes 8-bit gray or RGB");
    const nvjpegChromaSubsampling_t css = dev->channels == 1 ? NVJPEG_CSS_GRAY : NVJPEG_CSS_420;
    /* nvJPEG 13.0's optimized-Huffman encode faults (an illegal address,
     * which ends the context) at 20000x20000 on an H200; it passes at
     * 16384x16384, the default -limit-pixels (bench/nvjpegenc).  Larger
     * images get the standard tables, as libjpeg-turbo writes by default. */
    const int optimize = (uint64_t)dev->width * (uint64_t)dev->height <= OPTIMIZED_MAX;
    NVJ(GF_ECUDA, nvjpegEncoderParamsSetOptimizedHuffman(j->params, optimize, j->stream));
    NVJ(GF_ECUDA, nvjpegEncoderParamsSetQuality(j->params, quality, j->stream));
    NVJ(GF_ECUDA, nvjpegEncoderParamsSetSamplingFactors(j->params, css, j->stream));
    nvjpegImage_t src = {{dev->data}, {dev->stride}};
    if (dev->channels == 3)
        NVJ(GF_ECUDA, nvjpegEncodeImage(j->h, j->enc, j->params, &src, NVJPEG_INPUT_RGBI, dev->width, dev->height,
                                        j->stream));
    else
        NVJ(GF_ECUDA, nvjpegEncodeYUV(j->h, j->enc, j->params, &src, NVJPEG_CSS_GRAY, dev->width, dev->height,
                                      j->stream));
    size_t n = 0;
    NVJ(GF_ECUDA, nvjpegEncodeRetrieveBitstream(j->h, j->enc, NULL, &n, j->stream));
    gf_status st = gf_cuda_status(cudaStreamSynchronize(j->stream), "nvJPEG encode");
    if (st)
        return st;
    uint8_t *b = malloc(n ? n : 1);
    if (!b)
        return gf_error(GF_ENOMEM, "out of memory");
    nvjpegStatus_t s = nvjpegEncodeRetrieveBitstream(j->h, j->enc, b, &n, j->stream);
    if (s == NVJPEG_STATUS_SUCCESS)
        st = gf_cuda_status(cudaStreamSynchronize(j->stream), "nvJPEG encode");
    else
        st = fail(GF_ECUDA, s, "nvjpegEncodeRetrieveBitstream");
    if (st) {
        free(b);
        return st;
    }
    *out = b;
    *len = n;
    return GF_OK;
}
