/* SPDX-License-Identifier: MIT */
/* Differential test of the plain-PNG reader (src/io/codec_png.c) against
 * gpufilter's libpng path: mutants of the seed files, each decoded both
 * ways, must get the same verdict (decoded or refused, with the same
 * message) and, decoded, the same pixels.
 *
 *   pngdiff CASES SEED FILE...
 *
 * A mutant changes the zlib stream of the image data (bits of the deflate
 * blocks, a byte, the header, a cut; the stream as the seed has it, or its
 * rows deflated again with fixed codes, whose unused symbols 286-287 and
 * distances 30-31 a flipped bit reaches, or with Huffman codes alone) or the
 * chunks after it (a new one, its name sometimes not four letters), then
 * writes every CRC anew, so that
 * libpng's chunk checks pass and the verdict is the inflater's.  Two mutants
 * in three also get the Adler-32 of what libdeflate inflates from the
 * damaged stream, where it inflates it: streams that an inflater more
 * lenient than zlib accepts reach the end whole.  Prints
 *   N cases: A decoded alike, R refused alike, D differ
 * and exits 1 when D > 0, the first such mutant written to pngdiff-fail.png. */
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "codec.h"

static unsigned long long state;

static unsigned rnd(unsigned n)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((state >> 33) % n);
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* A growing byte buffer; exits on allocation failure (a test tool). */
struct buf {
    uint8_t *p;
    size_t n, cap;
};

static void add(struct buf *b, const void *p, size_t n)
{
    if (!n)
        return; /* p may be NULL */
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        if (!(b->p = realloc(b->p, b->cap))) {
            perror("pngdiff");
            exit(2);
        }
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void chunk(struct buf *b, const char *type, const uint8_t *data, size_t n)
{
    uint8_t h[8];
    put32(h, (uint32_t)n);
    memcpy(h + 4, type, 4);
    add(b, h, 8);
    add(b, data, n);
    uint32_t crc = (uint32_t)crc32(crc32(0, h + 4, 4), data, (uInt)n);
    put32(h, crc);
    add(b, h, 4);
}

/* A seed split: the chunks before the image data, its zlib stream, the
 * chunks after it (IEND excluded). */
struct seed {
    struct buf head, z[3], tail; /* z: as written, and deflated again with fixed codes and with Huffman codes alone */
    size_t raw; /* the filtered rows' size */
};

/* raw[0..n) deflated by zlib with `strategy` into *z */
static int deflate_as(const uint8_t *raw, size_t n, int strategy, struct buf *z)
{
    z_stream zs = {0};
    uLong cap = compressBound((uLong)n);
    z->p = malloc(cap);
    if (!z->p || deflateInit2(&zs, 6, Z_DEFLATED, 15, 8, strategy) != Z_OK)
        return -1;
    zs.next_in = (Bytef *)raw, zs.avail_in = (uInt)n, zs.next_out = z->p, zs.avail_out = (uInt)cap;
    const int rc = deflate(&zs, Z_FINISH);
    z->n = z->cap = zs.total_out;
    deflateEnd(&zs);
    return rc == Z_STREAM_END ? 0 : -1;
}

static int load(const char *path, struct seed *s)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct buf file = {0};
    uint8_t tmp[65536];
    size_t got;
    while ((got = fread(tmp, 1, sizeof tmp, f)) > 0)
        add(&file, tmp, got);
    fclose(f);
    memset(s, 0, sizeof *s);
    if (file.n < 8 + 25 || memcmp(file.p + 12, "IHDR", 4)) {
        free(file.p);
        return -1;
    }
    const uint8_t *ihdr = file.p + 16;
    const size_t ch[7] = {1, 0, 3, 0, 2, 0, 4}, bpp = ch[ihdr[9] % 7] * (ihdr[8] / 8);
    s->raw = (get32(ihdr) * bpp + 1) * get32(ihdr + 4);
    int seen = 0;
    for (size_t o = 8; o + 12 <= file.n; o += 12 + get32(file.p + o)) {
        const uint8_t *c = file.p + o;
        const size_t len = get32(c);
        if (len > file.n - o - 12 || !memcmp(c + 4, "IEND", 4))
            break;
        if (!memcmp(c + 4, "IDAT", 4)) {
            add(&s->z[0], c + 8, len);
            seen = 1;
        } else {
            add(seen ? &s->tail : &s->head, c, 12 + len);
        }
    }
    free(file.p);
    uint8_t *raw = seen && s->raw ? malloc(s->raw) : NULL;
    uLongf rows = (uLongf)s->raw;
    const int ok = raw && uncompress(raw, &rows, s->z[0].p, (uLong)s->z[0].n) == Z_OK && rows == s->raw &&
                   !deflate_as(raw, s->raw, Z_FIXED, &s->z[1]) && !deflate_as(raw, s->raw, Z_HUFFMAN_ONLY, &s->z[2]);
    free(raw);
    return ok ? 0 : -1;
}

/* A deflate bit writer: values LSB first, Huffman codes MSB first. */
struct bits {
    struct buf b;
    unsigned acc, n;
};

static void put_bits(struct bits *w, unsigned v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        w->acc |= ((v >> i) & 1u) << w->n;
        if (++w->n == 8) {
            const uint8_t byte = (uint8_t)w->acc;
            add(&w->b, &byte, 1);
            w->acc = w->n = 0;
        }
    }
}

static void put_code(struct bits *w, unsigned code, unsigned n)
{
    for (unsigned i = n; i-- > 0;)
        put_bits(w, (code >> i) & 1u, 1);
}

/* A symbol of the fixed literal/length code (RFC 1951, 3.2.6), 0-287. */
static void fixed_symbol(struct bits *w, unsigned sym)
{
    if (sym < 144)
        put_code(w, 0x30 + sym, 8);
    else if (sym < 256)
        put_code(w, 0x190 + sym - 144, 9);
    else if (sym < 280)
        put_code(w, sym - 256, 7);
    else
        put_code(w, 0xC0 + sym - 280, 8);
}

/* A zlib stream of one fixed-code block holding `n` bytes that uses a code
 * RFC 1951 reserves, which zlib refuses: the bytes of `raw` as literals up
 * to its last 258 (3 with `dist`), then length symbol 286 or 287 at distance
 * 1 (libdeflate reads length 258), or with `dist` length 3 at distance code
 * 30 or 31; then the Adler-32 of what libdeflate inflates from it. */
static void reserved_code(const uint8_t *raw, size_t n, int dist, struct buf *z)
{
    struct bits w = {0};
    const size_t lits = n - (dist ? 3 : 258);
    add(&w.b, "\x78\x01", 2);
    put_bits(&w, 1, 1); /* the final block */
    put_bits(&w, 1, 2); /* fixed codes */
    for (size_t i = 0; i < lits; i++)
        fixed_symbol(&w, raw[i]);
    fixed_symbol(&w, dist ? 257 : 286 + rnd(2));
    put_code(&w, dist ? 30 + rnd(2) : 0, 5);
    if (dist)
        put_bits(&w, 0, 13);
    fixed_symbol(&w, 256);
    put_bits(&w, 0, 7); /* to the byte */
    uint8_t adler[4] = {0};
    add(&w.b, adler, 4);
    *z = w.b;
}

/* One mutant of s into *out. */
static void mutate(const struct seed *s, struct buf *out)
{
    struct buf z = {0}, tail = {0};
    const struct buf *from = &s->z[rnd(3)];
    add(&z, from->p, from->n);
    add(&tail, s->tail.p, s->tail.n);
    const size_t body = z.n > 6 ? z.n - 6 : 0; /* the deflate data between header and Adler-32 */
    const unsigned kind = rnd(8);
    if (kind >= 6 && s->raw > 258 + (kind == 7 ? 40000 : 0)) { /* distance codes 30-31 reach past 32 KiB */
        uint8_t *raw = malloc(s->raw);
        uLongf rows = (uLongf)s->raw;
        if (raw && uncompress(raw, &rows, s->z[0].p, (uLong)s->z[0].n) == Z_OK) {
            free(z.p);
            reserved_code(raw, s->raw, kind == 7, &z);
        }
        free(raw);
    }
    switch (kind) {
    case 0: /* bits anywhere in the blocks */
        for (unsigned k = 1 + rnd(4); body && k; k--)
            z.p[2 + rnd((unsigned)body)] ^= (uint8_t)(1u << rnd(8));
        break;
    case 1: /* a bit of the first block's header: its code lengths */
        if (body)
            z.p[2 + rnd(body < 64 ? (unsigned)body : 64)] ^= (uint8_t)(1u << rnd(8));
        break;
    case 2: /* a byte */
        if (body)
            z.p[2 + rnd((unsigned)body)] = (uint8_t)rnd(256);
        break;
    case 3: /* the zlib header */
        z.p[rnd(2)] ^= (uint8_t)(1u << rnd(8));
        break;
    case 4: /* cut short */
        z.n = rnd((unsigned)z.n);
        break;
    case 5: { /* a chunk after the image data, named by letters or not */
        char name[5];
        for (int i = 0; i < 4; i++)
            name[i] = (char)((rnd(2) ? 'a' : 'A') + rnd(26));
        if (rnd(3) == 0)
            name[rnd(4)] = (char)("1 _\x7f\xc3"[rnd(5)]);
        name[0] |= 0x20; /* ancillary: what libpng may pass over */
        const uint8_t data[3] = {1, 2, 3};
        struct buf c = {0};
        chunk(&c, name, data, rnd(4));
        add(&tail, c.p, c.n);
        free(c.p);
        break;
    }
    default: /* reserved_code's stream, whose Adler-32 follows */
        break;
    }
    /* two in three, and every reserved_code stream: an Adler-32 that matches
     * what libdeflate inflates */
    if ((kind >= 6 || rnd(3)) && z.n > 6) {
        struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
        uint8_t *raw = malloc(s->raw);
        size_t in = 0, got = 0;
        if (d && raw &&
            libdeflate_deflate_decompress_ex(d, z.p + 2, z.n - 6, raw, s->raw, &in, &got) == LIBDEFLATE_SUCCESS) {
            z.n = 2 + in + 4;
            put32(z.p + 2 + in, libdeflate_adler32(1, raw, got));
        }
        free(raw);
        libdeflate_free_decompressor(d);
    }
    out->n = 0;
    add(out, "\x89PNG\r\n\x1a\n", 8);
    add(out, s->head.p, s->head.n);
    const size_t cut = rnd(2) && z.n > 1 ? 1 + rnd((unsigned)z.n - 1) : z.n; /* one IDAT chunk or two */
    chunk(out, "IDAT", z.p, cut);
    if (cut < z.n)
        chunk(out, "IDAT", z.p + cut, z.n - cut);
    add(out, tail.p, tail.n);
    chunk(out, "IEND", (const uint8_t *)"", 0); /* zlib's crc32 of NULL is its initial value */
    free(z.p);
    free(tail.p);
}

/* Decodes b one way: its status, its message into msg, its image into img. */
static gf_status decode(const struct buf *b, int libpng_only, gf_image *img, char *msg, size_t cap)
{
    gf_meta meta = {0};
    gf_decode_opts o = {.limit_pixels = 1u << 26, .quiet = 1, .meta = &meta, .libpng_only = libpng_only};
    gf_status st = gf_png_decode(b->p, b->n, &o, img);
    snprintf(msg, cap, "%s", st ? gf_error_detail(st) : "");
    gf_error_clear();
    gf_meta_free(&meta);
    return st;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: pngdiff CASES SEED FILE...\n");
        return 2;
    }
    const long cases = atol(argv[1]);
    state = strtoull(argv[2], NULL, 10);
    const int nseeds = argc - 3;
    struct seed *seeds = calloc((size_t)nseeds, sizeof *seeds);
    for (int i = 0; seeds && i < nseeds; i++)
        if (load(argv[3 + i], &seeds[i])) {
            fprintf(stderr, "pngdiff: %s: not a PNG with image data\n", argv[3 + i]);
            return 2;
        }
    long same_ok = 0, same_bad = 0, differ = 0;
    struct buf m = {0};
    for (long k = 0; seeds && k < cases; k++) {
        mutate(&seeds[k % nseeds], &m);
        gf_image a = {0}, b = {0};
        char ma[256], mb[256];
        const gf_status sa = decode(&m, 0, &a, ma, sizeof ma), sb = decode(&m, 1, &b, mb, sizeof mb);
        int same = sa == sb && !strcmp(ma, mb);
        if (same && !sa)
            same = a.width == b.width && a.height == b.height && a.channels == b.channels && a.depth == b.depth &&
                   !memcmp(a.data, b.data, a.stride * (size_t)a.height);
        if (!same && !differ++) {
            FILE *f = fopen("pngdiff-fail.png", "wb");
            if (f) {
                fwrite(m.p, 1, m.n, f);
                fclose(f);
            }
            fprintf(stderr, "pngdiff: case %ld: plain path '%s', libpng '%s'%s (written to pngdiff-fail.png)\n", k,
                    sa ? ma : "decoded", sb ? mb : "decoded", !sa && !sb ? ", pixels differ" : "");
        }
        same_ok += same && !sa;
        same_bad += same && sa;
        gf_image_free(&a);
        gf_image_free(&b);
    }
    printf("%ld cases: %ld decoded alike, %ld refused alike, %ld differ\n", cases, same_ok, same_bad, differ);
    free(m.p);
    for (int i = 0; seeds && i < nseeds; i++) {
        free(seeds[i].head.p);
        free(seeds[i].tail.p);
        for (int k = 0; k < 3; k++)
            free(seeds[i].z[k].p);
    }
    free(seeds);
    return differ ? 1 : 0;
}
