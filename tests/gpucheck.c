/* SPDX-License-Identifier: MIT */
/* The CUDA path against the CPU path, bit for bit, over a grid: sizes (1x1,
 * 1xN, Nx1, primes, an 8K-wide strip, sizes that are not tile multiples),
 * 8 and 16 bit, 1-4 channels, every border, radii up to beyond the image,
 * every operation and multi-operation chains.
 *   gpucheck --probe   open the device and print its name (exit 1 if none)
 *   gpucheck [--quick] run the grid (exit 77 if no device) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
static char tmpdir[64];

static int fill_max; /* every sample at the maximum (the largest sums) */
static int hist_bins; /* -bins for -histogram steps (0: the default) */
static int rot_clear; /* -background none for rotations (gray and RGB gain an alpha channel) */

static void fill(gf_image *img, int smooth)
{
    unsigned max = gf_maxval(img->depth);
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            for (int c = 0; c < img->channels; c++)
                gf_image_set(img, x, y, c,
                             fill_max ? max
                             : smooth ? (unsigned)(max * (0.5 + 0.5 * sin(0.05 * x + c) * cos(0.07 * y)))
                                    : next() % (max + 1));
}

static int parse_chain(const char *chain, gf_border border, gf_step *steps, char *buf)
{
    int n = 0;
    strcpy(buf, chain);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok + 1, '=');
        if (eq)
            *eq = '\0';
        gf_step *s = &steps[n++];
        memset(s, 0, sizeof *s);
        s->op = gf_op_find(tok + 1);
        s->border = border;
        s->bins = hist_bins;
        s->bg.given = rot_clear; /* rgba all 0: none */
        if (!s->op) {
            fprintf(stderr, "gpucheck: bad op %s\n", tok);
            exit(2);
        }
        const char *arg = eq ? eq + 1 : NULL;
        if (s->op->arg == GF_ARG_REQUIRED)
            arg = strtok(NULL, " ");
        if (s->op->passthrough)
            arg = NULL;
        if (s->op->parse && !s->op->passthrough && s->op->parse(s, arg)) {
            fprintf(stderr, "gpucheck: bad argument for %s: %s\n", tok, gf_error_detail(GF_EINVAL));
            exit(2);
        }
    }
    return n;
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

/* Runs `chain` on a W x H x C / D image both ways and compares. */
static void check(const char *chain, int w, int h, int c, int d, gf_border border, long tol)
{
    gf_step steps[16];
    char buf[256], pc[128], pg[128];
    int n = parse_chain(chain, border, steps, buf);
    snprintf(pc, sizeof pc, "%s/cpu.csv", tmpdir);
    snprintf(pg, sizeof pg, "%s/gpu.csv", tmpdir);
    gf_image a, b;
    if (gf_image_alloc(&a, w, h, c, d) || gf_image_alloc(&b, w, h, c, d))
        exit(2);
    fill(&a, (w + h + c) % 2);
    memcpy(b.data, a.data, a.stride * h);
    for (int i = 0; i < n; i++)
        if (steps[i].op->passthrough)
            steps[i].path = pc;
    gf_status st = gf_pipeline_cpu(steps, n, &a, 1ull << 40, 0, "cpu");
    for (int i = 0; i < n; i++)
        if (steps[i].op->passthrough)
            steps[i].path = pg;
    gf_status sg = st ? st : gf_cuda_run(cu, steps, n, &b, 1ull << 40, 0, "gpu");
    cases++;
    const char *bn[] = {"clamp", "mirror", "wrap", "zero"};
    if (st || sg) {
        fprintf(stderr, "FAIL %s %dx%dx%d/%d %s: %s\n", chain, w, h, c, d, bn[border], gf_error_detail(st ? st : sg));
        mismatches++;
        goto out;
    }
    if (a.width != b.width || a.height != b.height || a.channels != b.channels) {
        fprintf(stderr, "FAIL %s %dx%dx%d/%d: shapes differ\n", chain, w, h, c, d);
        mismatches++;
        goto out;
    }
    long worst = 0, bad = 0;
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++)
            for (int ch = 0; ch < a.channels; ch++) {
                long diff = labs((long)gf_image_get(&a, x, y, ch) - (long)gf_image_get(&b, x, y, ch));
                if (diff > worst)
                    worst = diff;
                if (diff > tol && bad++ < 3)
                    fprintf(stderr, "FAIL %s %dx%dx%d/%d %s at (%d,%d,%d): cpu %u gpu %u\n", chain, w, h, c, d,
                            bn[border], x, y, ch, gf_image_get(&a, x, y, ch), gf_image_get(&b, x, y, ch));
            }
    samples += (long)a.width * a.height * a.channels;
    if (bad)
        mismatches++;
    if (strstr(chain, "histogram") && !same_file(pc, pg)) {
        fprintf(stderr, "FAIL %s %dx%dx%d/%d: histogram files differ\n", chain, w, h, c, d);
        mismatches++;
    }
out:
    gf_image_free(&a);
    gf_image_free(&b);
}

int main(int argc, char **argv)
{
    const int probe = argc > 1 && !strcmp(argv[1], "--probe");
    const int quick = argc > 1 && !strcmp(argv[1], "--quick");
    if (gf_cuda_open(-1, &cu)) {
        printf("gpucheck: %s\n", gf_error_detail(GF_ENODEV));
        return probe ? 1 : 77;
    }
    printf("gpucheck: %s\n", gf_cuda_device_name(cu));
    if (probe)
        return 0;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gpucheck.XXXXXX");
    if (!mkdtemp(tmpdir))
        return 2;

    /* rows of whole 16-byte words (16 / 4 / 64 / 512 pixels wide at some C)
     * take the word kernels: one word, a few, one warp, strips of 16 rows;
     * 256x192 and 400x336 have whole-word rows both ways at every C, so the
     * axis swaps take the 16-byte tile kernel (400x336 with partial tiles) */
    static const int full_sizes[][2] = {{1, 1},    {1, 37},    {37, 1},   {13, 7},   {130, 67},  {257, 129},
                                        {1031, 67}, {8192, 2},  {2, 1500}, {641, 479}, {3000, 3},  {100, 100},
                                        {16, 37},   {4, 33},    {64, 50},  {512, 100}, {256, 192}, {400, 336}};
    static const int quick_sizes[][2] = {{1, 1},   {1, 37},  {37, 1},  {13, 7},   {130, 67},
                                         {1031, 5}, {16, 37}, {512, 20}, {256, 192}};
    const int (*sizes)[2] = quick ? quick_sizes : full_sizes;
    const int nsizes = quick ? (int)(sizeof quick_sizes / sizeof quick_sizes[0])
                             : (int)(sizeof full_sizes / sizeof full_sizes[0]);
    static const char *const blurs[] = {"-blur 0.5", "-blur 2", "-blur 5", "-blur 40x3", "-blur 20", "-blur 300x100"};
    static const char *const boxes[] = {"-box 1", "-box 5", "-box 15", "-box 50", "-box 300", "-box 2"};
    static const char *const others[] = {"-laplacian", "-laplacian=4", "-transpose",    "-transverse", "-flip",
                                         "-flop",      "-rotate 90",   "-rotate 180",   "-rotate 270", "-equalize",
                                         "-histogram", "-rotate 30",   "-rotate 200.5", "-rotate 3",   "-rotate 87.5",
                                         "-rotate 300"}; /* warps 8, 16 and 32 wide */
    const int nothers = (int)(sizeof others / sizeof others[0]);
    static const char *const chains[] = {"-blur 2 -laplacian -rotate 90", "-box 3 -equalize -transpose -blur 1",
                                         "-rotate 33 -box 1 -flip", "-flop -blur 3 -rotate 270 -box 2 -histogram"};
    int k = 0;
    for (int si = 0; si < nsizes; si++) {
        const int w = sizes[si][0], h = sizes[si][1];
        const int big = (long)w * h > 20000;
        for (int d = 8; d <= 16; d += 8)
            for (int c = 1; c <= 4; c++) {
                for (int b = 0; b < 4; b++, k++) {
                    /* big sigmas and radii on the small images only (the CPU reference is O(R)) */
                    check(blurs[big ? k % 4 % 3 : k % 6], w, h, c, d, (gf_border)b, 0);
                    check(boxes[big ? k % 3 : k % 6], w, h, c, d, (gf_border)b, 0);
                    check(others[k % 2], w, h, c, d, (gf_border)b, 0);
                    if (quick)
                        break;
                }
                for (int o = 2; o < nothers; o++)
                    check(others[o], w, h, c, d, GF_BORDER_CLAMP, o >= 11 ? 1 : 0);
                if (!quick)
                    check(chains[(c + d) % 4], w, h, c, d, (gf_border)(c % 4), 1);
            }
    }
    /* the tensor-core blur (8-bit, W a multiple of 16; both passes in one
     * kernel up to 3 windows, else H a multiple of 8): radii at every window
     * count, 1 to 10, and past it (153); a centre tap of 2^16 (sigma 0.2),
     * which it leaves to the other kernels; partial tiles both ways, and
     * several strips of rows down a tall image (80x1100) */
    static const int mma_sizes[][2] = {{16, 8}, {128, 48}, {80, 1100}, {272, 40}, {48, 136}};
    static const char *const mma_blurs[] = {"-blur 0.2",  "-blur 1",     "-blur 8x3",     "-blur 9x3",
                                            "-blur 24x8", "-blur 25x8",  "-blur 60x20",   "-blur 100x30",
                                            "-blur 152x50", "-blur 153x50"};
    for (int si = 0; si < (quick ? 3 : 5); si++)
        for (int c = 1; c <= 4; c++)
            for (int i = 0; i < 10; i++)
                check(mma_blurs[i], mma_sizes[si][0], mma_sizes[si][1], c, 8, (gf_border)((i + c + si) % 4), 0);
    fill_max = 1;
    for (int c = 1; c <= 4; c++) {
        check(mma_blurs[c % 2 ? 1 : 7], 128, 48, c, 8, GF_BORDER_CLAMP, 0);
        /* every sample in one bin (the maximum): one counter takes every count of its channel */
        check("-histogram", 2048, 1031, c, 8, GF_BORDER_CLAMP, 0);
        check("-histogram", 2048, 1031, c, 16, GF_BORDER_CLAMP, 0);
        /* the one-pass box's largest sums, where its mean is the multiply-high
         * alone (radius 34, 50) and where it takes a shift too (35, 127) */
        static const char *const max_boxes[] = {"-box 34", "-box 35", "-box 50", "-box 127"};
        for (int i = 0; i < 4; i++)
            check(max_boxes[i], 1024, 80, c, 8, (gf_border)i, 0);
        /* the staged row pass's largest 32-bit sums (16-bit, radius 127), and
         * 8-bit rows of an odd number of samples, which take it too; the
         * one-pass box's on 16-bit rows of whole words (sums up to 65535 *
         * 255^2 + 255^2 / 2, near 2^32, divided by box_div32) */
        check("-box 127", 1031, 40, c, 16, (gf_border)(c % 4), 0);
        check("-box 127", 1024, 40, c, 16, (gf_border)((c + 2) % 4), 0);
        check("-box 50", 1024, 40, c, 16, (gf_border)((c + 3) % 4), 0);
        check("-box 127", 1031, 40, c, 8, (gf_border)((c + 1) % 4), 0);
        /* RGBA8's running sums in 16-bit lanes at their largest (radius 7), and
         * past them (8); its whole-pixel slide at its largest radius (16) */
        if (c == 4)
            for (int b = 0; b < 4; b++) {
                check(b % 2 ? "-box 8" : "-box 7", 1024, 80, c, 8, (gf_border)b, 0);
                check("-box 16", 1024, 80, c, 8, (gf_border)b, 0);
            }
    }
    fill_max = 0;
    /* fewer bins than levels (8-bit: shifted samples), and a tail of samples after the last 16-byte word */
    hist_bins = 16;
    for (int c = 1; c <= 4; c++)
        for (int d = 8; d <= 16; d += 8)
            check("-histogram", 131, 67, c, d, GF_BORDER_CLAMP, 0);
    /* more bins than the default 256 (16-bit: 1024, samples shifted by 6) */
    hist_bins = 1024;
    for (int c = 1; c <= 4; c++)
        check("-histogram", 131, 67, c, 16, GF_BORDER_CLAMP, 0);
    hist_bins = 0;
    /* 8-bit equalisation over more 16-byte words than its blocks take in one
     * step (at most 8 blocks of 1024 words an SM: 17.3 M samples on 132 SMs),
     * with a tail of 6 or 12 samples after the last word; C = 3 only in the quick run */
    for (int c = quick ? 3 : 1; c <= (quick ? 3 : 4); c++)
        check("-equalize", 5003, 5300 / c, c, 8, GF_BORDER_CLAMP, 0);
    /* radius 300 on a 100x100 image: the column halo no longer fits shared memory */
    for (int c = 1; c <= 4; c++)
        check("-blur 300x100", 100, 100, c, c % 2 ? 8 : 16, (gf_border)(c % 4), 0);
    /* the 3x3 word kernels' blocks inside the image (rows and words read
     * without the border rule) take a path of their own: rows of 260 words
     * and more (3 blocks of 128), strips of rows clear of both ends; 16-bit
     * Laplacians there too, and on rows of one word (8 samples) at every C
     * that has them, where both ends of the word come from the border rule */
    for (int c = 1; c <= 4; c++) {
        check(c % 2 ? "-laplacian" : "-laplacian=4", 4160, quick ? 40 : 70, c, 8, (gf_border)(c % 4), 0);
        check(c % 2 ? "-laplacian=4" : "-laplacian", 4160, quick ? 40 : 70, c, 16, (gf_border)((c + 1) % 4), 0);
        if (8 % c == 0)
            for (int b = 0; b < 4; b++)
                check(b % 2 ? "-laplacian" : "-laplacian=4", 8 / c, 9, c, 16, (gf_border)b, 0);
        if (!quick)
            check("-box 1", 4160, 70, c, 8, (gf_border)((c + 1) % 4), 0);
    }
    /* the one-pass box (8- and 16-bit rows of whole words, radius 2 to 127): several
     * strips of the row and bands of rows, a last batch of rows cut short,
     * strips at the row ends whose halo the border rule fills (from columns
     * of the strip for clamp and mirror), and rows narrower than the radius */
    static const char *const fused_boxes[] = {"-box 2", "-box 5", "-box 50", "-box 127"};
    for (int c = 1; c <= 4; c++)
        for (int b = 0; b < 4; b++) {
            for (int i = 0; i < (quick ? 1 : 4); i++)
                for (int d = 8; d <= 16; d += 8)
                    check(fused_boxes[(i + b + c) % 4], 4160, 75, c, d, (gf_border)b, 0);
            check("-box 127", 16, 300, c, 8, (gf_border)b, 0);
            check("-box 127", 8, 300, c, 16, (gf_border)b, 0);
        }
    /* RGBA8 on either side of the radius where the one-pass box stops sliding whole pixels */
    for (int b = 0; b < 4; b++)
        check(b % 2 ? "-box 17" : "-box 16", 4160, 75, 4, 8, (gf_border)b, 0);
    /* RGBA8 at every radius of the whole-pixel slide with 32-bit running sums
     * (8 to 16), under every border: rows with strips at both ends (the
     * windows' edges at every place in a word), and rows narrower than the radius */
    for (int r = 8; r <= 16; r++)
        for (int b = 0; b < 4; b++) {
            char op[16];
            snprintf(op, sizeof op, "-box %d", r);
            check(op, 1040, 24, 4, 8, (gf_border)b, 0);
            if (r % 4 == b)
                check(op, 8, 40, 4, 8, (gf_border)b, 0);
        }
    /* the one-pass box at every radius from 2 to 9 and every C: halos of 1
     * to 3 words, the windows' edges (R C samples out) at 8 places in a word */
    for (int c = 1; c <= 4; c++)
        for (int r = 2; r <= 9; r++) {
            char op[16];
            snprintf(op, sizeof op, "-box %d", r);
            check(op, 1040, 40, c, 8, (gf_border)((r + c) % 4), 0);
        }
    /* rotations onto a clear background, where gray and RGB gain an alpha
     * channel; 8-bit images at sizes with whole tiles of the output inside
     * the image (staged in shared memory), at angles whose tiles' footprints
     * are wide and tall, and of a pixel or less (RGBA8: from L1) */
    rot_clear = 1;
    for (int c = 1; c <= 4; c++)
        for (int d = 8; d <= 16; d += 8)
            check(c % 2 ? "-rotate 30" : "-rotate 80", 641, 479, c, d, GF_BORDER_CLAMP, 1);
    rot_clear = 0;
    static const int rot_sizes[][2] = {{1000, 1000}, {64, 32}, {130, 66}, {2049, 300}, {300, 2049}};
    static const char *const rot_angles[] = {"-rotate 30", "-rotate 80", "-rotate 135.7", "-rotate 1", "-rotate 359"};
    for (int si = 0; si < 5; si++)
        for (int c = 1; c <= 4; c++)
            for (int i = 0; i < (quick ? 2 : 5); i++)
                check(rot_angles[(i + si + c) % 5], rot_sizes[si][0], rot_sizes[si][1], c, 8, GF_BORDER_CLAMP, 1);
    /* more strips than the fused blur's persistent blocks (a few per SM):
     * each block takes several, one after another */
    if (!quick) {
        check("-blur 2", 4096, 1100, 4, 8, GF_BORDER_CLAMP, 0);
        check("-blur 5", 4096, 1100, 3, 8, GF_BORDER_MIRROR, 0);
        check("-blur 1", 8192, 2100, 1, 8, GF_BORDER_WRAP, 0);
    }
    printf("gpucheck: %ld cases, %ld samples compared, %ld mismatching cases\n", cases, samples, mismatches);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd)) {
    }
    gf_cuda_close(cu);
    return mismatches ? 1 : 0;
}
