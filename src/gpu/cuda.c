/* SPDX-License-Identifier: MIT */
/* The CUDA back end, host side (C only): device choice; device memory (two
 * ping-pong image buffers sized once per image, the ops' scratch, under an
 * optional cap); page-locked host memory for batch lanes; and the chain: one
 * upload, every op's kernels on one stream (each op through its table entry,
 * src/ops/<op>/<op>.cu), one download.  Every CUDA call is checked. */
#include "config.h"
#include "cuda.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gf_kernels.h"

struct gf_cuda {
    int device;
    size_t memory; /* the device's, in bytes */
    char name[300];
    cudaStream_t stream;
    void *buf[2];      /* the chain's ping-pong image buffers */
    size_t buf_cap[2];
    void *scratch;     /* the current step's (gf_cuda_scratch) */
    size_t scratch_cap;
    void *consts;      /* small uploads (gf_cuda_upload), and their host copy */
    size_t consts_cap;
    void *consts_host;
    size_t consts_bytes;
    int pinned;        /* batch lanes: stage transfers through `stage` */
    void *stage;       /* page-locked host buffer, grown as needed, reused */
    size_t stage_cap;
    void *chunk[2];    /* single images: two page-locked chunks of CHUNK bytes */
    cudaEvent_t chunk_free[2];
};

/* A single image moves through two page-locked chunks taking turns: the
 * memcpy into (or out of) one overlaps the DMA of the other. */
#define CHUNK ((size_t)8 << 20)

static gf_status fail(cudaError_t e, const char *what)
{
    (void)cudaGetLastError(); /* clear a non-sticky error */
    if (e == cudaErrorMemoryAllocation)
        return gf_error(GF_EDEVMEM, "out of GPU memory (%s)", what);
    return gf_error(GF_ECUDA, "CUDA error in %s: %s", what, cudaGetErrorString(e));
}

#define CU(call)                                                                                                      \
    do {                                                                                                              \
        cudaError_t e_ = (call);                                                                                      \
        if (e_ != cudaSuccess)                                                                                        \
            return fail(e_, #call);                                                                                   \
    } while (0)

/* GPUFILTER_GPU_MEMORY caps the device memory this process allocates (over
 * all its GPUs and lanes): bytes, or with a K, M or G suffix (powers of 1024).
 * An image that does not fit then fails as on a GPU that is too small. */
static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    int bad;     /* the variable is set but not a size */
    size_t cap;  /* SIZE_MAX: no cap */
    size_t used;
} budget = {PTHREAD_ONCE_INIT, PTHREAD_MUTEX_INITIALIZER, 0, SIZE_MAX, 0};

static void budget_init(void)
{
    const char *v = getenv("GPUFILTER_GPU_MEMORY");
    if (!v || !*v)
        return;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K': case 'k': shift = 10; end++; break;
    case 'M': case 'm': shift = 20; end++; break;
    case 'G': case 'g': shift = 30; end++; break;
    default: break;
    }
    if (errno || end == v || !isdigit((unsigned char)*v) || *end || n > (SIZE_MAX >> shift))
        budget.bad = 1;
    else
        budget.cap = (size_t)n << shift;
}

/* Takes `need` bytes from the budget; false (and `left`, what remains) when
 * that would pass the cap. */
static int budget_take(size_t need, size_t *left)
{
    pthread_mutex_lock(&budget.lock);
    const int ok = need <= budget.cap - budget.used;
    if (ok)
        budget.used += need;
    *left = budget.cap - budget.used;
    pthread_mutex_unlock(&budget.lock);
    return ok;
}

static void budget_give(size_t bytes)
{
    pthread_mutex_lock(&budget.lock);
    budget.used -= bytes;
    pthread_mutex_unlock(&budget.lock);
}

/* Frees a device buffer made by ensure(). */
static cudaError_t release(void **p, size_t *cap)
{
    cudaError_t e = *p ? cudaFree(*p) : cudaSuccess;
    budget_give(*cap);
    *p = NULL;
    *cap = 0;
    return e;
}

/* Grows a device buffer to at least `need` bytes (contents not kept). */
static gf_status ensure(void **p, size_t *cap, size_t need, const char *what)
{
    if (need <= *cap)
        return GF_OK;
    CU(release(p, cap));
    size_t left;
    if (!budget_take(need, &left))
        return gf_error(GF_EDEVMEM, "out of GPU memory: %s needs %zu MiB, GPUFILTER_GPU_MEMORY leaves %zu MiB", what,
                        need >> 20, left >> 20);
    cudaError_t e = cudaMalloc(p, need);
    if (e != cudaSuccess) {
        *p = NULL;
        budget_give(need);
        size_t free_b = 0, total = 0;
        (void)cudaGetLastError();
        cudaMemGetInfo(&free_b, &total);
        if (e == cudaErrorMemoryAllocation)
            return gf_error(GF_EDEVMEM, "out of GPU memory: %s needs %zu MiB, %zu MiB free", what, need >> 20,
                            free_b >> 20);
        return fail(e, "cudaMalloc");
    }
    *cap = need;
    return GF_OK;
}

/* Why cudaGetDeviceCount failed with `e`, in the user's words. */
static gf_status no_device(cudaError_t e)
{
    int drv = 0, rt = 0;
    (void)cudaGetLastError();
    cudaDriverGetVersion(&drv); /* 0: no driver installed */
    cudaRuntimeGetVersion(&rt);
    (void)cudaGetLastError();
    if (!drv)
        return gf_error(GF_ENODEV, "no CUDA driver found");
    if (e == cudaErrorInsufficientDriver)
        return gf_error(GF_ENODEV, "the CUDA driver (%d.%d) is older than this build's CUDA runtime (%d.%d)",
                        drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
    if (e == cudaErrorNoDevice)
        return gf_error(GF_ENODEV, "no CUDA device found");
    return gf_error(GF_ENODEV, "no usable CUDA device (%s)", cudaGetErrorString(e));
}

gf_status gf_cuda_count(int *n)
{
    *n = 0;
    cudaError_t e = cudaGetDeviceCount(n);
    if (e != cudaSuccess) {
        *n = 0;
        return no_device(e);
    }
    return *n ? GF_OK : gf_error(GF_ENODEV, "no CUDA device found");
}

void gf_cuda_use_pinned(gf_cuda *cu)
{
    cu->pinned = 1;
}

gf_status gf_cuda_open(int index, gf_cuda **out)
{
    int count = 0;
    *out = NULL;
    gf_status st = gf_cuda_count(&count);
    if (st)
        return st;
    cudaError_t e;
    pthread_once(&budget.once, budget_init);
    if (budget.bad)
        return gf_error(GF_EINVAL, "GPUFILTER_GPU_MEMORY='%s' is not a size (bytes, or with a K, M or G suffix)",
                        getenv("GPUFILTER_GPU_MEMORY"));
    const int dev = index < 0 ? 0 : index;
    if (dev >= count)
        return gf_error(GF_ENODEV, "no CUDA device %d (found %d)", dev, count);
    gf_cuda *cu = calloc(1, sizeof *cu);
    if (!cu)
        return gf_error(GF_ENOMEM, "out of memory");
    struct cudaDeviceProp prop;
    if ((e = cudaSetDevice(dev)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&cu->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        (void)cudaGetLastError();
        free(cu);
        return gf_error(GF_ENODEV, "CUDA device %d does not work (%s)", dev, cudaGetErrorString(e));
    }
    cu->device = dev;
    cu->memory = prop.totalGlobalMem;
    snprintf(cu->name, sizeof cu->name, "cuda:%d (%s, %d SMs, %.1f GiB)", dev, prop.name, prop.multiProcessorCount,
             prop.totalGlobalMem / 1073741824.0);
    *out = cu;
    return GF_OK;
}

void gf_cuda_close(gf_cuda *cu)
{
    if (!cu)
        return;
    release(&cu->buf[0], &cu->buf_cap[0]);
    release(&cu->buf[1], &cu->buf_cap[1]);
    release(&cu->scratch, &cu->scratch_cap);
    release(&cu->consts, &cu->consts_cap);
    free(cu->consts_host);
    cudaFreeHost(cu->stage);
    for (int i = 0; i < 2; i++) {
        cudaFreeHost(cu->chunk[i]);
        if (cu->chunk_free[i])
            cudaEventDestroy(cu->chunk_free[i]);
    }
    cudaStreamDestroy(cu->stream);
    free(cu);
}

const char *gf_cuda_device_name(const gf_cuda *cu)
{
    return cu->name;
}

int gf_cuda_device_index(const gf_cuda *cu)
{
    return cu->device;
}

size_t gf_cuda_device_memory(const gf_cuda *cu)
{
    return cu->memory;
}

void gf_cuda_versions(char *buf, size_t size)
{
    int rt = 0, drv = 0;
    cudaRuntimeGetVersion(&rt);
    cudaDriverGetVersion(&drv);
    (void)cudaGetLastError();
    if (drv)
        snprintf(buf, size, "CUDA runtime %d.%d, driver %d.%d", rt / 1000, rt % 1000 / 10, drv / 1000,
                 drv % 1000 / 10);
    else
        snprintf(buf, size, "CUDA runtime %d.%d, no CUDA driver", rt / 1000, rt % 1000 / 10);
}

/* ---- the interface of the kernels (gf_kernels.h) ---------------------- */

cudaStream_t gf_cuda_stream(gf_cuda *cu)
{
    return cu->stream;
}

gf_status gf_cuda_scratch(gf_cuda *cu, size_t bytes, const char *what, void **p)
{
    gf_status st = ensure(&cu->scratch, &cu->scratch_cap, bytes, what);
    *p = st ? NULL : cu->scratch;
    return st;
}

gf_status gf_cuda_upload(gf_cuda *cu, const void *host, size_t bytes, void **p)
{
    *p = cu->consts;
    if (bytes == cu->consts_bytes && !memcmp(host, cu->consts_host, bytes))
        return GF_OK; /* uploaded last time (the same taps for every image of a batch) */
    gf_status st = ensure(&cu->consts, &cu->consts_cap, bytes, "constants");
    void *copy = st ? NULL : realloc(cu->consts_host, bytes);
    if (st)
        return st;
    if (!copy)
        return gf_error(GF_ENOMEM, "out of memory");
    cu->consts_host = copy;
    cu->consts_bytes = 0;
    /* from pageable memory the copy is staged before the call returns: `host` may go */
    CU(cudaMemcpyAsync(cu->consts, host, bytes, cudaMemcpyHostToDevice, cu->stream));
    memcpy(copy, host, bytes);
    cu->consts_bytes = bytes;
    *p = cu->consts;
    return GF_OK;
}

gf_status gf_cuda_status(cudaError_t e, const char *what)
{
    return e == cudaSuccess ? GF_OK : fail(e, what);
}

/* ---- page-locked image memory for batch workers ------------------------ */

#define POOL_BLOCKS 3                     /* an image, its result, one spare */
#define PINNED_TOTAL_MAX ((size_t)4 << 30) /* over all workers; beyond it, malloc and staging */

static pthread_mutex_t pinned_lock = PTHREAD_MUTEX_INITIALIZER;
static size_t pinned_total;

struct pool {
    gf_host_alloc alloc; /* first: the allocator handed out is the pool */
    int device;
    void *p[POOL_BLOCKS];
    size_t cap[POOL_BLOCKS];
    int used[POOL_BLOCKS];
};

static int reserve(size_t add, size_t drop)
{
    pthread_mutex_lock(&pinned_lock);
    int ok = pinned_total - drop + add <= PINNED_TOTAL_MAX;
    if (ok)
        pinned_total = pinned_total - drop + add;
    pthread_mutex_unlock(&pinned_lock);
    return ok;
}

/* A free block of at least `bytes` (grown if need be, which costs a
 * page-locking allocation), or -1. */
static int pool_block(struct pool *pl, size_t bytes)
{
    int pick = -1;
    for (int i = 0; i < POOL_BLOCKS; i++) /* the smallest free block that fits */
        if (!pl->used[i] && pl->cap[i] >= bytes && (pick < 0 || pl->cap[i] < pl->cap[pick]))
            pick = i;
    for (int i = 0; pick < 0 && i < POOL_BLOCKS; i++) /* else a free block to regrow */
        if (!pl->used[i])
            pick = i;
    if (pick < 0)
        return -1;
    if (pl->cap[pick] < bytes) {
        if (!reserve(bytes, pl->cap[pick]))
            return -1;
        cudaFreeHost(pl->p[pick]);
        pl->p[pick] = NULL;
        if (cudaSetDevice(pl->device) != cudaSuccess ||
            cudaHostAlloc(&pl->p[pick], bytes, cudaHostAllocPortable) != cudaSuccess) {
            (void)cudaGetLastError();
            pl->p[pick] = NULL;
            reserve(0, bytes);
            pl->cap[pick] = 0;
            return -1;
        }
        pl->cap[pick] = bytes;
    }
    return pick;
}

static void *pool_alloc(void *ctx, size_t bytes)
{
    struct pool *pl = ctx;
    const int i = pool_block(pl, bytes);
    if (i < 0)
        return NULL;
    pl->used[i] = 1;
    return pl->p[i];
}

void gf_cuda_pinned_prepare(gf_host_alloc *a, size_t bytes)
{
    if (a)
        (void)pool_block((struct pool *)a, bytes);
}

static int pool_release(void *ctx, void *p)
{
    struct pool *pl = ctx;
    for (int i = 0; i < POOL_BLOCKS; i++)
        if (pl->used[i] && pl->p[i] == p) {
            pl->used[i] = 0;
            return 1;
        }
    return 0;
}

gf_host_alloc *gf_cuda_pinned_pool(int device)
{
    struct pool *pl = calloc(1, sizeof *pl);
    if (!pl)
        return NULL;
    pl->alloc = (gf_host_alloc){pool_alloc, pool_release, pl};
    pl->device = device;
    return &pl->alloc;
}

void gf_cuda_pinned_pool_free(gf_host_alloc *a)
{
    struct pool *pl = (struct pool *)a;
    if (!pl)
        return;
    for (int i = 0; i < POOL_BLOCKS; i++) {
        cudaFreeHost(pl->p[i]);
        reserve(0, pl->cap[i]);
    }
    free(pl);
}

static int page_locked(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return a.type == cudaMemoryTypeHost;
}

/* The page-locked staging buffer of a batch lane, at least `need` bytes;
 * NULL (transfers from pageable memory) when the lane has none or pinning fails. */
static void *stage(gf_cuda *cu, size_t need)
{
    if (!cu->pinned)
        return NULL;
    if (need > cu->stage_cap) {
        cudaFreeHost(cu->stage);
        cu->stage = NULL;
        cu->stage_cap = 0;
        if (cudaHostAlloc(&cu->stage, need, cudaHostAllocDefault) != cudaSuccess) {
            (void)cudaGetLastError();
            cu->stage = NULL;
            return NULL;
        }
        cu->stage_cap = need;
    }
    return cu->stage;
}

void gf_cuda_prepare_transfers(gf_cuda *cu)
{
    for (int i = 0; i < 2 && !cu->chunk[1]; i++)
        if (cudaHostAlloc(&cu->chunk[i], CHUNK, cudaHostAllocDefault) != cudaSuccess ||
            cudaEventCreateWithFlags(&cu->chunk_free[i], cudaEventDisableTiming) != cudaSuccess) {
            (void)cudaGetLastError();
            for (int j = 0; j <= i; j++) {
                cudaFreeHost(cu->chunk[j]);
                if (cu->chunk_free[j])
                    cudaEventDestroy(cu->chunk_free[j]);
                cu->chunk[j] = NULL;
                cu->chunk_free[j] = NULL;
            }
            return;
        }
}

/* Host to device through the chunks, on the stream; returns once the last
 * chunk is copied into page-locked memory (the DMAs may still run). */
static gf_status upload_chunked(gf_cuda *cu, void *dev, const void *host, size_t bytes)
{
    for (size_t off = 0, i = 0; off < bytes; off += CHUNK, i++) {
        const size_t n = bytes - off < CHUNK ? bytes - off : CHUNK;
        const int b = (int)(i & 1);
        if (i >= 2)
            CU(cudaEventSynchronize(cu->chunk_free[b]));
        memcpy(cu->chunk[b], (const char *)host + off, n);
        CU(cudaMemcpyAsync((char *)dev + off, cu->chunk[b], n, cudaMemcpyHostToDevice, cu->stream));
        CU(cudaEventRecord(cu->chunk_free[b], cu->stream));
    }
    return GF_OK;
}

/* Device to host through the chunks, after the work queued on the stream;
 * returns once all of it is in `host`. */
static gf_status download_chunked(gf_cuda *cu, void *host, const void *dev, size_t bytes)
{
    const size_t n_chunks = (bytes + CHUNK - 1) / CHUNK;
    for (size_t i = 0; i < n_chunks + 2; i++) {
        if (i >= 2) { /* chunk i - 2 has landed: copy it out, freeing its buffer */
            const size_t off = (i - 2) * CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
            CU(cudaEventSynchronize(cu->chunk_free[i & 1]));
            memcpy((char *)host + off, cu->chunk[i & 1], n);
        }
        if (i < n_chunks) {
            const size_t off = i * CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
            CU(cudaMemcpyAsync(cu->chunk[i & 1], (const char *)dev + off, n, cudaMemcpyDeviceToHost, cu->stream));
            CU(cudaEventRecord(cu->chunk_free[i & 1], cu->stream));
        }
    }
    return GF_OK;
}

/* ---- the chain ------------------------------------------------------- */

/* A chain's transfers: where the image goes up from and comes down to. */
struct transfer {
    const void *src; /* the upload's source: the image, or the staging buffer holding a copy */
    void *dst;       /* the download's target: the result, or the staging buffer */
    int chunked;     /* single images: through cu->chunk instead */
    const char *up, *down; /* for -v */
};

/* Batch lanes: images in page-locked memory (a worker's pool) move by DMA
 * directly; others go through the lane's reused staging buffer, a plain
 * memcpy plus a DMA at full speed, which beats the driver's pageable path.
 * A single image goes through the two chunks where they could be had. */
static struct transfer plan_transfer(gf_cuda *cu, const gf_image *img, const gf_image *result, size_t most)
{
    if (!cu->pinned) {
        gf_cuda_prepare_transfers(cu);
        const int chunked = cu->chunk[1] != NULL;
        const char *how = chunked ? "(cuda, through page-locked chunks)" : "(cuda)";
        return (struct transfer){img->data, result->data, chunked, how, how};
    }
    const int src_locked = cu->pinned && page_locked(img->data);
    const int dst_locked = cu->pinned && page_locked(result->data);
    void *pin = src_locked && dst_locked ? NULL : stage(cu, most);
    struct transfer t = {img->data, result->data, 0, "(cuda)", "(cuda)"};
    if (pin && !src_locked) {
        memcpy(pin, img->data, img->stride * (size_t)img->height);
        t.src = pin;
        t.up = "(cuda, staged)";
    }
    if (pin && !dst_locked) {
        t.dst = pin;
        t.down = "(cuda, staged)";
    }
    if (src_locked)
        t.up = "(cuda, page-locked)";
    if (dst_locked)
        t.down = "(cuda, page-locked)";
    return t;
}

/* Events around each stage for -v: ev[0] before the upload, ev[1] after it,
 * ev[i + 2] after step i, ev[n + 2] after the download. */
struct timing {
    cudaEvent_t *ev;
    int n;
};

static gf_status timing_start(struct timing *t, int nsteps)
{
    t->n = nsteps + 3;
    if (!(t->ev = calloc((size_t)t->n, sizeof *t->ev)))
        return gf_error(GF_ENOMEM, "out of memory");
    for (int i = 0; i < t->n; i++)
        CU(cudaEventCreate(&t->ev[i]));
    return GF_OK;
}

static gf_status mark(const struct timing *t, int i, cudaStream_t s)
{
    return t->ev ? gf_cuda_status(cudaEventRecord(t->ev[i], s), "cudaEventRecord") : GF_OK;
}

static void timing_report(const struct timing *t, gf_cuda *cu, const gf_step *steps, const char *const *paths,
                          const struct transfer *tr, const char *name)
{
    float ms;
    char info[96];
    cudaEventElapsedTime(&ms, t->ev[0], t->ev[1]);
    gf_timing(name, "upload", ms, tr->up);
    for (int i = 0; i < t->n - 3; i++) {
        cudaEventElapsedTime(&ms, t->ev[i + 1], t->ev[i + 2]);
        snprintf(info, sizeof info, "(cuda:%d, %s)", cu->device, paths[i]);
        gf_timing(name, steps[i].op->name, ms, info);
    }
    cudaEventElapsedTime(&ms, t->ev[t->n - 2], t->ev[t->n - 1]);
    gf_timing(name, "download", ms, tr->down);
}

static void timing_free(struct timing *t)
{
    for (int i = 0; t->ev && i < t->n; i++)
        if (t->ev[i])
            cudaEventDestroy(t->ev[i]);
    free(t->ev);
}

/* The steps from buffer 0, ping-pong; *out is where the result lies.  A
 * pass-through step's host part runs once its kernels are done. */
static gf_status run_steps(gf_cuda *cu, const gf_step *steps, int nsteps, const gf_image *in, gf_image *out,
                           const struct timing *t, const char **paths)
{
    gf_image cur = *in;
    int which = 0;
    cur.data = cu->buf[0];
    for (int i = 0; i < nsteps; i++) {
        const gf_step *s = &steps[i];
        const gf_cuda_op *op = s->op->cuda;
        paths[i] = op->paths[op->path(s, &cur)];
        gf_status st;
        if (s->op->passthrough) {
            if ((st = op->enqueue(cu, s, &cur, NULL)) ||
                (st = gf_cuda_status(cudaStreamSynchronize(cu->stream), s->op->name)) ||
                (st = op->finish(cu, s, &cur)))
                return st;
        } else {
            gf_shape in_shape = gf_image_shape(&cur), o;
            if ((st = gf_step_shape(s, &in_shape, &o)))
                return st;
            gf_image next = {o.width, o.height, o.channels, o.depth,
                             (size_t)o.width * o.channels * (o.depth / 8), cu->buf[1 - which]};
            if ((st = op->enqueue(cu, s, &cur, &next)))
                return st;
            cur = next;
            which = 1 - which;
        }
        if ((st = mark(t, i + 2, cu->stream)))
            return st;
    }
    *out = cur;
    return GF_OK;
}

/* Checks that the device runs every step and the limits hold along the
 * chain, and sizes the two image buffers for it; *out is the result's shape. */
static gf_status size_chain(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape in, uint64_t limit,
                            gf_shape *out, size_t *most)
{
    CU(cudaSetDevice(cu->device)); /* the calling thread may be new to this device */
    for (int i = 0; i < nsteps; i++)
        if (!steps[i].op->cuda)
            return gf_error(GF_EINTERNAL, "-%s has no CUDA implementation", steps[i].op->name);
    *out = in;
    gf_status st = gf_chain_shape(steps, nsteps, out, limit, most);
    if (st || (st = ensure(&cu->buf[0], &cu->buf_cap[0], *most, "image buffer")) ||
        (st = ensure(&cu->buf[1], &cu->buf_cap[1], *most, "image buffer")))
        return st;
    return GF_OK;
}

gf_status gf_cuda_begin(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, uint64_t limit, void **input)
{
    gf_shape out;
    size_t most;
    gf_status st = size_chain(cu, steps, nsteps, shape, limit, &out, &most);
    *input = st ? NULL : cu->buf[0];
    return st;
}

gf_status gf_cuda_chain(gf_cuda *cu, const gf_step *steps, int nsteps, gf_shape shape, gf_image *dev)
{
    const char **paths = calloc((size_t)nsteps + 1, sizeof *paths);
    if (!paths)
        return gf_error(GF_ENOMEM, "out of memory");
    const gf_image in = {shape.width, shape.height, shape.channels, shape.depth,
                         (size_t)shape.width * shape.channels * (shape.depth / 8), cu->buf[0]};
    const struct timing none = {NULL, 0};
    gf_status st = run_steps(cu, steps, nsteps, &in, dev, &none, paths);
    free(paths);
    return st;
}

gf_status gf_cuda_download(gf_cuda *cu, const gf_image *dev, gf_image *host)
{
    gf_status st = gf_image_alloc(host, dev->width, dev->height, dev->channels, dev->depth);
    if (st)
        return st;
    const size_t bytes = host->stride * (size_t)host->height;
    void *via = page_locked(host->data) ? NULL : stage(cu, bytes);
    if (!(st = gf_cuda_status(cudaMemcpyAsync(via ? via : host->data, dev->data, bytes, cudaMemcpyDeviceToHost,
                                              cu->stream),
                              "download")) &&
        !(st = gf_cuda_status(cudaStreamSynchronize(cu->stream), "download")) && via)
        memcpy(host->data, via, bytes);
    if (st)
        gf_image_free(host);
    return st;
}

gf_status gf_cuda_run(gf_cuda *cu, const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                      const char *name)
{
    /* Shapes first: limits are checked and buffers sized before any work. */
    gf_shape shape;
    size_t most = 0;
    gf_status st = size_chain(cu, steps, nsteps, gf_image_shape(img), limit, &shape, &most);
    if (st)
        return st;
    gf_image result;
    if ((st = gf_image_alloc(&result, shape.width, shape.height, shape.channels, shape.depth)))
        return st;
    const char **paths = calloc((size_t)nsteps + 1, sizeof *paths);
    struct timing t = {NULL, 0};
    const struct transfer tr = plan_transfer(cu, img, &result, most);
    gf_image out;
    if (!paths)
        st = gf_error(GF_ENOMEM, "out of memory");
    if (!st && verbose)
        st = timing_start(&t, nsteps);
    const size_t in_bytes = img->stride * (size_t)img->height, bytes = result.stride * result.height;
    if (!st && !(st = mark(&t, 0, cu->stream)) &&
        !(st = tr.chunked ? upload_chunked(cu, cu->buf[0], tr.src, in_bytes)
                          : gf_cuda_status(cudaMemcpyAsync(cu->buf[0], tr.src, in_bytes, cudaMemcpyHostToDevice,
                                                           cu->stream),
                                           "upload")) &&
        !(st = mark(&t, 1, cu->stream)) && !(st = run_steps(cu, steps, nsteps, img, &out, &t, paths))) {
        if (tr.chunked)
            st = download_chunked(cu, tr.dst, out.data, bytes);
        else
            st = gf_cuda_status(cudaMemcpyAsync(tr.dst, out.data, bytes, cudaMemcpyDeviceToHost, cu->stream),
                                "download");
        if (!st && !(st = mark(&t, nsteps + 2, cu->stream)) &&
            !(st = gf_cuda_status(cudaStreamSynchronize(cu->stream), "download")) && tr.dst != result.data)
            memcpy(result.data, tr.dst, bytes);
    }
    if (!st && verbose)
        timing_report(&t, cu, steps, paths, &tr, name);
    timing_free(&t);
    free(paths);
    if (st) {
        gf_image_free(&result);
        return st;
    }
    gf_image_free(img);
    *img = result;
    return GF_OK;
}
