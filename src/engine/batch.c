/* SPDX-License-Identifier: MIT */
/* Batch mode (-o DIR INPUT...): every image through the same plan, as fast as
 * the machine allows.  Its stages, in order:
 *
 *   - the list (src/engine/batch_list.c): every INPUT read (the @LISTs whole) and
 *     each output settled before any image, so that no output is written
 *     over a listed input or another output;
 *   - the GPU (src/engine/batch_gpu.c): under -device auto, started only where the
 *     batch's estimated CPU time is more than its start; then its lanes,
 *     opened by a thread of their own while the CPU works, and nvJPEG for
 *     them once a JPEG comes (unless -codec cpu);
 *   - the workers (here): N threads (-threads, default one per core) each
 *     take the next INPUT, read, decode, filter, encode and write it.
 *
 * The GPU part of an image goes through a "lane": a gf_cuda of its own
 * (stream, device buffers, page-locked staging buffer), borrowed for the
 * chain only, so that while one worker's image is on the GPU the others
 * decode and encode, and the uploads, kernels and downloads of different
 * images overlap on their streams; a JPEG goes to its lane compressed, to be
 * decoded there with the other lanes' (src/io/nvjpeg.c).  The GPU's start is
 * hidden, not waited for: under -device auto an image taken while the GPU
 * starts runs on the CPU whole (libjpeg-turbo, the fast CPU operations), and
 * N feeders, which wait for the GPU, feed it from the moment it takes images
 * (its lanes open and, once a JPEG has come, nvJPEG).  At most N images are
 * in flight (2N while the GPU takes over), and -limit-memory bounds what
 * they hold.  A batch that ends before the GPU is up ends without waiting
 * for it (gf_exit_fast).  Without a GPU (or -device cpu) the chain runs in
 * the worker itself. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "parallel.h"

/* ---- messages and progress (called with b->lock held) --------------- */

void batch_clear_progress(batch *b)
{
    if (b->drawn && b->tty)
        fputs("\r\033[K", stderr);
    b->drawn = 0;
}

static void report(batch *b, const char *name, const char *detail)
{
    batch_clear_progress(b);
    gf_say("%s: %s", name, detail);
}

static void draw_progress(batch *b, int last)
{
    const double now = gf_now_ms();
    if (!b->progress || (!last && now - b->last_draw < (b->tty ? 100 : 1000)))
        return;
    b->last_draw = now;
    const unsigned long long finished = b->done + b->failed;
    const double secs = (now - b->t0) / 1e3;
    const unsigned long long total = b->nall;
    char bar[24], left[32] = "";
    const double frac = total ? (double)finished / (double)total : 1.0;
    const int fill = (int)(frac * 20 + 0.5);
    for (int i = 0; i < 20; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[20] = 0;
    if (finished && finished < total) {
        const long rest = (long)(secs / (double)finished * (double)(total - finished) + 0.5);
        snprintf(left, sizeof left, ", %ld:%02ld left", rest / 60, rest % 60);
    }
    batch_clear_progress(b);
    fprintf(stderr, "gpufilter: [%s] %llu/%llu files %3.0f%%, %.1f MP/s%s", bar, finished, total, frac * 100,
            secs > 0 ? b->megapixels / secs : 0.0, left);
    if (b->tty && !last) {
        b->drawn = 1;
        fflush(stderr);
    } else {
        fputc('\n', stderr);
    }
}

/* One input failed: counts it, reports it and redraws the progress bar.
 * Called with b->lock held. */
void batch_failed_input(batch *b, const char *name, const char *detail)
{
    b->failed++;
    report(b, name, detail);
    draw_progress(b, 0);
}

/* A list that could not be read (whole): an error of its own, not a file's. */
void batch_failed_list(batch *b, const char *name, const char *detail)
{
    b->bad_lists++;
    report(b, name, detail);
    draw_progress(b, 0);
}

/* ---- workers ------------------------------------------------------------ */

/* One image between its stages. */
struct job {
    char *input;
    const char *output; /* owned by its entry */
    gf_image img;
    gf_format fmt;
    int pooled;   /* decoded with the page-locked pool in place */
    uint8_t *raw; /* a JPEG file left for the GPU to decode, or NULL */
    size_t raw_n;
    int gpu_raw;      /* raw is for the GPU's decoder */
    int cpu;          /* taken while the GPU was starting (-device auto): all of it on the CPU */
    uint64_t need;    /* its share of -limit-memory */
    int admitted;     /* need is taken */
    double read_ms;
    double mp; /* the input's megapixels, once decoded */
    gf_meta meta;
    int meta_read; /* from a raw JPEG's header, before any decode */
};

/* Counts and reports the end of one image (st: its status, `name` the file to blame). */
static void finished(batch *b, gf_status st, const char *name, double mp)
{
    pthread_mutex_lock(&b->lock);
    if (st) {
        batch_failed_input(b, name, gf_error_detail(st));
        gf_error_clear();
    } else {
        b->done++;
        b->megapixels += mp;
        draw_progress(b, 0);
    }
    pthread_mutex_unlock(&b->lock);
}

/* Before a lane is taken, so that the lane does nothing but DMA and kernels:
 * an image decoded before the pool existed moves into it, and a block for
 * the result is made ready (page-locking allocations are slow). */
static void pin(const gf_plan *plan, gf_host_alloc *pool, struct job *j)
{
    gf_shape out = gf_image_shape(&j->img);
    size_t most, out_bytes;
    if (!pool || gf_chain_shape(plan->steps, plan->nsteps, &out, plan->set.limit_pixels, &most) ||
        gf_image_bytes(out.width, out.height, out.channels, out.depth, &out_bytes))
        return; /* gf_filter reports the error */
    gf_image copy;
    if (!j->pooled && !gf_image_alloc(&copy, j->img.width, j->img.height, j->img.channels, j->img.depth)) {
        memcpy(copy.data, j->img.data, j->img.stride * (size_t)j->img.height);
        gf_image_free(&j->img);
        j->img = copy;
        j->pooled = 1;
    }
    gf_cuda_pinned_prepare(pool, out_bytes);
}

/* Decodes j->raw on the CPU into j->img, and frees it. */
static gf_status decode_raw(batch *b, struct job *j)
{
    gf_status st = gf_decode_timed(&b->plan->set, j->input, j->raw, j->raw_n, j->read_ms, &j->img, &j->fmt,
                                   j->meta_read ? NULL : &j->meta);
    free(j->raw);
    j->raw = NULL;
    j->mp = st ? 0 : (double)j->img.width * j->img.height / 1e6;
    return st;
}

/* A JPEG file through the lane's nvJPEG (gf_gpu_jpeg); *cpu is set where
 * the lane has no nvJPEG or nvJPEG does not take the file. */
static gf_status gpu_jpeg(batch *b, const gf_plan *plan, int lane, struct job *j, uint8_t **bytes, size_t *len,
                          int *cpu)
{
    gf_nvjpeg *nj = lanes_jpeg(b, lane);
    *cpu = nj == NULL;
    if (*cpu)
        return GF_OK;
    return gf_gpu_jpeg(plan, b->lanes.cu[lane], nj, j->raw, j->raw_n, j->read_ms, &j->meta, j->input, j->output,
                       bytes, len, &j->img, cpu, &j->mp);
}

/* Takes j->need of -limit-memory for an image: at once where it is free or
 * nothing else is held, else once images in hand finish.  An image above the
 * whole budget is refused. */
static gf_status admit(batch *b, struct job *j)
{
    gf_status st = gf_memory_check(&b->plan->set, j->need);
    if (st)
        return st;
    const double t0 = gf_now_ms();
    pthread_mutex_lock(&b->mem_lock);
    while (b->mem_used && j->need > b->plan->set.limit_memory - b->mem_used)
        pthread_cond_wait(&b->mem_freed, &b->mem_lock);
    b->mem_used += j->need;
    j->admitted = 1;
    pthread_mutex_unlock(&b->mem_lock);
    const double waited = gf_now_ms() - t0;
    if (b->plan->set.verbose && waited >= 1)
        gf_timing(j->input, "memory", waited, "(waited for -limit-memory)");
    return GF_OK;
}

/* Gives back what admit took. */
static void release(batch *b, struct job *j)
{
    if (!j->admitted)
        return;
    pthread_mutex_lock(&b->mem_lock);
    b->mem_used -= j->need;
    j->admitted = 0;
    pthread_cond_broadcast(&b->mem_freed);
    pthread_mutex_unlock(&b->mem_lock);
}

/* Reads INPUT and takes its memory (waiting for it); decodes it, unless it
 * is a JPEG for a GPU lane's nvJPEG, which is kept as it is read: under
 * -codec gpu every JPEG, under -codec auto those that come once nvJPEG is
 * open. */
static gf_status load(batch *b, struct job *j)
{
    const gf_settings *set = &b->plan->set;
    const double t0 = gf_now_ms();
    gf_status st = gf_read_file(j->input, &j->raw, &j->raw_n);
    j->read_ms = gf_now_ms() - t0;
    if (st)
        return st;
    j->need = gf_memory_need(b->plan, j->raw, j->raw_n);
    if ((st = admit(b, j)))
        return st;
    const int gpu = b->plan->nsteps && set->device != GF_DEVICE_CPU && set->codec != GF_CODEC_CPU;
    if (gpu && gf_sniff(j->raw, j->raw_n) == GF_FMT_JPEG) {
        lanes_want_jpeg(&b->lanes);
        if (set->codec == GF_CODEC_GPU)
            j->cpu = 0;
        if (!j->cpu && (set->codec == GF_CODEC_GPU || lanes_jpeg_ready(&b->lanes))) {
            j->fmt = GF_FMT_JPEG;
            j->gpu_raw = 1;
            return GF_OK;
        }
    }
    return decode_raw(b, j);
}

/* The threads an image's CPU operations and PNG encoder may use: one while
 * every worker has an image, more as the cores left idle by a batch's tail
 * free up. */
static int share(batch *b)
{
    pthread_mutex_lock(&b->lock);
    const unsigned long long busy = b->dispatched - b->done - b->failed;
    pthread_mutex_unlock(&b->lock);
    return busy > 1 ? (int)(b->nthreads / busy) : b->nthreads;
}

/* Filters, encodes and writes an image, and frees the job; returns 0 when
 * the batch must stop (the GPU did not open). */
static int finish(batch *b, struct job *j, gf_host_alloc *pool)
{
    const gf_settings *set = &b->plan->set;
    int go_on = 1;
    uint8_t *bytes = NULL; /* the output, when a GPU encoded it */
    size_t len = 0;
    gf_status st = GF_OK;
    if (j->gpu_raw && (set->keep || set->auto_orient)) { /* a GPU decodes it: the header's metadata */
        gf_jpeg_meta(set, j->raw, j->raw_n, j->input, &j->meta);
        j->meta_read = 1;
    }
    gf_plan oriented;
    gf_step *owned = NULL;
    if (!st)
        st = gf_plan_oriented(b->plan, &j->meta, &oriented, &owned);
    const gf_plan *plan = &oriented;
    if (st) {
        finished(b, st, j->input, 0);
        goto out;
    }
    if (plan->nsteps) {
        if (!j->raw && !j->cpu)
            pin(plan, pool, j);
        const double t0 = gf_now_ms();
        int lane = j->cpu ? -1 : lanes_acquire(&b->lanes);
        const double t1 = gf_now_ms();
        if (lane == -2) {
            go_on = 0;
            goto out;
        }
        int cpu = 1, filtered = 0;
        if (j->raw && lane >= 0) {
            st = gpu_jpeg(b, plan, lane, j, &bytes, &len, &cpu);
            filtered = !cpu;
        }
        if (j->raw && cpu && !st && !(st = decode_raw(b, j)))
            pin(plan, pool, j);
        if (!st && !filtered)
            st = gf_filter(plan, lane >= 0 ? b->lanes.cu[lane] : NULL, &j->img, j->input, share(b));
        if (lane >= 0)
            lanes_release(&b->lanes, lane);
        if (plan->set.verbose) { /* the worker's view: waiting for a lane, then the whole chain */
            char info[64] = "(cpu)";
            if (j->cpu)
                snprintf(info, sizeof info, "(cpu, while the GPU starts)");
            else if (lane >= 0)
                snprintf(info, sizeof info, "(gpu lane %d; waited %.3f ms for it)", lane, t1 - t0);
            gf_timing(j->input, "chain", gf_now_ms() - t0, info);
        }
    } else if (j->raw) {
        st = decode_raw(b, j);
    }
    const char *blame = j->input;
    if (!st && bytes) {
        blame = j->output;
        const double t0 = gf_now_ms();
        st = gf_write_bytes(j->output, bytes, len);
        if (!st && plan->set.verbose)
            gf_timing(j->input, "write", gf_now_ms() - t0, NULL);
    } else if (!st) {
        blame = j->output;
        st = gf_store(&plan->set, share(b), &j->img, &j->meta, j->fmt, j->output, j->input);
    }
    finished(b, st, blame, j->mp);
out:
    release(b, j);
    free(owned);
    free(bytes);
    gf_image_free(&j->img);
    gf_meta_free(&j->meta);
    free(j->raw);
    free(j->input);
    return go_on;
}

struct role {
    batch *b;
    int feeder;
};

/* A worker: take, read, decode, filter, encode, write, again.  Under
 * -device auto, an image taken while the GPU is starting runs on the CPU,
 * whole; once the GPU is up, through a lane.  A feeder (started with the
 * workers under -device auto) waits for the GPU, so that the GPU is fed at
 * once while the workers finish the images they took on the CPU. */
static void *worker(void *arg)
{
    const struct role *r = arg;
    batch *b = r->b;
    const gf_settings *set = &b->plan->set;
    const int wants_gpu = b->plan->nsteps && set->device != GF_DEVICE_CPU;
    gf_host_alloc *pool = NULL;
    int go_on = !r->feeder || lanes_feed_wait(&b->lanes), dev = -1;
    while (go_on) {
        struct job j = {0};
        if (!(j.input = batch_take_input(b, &j.output))) {
            lanes_drained(&b->lanes);
            break;
        }
        int starting = 0;
        if (wants_gpu && dev < 0 && (dev = lanes_state(&b->lanes, &starting)) >= 0 &&
            (pool = gf_cuda_pinned_pool(dev)))
            gf_image_use_allocator(pool); /* once the GPU is up, this thread's images are page-locked */
        j.pooled = pool != NULL;
        j.cpu = starting && set->device == GF_DEVICE_AUTO;
        gf_status st = load(b, &j);
        if (st) {
            finished(b, st, j.input, 0);
            release(b, &j);
            gf_image_free(&j.img);
            gf_meta_free(&j.meta);
            free(j.raw);
            free(j.input);
            continue;
        }
        if (j.cpu) {
            pthread_mutex_lock(&b->lock);
            b->early++;
            pthread_mutex_unlock(&b->lock);
        }
        go_on = finish(b, &j, pool);
    }
    gf_image_use_allocator(NULL);
    gf_cuda_pinned_pool_free(pool);
    return NULL;
}

int gf_batch(const gf_plan *plan)
{
    const gf_settings *set = &plan->set;
    gf_status st = batch_make_dir(set->outdir);
    if (!st && access(set->outdir, W_OK | X_OK))
        st = gf_error(GF_EIO, "cannot write into the output directory: %s", strerror(errno));
    if (st) {
        gf_say("%s: %s", set->outdir, gf_error_detail(st));
        return 1;
    }
    batch b = {.plan = plan, .nthreads = set->threads ? set->threads : gf_cpu_count()};
    b.src.args = plan->args;
    b.src.nargs = plan->nargs;
    b.src.nul = set->nul_lists;
    b.tty = isatty(STDERR_FILENO);
    b.progress = set->progress || (b.tty && !set->quiet);
    pthread_mutex_init(&b.lock, NULL);
    pthread_mutex_init(&b.mem_lock, NULL);
    pthread_cond_init(&b.mem_freed, NULL);
    pthread_mutex_init(&b.lanes.lock, NULL);
    pthread_cond_init(&b.lanes.changed, NULL);
    b.t0 = gf_now_ms();

    b.lanes.ready = 1; /* no lanes: the CPU */
    const int read = !batch_read(&b);
    if (!plan->nsteps && set->device == GF_DEVICE_CUDA) {
        /* nothing to run, but -device cuda demands a GPU: one that does not
         * open stops the batch before any file is written */
        b.lanes.closing = 1;
        lanes_open(&b);
    } else if (read && b.nall) {
        lanes_start(&b, b.all[0].input, b.nall); /* while the outputs are settled */
    }
    const int settled = read && !batch_settle(&b);
    pthread_mutex_lock(&b.lanes.lock);
    if (!settled || b.lanes.failed) /* nothing is taken */
        b.taken = b.nall;
    pthread_mutex_unlock(&b.lanes.lock);
    /* the workers, and under -device auto as many feeders for the GPU */
    const int feeders = b.lanes.started && set->device == GF_DEVICE_AUTO ? b.nthreads : 0;
    const int nworkers = b.nthreads + feeders;
    pthread_t *tid = calloc((size_t)nworkers, sizeof *tid);
    struct role *roles = calloc((size_t)nworkers, sizeof *roles);
    int started = 0;
    for (int i = 0; tid && roles && i < nworkers; i++) {
        roles[i] = (struct role){&b, i >= b.nthreads};
        if (pthread_create(&tid[i], NULL, worker, &roles[i]) == 0)
            started++;
        else
            break;
    }
    if (!started) { /* no threads at all: work here */
        struct role here = {&b, 0};
        worker(&here);
    }
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    free(roles);
    pthread_mutex_lock(&b.lanes.lock);
    b.lanes.closing = 1;
    pthread_cond_broadcast(&b.lanes.changed);
    /* every output is written: a GPU still starting is not waited for */
    const int up = lanes_up(&b.lanes), running = b.lanes.started && !b.lanes.finished;
    const int failed_gpu = b.lanes.failed;
    pthread_mutex_unlock(&b.lanes.lock);
    if (b.lanes.started && !running)
        pthread_join(b.lanes.thread, NULL);

    const double secs = (gf_now_ms() - b.t0) / 1e3;
    if (b.progress)
        draw_progress(&b, 1);
    if (failed_gpu)
        gf_say("%s", b.lanes.error);
    /* the inputs a stop (the GPU did not open) left untouched */
    const unsigned long long untouched = b.nall - b.done - b.failed;
    char lists[48] = "", left[48] = "";
    if (b.bad_lists)
        snprintf(lists, sizeof lists, ", %llu list%s not read", b.bad_lists, b.bad_lists == 1 ? "" : "s");
    if (untouched)
        snprintf(left, sizeof left, ", %llu not processed", untouched);
    if (b.failed || b.bad_lists || untouched || set->verbose)
        gf_say("%llu file%s: %llu done, %llu failed%s%s, %.2f s, %.1f MP/s", (unsigned long long)b.nall,
               b.nall == 1 ? "" : "s", b.done, b.failed, left, lists, secs, secs > 0 ? b.megapixels / secs : 0.0);
    if (set->verbose && b.lanes.started && (running || b.lanes.n)) /* a GPU started, or still starting */
        gf_say("GPU start: %llu image%s on the CPU meanwhile%s", b.early, b.early == 1 ? "" : "s",
               up ? "" : "; the batch ended first");
    const int rc = b.failed || b.bad_lists || failed_gpu || !settled ? 1 : 0;
    if (running || b.lanes.n) /* the GPU's teardown is the driver's, at exit */
        gf_exit_fast(rc);
    free(b.lanes.cu);
    free(b.lanes.jpeg);
    free(b.lanes.busy);
    if (b.src.list && b.src.list != stdin)
        fclose(b.src.list);
    free(b.src.line);
    for (size_t i = 0; i < b.nall; i++) {
        free(b.all[i].input);
        free(b.all[i].output);
    }
    free(b.all);
    pthread_mutex_destroy(&b.lock);
    pthread_mutex_destroy(&b.mem_lock);
    pthread_cond_destroy(&b.mem_freed);
    pthread_mutex_destroy(&b.lanes.lock);
    pthread_cond_destroy(&b.lanes.changed);
    return rc;
}
