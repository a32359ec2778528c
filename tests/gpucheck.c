/* SPDX-License-Identifier: MIT */
/* The CUDA path against the CPU path, bit for bit, driven by the op table:
 * every op's test fragments (gf_ops[]->tests) over a grid of images (sizes
 * whose rows are and are not whole 16-byte words, partial tiles, strips,
 * several strips and bands; 8 and 16 bit; 1 to 4 channels; the four borders
 * in turn; random, smooth and all-maximum samples), chains of three
 * consecutive ops, and (not --quick) each op's first fragment on
 * photo-sized images.  Every kernel path of every op (gf_cuda_op.paths)
 * must be taken somewhere in the grid.
 *   gpucheck --probe   open the device and print its name (exit 1 if none)
 *   gpucheck [--quick] [-j N] [--op NAME,...]   run the grid (exit 77 if no
 *                      device), in N processes taking every Nth case (each
 *                      its own CUDA context, opened after the fork); with
 *                      --op, only the cases of those ops (chains: those that
 *                      start with one) */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cuda.h"
#include "pipeline.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static gf_cuda *cu;
static long cases, samples, mismatches;
static const char *const border_names[] = {"clamp", "mirror", "wrap", "zero"};

/* Paths taken, per CUDA op object (the orientation ops share one). */
#define MAX_PATHS 16
static struct {
    const gf_cuda_op *op;
    long hits[MAX_PATHS];
} taken[32];

static void count_path(const gf_cuda_op *op, int path, long n)
{
    for (int i = 0; i < 32 && path >= 0 && path < MAX_PATHS; i++)
        if (!taken[i].op || taken[i].op == op) {
            taken[i].op = op;
            taken[i].hits[path] += n;
            return;
        }
    fprintf(stderr, "gpucheck: path %d of a CUDA op cannot be counted (at most 32 ops, %d paths each)\n", path,
            MAX_PATHS);
    exit(2);
}

enum fill { RANDOM, SMOOTH, MAXIMUM, PHOTO };

static void make(gf_image *img, int w, int h, int c, int d, enum fill f)
{
    if (gf_image_alloc(img, w, h, c, d))
        exit(2);
    const unsigned max = gf_maxval(d);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++) {
                double s = 0.5 + 0.5 * sin(0.05 * x + ch) * cos(0.07 * y);
                unsigned v = f == MAXIMUM  ? max
                             : f == SMOOTH ? (unsigned)(max * s)
                             : f == PHOTO  ? (unsigned)(max * (0.9 * s + 0.1 * (next() % 1000) / 1000.0))
                                           : next() % (max + 1);
                gf_image_set(img, x, y, ch, v);
            }
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* The files the CPU run wrote in c/ equal those the GPU run wrote in g/ (then both go). */
static int same_files(void)
{
    DIR *d = opendir("c");
    struct dirent *e;
    int same = 1;
    char a[300], b[300];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(a, sizeof a, "c/%s", e->d_name);
            snprintf(b, sizeof b, "g/%s", e->d_name);
            same &= same_file(a, b);
            remove(a);
            remove(b);
        }
    if (d)
        closedir(d);
    return same;
}

static void in_dir(const char *d)
{
    if (chdir(d)) {
        perror("gpucheck: chdir");
        exit(2);
    }
}

/* Runs the steps of `ops` (with -border `border`) on `src` both ways and compares. */
static void check(const char *ops, const gf_image *src, int border)
{
    char text[512];
    snprintf(text, sizeof text, "-border %s %s", border_names[border], ops);
    gf_plan plan;
    if (gf_cli_parse_ops(text, &plan)) {
        fprintf(stderr, "gpucheck: bad fragment '%s': %s\n", text, gf_error_detail(GF_EINVAL));
        exit(2);
    }
    const int w = src->width, h = src->height, c = src->channels, d = src->depth;
    gf_shape out = gf_image_shape(src);
    size_t most = 0;
    if (gf_chain_shape(plan.steps, plan.nsteps, &out, 1ull << 40, &most) || (most > (64u << 20) && w * h < 1000000)) {
        gf_plan_free(&plan); /* a canvas far larger than the image: the CPU reference would take too long */
        return;
    }
    char what[600];
    snprintf(what, sizeof what, "%s on %dx%dx%d/%d", text, w, h, c, d);
    /* the kernel path each step takes, on the shape entering it */
    gf_shape shape = gf_image_shape(src);
    for (int i = 0; i < plan.nsteps; i++) {
        const gf_step *s = &plan.steps[i];
        gf_image at = {shape.width, shape.height, shape.channels, shape.depth, 0, NULL};
        at.stride = (size_t)at.width * at.channels * (at.depth / 8);
        count_path(s->op->cuda, s->op->cuda->path(s, &at), 1);
        gf_shape next;
        if (!s->op->passthrough && !gf_step_shape(s, &shape, &next))
            shape = next;
    }
    gf_image a, b;
    if (gf_image_alloc(&a, w, h, c, d) || gf_image_alloc(&b, w, h, c, d))
        exit(2);
    memcpy(a.data, src->data, src->stride * h);
    memcpy(b.data, src->data, src->stride * h);
    in_dir("c");
    const gf_status st = gf_pipeline_cpu(plan.steps, plan.nsteps, &a, 1ull << 40, 0, "cpu", 1);
    in_dir("../g");
    const gf_status sg = st ? st : gf_cuda_run(cu, plan.steps, plan.nsteps, &b, 1ull << 40, 0, "gpu");
    in_dir("..");
    cases++;
    long bad = 0;
    if (st || sg) {
        fprintf(stderr, "FAIL %s: %s\n", what, gf_error_detail(st ? st : sg));
        bad = 1;
    } else if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        fprintf(stderr, "FAIL %s: shapes differ\n", what);
        bad = 1;
    } else {
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++)
                for (int ch = 0; ch < a.channels; ch++) {
                    unsigned u = gf_image_get(&a, x, y, ch), v = gf_image_get(&b, x, y, ch);
                    if (u != v && bad++ < 3)
                        fprintf(stderr, "FAIL %s at (%d,%d,%d): cpu %u gpu %u\n", what, x, y, ch, u, v);
                }
        samples += (long)a.width * a.height * a.channels;
    }
    if (!same_files()) {
        fprintf(stderr, "FAIL %s: the files written differ\n", what);
        bad = 1;
    }
    mismatches += bad != 0;
    gf_image_free(&a);
    gf_image_free(&b);
    gf_plan_free(&plan);
}

/* This process's share of the cases: those whose number is `share` modulo `shares`. */
static int share, shares = 1;
static long job;
static int mine(void)
{
    return job++ % shares == share;
}

/* --op: the ops to check, NAME,NAME,... (NULL: all). */
static const char *only;
static int wanted(const gf_op *op)
{
    if (!only)
        return 1;
    const size_t n = strlen(op->name);
    for (const char *p = only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, op->name, n) && (p[n] == ',' || !p[n]))
            return 1;
    return 0;
}

/* Runs this process's share of the grid (exit 77 if no device). */
static int run(int quick)
{
    if (gf_cuda_open(-1, &cu)) {
        printf("gpucheck: %s\n", gf_error_detail(GF_ENODEV));
        return 77;
    }
    if (share == 0)
        printf("gpucheck: %s\n", gf_cuda_device_name(cu));
    fflush(stdout);
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/gpucheck.XXXXXX");
    if (!mkdtemp(dir) || chdir(dir) || mkdir("c", 0700) || mkdir("g", 0700))
        return 2;
    /* 16 and 64 pixels wide: rows of whole 16-byte words at every C (the word
     * kernels); 64x48, 256x192: lines of whole words both ways (the tensor-core
     * blur's two passes, the 16-byte tile transposes, partial tiles at
     * 400x336); 4160 wide: several strips of the one-pass box and of the
     * word stencils' blocks; 8 and 16 wide and 300 tall: rows narrower than a
     * box's radius; 80x1100: many strips of rows */
    static const int full[][2] = {{1, 1},     {1, 37},   {37, 1},   {13, 7},   {16, 37},  {64, 48},
                                  {130, 67},  {257, 129}, {256, 192}, {400, 336}, {1031, 67}, {8, 300},
                                  {16, 300},  {4160, 75}, {80, 1100}, {8192, 2},  {2, 1500}};
    static const int brief[][2] = {{1, 1}, {13, 7}, {16, 37}, {64, 48}, {256, 192}};
    const int (*sizes)[2] = quick ? brief : full;
    const int nsizes = quick ? (int)(sizeof brief / sizeof brief[0]) : (int)(sizeof full / sizeof full[0]);
    long k = 0;
    for (int o = 0; o < gf_nops; o++) {
        const gf_op *op = gf_ops[o];
        for (const char *const *t = op->tests; wanted(op) && *t; t++)
            for (int si = 0; si < nsizes; si++)
                for (int d = 8; d <= 16; d += 8)
                    for (int c = 1; c <= 4; c++, k++) {
                        if (quick && (c + d / 8 + si) % 2) /* --quick: half the depths and channels */
                            continue;
                        if (!mine())
                            continue;
                        gf_image img;
                        make(&img, sizes[si][0], sizes[si][1], c, d, (enum fill)(k % 3));
                        check(*t, &img, (int)(k % 4));
                        gf_image_free(&img);
                    }
    }
    /* chains: each op's first fragment, then the next two ops' */
    static const int chain_sizes[][2] = {{130, 67}, {256, 192}, {1031, 67}};
    for (int o = 0; o < gf_nops; o++)
        for (int si = 0; si < (quick ? 1 : 3); si++)
            for (int c = 1; c <= 4; c++, k++) {
                if (!wanted(gf_ops[o]) || !mine())
                    continue;
                char chain[400];
                snprintf(chain, sizeof chain, "%s %s %s", gf_ops[o]->tests[0], gf_ops[(o + 1) % gf_nops]->tests[0],
                         gf_ops[(o + 2) % gf_nops]->tests[0]);
                gf_image img;
                make(&img, chain_sizes[si][0], chain_sizes[si][1], c, c % 2 ? 8 : 16, (enum fill)(k % 2));
                check(chain, &img, (int)(k % 4));
                gf_image_free(&img);
            }
    /* each op as typically used, on photo-sized images */
    for (int o = 0; !quick && o < gf_nops; o++)
        for (int i = 0; i < 2; i++) {
            if (!wanted(gf_ops[o]) || !mine())
                continue;
            gf_image img;
            make(&img, 2000, 1500, i ? 4 : 3, i ? 16 : 8, PHOTO);
            check(gf_ops[o]->tests[0], &img, GF_BORDER_CLAMP);
            gf_image_free(&img);
        }

    if (rmdir("c") || rmdir("g") || chdir("/") || rmdir(dir))
        perror("gpucheck: removing its directory");
    gf_cuda_close(cu);
    return 0;
}

/* What a share reports to the parent. */
struct tally {
    long cases, samples, mismatches;
    long hits[32][MAX_PATHS];
    const gf_cuda_op *ops[32];
};

int main(int argc, char **argv)
{
    const int probe = argc > 1 && !strcmp(argv[1], "--probe");
    int quick = 0, workers = 1;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "-j") && i + 1 < argc && atoi(argv[i + 1]) > 0)
            workers = atoi(argv[++i]) < 64 ? atoi(argv[i]) : 64;
        else if (!strcmp(argv[i], "--op") && i + 1 < argc)
            only = argv[++i];
    if (probe) {
        if (gf_cuda_open(-1, &cu)) {
            printf("gpucheck: %s\n", gf_error_detail(GF_ENODEV));
            return 1;
        }
        printf("gpucheck: %s\n", gf_cuda_device_name(cu));
        return 0;
    }
    int status = 0;
    long total_cases = cases, total_samples = samples;
    if (workers == 1) { /* in this process (as compute-sanitizer runs it) */
        if ((status = run(quick)))
            return status;
        total_cases = cases, total_samples = samples;
        goto report;
    }
    /* -j N: N processes (each its own CUDA context, opened after the fork) take every Nth case */
    shares = workers;
    int fds[64][2];
    pid_t pids[64];
    fflush(stdout);
    for (int w = 0; w < workers; w++) {
        if (pipe(fds[w]) || (pids[w] = fork()) < 0) {
            perror("gpucheck");
            return 2;
        }
        if (pids[w] == 0) {
            share = w;
            const int rc = run(quick);
            struct tally t = {cases, samples, mismatches, {{0}}, {0}};
            for (int i = 0; i < 32; i++) {
                t.ops[i] = taken[i].op;
                memcpy(t.hits[i], taken[i].hits, sizeof t.hits[i]);
            }
            fflush(stdout);
            fflush(stderr);
            _exit(write(fds[w][1], &t, sizeof t) == (ssize_t)sizeof t ? rc : 2);
        }
        close(fds[w][1]);
    }
    mismatches = 0;
    memset(taken, 0, sizeof taken);
    for (int w = 0; w < workers; w++) {
        struct tally t;
        const ssize_t got = read(fds[w][0], &t, sizeof t);
        int rc = 2;
        waitpid(pids[w], &rc, 0);
        rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 2;
        close(fds[w][0]);
        if (rc == 77)
            return 77;
        if (rc || got != (ssize_t)sizeof t) {
            fprintf(stderr, "FAIL gpucheck share %d: exit %d\n", w, rc);
            status = 1;
            continue;
        }
        total_cases += t.cases, total_samples += t.samples, mismatches += t.mismatches;
        for (int i = 0; i < 32 && t.ops[i]; i++)
            for (int p = 0; p < MAX_PATHS; p++)
                if (t.hits[i][p])
                    count_path(t.ops[i], p, t.hits[i][p]);
    }
report:
    for (int i = 0; i < 32 && taken[i].op; i++) {
        const gf_op *const *o = gf_ops;
        while ((*o)->cuda != taken[i].op)
            o++;
        const gf_op *op = *o;
        if (!wanted(op)) /* reached only through a chain */
            continue;
        printf("gpucheck: -%s's kernels (cases):", op->name);
        for (int p = 0; op->cuda->paths[p]; p++) {
            printf("%s %s %ld", p ? "," : "", op->cuda->paths[p], taken[i].hits[p]);
            if (!taken[i].hits[p]) {
                fprintf(stderr, "FAIL -%s: kernel path '%s' never taken\n", op->name, op->cuda->paths[p]);
                mismatches++;
            }
        }
        printf("\n");
    }
    printf("gpucheck: %ld cases, %ld samples compared, %ld mismatching cases\n", total_cases, total_samples,
           mismatches);
    return mismatches || status ? 1 : 0;
}
