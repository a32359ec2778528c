/* SPDX-License-Identifier: MIT */
/* Batch mode's parts, shared by them alone: the batch; its list, every
 * INPUT read and each output settled before any image (src/engine/batch_list.c);
 * its GPU lanes and their start (src/engine/batch_gpu.c); its workers and the
 * whole run (src/engine/batch.c). */
#ifndef GF_BATCH_H
#define GF_BATCH_H

#include <pthread.h>
#include <stdio.h>

#include "gf_nvjpeg.h"
#include "pipeline.h"

/* The INPUT arguments, with @LIST and @- expanded an entry at a time: a
 * line, or with -0 a NUL-terminated name. */
struct source {
    char **args;
    int nargs, next;
    int nul; /* -0 */
    FILE *list; /* the @LIST being read, or NULL */
    const char *list_arg;
    char *line;
    size_t cap;
};

/* A string-keyed table (open addressing); keys are not owned. */
struct slot {
    const char *key;
    void *val;
};
struct map {
    struct slot *slot;
    size_t cap, n;
};

/* Every INPUT of the batch, gathered before anything is written. */
struct entry {
    char *input;   /* as listed; handed to the worker that takes it */
    char *output;  /* DIR/..., or NULL where refused */
    char *in_key;  /* while settling: the input's resolved path, NULL if it does not exist */
    char *out_key; /* while settling: the file the output replaces, resolved, links followed */
};

/* The GPU's lanes and their start.  Stages, each broadcast on `changed`:
 * `ready` (the lanes are open, or it is known there are none), `jpeg_ready`
 * (nvJPEG opened for them, or it will not be), `finished` (the lanes' thread
 * is done). */
struct lanes {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    gf_cuda **cu;
    int *busy;
    int n, ready;
    int failed;       /* -device cuda and a device did not open: the batch stops */
    char error[320];  /* its message */
    gf_nvjpeg **jpeg; /* each lane's, NULL where it could not be had */
    int want_jpeg;    /* a JPEG came: nvJPEG is opened after the lanes */
    int jpeg_ready;   /* `jpeg` is set (once set, read without the lock) */
    int closing;      /* the workers are done: no more JPEGs will come */
    int drained;      /* every INPUT is taken: feeders waiting for the GPU give up */
    int finished;
    pthread_t thread;
    int started;
};

typedef struct batch {
    const gf_plan *plan;
    int nthreads;
    pthread_mutex_t lock; /* entries, counters, stderr */
    struct source src;
    struct entry *all;
    size_t nall, taken;
    struct map folders; /* while settling: folder as written -> resolved (both owned) */
    struct lanes lanes;
    /* -limit-memory: what the images in hand take (gf_memory_need each) */
    pthread_mutex_t mem_lock;
    pthread_cond_t mem_freed;
    uint64_t mem_used;
    unsigned long long dispatched, done, failed;
    unsigned long long bad_lists; /* @LISTs that could not be read whole */
    unsigned long long early;     /* images run on the CPU while the GPU started */
    double megapixels, t0;
    int progress, tty;
    double last_draw;
    int drawn; /* a progress line is on the terminal */
} batch;

/* ---- messages (src/engine/batch.c; called with b->lock held) ---------------- */

/* Takes the progress line off the terminal before a message. */
void batch_clear_progress(batch *b);
/* An INPUT failed, or a @LIST could not be read whole: counted, reported,
 * the progress line redrawn. */
void batch_failed_input(batch *b, const char *name, const char *detail);
void batch_failed_list(batch *b, const char *name, const char *detail);

/* ---- the list (src/engine/batch_list.c) ---------------------------------------- */

/* Makes the output directory (and its parents); GF_OK where it is one. */
gf_status batch_make_dir(const char *dir);
/* Reads every INPUT into b->all (the @LISTs whole, a bad one reported);
 * 0, or -1 out of memory (reported). */
int batch_read(batch *b);
/* Settles each INPUT's output before any is written; 0, or nonzero where
 * the batch cannot go on (reported). */
int batch_settle(batch *b);
/* The next INPUT to process and its output name; NULL at the end. */
char *batch_take_input(batch *b, const char **output);

/* ---- the GPU (src/engine/batch_gpu.c) ------------------------------------------ */

/* Under -device auto where the batch is worth it (judged from `first`, one
 * of `n` images), or under -device cuda, starts the lanes' thread. */
void lanes_start(batch *b, const char *first, size_t n);
/* The lanes' thread (run in place where nothing is to run on the GPU but
 * -device cuda demands one). */
void *lanes_open(void *arg);
/* A free lane (-1: run on the CPU; -2: the batch is stopping), and back. */
int lanes_acquire(struct lanes *l);
void lanes_release(struct lanes *l, int i);
/* A JPEG came: nvJPEG is to be opened for the lanes. */
void lanes_want_jpeg(struct lanes *l);
/* 1 once nvJPEG is opened for the lanes, or will not be. */
int lanes_jpeg_ready(struct lanes *l);
/* A lane's nvJPEG, waiting for it to be opened; NULL where it could not be. */
gf_nvjpeg *lanes_jpeg(batch *b, int lane);
/* 1 once the GPU takes images whole (called with l->lock held). */
int lanes_up(const struct lanes *l);
/* The device of lane 0 once the GPU takes images, else -1; *starting says
 * whether it is still starting. */
int lanes_state(struct lanes *l, int *starting);
/* A feeder's start: 1 once the GPU takes images; 0 where there is no GPU,
 * the batch stops, or every INPUT was taken meanwhile. */
int lanes_feed_wait(struct lanes *l);
/* Every INPUT is taken: feeders still waiting give up. */
void lanes_drained(struct lanes *l);

#endif
