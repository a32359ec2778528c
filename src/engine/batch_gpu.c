/* SPDX-License-Identifier: MIT */
/* Batch mode's GPU: the lanes (a gf_cuda each, and nvJPEG for them), opened
 * by a thread of their own while the CPU works (src/engine/batch.c), and whether a
 * batch is worth starting them for. */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

/* Lanes per device: enough to keep a GPU busy, and with nvJPEG enough
 * JPEGs waiting together for the engines to work on many at once.  Each
 * holds 2 images of device memory: at most one lane per 2 GiB. */
#define LANES_PER_DEVICE 4
#define JPEG_LANES_PER_DEVICE 32

/* ---- GPU lanes --------------------------------------------------------- */

/* A -v line from the lanes' thread: `what`, or with `start` as a stage of
 * the GPU's start, with the time since the batch's. */
static void say_locked(batch *b, const char *what, int start)
{
    pthread_mutex_lock(&b->lock);
    batch_clear_progress(b);
    if (start)
        gf_say("GPU start: %s (at %.3f s)", what, (gf_now_ms() - b->t0) / 1e3);
    else
        gf_say("%s", what);
    pthread_mutex_unlock(&b->lock);
}

/* Once a JPEG comes, nvJPEG for every lane (none if the batch ends first);
 * then jpeg_ready.  Called with l->lock held, by the lanes' thread. */
static void open_jpeg(batch *b)
{
    struct lanes *l = &b->lanes;
    while (!l->want_jpeg && !l->closing)
        pthread_cond_wait(&l->changed, &l->lock);
    const int want = l->want_jpeg && !l->closing;
    pthread_mutex_unlock(&l->lock);
    gf_status st = GF_OK;
    double ms[2] = {0, 0};
    for (int i = 0; want && !st && i < l->n; i++) /* no worker reads l->jpeg before jpeg_ready */
        st = gf_nvjpeg_open(l->cu[i], 1, &l->jpeg[i], i ? NULL : ms);
    if (st) {
        if (b->plan->set.verbose) {
            char what[400];
            snprintf(what, sizeof what, "%s; JPEG through libjpeg-turbo", gf_error_detail(st));
            say_locked(b, what, 0);
        }
        gf_error_clear();
    } else if (want && b->plan->set.verbose) {
        char what[160], state[64] = "";
        if (ms[1] > 0) /* GPUs without JPEG engines have none */
            snprintf(state, sizeof state, ", the JPEG engines' decoder state %.0f ms", ms[1]);
        snprintf(what, sizeof what, "nvJPEG %.0f ms%s: JPEG on the GPU", ms[0], state);
        say_locked(b, what, 1);
    }
    pthread_mutex_lock(&l->lock);
    l->jpeg_ready = 1;
    pthread_cond_broadcast(&l->changed);
}

/* The lanes' thread: opens the devices' lanes, then (unless -codec cpu)
 * nvJPEG for them once a JPEG comes; `finished` at the end. */
void *lanes_open(void *arg)
{
    batch *b = arg;
    const gf_settings *set = &b->plan->set;
    struct lanes *l = &b->lanes;
    int devs[GF_MAX_DEVICES], ndev = 0, count = 0;
    gf_status st = GF_OK;
    if (set->all_devices) {
        if (!(st = gf_cuda_count(&count)))
            for (ndev = 0; ndev < count && ndev < GF_MAX_DEVICES; ndev++)
                devs[ndev] = ndev;
    } else if (set->ndevices) {
        memcpy(devs, set->devices, sizeof(int) * (size_t)set->ndevices);
        ndev = set->ndevices;
    } else {
        devs[0] = set->device_index < 0 ? 0 : set->device_index;
        ndev = 1;
    }
    const int most = set->codec != GF_CODEC_CPU ? JPEG_LANES_PER_DEVICE : LANES_PER_DEVICE;
    int per = ndev ? (b->nthreads + ndev - 1) / ndev : 0;
    per = per < 1 ? 1 : per > most ? most : per;
    gf_cuda **cu = st ? NULL : calloc((size_t)(ndev * per), sizeof *cu);
    int *busy = cu ? calloc((size_t)(ndev * per), sizeof *busy) : NULL;
    gf_nvjpeg **jpeg = busy ? calloc((size_t)(ndev * per), sizeof *jpeg) : NULL;
    if (!st && !jpeg)
        st = gf_error(GF_ENOMEM, "out of memory");
    int n = 0, failed_dev = -1;
    double t = gf_now_ms(), context_ms = 0;
    /* interleaved, so that free lanes are taken from every device in turn */
    for (int k = 0; !st && k < per; k++)
        for (int d = 0; !st && d < ndev; d++) {
            if ((st = gf_cuda_open(devs[d], &cu[n]))) {
                failed_dev = devs[d];
                break;
            }
            gf_cuda_use_pinned(cu[n]);
            const size_t fit = gf_cuda_device_memory(cu[n++]) >> 31;
            if (k == 0 && (size_t)per > fit)
                per = fit < 1 ? 1 : (int)fit;
            if (k == 0 && d == 0) {
                context_ms = gf_now_ms() - t;
                t = gf_now_ms();
            }
        }
    pthread_mutex_lock(&l->lock);
    if (st) {
        char where[32] = "cuda";
        if (failed_dev >= 0 && (set->ndevices || set->all_devices || set->device_index >= 0))
            snprintf(where, sizeof where, "cuda:%d", failed_dev);
        if (!gf_gpu_fallback(set, st)) {
            l->failed = 1;
            snprintf(l->error, sizeof l->error, "%s: %s", where, gf_error_detail(st));
        }
        for (int i = 0; i < n; i++)
            gf_cuda_close(cu[i]);
        free(cu);
        free(busy);
        free(jpeg);
        cu = NULL, busy = NULL, jpeg = NULL, n = 0;
    } else if (set->verbose) {
        pthread_mutex_unlock(&l->lock);
        char what[320];
        for (int d = 0; d < ndev; d++) {
            snprintf(what, sizeof what, "running on %s, %d lanes", gf_cuda_device_name(cu[d]), per);
            say_locked(b, what, 0);
        }
        snprintf(what, sizeof what, "CUDA context %.0f ms, %d lane%s %.0f ms: operations on the GPU", context_ms,
                 n, n == 1 ? "" : "s", gf_now_ms() - t);
        say_locked(b, what, 1);
        pthread_mutex_lock(&l->lock);
    }
    l->cu = cu;
    l->busy = busy;
    l->jpeg = jpeg;
    l->n = n;
    l->ready = 1;
    if (!n || set->codec == GF_CODEC_CPU)
        l->jpeg_ready = 1; /* nvJPEG will not come */
    pthread_cond_broadcast(&l->changed);
    if (!l->jpeg_ready)
        open_jpeg(b);
    l->finished = 1;
    pthread_cond_broadcast(&l->changed);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* A free lane (-1: run on the CPU; -2: the batch is stopping). */
int lanes_acquire(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    for (;;) {
        if (l->ready && (l->failed || !l->n)) {
            pthread_mutex_unlock(&l->lock);
            return l->failed ? -2 : -1;
        }
        for (int i = 0; l->ready && i < l->n; i++)
            if (!l->busy[i]) {
                l->busy[i] = 1;
                pthread_mutex_unlock(&l->lock);
                return i;
            }
        pthread_cond_wait(&l->changed, &l->lock);
    }
}

void lanes_release(struct lanes *l, int i)
{
    pthread_mutex_lock(&l->lock);
    l->busy[i] = 0;
    pthread_cond_broadcast(&l->changed); /* `changed` has waiters of several kinds */
    pthread_mutex_unlock(&l->lock);
}

/* A JPEG is coming: has nvJPEG opened for the lanes. */
void lanes_want_jpeg(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    if (!l->want_jpeg) {
        l->want_jpeg = 1;
        pthread_cond_broadcast(&l->changed);
    }
    pthread_mutex_unlock(&l->lock);
}

/* 1 once nvJPEG is opened for the lanes, or will not be. */
int lanes_jpeg_ready(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    const int ready = l->jpeg_ready;
    pthread_mutex_unlock(&l->lock);
    return ready;
}

/* The lane's nvJPEG, once opened; NULL where it cannot be had (libjpeg-turbo
 * then serves the lane). */
gf_nvjpeg *lanes_jpeg(batch *b, int lane)
{
    struct lanes *l = &b->lanes;
    pthread_mutex_lock(&l->lock);
    while (!l->jpeg_ready)
        pthread_cond_wait(&l->changed, &l->lock);
    pthread_mutex_unlock(&l->lock);
    return l->jpeg[lane];
}

/* 1 once the GPU takes images whole: its lanes are open (or known absent)
 * and, where a JPEG has come, nvJPEG too (or known absent).  Called with
 * l->lock held. */
int lanes_up(const struct lanes *l)
{
    return l->ready && (l->jpeg_ready || !l->want_jpeg);
}

/* The device of lane 0 once the GPU takes images, else -1 (CPU, failed or
 * not yet); *starting says whether it is still starting. */
int lanes_state(struct lanes *l, int *starting)
{
    pthread_mutex_lock(&l->lock);
    *starting = !lanes_up(l);
    int dev = !*starting && l->n && !l->failed ? gf_cuda_device_index(l->cu[0]) : -1;
    pthread_mutex_unlock(&l->lock);
    return dev;
}

/* A feeder's start: waits until the GPU takes images and returns 1; 0 where
 * there is no GPU, the batch stops, or every INPUT was taken meanwhile. */
int lanes_feed_wait(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    while (!l->drained && !lanes_up(l))
        pthread_cond_wait(&l->changed, &l->lock);
    const int go = !l->drained && l->n && !l->failed;
    pthread_mutex_unlock(&l->lock);
    return go;
}

/* Every INPUT is taken: feeders still waiting for the GPU give up. */
void lanes_drained(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    l->drained = 1;
    pthread_cond_broadcast(&l->changed);
    pthread_mutex_unlock(&l->lock);
}

/* The GPU's start as -device auto sees it: for JPEG input the JPEG engines'
 * (CUDA context, nvJPEG, their decoder state), else the CUDA context's; as
 * measured on a loaded machine (docs/PERFORMANCE.md). */
#define GPU_START_MS 400.0
#define GPU_JPEG_START_MS 900.0

/* Under -device auto, 1 when a batch of `n` images like `first` would keep
 * its workers busy for longer than the GPU takes to start: the CPU time of
 * each (decode, operations on one core, encode: gf_codec_cpu_ms,
 * gf_chain_cpu_ms), from the first INPUT's header, over the workers.  1 too
 * where the header cannot be read. */
static int gpu_worth(batch *b, const char *first, size_t n)
{
    const gf_plan *plan = b->plan;
    const gf_settings *set = &plan->set;
    if (set->device != GF_DEVICE_AUTO)
        return 1;
    enum { HEAD = 256 << 10 }; /* past a large EXIF or ICC segment to the frame header */
    uint8_t *head = malloc(HEAD);
    FILE *f = head ? fopen(first, "rb") : NULL;
    const size_t got = f ? fread(head, 1, HEAD, f) : 0;
    if (f)
        fclose(f);
    gf_shape in, out;
    size_t most;
    const int known = got && !gf_peek_shape(head, got, &in);
    const gf_format fin = known ? gf_sniff(head, got) : GF_FMT_NONE;
    free(head);
    if (!known)
        return 1;
    out = in;
    if (gf_chain_shape(plan->steps, plan->nsteps, &out, UINT64_MAX, &most))
        return 1;
    const gf_format fout = gf_output_format(set, first, fin);
    const double each = gf_codec_cpu_ms(fin, in, fout, out) + gf_chain_cpu_ms(plan->steps, plan->nsteps, in, 1);
    const double ms = each * (double)n / b->nthreads;
    if (ms >= (fin == GF_FMT_JPEG && set->codec != GF_CODEC_CPU ? GPU_JPEG_START_MS : GPU_START_MS))
        return 1;
    if (set->verbose)
        gf_say("running on the CPU (about %.0f ms of work on %d threads, less than a GPU's start)", ms, b->nthreads);
    return 0;
}

/* Starts the lanes' thread where the plan has operations for a GPU and,
 * under -device auto, the batch is worth it. */
void lanes_start(batch *b, const char *first, size_t n)
{
    const gf_settings *set = &b->plan->set;
    if (!b->plan->nsteps || set->device == GF_DEVICE_CPU || !gpu_worth(b, first, n))
        return;
    b->lanes.ready = 0;
    if (pthread_create(&b->lanes.thread, NULL, lanes_open, b) == 0) {
        b->lanes.started = 1;
    } else {
        b->lanes.closing = 1; /* no thread to open nvJPEG later: libjpeg-turbo */
        lanes_open(b);
    }
}
