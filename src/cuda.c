/* SPDX-License-Identifier: MIT */
/* The CUDA back end, host side (C only; kernels are launched through
 * kernels/gf_kernels.h): device choice, buffers sized once per image (two
 * ping-pong image buffers plus scratch), one upload, the whole chain on the
 * device on one stream, one download.  Every CUDA call is checked. */
#include "config.h"
#include "cuda.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "gf_kernels.h"
#include "pipeline.h"

struct gf_cuda {
    int device;
    char name[300];
    cudaStream_t stream;
    void *buf[2];
    size_t buf_cap[2];
    void *scratch;
    size_t scratch_cap;
    uint32_t *taps;
    size_t taps_cap;
    unsigned long long *counts;
    size_t counts_cap;
    int pinned;      /* batch lanes: stage transfers through `stage` */
    void *stage;     /* page-locked host buffer, grown as needed, reused */
    size_t stage_cap;
};

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

gf_status gf_cuda_count(int *n)
{
    *n = 0;
    cudaError_t e = cudaGetDeviceCount(n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *n = 0;
        return gf_error(GF_ENODEV, "no usable CUDA driver or device (%s)", cudaGetErrorString(e));
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
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return gf_error(GF_ENODEV, "no usable CUDA driver or device (%s)", cudaGetErrorString(e));
    }
    if (count == 0)
        return gf_error(GF_ENODEV, "no CUDA device found");
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
    release((void **)&cu->taps, &cu->taps_cap);
    release((void **)&cu->counts, &cu->counts_cap);
    cudaFreeHost(cu->stage);
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

static gf_status launched(cudaError_t e, const char *op)
{
    return e == cudaSuccess ? GF_OK : fail(e, op);
}

gf_status gf_cuda_blur(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    uint32_t *q;
    gf_status st = gf_blur_taps(s->sigma, s->radius, GF_BLUR_BITS(in->depth), &q);
    if (st)
        return st;
    const size_t tap_bytes = ((size_t)s->radius + 1) * sizeof *q;
    if (!(st = ensure((void **)&cu->taps, &cu->taps_cap, tap_bytes, "blur taps")) &&
        !(st = ensure(&cu->scratch, &cu->scratch_cap, gf_blur_scratch_bytes(in), "blur intermediate"))) {
        cudaError_t e = cudaMemcpyAsync(cu->taps, q, tap_bytes, cudaMemcpyHostToDevice, cu->stream);
        /* pageable source: the copy has been staged when the call returns, q may go */
        st = e != cudaSuccess ? fail(e, "cudaMemcpyAsync(taps)")
                              : launched(gf_blur_launch(in, out, cu->scratch, cu->taps, q[0], s->radius, s->border,
                                                        GF_KERNEL_TILED, cu->stream),
                                         "blur kernels");
    }
    free(q);
    return st;
}

gf_status gf_cuda_box(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    gf_status st = ensure(&cu->scratch, &cu->scratch_cap, gf_box_scratch_bytes(in, s->radius, GF_KERNEL_TILED),
                          "box intermediate");
    if (st)
        return st;
    return launched(gf_box_launch(in, out, cu->scratch, s->radius, s->border, GF_KERNEL_TILED, cu->stream),
                    "box kernels");
}

gf_status gf_cuda_laplacian(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    return launched(gf_laplacian_launch(in, out, s->variant == 4, s->border, GF_KERNEL_TILED, cu->stream),
                    "laplacian kernel");
}

gf_status gf_cuda_orient(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    return launched(gf_orient_launch(in, out, s->variant, cu->stream), "orientation kernel");
}

gf_status gf_cuda_rotate(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    if (s->variant >= 0) /* a right angle (parse_rotate) */
        return gf_cuda_orient(cu, s, in, out);
    uint32_t bg[4];
    gf_rotate_background(s, out->channels, in->depth, bg);
    const double a = s->angle * M_PI / 180.0;
    return launched(gf_rotate_launch(in, out, cos(a), sin(a), bg, cu->stream), "rotate kernel");
}

gf_status gf_cuda_histogram(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    (void)out;
    const int bins = gf_histogram_bins(s, in->depth);
    const size_t n = (size_t)in->channels * bins;
    gf_status st = ensure((void **)&cu->counts, &cu->counts_cap, n * sizeof(unsigned long long), "histogram");
    if (st)
        return st;
    uint64_t *host = malloc(n * sizeof *host);
    if (!host)
        return gf_error(GF_ENOMEM, "out of memory");
    cudaError_t e = gf_histogram_launch(in, bins, cu->counts, cu->stream);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(host, cu->counts, n * sizeof *host, cudaMemcpyDeviceToHost, cu->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(cu->stream);
    st = e != cudaSuccess ? fail(e, "histogram") : gf_histogram_write(s->path, in, bins, host);
    free(host);
    return st;
}

gf_status gf_cuda_equalize(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    (void)s;
    gf_status st = ensure(&cu->scratch, &cu->scratch_cap, gf_equalize_scratch_bytes(in), "equalize tables");
    if (st)
        return st;
    return launched(gf_equalize_launch(in, out, cu->scratch, cu->stream), "equalize kernels");
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

gf_status gf_cuda_run(gf_cuda *cu, const gf_step *steps, int nsteps, gf_image *img, uint64_t limit, int verbose,
                      const char *name)
{
    CU(cudaSetDevice(cu->device)); /* the calling thread may be new to this device */
    /* Shapes first: limits are checked and buffers sized before any work. */
    for (int i = 0; i < nsteps; i++)
        if (!steps[i].op->passthrough && !steps[i].op->cuda)
            return gf_error(GF_EINTERNAL, "-%s has no CUDA implementation", steps[i].op->name);
    gf_shape shape = gf_image_shape(img);
    const size_t in_bytes = img->stride * (size_t)img->height;
    size_t most = 0;
    gf_status st = gf_chain_shape(steps, nsteps, &shape, limit, &most);
    if (st || (st = ensure(&cu->buf[0], &cu->buf_cap[0], most, "image buffer")) ||
        (st = ensure(&cu->buf[1], &cu->buf_cap[1], most, "image buffer")))
        return st;

    gf_image result;
    if ((st = gf_image_alloc(&result, shape.width, shape.height, shape.channels, shape.depth)))
        return st;
    cudaEvent_t *ev = NULL;
    const int nev = nsteps + 3;
    if (verbose) {
        ev = calloc((size_t)nev, sizeof *ev);
        for (int i = 0; ev && i < nev; i++)
            if (cudaEventCreate(&ev[i]) != cudaSuccess) {
                st = fail(cudaGetLastError(), "cudaEventCreate");
                break;
            }
    }
#define MARK(i)                                                                                                        \
    do {                                                                                                               \
        if (ev && !st) {                                                                                               \
            cudaError_t e_ = cudaEventRecord(ev[i], cu->stream);                                                      \
            if (e_ != cudaSuccess)                                                                                     \
                st = fail(e_, "cudaEventRecord");                                                                      \
        }                                                                                                              \
    } while (0)

    /* Batch lanes: images in page-locked memory (a worker's pool) move by DMA
     * directly; others go through the lane's reused staging buffer, a plain
     * memcpy plus a DMA at full speed, which beats the driver's pageable path. */
    const int src_locked = cu->pinned && page_locked(img->data);
    const int dst_locked = cu->pinned && page_locked(result.data);
    uint8_t *pin = st || (src_locked && dst_locked) ? NULL : stage(cu, most);
    const void *src = img->data;
    if (pin && !src_locked) {
        memcpy(pin, img->data, in_bytes);
        src = pin;
    }
    void *dst = pin && !dst_locked ? (void *)pin : result.data;
    gf_image cur = *img;
    int which = 0;
    cur.data = cu->buf[0];
    MARK(0);
    if (!st) {
        cudaError_t e = cudaMemcpyAsync(cu->buf[0], src, in_bytes, cudaMemcpyHostToDevice, cu->stream);
        if (e != cudaSuccess)
            st = fail(e, "cudaMemcpyAsync(upload)");
    }
    MARK(1);
    for (int i = 0; !st && i < nsteps; i++) {
        const gf_step *s = &steps[i];
        if (s->op->passthrough) {
            st = s->op->cuda(cu, s, &cur, NULL);
        } else {
            gf_shape in = gf_image_shape(&cur), o;
            gf_step_shape(s, &in, &o);
            gf_image next = {o.width, o.height, o.channels, o.depth,
                             (size_t)o.width * o.channels * (o.depth / 8), cu->buf[1 - which]};
            if (!(st = s->op->cuda(cu, s, &cur, &next))) {
                cur = next;
                which = 1 - which;
            }
        }
        MARK(i + 2);
    }
    if (!st) {
        const size_t out_bytes = result.stride * result.height;
        cudaError_t e = cudaMemcpyAsync(dst, cur.data, out_bytes, cudaMemcpyDeviceToHost, cu->stream);
        if (e == cudaSuccess && ev)
            e = cudaEventRecord(ev[nsteps + 2], cu->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(cu->stream);
        if (e != cudaSuccess)
            st = fail(e, "download");
        else if (dst != result.data)
            memcpy(result.data, dst, out_bytes);
    }
    if (!st && ev) {
        float ms;
        char info[64];
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        gf_timing(name, "upload", ms, src_locked ? "(cuda, page-locked)" : pin ? "(cuda, staged)" : "(cuda)");
        for (int i = 0; i < nsteps; i++) {
            cudaEventElapsedTime(&ms, ev[i + 1], ev[i + 2]);
            snprintf(info, sizeof info, "(cuda:%d)", cu->device);
            gf_timing(name, steps[i].op->name, ms, info);
        }
        cudaEventElapsedTime(&ms, ev[nsteps + 1], ev[nsteps + 2]);
        gf_timing(name, "download", ms, dst_locked ? "(cuda, page-locked)" : pin ? "(cuda, staged)" : "(cuda)");
    }
#undef MARK
    for (int i = 0; ev && i < nev; i++)
        if (ev[i])
            cudaEventDestroy(ev[i]);
    free(ev);
    if (st) {
        gf_image_free(&result);
        return st;
    }
    gf_image_free(img);
    *img = result;
    return GF_OK;
}
