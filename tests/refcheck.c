/* SPDX-License-Identifier: MIT */
/* Unit tests of the CPU reference operations against naive references
 * written here, independently: float64 Gaussian, direct window sums, direct
 * 3x3 stencils, explicit index formulas, float64 bilinear rotation.  Each
 * op's test fragments from the op table, on random images of odd sizes, 1x1,
 * strips, every border, 8 and 16 bit, 1 to 4 channels.  `fast`: every op's
 * fast CPU path (src/ops/<op>/<op>_fast.c) against its reference, bit for bit (a
 * pass-through op: the files it writes, byte for byte), on the same grid and
 * larger images, on 1, 3 and 5 threads.
 *   refcheck OP    (blur, box, laplacian, orient, rotate, histogram, equalize, taps)
 *   refcheck fast [OP] */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blur/blur.h"
#include "box/box.h"
#include "cli.h"
#include "histogram/histogram.h"
#include "rotate/rotate.h"

static uint64_t rng = 88172645463325252ull;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static const int sizes[][2] = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {17, 13}, {64, 37}, {3, 70}, {70, 3}};
#define NSIZES (int)(sizeof sizes / sizeof sizes[0])
static const char *const border_names[] = {"clamp", "mirror", "wrap", "zero"};
static int failures, checks;

static void random_image(gf_image *img, int w, int h, int c, int d, int smooth)
{
    if (gf_image_alloc(img, w, h, c, d))
        exit(2);
    unsigned max = gf_maxval(d);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int ch = 0; ch < c; ch++)
                gf_image_set(img, x, y, ch,
                             smooth ? (unsigned)(max * (0.5 + 0.5 * sin(0.3 * x + ch) * cos(0.2 * y)))
                                    : next() % (max + 1));
}

/* Border by repeated reflection / modular arithmetic, written without numeric.h. */
static long ref_index(long i, long n, int border)
{
    if (i >= 0 && i < n)
        return i;
    switch (border) {
    case GF_BORDER_CLAMP: return i < 0 ? 0 : n - 1;
    case GF_BORDER_WRAP: return ((i % n) + n) % n;
    case GF_BORDER_MIRROR:
        if (n == 1)
            return 0;
        while (i < 0 || i >= n)
            i = i < 0 ? -i : 2 * (n - 1) - i;
        return i;
    default: return -1;
    }
}

static double sample(const gf_image *img, long x, long y, int ch, int border)
{
    long sx = ref_index(x, img->width, border), sy = ref_index(y, img->height, border);
    return (sx < 0 || sy < 0) ? 0.0 : gf_image_get(img, (int)sx, (int)sy, ch);
}

static const char *fragment; /* the op table's fragment being checked */

static void report(const char *what, const gf_image *in, const gf_step *s, int x, int y, int ch, double got,
                   double want)
{
    if (failures++ < 10)
        fprintf(stderr, "FAIL %s (%s) %dx%dx%d/%d border=%s at (%d,%d,%d): got %g want %g\n", what, fragment,
                in->width, in->height, in->channels, in->depth, border_names[s->border], x, y, ch, got, want);
}

static gf_status run(const gf_step *s, const gf_image *in, gf_image *out)
{
    gf_shape is = gf_image_shape(in), os;
    gf_status st = gf_step_shape(s, &is, &os);
    if (!st)
        st = gf_image_alloc(out, os.width, os.height, os.channels, os.depth);
    if (!st)
        st = s->op->cpu(s, in, out);
    if (st) {
        fprintf(stderr, "FAIL %s: %s\n", s->op->name, gf_error_detail(st));
        exit(1);
    }
    return st;
}

/* The step of `frag` (one of the op table's test fragments) under -border `border`. */
static gf_step make_step(const char *frag, int border)
{
    static gf_plan plan; /* the steps may point into its text until the next call */
    char text[256];
    gf_plan_free(&plan);
    snprintf(text, sizeof text, "-border %s %s", border_names[border], frag);
    if (gf_cli_parse_ops(text, &plan) || plan.nsteps != 1) {
        fprintf(stderr, "bad test fragment '%s'\n", frag);
        exit(2);
    }
    fragment = frag;
    return plan.steps[0];
}

/* The op table's test fragments of `op`, and their number. */
static const char *const *tests_of(const char *op, int *n)
{
    const char *const *t = gf_op_find(op)->tests;
    for (*n = 0; t[*n]; ++*n) {
    }
    return t;
}

static void check_blur(void)
{
    int na;
    const char *const *args = tests_of("blur", &na);
    for (int si = 0; si < NSIZES; si++)
        for (int a = 0; a < na; a++)
            for (int b = 0; b < 4; b++) {
                int c = 1 + (si + a) % 4, d = (si + b) % 2 ? 16 : 8;
                gf_image in, out;
                random_image(&in, sizes[si][0], sizes[si][1], c, d, a % 2);
                gf_step s = make_step(args[a], b);
                run(&s, &in, &out);
                const int R = GF_BLUR_ARGS(&s).radius, W = in.width, H = in.height;
                double *w = malloc(sizeof *w * (2 * R + 1)), tot = 0;
                for (int i = -R; i <= R; i++)
                    tot += w[i + R] = exp(-(double)i * i / (2 * GF_BLUR_ARGS(&s).sigma * GF_BLUR_ARGS(&s).sigma));
                double *t = malloc(sizeof *t * (size_t)W * H);
                for (int ch = 0; ch < c; ch++) {
                    for (int y = 0; y < H; y++)
                        for (int x = 0; x < W; x++) {
                            double acc = 0;
                            for (int i = -R; i <= R; i++)
                                acc += w[i + R] / tot * sample(&in, x + i, y, ch, b);
                            t[(size_t)y * W + x] = acc;
                        }
                    for (int y = 0; y < H; y++)
                        for (int x = 0; x < W; x++) {
                            double acc = 0;
                            for (int j = -R; j <= R; j++) {
                                long sy = ref_index(y + j, H, b);
                                acc += sy < 0 ? 0 : w[j + R] / tot * t[(size_t)sy * W + x];
                            }
                            double want = floor(acc + 0.5);
                            double got = gf_image_get(&out, x, y, ch);
                            checks++;
                            if (fabs(got - want) > 1)
                                report("blur", &in, &s, x, y, ch, got, want);
                        }
                }
                free(w);
                free(t);
                gf_image_free(&in);
                gf_image_free(&out);
            }
}

static void check_box(void)
{
    int na;
    const char *const *args = tests_of("box", &na);
    for (int si = 0; si < NSIZES; si++)
        for (int a = 0; a < na; a++)
            for (int b = 0; b < 4; b++) {
                int c = 1 + (si + a + b) % 4, d = (si + a) % 2 ? 16 : 8;
                gf_image in, out;
                random_image(&in, sizes[si][0], sizes[si][1], c, d, 0);
                gf_step s = make_step(args[a], b);
                run(&s, &in, &out);
                const long R = GF_BOX_ARGS(&s).radius, n = (2 * R + 1) * (2 * R + 1), W = in.width, H = in.height;
                double *rows = malloc(sizeof *rows * (size_t)W * H); /* each row's window sums, direct */
                for (int ch = 0; ch < c; ch++) {
                    for (long y = 0; y < H; y++)
                        for (long x = 0; x < W; x++) {
                            double r = 0;
                            for (long i = -R; i <= R; i++)
                                r += sample(&in, x + i, y, ch, b);
                            rows[y * W + x] = r;
                        }
                    for (int y = 0; y < H; y++)
                        for (int x = 0; x < W; x++) {
                            double sum = 0;
                            for (long j = -R; j <= R; j++) {
                                long sy = ref_index(y + j, H, b);
                                sum += sy < 0 ? 0 : rows[sy * W + x];
                            }
                            double want = floor(sum / n + 0.5), got = gf_image_get(&out, x, y, ch);
                            checks++;
                            if (got != want)
                                report("box", &in, &s, x, y, ch, got, want);
                        }
                }
                free(rows);
                gf_image_free(&in);
                gf_image_free(&out);
            }
}

static void check_laplacian(void)
{
    static const int k8[3][3] = {{-1, -1, -1}, {-1, 8, -1}, {-1, -1, -1}};
    static const int k4[3][3] = {{0, -1, 0}, {-1, 4, -1}, {0, -1, 0}};
    for (int si = 0; si < NSIZES; si++)
        for (int v = 0; v < 2; v++)
            for (int b = 0; b < 4; b++)
                for (int c = 1; c <= 4; c++) {
                    int d = (si + c) % 2 ? 16 : 8;
                    gf_image in, out;
                    random_image(&in, sizes[si][0], sizes[si][1], c, d, 0);
                    gf_step s = make_step(v ? "-laplacian=4" : "-laplacian", b);
                    run(&s, &in, &out);
                    const int(*k)[3] = v ? k4 : k8;
                    for (int y = 0; y < in.height; y++)
                        for (int x = 0; x < in.width; x++)
                            for (int ch = 0; ch < c; ch++) {
                                double want;
                                if (gf_has_alpha(c) && ch == c - 1) {
                                    want = gf_image_get(&in, x, y, ch);
                                } else {
                                    double acc = 0;
                                    for (int j = -1; j <= 1; j++)
                                        for (int i = -1; i <= 1; i++)
                                            acc += k[j + 1][i + 1] * sample(&in, x + i, y + j, ch, b);
                                    want = fmin(fabs(acc), gf_maxval(d));
                                }
                                double got = gf_image_get(&out, x, y, ch);
                                checks++;
                                if (got != want)
                                    report("laplacian", &in, &s, x, y, ch, got, want);
                            }
                    gf_image_free(&in);
                    gf_image_free(&out);
                }
}

static void check_orient(void)
{
    static const char *const ops[] = {"-transpose", "-transverse", "-flip", "-flop", "-rotate 90", "-rotate 180",
                                      "-rotate 270", "-rotate -90"};
    for (int si = 0; si < NSIZES; si++)
        for (int o = 0; o < 8; o++) {
            int c = 1 + (si + o) % 4, d = o % 2 ? 16 : 8;
            gf_image in, out;
            random_image(&in, sizes[si][0], sizes[si][1], c, d, 0);
            gf_step s = make_step(ops[o], 0);
            run(&s, &in, &out);
            const int W = in.width, H = in.height;
            for (int y = 0; y < out.height; y++)
                for (int x = 0; x < out.width; x++) {
                    int sx, sy;
                    switch (o) {
                    case 0: sx = y, sy = x; break;                  /* transpose */
                    case 1: sx = W - 1 - y, sy = H - 1 - x; break;  /* transverse */
                    case 2: sx = x, sy = H - 1 - y; break;          /* flip */
                    case 3: sx = W - 1 - x, sy = y; break;          /* flop */
                    case 4: sx = y, sy = H - 1 - x; break;          /* 90 clockwise */
                    case 5: sx = W - 1 - x, sy = H - 1 - y; break;  /* 180 */
                    default: sx = W - 1 - y, sy = x; break;         /* 270 = -90 */
                    }
                    for (int ch = 0; ch < c; ch++) {
                        double got = gf_image_get(&out, x, y, ch), want = gf_image_get(&in, sx, sy, ch);
                        checks++;
                        if (got != want)
                            report(ops[o], &in, &s, x, y, ch, got, want);
                    }
                }
            gf_image_free(&in);
            gf_image_free(&out);
        }
}

/* Non-right angles: float64 bilinear sampling of the same geometry (output
 * pixel centres rotated about the centres), background outside, within 1 of
 * the fixed-point reference (positions rounded to 2^-8 or 2^-16 pixel). */
static void check_rotate(void)
{
    int na;
    const char *const *args = tests_of("rotate", &na);
    for (int si = 0; si < NSIZES; si++)
        for (int a = 0; a < na; a++) {
            int c = 1 + (si + a) % 4, d = (si + a) % 3 ? 8 : 16;
            gf_image in, out;
            random_image(&in, sizes[si][0], sizes[si][1], c, d, a % 2);
            gf_step s = make_step(args[a], 0);
            if (GF_ROTATE_ARGS(&s).right) {
                gf_image_free(&in);
                continue;
            }
            run(&s, &in, &out);
            uint32_t bg[4];
            gf_rotate_background(&s, out.channels, d, bg);
            const double t = GF_ROTATE_ARGS(&s).angle * M_PI / 180, ca = cos(t), sa = sin(t);
            const int W = in.width, H = in.height;
            for (int y = 0; y < out.height; y++)
                for (int x = 0; x < out.width; x++) {
                    const double px = x + 0.5 - out.width / 2.0, py = y + 0.5 - out.height / 2.0;
                    const double sx = px * ca + py * sa + W / 2.0 - 0.5, sy = -px * sa + py * ca + H / 2.0 - 0.5;
                    const double fx = sx - floor(sx), fy = sy - floor(sy);
                    const long x0 = (long)floor(sx), y0 = (long)floor(sy);
                    for (int ch = 0; ch < out.channels; ch++) {
                        double v = 0;
                        for (int k = 0; k < 4; k++) {
                            const long xi = x0 + (k & 1), yi = y0 + (k >> 1);
                            const double wgt = (k & 1 ? fx : 1 - fx) * (k >> 1 ? fy : 1 - fy);
                            const int outside = xi < 0 || yi < 0 || xi >= W || yi >= H;
                            v += wgt * (outside ? bg[ch] : ch < c ? gf_image_get(&in, (int)xi, (int)yi, ch)
                                                                  : gf_maxval(d));
                        }
                        const double got = gf_image_get(&out, x, y, ch);
                        checks++;
                        if (fabs(got - floor(v + 0.5)) > 1)
                            report("rotate", &in, &s, x, y, ch, got, floor(v + 0.5));
                    }
                }
            gf_image_free(&in);
            gf_image_free(&out);
        }
}

static void check_histogram(void)
{
    for (int si = 0; si < NSIZES; si++)
        for (int c = 1; c <= 4; c++)
            for (int d = 8; d <= 16; d += 8) {
                gf_image in;
                random_image(&in, sizes[si][0], sizes[si][1], c, d, 0);
                const int bins = d == 8 ? 256 : 1 << (si % 8 + 2);
                uint64_t *got = calloc((size_t)c * bins, sizeof *got), *want = calloc((size_t)c * bins, sizeof *want);
                gf_histogram_count(&in, bins, got);
                for (int y = 0; y < in.height; y++)
                    for (int x = 0; x < in.width; x++)
                        for (int ch = 0; ch < c; ch++)
                            want[(size_t)ch * bins + (uint64_t)gf_image_get(&in, x, y, ch) * bins / (1u << d)]++;
                for (int i = 0; i < c * bins; i++) {
                    checks++;
                    if (got[i] != want[i] && failures++ < 10)
                        fprintf(stderr, "FAIL histogram %dx%dx%d/%d bins %d: bin %d got %llu want %llu\n",
                                in.width, in.height, c, d, bins, i, (unsigned long long)got[i],
                                (unsigned long long)want[i]);
                }
                free(got);
                free(want);
                gf_image_free(&in);
            }
}

static void check_equalize(void)
{
    for (int si = 0; si < NSIZES; si++)
        for (int c = 1; c <= 4; c++)
            for (int d = 8; d <= 16; d += 8) {
                gf_image in, out;
                random_image(&in, sizes[si][0], sizes[si][1], c, d, c % 2);
                gf_step s = make_step("-equalize", 0);
                run(&s, &in, &out);
                const unsigned max = gf_maxval(d);
                const double n = (double)in.width * in.height;
                for (int ch = 0; ch < c; ch++) {
                    int alpha = gf_has_alpha(c) && ch == c - 1;
                    unsigned lo = max;
                    for (int y = 0; y < in.height; y++)
                        for (int x = 0; x < in.width; x++)
                            if (gf_image_get(&in, x, y, ch) < lo)
                                lo = gf_image_get(&in, x, y, ch);
                    double cmin = 0;
                    for (int y = 0; y < in.height; y++)
                        for (int x = 0; x < in.width; x++)
                            cmin += gf_image_get(&in, x, y, ch) == lo;
                    for (int y = 0; y < in.height; y++)
                        for (int x = 0; x < in.width; x++) {
                            unsigned v = gf_image_get(&in, x, y, ch);
                            double cdf = 0;
                            for (int yy = 0; yy < in.height; yy++)
                                for (int xx = 0; xx < in.width; xx++)
                                    cdf += gf_image_get(&in, xx, yy, ch) <= v;
                            double want = alpha || n == cmin ? v : floor((cdf - cmin) * max / (n - cmin) + 0.5);
                            double got = gf_image_get(&out, x, y, ch);
                            checks++;
                            if (got != want)
                                report("equalize", &in, &s, x, y, ch, got, want);
                        }
                }
                gf_image_free(&in);
                gf_image_free(&out);
            }
}

static void check_taps(void)
{
    static const double sigmas[] = {0.01, 0.5, 1, 2, 5, 20, 50, 333.3};
    for (int i = 0; i < 8; i++)
        for (int d = 8; d <= 16; d += 8) {
            int bits = GF_BLUR_BITS(d), r = gf_blur_radius(sigmas[i]);
            uint32_t *q;
            if (gf_blur_taps(sigmas[i], r, bits, &q)) {
                fprintf(stderr, "FAIL taps sigma %g: %s\n", sigmas[i], gf_error_detail(GF_EINTERNAL));
                failures++;
                continue;
            }
            uint64_t sum = q[0];
            double tot = 1, worst = 0;
            for (int k = 1; k <= r; k++) {
                sum += 2ull * q[k];
                tot += 2 * exp(-(double)k * k / (2 * sigmas[i] * sigmas[i]));
            }
            for (int k = 0; k <= r; k++) {
                double exact = exp(-(double)k * k / (2 * sigmas[i] * sigmas[i])) / tot * ldexp(1, bits);
                worst = fmax(worst, fabs(q[k] - exact));
            }
            checks++;
            if (sum != 1ull << bits || worst >= 1) {
                fprintf(stderr, "FAIL taps sigma %g depth %d: sum %llu, worst tap error %g units\n", sigmas[i], d,
                        (unsigned long long)sum, worst);
                failures++;
            }
            free(q);
        }
}

/* A pass-through op (-histogram): the reference and the fast path write
 * their files under two names, which must hold the same bytes. */
static void check_fast_file(const gf_op *op, const gf_step *s, const gf_image *in, int threads)
{
    gf_step ref = *s, fast = *s;
    char want[300], got[300];
    snprintf(want, sizeof want, "ref-%s", GF_REPORT_ARGS(s).path);
    snprintf(got, sizeof got, "fast-%s", GF_REPORT_ARGS(s).path);
    GF_REPORT_ARGS(&ref).path = want, GF_REPORT_ARGS(&fast).path = got;
    if (op->cpu(&ref, in, NULL) || op->fast(&fast, in, NULL, threads)) {
        fprintf(stderr, "FAIL fast %s: %s\n", op->name, gf_error_detail(GF_EIO));
        exit(1);
    }
    uint8_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    checks++;
    if (gf_read_file(want, &a, &na) || gf_read_file(got, &b, &nb) || na != nb || memcmp(a, b, na))
        report("fast path's file (size)", in, s, 0, 0, 0, (double)nb, (double)na);
    free(a);
    free(b);
    remove(want);
    remove(got);
}

/* The fast paths of every op, or of the op named `only`. */
static void check_fast(const char *only)
{
    static const int more[][2] = {{300, 211}, {1, 500}, {513, 2}};
    for (int k = 0; k < gf_nops; k++) {
        const gf_op *op = gf_ops[k];
        if (!op->fast || (only && strcmp(op->name, only)))
            continue;
        int na;
        const char *const *args = tests_of(op->name, &na);
        for (int si = 0; si < NSIZES + 3; si++)
            for (int a = 0; a < na; a++)
                for (int b = 0; b < 4; b++)
                    for (int d = 8; d <= 16; d += 8) {
                        const int w = si < NSIZES ? sizes[si][0] : more[si - NSIZES][0];
                        const int h = si < NSIZES ? sizes[si][1] : more[si - NSIZES][1];
                        const int c = 1 + (si + a + b) % 4, threads = 1 + (si + a + b + d / 8) % 3 * 2;
                        gf_image in, want, got;
                        random_image(&in, w, h, c, d, (a + b) % 2);
                        gf_step s = make_step(args[a], b);
                        if (op->passthrough) {
                            check_fast_file(op, &s, &in, threads);
                            gf_image_free(&in);
                            continue;
                        }
                        run(&s, &in, &want);
                        gf_shape os = gf_image_shape(&want);
                        gf_status st = gf_image_alloc(&got, os.width, os.height, os.channels, os.depth);
                        if (!st)
                            st = op->fast(&s, &in, &got, threads);
                        if (st) {
                            fprintf(stderr, "FAIL fast %s: %s\n", op->name, gf_error_detail(st));
                            exit(1);
                        }
                        checks++;
                        for (int y = 0; y < os.height; y++)
                            for (int x = 0; x < os.width; x++)
                                for (int ch = 0; ch < os.channels; ch++) {
                                    const unsigned g = gf_image_get(&got, x, y, ch), r = gf_image_get(&want, x, y, ch);
                                    if (g != r) {
                                        report("fast path", &in, &s, x, y, ch, g, r);
                                        y = os.height, x = os.width, ch = os.channels; /* one report per image */
                                    }
                                }
                        if (op->in_place && !memcmp(&os, &(gf_shape){w, h, c, d}, sizeof os)) {
                            /* over its input: the same result */
                            memcpy(got.data, in.data, got.stride * (size_t)h);
                            if ((st = op->fast(&s, &got, &got, threads))) {
                                fprintf(stderr, "FAIL fast %s in place: %s\n", op->name, gf_error_detail(st));
                                exit(1);
                            }
                            checks++;
                            if (memcmp(got.data, want.data, got.stride * (size_t)h))
                                for (int y = 0; y < h; y++)
                                    for (int x = 0; x < w; x++)
                                        for (int ch = 0; ch < c; ch++) {
                                            const unsigned g = gf_image_get(&got, x, y, ch),
                                                           r = gf_image_get(&want, x, y, ch);
                                            if (g != r) {
                                                report("fast path in place", &in, &s, x, y, ch, g, r);
                                                y = h, x = w, ch = c;
                                            }
                                        }
                        }
                        gf_image_free(&in);
                        gf_image_free(&want);
                        gf_image_free(&got);
                    }
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 3 && !strcmp(argv[1], "fast"))) {
        fprintf(stderr, "usage: refcheck blur|box|laplacian|orient|rotate|histogram|equalize|taps|fast [OP]\n");
        return 2;
    }
    const char *w = argv[1];
    if (!strcmp(w, "blur"))
        check_blur();
    else if (!strcmp(w, "box"))
        check_box();
    else if (!strcmp(w, "laplacian"))
        check_laplacian();
    else if (!strcmp(w, "orient"))
        check_orient();
    else if (!strcmp(w, "rotate"))
        check_rotate();
    else if (!strcmp(w, "histogram"))
        check_histogram();
    else if (!strcmp(w, "equalize"))
        check_equalize();
    else if (!strcmp(w, "taps"))
        check_taps();
    else if (!strcmp(w, "fast"))
        check_fast(argc == 3 ? argv[2] : NULL);
    else {
        fprintf(stderr, "refcheck: unknown check '%s'\n", w);
        return 2;
    }
    printf("refcheck %s: %d checks, %d failures\n", w, checks, failures);
    return failures || !checks ? 1 : 0;
}
