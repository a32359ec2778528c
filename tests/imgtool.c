/* SPDX-License-Identifier: MIT */
/* Test helper.
 *   imgtool make W H C DEPTH SEED PATTERN OUT.pam   deterministic test image
 *       PATTERN: noise, smooth, edge, const, ramp
 *   imgtool cmp A B TOL     exit 0 if same shape and every sample within TOL
 *   imgtool info FILE       prints "W H C DEPTH"
 *   imgtool hash FILE       prints "W H C DEPTH HASH": the samples' FNV-1a (64-bit, row
 *                           order, 16-bit samples as two bytes high first), in hex
 *   imgtool get FILE X Y CH prints one sample
 *   imgtool channel FILE CH OUT.pam   channel CH alone, as a gray image
 *   imgtool stats FILE CH   prints channel CH's "MIN MAX MEAN" (mean rounded)
 *   imgtool icc FILE OUT    writes FILE's ICC profile to OUT (exit 1: none)
 *   imgtool addicc IN.jpg PROFILE OUT.jpg   inserts PROFILE's bytes (gf_jpeg_add_meta)
 *   imgtool exif FILE OUT   writes FILE's EXIF data (TIFF structure) to OUT (exit 1: none)
 *   imgtool addexif IN.jpg ORIENTATION OUT.jpg   inserts a minimal EXIF with that Orientation
 *   imgtool orient FILE     prints FILE's EXIF orientation (0: none)
 *   imgtool addmeta IN.jpg FROM OUT.jpg      inserts FROM's metadata (gf_jpeg_add_meta)
 *   imgtool addxmp IN.jpg XMP OUT.jpg        inserts XMP's bytes as the XMP packet
 *   imgtool xmp FILE OUT    writes FILE's XMP packet to OUT (exit 1: none)
 *   imgtool iptc FILE OUT   writes FILE's APP13 segment to OUT (exit 1: none)
 *   imgtool addiptc IN.jpg CAPTION OUT.jpg   inserts an APP13 whose IPTC record holds CAPTION (2:120)
 *   imgtool addcomment IN.jpg TEXT OUT.jpg   inserts TEXT as a comment (COM)
 *   imgtool addtext IN.png TYPE KEYWORD TEXT OUT.png   inserts a text chunk after IHDR
 *                           (TYPE tEXt, zTXt compressed, or iTXt uncompressed; end:TYPE
 *                           before IEND, after the image data; TEXT @FILE: FILE's bytes)
 *   imgtool texts FILE      prints "TYPE LENGTH" for each text FILE holds, in order
 *   imgtool text FILE N OUT writes text N's data (a chunk's, a comment's bytes) to OUT
 *   imgtool comment FILE N OUT   writes the comment text N gives a JPEG to OUT (exit 1: none)
 *   imgtool diff A B        prints "MAXABS PSNR" of two images of one shape
 *                           (PSNR in dB against the depth's maximum; inf when equal) */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "codec.h"

static uint64_t rng;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static int load(const char *path, gf_image *img)
{
    uint8_t *buf;
    size_t n;
    gf_format f;
    gf_decode_opts o = {.limit_pixels = 1ull << 40, .quiet = 1, .name = path};
    if (gf_read_file(path, &buf, &n)) {
        fprintf(stderr, "imgtool: %s: %s\n", path, gf_error_detail(GF_EIO));
        return -1;
    }
    gf_status st = gf_decode(buf, n, &o, img, &f);
    free(buf);
    if (st) {
        fprintf(stderr, "imgtool: %s: %s\n", path, gf_error_detail(st));
        return -1;
    }
    return 0;
}

static int cmp(const char *pa, const char *pb, long tol, gf_image *pa_img, gf_image *pb_img);

/* FILE's metadata as gpufilter reads it; 0, or 2 when FILE cannot be decoded. */
static int load_meta(const char *path, gf_meta *m)
{
    uint8_t *buf;
    size_t n;
    gf_format f;
    gf_image a;
    gf_decode_opts o = {.limit_pixels = 1ull << 40, .quiet = 1, .name = path, .meta = m};
    if (gf_read_file(path, &buf, &n))
        return 2;
    const gf_status st = gf_decode(buf, n, &o, &a, &f);
    free(buf);
    if (st)
        return 2;
    gf_image_free(&a);
    return 0;
}

/* Writes data[0..n) to PATH: 0, 1 when there is no data, 2 on a failure. */
static int write_bytes(const char *path, const uint8_t *data, size_t n)
{
    if (!data)
        return 1;
    FILE *f = fopen(path, "wb");
    return f && fwrite(data, 1, n, f) == n && !fclose(f) ? 0 : 2;
}

/* IN.jpg with m's metadata inserted (gf_jpeg_add_meta) written to OUT. */
static int splice(const char *in, const gf_meta *m, const char *out)
{
    uint8_t *jpg, *with;
    size_t n, with_len;
    if (gf_read_file(in, &jpg, &n))
        return 2;
    int rc = 2;
    if (!gf_jpeg_add_meta(jpg, n, m, &with, &with_len)) {
        rc = write_bytes(out, with, with_len);
        free(with);
    }
    free(jpg);
    return rc;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* IN.png with a TYPE text chunk of KEYWORD and TEXT (@FILE: FILE's bytes)
 * inserted after IHDR. */
static int add_text(const char *in, const char *type, const char *key, const char *arg, const char *out)
{
    const int at_end = !strncmp(type, "end:", 4);
    if (at_end)
        type += 4;
    uint8_t *png, *file = NULL;
    size_t n, tlen = strlen(arg);
    const char *text = arg;
    if (arg[0] == '@' && gf_read_file(arg + 1, &file, &tlen))
        return 2;
    if (file)
        text = (const char *)file;
    if (gf_read_file(in, &png, &n) || n < 33)
        return 2;
    const size_t klen = strlen(key) + 1;
    uLongf zlen = compressBound((uLong)tlen);
    uint8_t *chunk = malloc(12 + klen + 4 + zlen + tlen), *d = chunk + 8;
    if (!chunk)
        return 2;
    size_t len = klen;
    memcpy(d, key, klen);
    if (!strcmp(type, "zTXt")) {
        d[len++] = 0; /* method */
        compress2(d + len, &zlen, (const Bytef *)text, (uLong)tlen, 9);
        len += zlen;
    } else {
        if (!strcmp(type, "iTXt")) { /* not compressed, no language, no translation */
            memcpy(d + len, "\0\0\0", 4);
            len += 4;
        }
        memcpy(d + len, text, tlen);
        len += tlen;
    }
    put32(chunk, (uint32_t)len);
    memcpy(chunk + 4, type, 4);
    put32(d + len, (uint32_t)crc32(0, chunk + 4, (uInt)(len + 4)));
    FILE *f = fopen(out, "wb");
    const size_t at = at_end ? n - 12 : 33; /* before IEND (the file's last 12 bytes), or after IHDR */
    const int ok = f && fwrite(png, 1, at, f) == at && fwrite(chunk, 1, len + 12, f) == len + 12 &&
                   fwrite(png + at, 1, n - at, f) == n - at;
    free(chunk);
    free(png);
    free(file);
    return f && !fclose(f) && ok ? 0 : 2;
}

static gf_status emit(FILE *f, void *ctx)
{
    gf_encode_opts o = {.quality = 90, .compress = 6, .pam = 1};
    return gf_pnm_encode(f, ctx, &o);
}

int main(int argc, char **argv)
{
    if (argc == 9 && !strcmp(argv[1], "make")) {
        int w = atoi(argv[2]), h = atoi(argv[3]), c = atoi(argv[4]), d = atoi(argv[5]);
        rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)atoll(argv[6]) * 0x2545F4914F6CDD1Dull;
        if (!rng)
            rng = 1;
        const char *pat = argv[7];
        gf_image img;
        if (gf_image_alloc(&img, w, h, c, d))
            return 2;
        const unsigned max = gf_maxval(d);
        unsigned k = next() % (max + 1);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                for (int ch = 0; ch < c; ch++) {
                    unsigned v;
                    if (!strcmp(pat, "noise"))
                        v = next() % (max + 1);
                    else if (!strcmp(pat, "smooth"))
                        v = (unsigned)lround(max * (0.5 + 0.45 * sin(x * 0.11 + ch) * cos(y * 0.07 - ch)));
                    else if (!strcmp(pat, "edge"))
                        v = (x + ch) * 2 < w ? 0 : max;
                    else if (!strcmp(pat, "ramp"))
                        v = (unsigned)(((uint64_t)(x + y * w) * (max + 1) / ((uint64_t)w * h)) % (max + 1));
                    else
                        v = k;
                    gf_image_set(&img, x, y, ch, v);
                }
        if (gf_write_file(argv[8], emit, &img)) {
            fprintf(stderr, "imgtool: %s\n", gf_error_detail(GF_EIO));
            return 2;
        }
        gf_image_free(&img);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "cmp")) {
        gf_image a = {0}, b = {0};
        int rc = cmp(argv[2], argv[3], atol(argv[4]), &a, &b);
        gf_image_free(&a);
        gf_image_free(&b);
        return rc;
    }
    if (argc == 3 && !strcmp(argv[1], "info")) {
        gf_image a;
        if (load(argv[2], &a))
            return 2;
        printf("%d %d %d %d\n", a.width, a.height, a.channels, a.depth);
        gf_image_free(&a);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "hash")) {
        gf_image a;
        if (load(argv[2], &a))
            return 2;
        uint64_t h = 0xcbf29ce484222325ull;
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++)
                for (int c = 0; c < a.channels; c++) {
                    const unsigned v = gf_image_get(&a, x, y, c);
                    if (a.depth == 16)
                        h = (h ^ (v >> 8)) * 0x100000001b3ull;
                    h = (h ^ (v & 255)) * 0x100000001b3ull;
                }
        printf("%d %d %d %d %016llx\n", a.width, a.height, a.channels, a.depth, (unsigned long long)h);
        gf_image_free(&a);
        return 0;
    }
    if (argc == 6 && !strcmp(argv[1], "get")) {
        gf_image a;
        if (load(argv[2], &a))
            return 2;
        printf("%u\n", gf_image_get(&a, atoi(argv[3]), atoi(argv[4]), atoi(argv[5])));
        gf_image_free(&a);
        return 0;
    }
    if (argc == 4 && !strcmp(argv[1], "stats")) {
        gf_image a;
        const int ch = atoi(argv[3]);
        if (load(argv[2], &a) || ch < 0 || ch >= a.channels)
            return 2;
        unsigned lo = ~0u, hi = 0;
        double sum = 0;
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++) {
                const unsigned v = gf_image_get(&a, x, y, ch);
                lo = v < lo ? v : lo, hi = v > hi ? v : hi, sum += v;
            }
        printf("%u %u %.0f\n", lo, hi, sum / ((double)a.width * a.height));
        gf_image_free(&a);
        return 0;
    }
    if (argc == 4 && (!strcmp(argv[1], "exif") || !strcmp(argv[1], "icc") || !strcmp(argv[1], "xmp") ||
                      !strcmp(argv[1], "iptc"))) {
        gf_meta m = {0};
        int rc = load_meta(argv[2], &m);
        if (!rc)
            rc = !strcmp(argv[1], "exif")  ? write_bytes(argv[3], m.exif, m.exif_len)
                 : !strcmp(argv[1], "icc") ? write_bytes(argv[3], m.icc, m.icc_len)
                 : !strcmp(argv[1], "xmp") ? write_bytes(argv[3], m.xmp, m.xmp_len)
                                           : write_bytes(argv[3], m.iptc, m.iptc_len);
        gf_meta_free(&m);
        return rc;
    }
    if (argc == 5 && !strcmp(argv[1], "addiptc")) {
        /* "Photoshop 3.0\0", then one 8BIM resource 0x0404 (IPTC-NAA), no name,
         * holding the record 2:120 (caption), padded to an even size */
        const size_t cap = strlen(argv[3]), rec = 5 + cap, pad = rec & 1;
        uint8_t *b = malloc(14 + 12 + rec + pad);
        if (!b)
            return 2;
        memcpy(b, "Photoshop 3.0\0" "8BIM\x04\x04\0\0", 22);
        put32(b + 22, (uint32_t)rec);
        memcpy(b + 26, "\x1c\x02\x78", 3);
        b[29] = (uint8_t)(cap >> 8), b[30] = (uint8_t)cap;
        memcpy(b + 31, argv[3], cap);
        if (pad)
            b[31 + cap] = 0;
        const gf_meta m = {.iptc = b, .iptc_len = 26 + rec + pad};
        const int rc = splice(argv[2], &m, argv[4]);
        free(b);
        return rc;
    }
    if (argc == 5 && !strcmp(argv[1], "addcomment")) {
        gf_text t = {"COM", (uint8_t *)argv[3], strlen(argv[3])};
        const gf_meta m = {.text = &t, .ntext = 1};
        return splice(argv[2], &m, argv[4]);
    }
    if (argc == 7 && !strcmp(argv[1], "addtext"))
        return add_text(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if ((argc == 3 && !strcmp(argv[1], "texts")) ||
        (argc == 5 && (!strcmp(argv[1], "text") || !strcmp(argv[1], "comment")))) {
        gf_meta m = {0};
        int rc = load_meta(argv[2], &m);
        const size_t k = argc == 5 ? strtoul(argv[3], NULL, 10) : 0;
        if (!rc && argc == 3) {
            for (size_t i = 0; i < m.ntext; i++)
                printf("%s %zu\n", m.text[i].type, m.text[i].len);
        } else if (!rc && k >= m.ntext) {
            rc = 1;
        } else if (!rc && argv[1][1] == 'e') {
            rc = write_bytes(argv[4], m.text[k].data, m.text[k].len);
        } else if (!rc) {
            uint8_t *c = NULL;
            size_t len = 0;
            rc = gf_text_comment(&m.text[k], &c, &len) < 0 ? 2 : write_bytes(argv[4], c, len);
            free(c);
        }
        gf_meta_free(&m);
        return rc;
    }
    if (argc == 5 && !strcmp(argv[1], "addmeta")) {
        gf_meta m = {0};
        int rc = load_meta(argv[3], &m);
        if (!rc)
            rc = splice(argv[2], &m, argv[4]);
        gf_meta_free(&m);
        return rc;
    }
    if (argc == 3 && !strcmp(argv[1], "orient")) {
        gf_meta m = {0};
        const int rc = load_meta(argv[2], &m);
        if (!rc)
            printf("%d\n", gf_exif_orientation(&m));
        gf_meta_free(&m);
        return rc;
    }
    if (argc == 5 && !strcmp(argv[1], "addexif")) {
        /* little-endian TIFF: IFD0 at 8 with one entry, Orientation (0x0112), SHORT, 1 value */
        uint8_t tiff[26] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0,
                            (uint8_t)atoi(argv[3]), 0, 0, 0, 0, 0, 0, 0};
        const gf_meta m = {.exif = tiff, .exif_len = sizeof tiff};
        return splice(argv[2], &m, argv[4]);
    }
    if (argc == 5 && (!strcmp(argv[1], "addicc") || !strcmp(argv[1], "addxmp"))) {
        gf_meta m = {0};
        uint8_t **data = argv[1][3] == 'i' ? &m.icc : &m.xmp;
        size_t *len = argv[1][3] == 'i' ? &m.icc_len : &m.xmp_len;
        int rc = gf_read_file(argv[3], data, len) ? 2 : splice(argv[2], &m, argv[4]);
        gf_meta_free(&m);
        return rc;
    }
    if (argc == 4 && !strcmp(argv[1], "diff")) {
        gf_image a, b;
        if (load(argv[2], &a))
            return 2;
        if (load(argv[3], &b) || a.width != b.width || a.height != b.height || a.channels != b.channels ||
            a.depth != b.depth) {
            fprintf(stderr, "imgtool: %s and %s differ in shape\n", argv[2], argv[3]);
            return 2;
        }
        unsigned most = 0;
        double se = 0;
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++)
                for (int c = 0; c < a.channels; c++) {
                    const int d = (int)gf_image_get(&a, x, y, c) - (int)gf_image_get(&b, x, y, c);
                    most = (unsigned)abs(d) > most ? (unsigned)abs(d) : most;
                    se += (double)d * d;
                }
        const double peak = a.depth == 16 ? 65535.0 : 255.0, n = (double)a.width * a.height * a.channels;
        if (se == 0)
            printf("0 inf\n");
        else
            printf("%u %.2f\n", most, 10 * log10(peak * peak * n / se));
        gf_image_free(&a);
        gf_image_free(&b);
        return 0;
    }
    if (argc == 5 && !strcmp(argv[1], "channel")) {
        gf_image a, g;
        const int ch = atoi(argv[3]);
        if (load(argv[2], &a) || ch < 0 || ch >= a.channels || gf_image_alloc(&g, a.width, a.height, 1, a.depth))
            return 2;
        for (int y = 0; y < a.height; y++)
            for (int x = 0; x < a.width; x++)
                gf_image_set(&g, x, y, 0, gf_image_get(&a, x, y, ch));
        const int rc = gf_write_file(argv[4], emit, &g) ? 2 : 0;
        gf_image_free(&a);
        gf_image_free(&g);
        return rc;
    }
    fprintf(stderr, "usage: imgtool make W H C DEPTH SEED PATTERN OUT | cmp A B TOL | info F | get F X Y CH"
                    " | channel F CH OUT | stats F CH | icc F OUT | addicc IN PROFILE OUT | exif F OUT"
                    " | addexif IN ORIENTATION OUT | orient F | addmeta IN FROM OUT | addxmp IN XMP OUT | xmp F OUT"
                    " | diff A B\n");
    return 2;
}

/* 0 when A and B have one shape and every sample within TOL, 1 when not, 2 when one cannot be read. */
static int cmp(const char *pa, const char *pb, long tol, gf_image *pa_img, gf_image *pb_img)
{
    if (load(pa, pa_img) || load(pb, pb_img))
        return 2;
    const gf_image a = *pa_img, b = *pb_img;
    if (a.width != b.width || a.height != b.height || a.channels != b.channels || a.depth != b.depth) {
        fprintf(stderr, "imgtool: shapes differ: %dx%dx%d/%d vs %dx%dx%d/%d\n", a.width, a.height, a.channels,
                a.depth, b.width, b.height, b.channels, b.depth);
        return 1;
    }
    long worst = 0, bad = 0;
    int wx = 0, wy = 0, wc = 0;
    for (int y = 0; y < a.height; y++)
        for (int x = 0; x < a.width; x++)
            for (int ch = 0; ch < a.channels; ch++) {
                long d = labs((long)gf_image_get(&a, x, y, ch) - (long)gf_image_get(&b, x, y, ch));
                if (d > tol)
                    bad++;
                if (d > worst)
                    worst = d, wx = x, wy = y, wc = ch;
            }
    if (bad) {
        fprintf(stderr, "imgtool: %ld samples differ by more than %ld (worst %ld at %d,%d ch %d: %u vs %u)\n",
                bad, tol, worst, wx, wy, wc, gf_image_get(&a, wx, wy, wc), gf_image_get(&b, wx, wy, wc));
        return 1;
    }
    return 0;
}
