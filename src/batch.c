/* SPDX-License-Identifier: MIT */
/* Batch mode (-o DIR INPUT...): every image through the same plan, as fast as
 * the machine allows.
 *
 * Before any image, the whole list (every @LIST too) is read and each output
 * settled (`settle`), so that no output is written over a listed input or
 * another output.  Then each of N worker threads (-threads, default one per
 * core) takes the next path, reads and decodes it, runs the chain, encodes
 * and writes it; at most that many images (twice as many while the GPU takes
 * over) are in flight, and -limit-memory bounds what they hold.
 *
 * The GPU part goes through a "lane": a gf_cuda of its own (stream, device
 * buffers, page-locked staging buffer), borrowed for the chain only, so that
 * while one worker's image is on the GPU the others decode and encode, and
 * the uploads, kernels and downloads of different images overlap on their
 * streams.  The lanes are opened by a thread of their own, then nvJPEG for
 * them once a JPEG comes (unless -codec cpu); a JPEG then goes to its lane
 * compressed, to be decoded there with the other lanes' (src/nvjpeg.c).
 *
 * The GPU's start is hidden, not waited for: under -device auto, a batch
 * whose estimated CPU time is less than the GPU's start runs on the CPU
 * (`gpu_worth`); in a larger one, an image taken while the GPU starts runs
 * on the CPU whole (libjpeg-turbo, the fast CPU operations), and N feeders,
 * which wait for the GPU, start feeding it the moment it takes images (its
 * lanes open and, once a JPEG has come, nvJPEG).  A batch that ends before
 * the GPU is up ends without waiting for it (gf_exit_fast).
 * Without a GPU (or -device cpu) the chain runs in the worker itself. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gf_nvjpeg.h"
#include "parallel.h"
#include "pipeline.h"

/* Lanes per device: enough to keep a GPU busy, and under -codec gpu enough
 * JPEGs waiting together for the engines to work on many at once.  Each
 * holds 2 images of device memory: at most one lane per 2 GiB. */
#define LANES_PER_DEVICE 4
#define JPEG_LANES_PER_DEVICE 32

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

/* ---- output names --------------------------------------------------- */

static size_t hash(const char *s)
{
    size_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h;
}

static struct slot *map_slot(const struct map *m, const char *key)
{
    size_t j = hash(key) & (m->cap - 1);
    while (m->slot[j].key && strcmp(m->slot[j].key, key))
        j = (j + 1) & (m->cap - 1);
    return &m->slot[j];
}

/* The value of `key`, NULL if absent. */
static void *map_get(const struct map *m, const char *key)
{
    return m->cap ? map_slot(m, key)->val : NULL;
}

/* Adds `key` unless present (keeping the first value); -1 out of memory. */
static int map_put(struct map *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap) {
        struct map grown = {calloc(m->cap ? m->cap * 2 : 1024, sizeof *grown.slot), m->cap ? m->cap * 2 : 1024, 0};
        if (!grown.slot)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i].key)
                *map_slot(&grown, m->slot[i].key) = m->slot[i];
        free(m->slot);
        grown.n = m->n;
        *m = grown;
    }
    struct slot *s = map_slot(m, key);
    if (!s->key) {
        s->key = key;
        s->val = val;
        m->n++;
    }
    return 0;
}

/* ---- which file a path names ---------------------------------------- */

static char *join(const char *dir, const char *base)
{
    const size_t n = strlen(dir) + strlen(base) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", base);
    return p;
}

static char *resolve(batch *b, const char *path, int must_exist);

/* FOLDER resolved (realpath), or for a folder not made yet its nearest
 * existing parent's, with the rest appended; cached.  NULL where it cannot
 * be resolved. */
static const char *resolve_folder(batch *b, const char *folder)
{
    const char *r = map_get(&b->folders, folder);
    if (r)
        return r;
    char *key = strdup(folder), *val = realpath(folder, NULL);
    if (!val && errno == ENOENT)
        val = resolve(b, folder, 0);
    if (!key || !val || map_put(&b->folders, key, val)) {
        free(key);
        free(val);
        return NULL;
    }
    return val;
}

/* The file PATH names, resolved: its folder through resolve_folder, and a
 * symbolic link at PATH itself followed (as the output is written through
 * it).  NULL where it cannot be resolved, or (`must_exist`) does not exist. */
static char *resolve(batch *b, const char *path, int must_exist)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!strcmp(base, ".."))
        return realpath(path, NULL);
    char *folder = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    const char *rf = folder ? resolve_folder(b, folder) : NULL;
    free(folder);
    if (!rf)
        return NULL;
    if (!*base || !strcmp(base, ".")) /* "F/" and "F/." are F */
        return strdup(rf);
    char *p = join(rf, base);
    struct stat sb;
    if (!p || lstat(p, &sb)) {
        if (p && must_exist) {
            free(p);
            p = NULL;
        }
    } else if (S_ISLNK(sb.st_mode)) {
        char *target = realpath(p, NULL); /* NULL: a dangling link, which names itself */
        if (target || must_exist) {
            free(p);
            p = target;
        }
    }
    return p;
}

static const char *extension(gf_format f)
{
    return f == GF_FMT_PNG ? ".png" : f == GF_FMT_JPEG ? ".jpg" : ".pnm";
}

/* DIR/BASE, BASE the input's last path component, or under -mirror
 * DIR/FOLDER/BASE, FOLDER the input's relative folder without leading "./"
 * (the extension replaced under -format): never a path the input can steer
 * out of DIR. */
static gf_status output_path(const char *dir, const char *input, gf_format fmt, int mirror, char **out)
{
    if (!strcmp(input, "-"))
        return gf_error(GF_EINVAL, "standard input has no name to write under -o DIR");
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return gf_error(GF_EINVAL, "no file name to write under -o DIR");
    const char *folder = base; /* empty without -mirror */
    if (mirror) {
        if (input[0] == '/')
            return gf_error(GF_EINVAL, "-mirror takes relative paths: an absolute one would leave -o DIR");
        for (const char *c = input; *c; c += strcspn(c, "/"), c += *c == '/')
            if (!strncmp(c, "..", 2) && (c[2] == '/' || !c[2]))
                return gf_error(GF_EINVAL, "-mirror: a '..' in the path would leave -o DIR");
        for (folder = input; folder[0] == '.' && folder[1] == '/';)
            for (folder += 2; *folder == '/'; folder++)
                ;
    }
    size_t keep = strlen(base);
    const char *dot = strrchr(base, '.');
    if (fmt && dot && dot != base)
        keep = (size_t)(dot - base);
    const char *ext = fmt ? extension(fmt) : "";
    const size_t nfolder = (size_t)(base - folder);
    size_t need = strlen(dir) + 1 + nfolder + keep + strlen(ext) + 1;
    char *p = malloc(need);
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory");
    snprintf(p, need, "%s/%.*s%.*s%s", dir, (int)nfolder, folder, (int)keep, base, ext);
    *out = p;
    return GF_OK;
}

static gf_status make_dir(const char *dir);

/* mkdir -p of the folder holding PATH */
static gf_status make_parent(const char *path)
{
    char *dir = strdup(path);
    if (!dir)
        return gf_error(GF_ENOMEM, "out of memory");
    *strrchr(dir, '/') = 0;
    gf_status st = make_dir(dir);
    free(dir);
    return st;
}

/* mkdir -p DIR */
static gf_status make_dir(const char *dir)
{
    char *p = strdup(dir);
    if (!p)
        return gf_error(GF_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || !*s) {
            char c = *s;
            *s = 0;
            if (mkdir(p, 0777) && errno != EEXIST) {
                gf_status st = gf_error(GF_EIO, "cannot create the output directory: %s", strerror(errno));
                free(p);
                return st;
            }
            *s = c;
            if (!c)
                break;
        }
    }
    free(p);
    struct stat sb;
    if (stat(dir, &sb))
        return gf_error(GF_EIO, "cannot use the output directory: %s", strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gf_error(GF_EIO, "not a directory");
    return GF_OK;
}

/* ---- messages and progress (called with b->lock held) --------------- */

static void clear_progress(batch *b)
{
    if (b->drawn && b->tty)
        fputs("\r\033[K", stderr);
    b->drawn = 0;
}

static void report(batch *b, const char *name, const char *detail)
{
    clear_progress(b);
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
    clear_progress(b);
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
static void failed_input(batch *b, const char *name, const char *detail)
{
    b->failed++;
    report(b, name, detail);
    draw_progress(b, 0);
}

/* A list that could not be read (whole): an error of its own, not a file's. */
static void failed_list(batch *b, const char *name, const char *detail)
{
    b->bad_lists++;
    report(b, name, detail);
    draw_progress(b, 0);
}

/* ---- the input list -------------------------------------------------- */

/* A line of an @LIST as read by getline (`len` bytes): drops the line end
 * (LF or CRLF, and any CR before it) and returns the length left, 0 for a
 * blank line, which is skipped. */
static size_t list_entry(char *line, ssize_t len)
{
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        line[--len] = 0;
    return (size_t)len;
}

/* The next entry of a list into *line: its length (0: an empty entry, to
 * skip), -1 at the end or on a read error, -2 for a line holding a NUL byte
 * (a NUL-separated list read without -0, which must not pass as one name). */
static ssize_t read_entry(FILE *f, int nul, char **line, size_t *cap)
{
    ssize_t len = getdelim(line, cap, nul ? '\0' : '\n', f);
    if (len < 0)
        return -1;
    if (nul)
        return len > 0 && (*line)[len - 1] == 0 ? len - 1 : len;
    if (memchr(*line, 0, (size_t)len))
        return -2;
    return (ssize_t)list_entry(*line, len);
}

/* The next INPUT path (new string), NULL at the end.  Called with b->lock held. */
static char *next_input(batch *b)
{
    struct source *s = &b->src;
    for (;;) {
        if (s->list) {
            errno = 0;
            ssize_t len = read_entry(s->list, s->nul, &s->line, &s->cap);
            if (len >= 0) {
                if (!len)
                    continue;
                char *p = strdup(s->line);
                if (p)
                    return p;
                failed_input(b, s->list_arg, "out of memory");
                continue;
            }
            if (len == -2) {
                failed_list(b, s->list_arg, "the list holds NUL bytes (as find -print0 writes): read it with -0");
            } else if (ferror(s->list)) {
                char msg[160];
                snprintf(msg, sizeof msg, "read error: %s", strerror(errno ? errno : EIO));
                failed_list(b, s->list_arg, msg);
            }
            if (s->list != stdin)
                fclose(s->list);
            s->list = NULL;
        }
        if (s->next == s->nargs)
            return NULL;
        const char *a = s->args[s->next++];
        if (a[0] != '@') {
            char *p = strdup(a);
            if (p)
                return p;
            failed_input(b, a, "out of memory");
            continue;
        }
        s->list_arg = a;
        s->list = strcmp(a, "@-") ? fopen(a + 1, "r") : stdin;
        if (!s->list) {
            char msg[160];
            snprintf(msg, sizeof msg, "cannot open the list: %s", strerror(errno));
            failed_list(b, a, msg);
        }
    }
}

/* ---- GPU lanes --------------------------------------------------------- */

/* A -v line from the lanes' thread: `what`, or with `start` as a stage of
 * the GPU's start, with the time since the batch's. */
static void say_locked(batch *b, const char *what, int start)
{
    pthread_mutex_lock(&b->lock);
    clear_progress(b);
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
        st = gf_nvjpeg_open(l->cu[i], &l->jpeg[i], i ? NULL : ms);
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
static void *open_lanes(void *arg)
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
static int acquire_lane(struct lanes *l)
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

static void release_lane(struct lanes *l, int i)
{
    pthread_mutex_lock(&l->lock);
    l->busy[i] = 0;
    pthread_cond_broadcast(&l->changed); /* `changed` has waiters of several kinds */
    pthread_mutex_unlock(&l->lock);
}

/* A JPEG is coming: has nvJPEG opened for the lanes. */
static void want_jpeg(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    if (!l->want_jpeg) {
        l->want_jpeg = 1;
        pthread_cond_broadcast(&l->changed);
    }
    pthread_mutex_unlock(&l->lock);
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
        failed_input(b, name, gf_error_detail(st));
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

/* The lane's nvJPEG, once opened; NULL where it cannot be had (libjpeg-turbo
 * then serves the lane). */
static gf_nvjpeg *lane_jpeg(batch *b, int lane)
{
    struct lanes *l = &b->lanes;
    pthread_mutex_lock(&l->lock);
    while (!l->jpeg_ready)
        pthread_cond_wait(&l->changed, &l->lock);
    pthread_mutex_unlock(&l->lock);
    return l->jpeg[lane];
}

/* A JPEG file through the lane's nvJPEG: decoded into the chain's input, the
 * steps run, and the result encoded there (JPEG out: *bytes, *len) or
 * downloaded into j->img.  *cpu is set where nvJPEG does not take the file,
 * which then goes the CPU decoder's way. */
static gf_status gpu_jpeg(batch *b, const gf_plan *plan, int lane, struct job *j, uint8_t **bytes, size_t *len,
                          int *cpu)
{
    const gf_settings *set = &plan->set;
    gf_cuda *cu = b->lanes.cu[lane];
    gf_nvjpeg *nj = lane_jpeg(b, lane);
    *cpu = nj == NULL;
    if (*cpu)
        return GF_OK;
    gf_shape shape;
    int engines;
    const double t0 = gf_now_ms();
    gf_status st = gf_nvjpeg_decode(nj, cu, plan->steps, plan->nsteps, j->raw, j->raw_n, set->limit_pixels, &shape,
                                    &engines);
    if (st == GF_EFORMAT) {
        if (set->verbose)
            gf_timing(j->input, "nvjpeg", gf_now_ms() - t0, gf_error_detail(st));
        gf_error_clear();
        *cpu = 1;
        return GF_OK;
    }
    const double t1 = gf_now_ms();
    gf_image dev;
    if (st || (st = gf_cuda_chain(cu, plan->steps, plan->nsteps, shape, &dev)))
        return st;
    const int jpeg_out = gf_output_format(set, j->output, GF_FMT_JPEG) == GF_FMT_JPEG && set->depth != 16 &&
                         dev.depth == 8 && (dev.channels == 1 || dev.channels == 3);
    st = jpeg_out ? gf_nvjpeg_encode(nj, &dev, set->quality, bytes, len) : gf_cuda_download(cu, &dev, &j->img);
    gf_exif_update(&j->meta, dev.width, dev.height, j->meta.edited);
    gf_meta kept = gf_meta_kept(&j->meta, set->keep, dev.channels);
    if (jpeg_out)
        gf_meta_for_jpeg(&kept, j->input, set->quiet);
    if (!st && jpeg_out && !gf_meta_empty(&kept)) {
        /* nvJPEG writes no metadata: the input's goes in */
        uint8_t *with;
        size_t with_len;
        if (!(st = gf_jpeg_add_meta(*bytes, *len, &kept, &with, &with_len))) {
            free(*bytes);
            *bytes = with;
            *len = with_len;
        }
    }
    if (!st && set->verbose) {
        char info[128], how[32] = "hybrid";
        if (engines)
            snprintf(how, sizeof how, "hardware, batch of %d", engines);
        snprintf(info, sizeof info, "(JPEG %dx%d %s 8-bit, nvjpeg %s)", shape.width, shape.height,
                 gf_layout_name(shape.channels), how);
        gf_timing(j->input, "read", j->read_ms, NULL);
        gf_timing(j->input, "nvjpeg-dec", t1 - t0, info);
        gf_timing(j->input, jpeg_out ? "chain+enc" : "chain", gf_now_ms() - t1,
                  jpeg_out ? "(cuda, nvjpeg encode)" : "(cuda, downloaded)");
    }
    j->mp = (double)shape.width * shape.height / 1e6;
    return st;
}

struct bytes {
    const uint8_t *p;
    size_t n;
};

static gf_status emit_bytes(FILE *f, void *ctx)
{
    const struct bytes *b = ctx;
    return fwrite(b->p, 1, b->n, f) == b->n ? GF_OK
                                          : gf_error(GF_EIO, "cannot write JPEG data: %s", strerror(errno));
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

/* 1 once nvJPEG is opened for the lanes, or will not be. */
static int jpeg_ready(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    const int ready = l->jpeg_ready;
    pthread_mutex_unlock(&l->lock);
    return ready;
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
        want_jpeg(&b->lanes);
        if (set->codec == GF_CODEC_GPU)
            j->cpu = 0;
        if (!j->cpu && (set->codec == GF_CODEC_GPU || jpeg_ready(&b->lanes))) {
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
        if (gf_jpeg_read_meta(j->raw, j->raw_n, &j->meta, j->input, set->quiet))
            gf_error_clear();
        gf_exif_density(&j->meta);
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
        int lane = j->cpu ? -1 : acquire_lane(&b->lanes);
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
            release_lane(&b->lanes, lane);
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
        struct bytes out = {bytes, len};
        st = gf_write_file(j->output, emit_bytes, &out);
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

/* Refuses entry e before anything is written: reported, and never taken. */
static void refuse(batch *b, struct entry *e, gf_status st)
{
    b->dispatched++;
    failed_input(b, e->input, gf_error_detail(st));
    gf_error_clear();
    free(e->output);
    e->output = NULL;
}

/* Reads every INPUT (the @LISTs whole) and settles each one's output before
 * any is written, refusing an output that
 *   - is a listed INPUT that another entry writes in place (that entry
 *     keeps it);
 *   - is any other listed INPUT, which would be lost, read or not;
 *   - another entry writes first;
 *   - under -mirror, a symbolic link under DIR takes out of DIR.
 * Paths are compared resolved, so that ./a/x.jpg and a/x.jpg, or a link
 * and its target, are one file.  0, or nonzero where the batch cannot go on
 * (reported). */
static int settle(batch *b)
{
    const gf_settings *set = &b->plan->set;
    struct map inputs = {0}, outputs = {0};
    size_t cap = 0;
    char *input;
    int rc = 0;
    while (!rc && (input = next_input(b))) {
        struct entry *all = b->nall < cap ? b->all : realloc(b->all, (cap = cap ? 2 * cap : 256) * sizeof *all);
        if (!all) {
            free(input);
            rc = -1;
            break;
        }
        b->all = all;
        all[b->nall++] = (struct entry){.input = input};
    }
    char *root = rc ? NULL : realpath(set->outdir, NULL);
    if (!rc && !root) {
        clear_progress(b);
        gf_say("%s: cannot resolve the output directory: %s", set->outdir, strerror(errno));
        rc = -2;
    }
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        e->in_key = resolve(b, e->input, 1);
        if (e->in_key && map_put(&inputs, e->in_key, e))
            rc = -1;
    }
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        gf_status st = output_path(set->outdir, e->input, set->format, set->mirror, &e->output);
        if (st)
            refuse(b, e, st);
        else if (!(e->out_key = resolve(b, e->output, 0)))
            refuse(b, e, gf_error(GF_EIO, "cannot resolve %s: %s", e->output, strerror(errno)));
    }
    const size_t nroot = root ? strlen(root) : 0;
    for (size_t i = 0; !rc && i < b->nall; i++) {
        struct entry *e = &b->all[i];
        if (!e->output)
            continue;
        gf_status st = GF_OK;
        const struct entry *read = map_get(&inputs, e->out_key);
        const struct entry *first = map_get(&outputs, e->out_key);
        if (set->mirror && nroot > 1 && (strncmp(e->out_key, root, nroot) || e->out_key[nroot] != '/'))
            st = gf_error(GF_EINVAL, "-mirror: a symbolic link under %s leads %s out of it; skipped", set->outdir,
                          e->output);
        else if (read && read != e && read->out_key && !strcmp(read->out_key, e->out_key))
            st = gf_error(GF_EINVAL, "%s is the output of %s, written in place; skipped", e->output, read->input);
        else if (read && read != e)
            st = gf_error(GF_EINVAL, "%s is %s, an INPUT of this batch; skipped", e->output, read->input);
        else if (first)
            st = gf_error(GF_EINVAL, "%s is the output of an earlier INPUT too; skipped", e->output);
        else if (map_put(&outputs, e->out_key, e))
            rc = -1;
        if (st)
            refuse(b, e, st);
    }
    if (rc == -1) {
        clear_progress(b);
        gf_say("out of memory");
    }
    free(root);
    free(inputs.slot);
    free(outputs.slot);
    for (size_t i = 0; i < b->nall; i++) { /* settled: the workers need names only */
        free(b->all[i].in_key);
        free(b->all[i].out_key);
        b->all[i].in_key = b->all[i].out_key = NULL;
    }
    for (size_t i = 0; i < b->folders.cap; i++)
        if (b->folders.slot[i].key) {
            free((char *)b->folders.slot[i].key);
            free(b->folders.slot[i].val);
        }
    free(b->folders.slot);
    b->folders = (struct map){0};
    return rc;
}

/* The next INPUT to process and its output name; NULL at the end. */
static char *take_input(batch *b, const char **output)
{
    pthread_mutex_lock(&b->lock);
    char *input = NULL;
    while (!input && b->taken < b->nall) {
        struct entry *e = &b->all[b->taken++];
        if (!e->output)
            continue;
        b->dispatched++;
        gf_status st = b->plan->set.mirror ? make_parent(e->output) : GF_OK;
        input = e->input;
        e->input = NULL;
        if (st) {
            failed_input(b, input, gf_error_detail(st));
            gf_error_clear();
            free(input);
            input = NULL;
        }
        *output = e->output;
    }
    pthread_mutex_unlock(&b->lock);
    return input;
}

/* 1 once the GPU takes images whole: its lanes are open (or known absent)
 * and, where a JPEG has come, nvJPEG too (or known absent).  Called with
 * l->lock held. */
static int gpu_takes(const struct lanes *l)
{
    return l->ready && (l->jpeg_ready || !l->want_jpeg);
}

/* The device of lane 0 once the GPU takes images, else -1 (CPU, failed or
 * not yet); *starting says whether it is still starting. */
static int gpu_state(struct lanes *l, int *starting)
{
    pthread_mutex_lock(&l->lock);
    *starting = !gpu_takes(l);
    int dev = !*starting && l->n && !l->failed ? gf_cuda_device_index(l->cu[0]) : -1;
    pthread_mutex_unlock(&l->lock);
    return dev;
}

/* A feeder's start: waits until the GPU takes images and returns 1; 0 where
 * there is no GPU, the batch stops, or every INPUT was taken meanwhile. */
static int feed_wait(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    while (!l->drained && !gpu_takes(l))
        pthread_cond_wait(&l->changed, &l->lock);
    const int go = !l->drained && l->n && !l->failed;
    pthread_mutex_unlock(&l->lock);
    return go;
}

/* Every INPUT is taken: feeders still waiting for the GPU give up. */
static void drained(struct lanes *l)
{
    pthread_mutex_lock(&l->lock);
    l->drained = 1;
    pthread_cond_broadcast(&l->changed);
    pthread_mutex_unlock(&l->lock);
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
    int go_on = !r->feeder || feed_wait(&b->lanes), dev = -1;
    while (go_on) {
        struct job j = {0};
        if (!(j.input = take_input(b, &j.output))) {
            drained(&b->lanes);
            break;
        }
        int starting = 0;
        if (wants_gpu && dev < 0 && (dev = gpu_state(&b->lanes, &starting)) >= 0 &&
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

/* The GPU's start as -device auto sees it: for JPEG input the JPEG engines'
 * (CUDA context, nvJPEG, their decoder state), else the CUDA context's; as
 * measured on a loaded machine (docs/PERFORMANCE.md). */
#define GPU_START_MS 400.0
#define GPU_JPEG_START_MS 900.0

/* Under -device auto, 1 when a batch of `n` images like `first` would keep
 * its workers busy for longer than the GPU takes to start: the CPU time of
 * each (decode, operations on one core, encode: gf_codec_cpu_ns,
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
    out = in;
    if (!known || gf_chain_shape(plan->steps, plan->nsteps, &out, UINT64_MAX, &most))
        return 1;
    const gf_format fout = gf_output_format(set, first, fin);
    const double each = (gf_codec_cpu_ns(fin, 0) * in.width * in.height * in.channels +
                         gf_codec_cpu_ns(fout, 1) * out.width * out.height * out.channels) / 1e6 +
                        gf_chain_cpu_ms(plan->steps, plan->nsteps, in, 1);
    const double ms = each * (double)n / b->nthreads;
    if (ms >= (fin == GF_FMT_JPEG && set->codec != GF_CODEC_CPU ? GPU_JPEG_START_MS : GPU_START_MS))
        return 1;
    if (set->verbose)
        gf_say("running on the CPU (about %.0f ms of work on %d threads, less than a GPU's start)", ms, b->nthreads);
    return 0;
}

/* Starts the lanes' thread where the plan has operations for a GPU and,
 * under -device auto, the batch is worth it. */
static void start_gpu(batch *b, const char *first, size_t n)
{
    const gf_settings *set = &b->plan->set;
    if (!b->plan->nsteps || set->device == GF_DEVICE_CPU || !gpu_worth(b, first, n))
        return;
    b->lanes.ready = 0;
    if (pthread_create(&b->lanes.thread, NULL, open_lanes, b) == 0) {
        b->lanes.started = 1;
    } else {
        b->lanes.closing = 1; /* no thread to open nvJPEG later: libjpeg-turbo */
        open_lanes(b);
    }
}

int gf_batch(const gf_plan *plan)
{
    const gf_settings *set = &plan->set;
    gf_status st = make_dir(set->outdir);
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
    int at_lists = 0;
    for (int i = 0; i < plan->nargs; i++)
        at_lists |= plan->args[i][0] == '@';
    if (!plan->nsteps && set->device == GF_DEVICE_CUDA) {
        /* nothing to run, but -device cuda demands a GPU: one that does not
         * open stops the batch before any file is written */
        b.lanes.closing = 1;
        open_lanes(&b);
    } else if (!at_lists && plan->nargs) {
        start_gpu(&b, plan->args[0], (size_t)plan->nargs); /* while the list is settled */
    }
    const int settled = !settle(&b);
    if (settled && at_lists && b.nall)
        start_gpu(&b, b.all[0].input, b.nall);
    if (!settled || b.lanes.failed)
        b.taken = b.nall;
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
    const int up = gpu_takes(&b.lanes), running = b.lanes.started && !b.lanes.finished;
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
    if (set->verbose && b.lanes.started)
        gf_say("GPU start: %llu image%s on the CPU meanwhile%s", b.early, b.early == 1 ? "" : "s",
               up ? "" : "; the batch ended first");
    const int rc = b.failed || b.bad_lists || failed_gpu || !settled ? 1 : 0;
    if (running || b.lanes.n)
        gf_exit_fast(rc);
    for (int i = 0; i < b.lanes.n; i++) {
        gf_nvjpeg_close(b.lanes.jpeg[i]);
        gf_cuda_close(b.lanes.cu[i]);
    }
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
