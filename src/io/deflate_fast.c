/* SPDX-License-Identifier: MIT */
/* PNG's fast level (RFC 1951): one dynamic-Huffman block per call.  The
 * input becomes tokens (literals, and runs found 64 positions at a time)
 * and their counts; then the tokens are written with length-limited
 * canonical codes built from those counts.  A run is a byte repeated after
 * itself: a match at distance 1, so the one distance code is code 0. */
#include "config.h"

#include "deflate_fast.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The shortest run coded as a match: three repeats cost a length code, its
 * extra bits and a distance bit, more than three short literals of a
 * filtered row's common bytes. */
#define MIN_RUN 4
#define MAX_RUN 258
#define LITLEN 286 /* literal/length symbols: 0-255, end of block, lengths */
#define END_BLOCK 256
#define CODE_BITS 15 /* the longest literal/length code */
#define CL_BITS 7    /* the longest code-length code */

/* ---- the length codes (RFC 1951 3.2.5) --------------------------------- */

static const uint16_t len_base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
static const uint8_t len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};

/* For each run length 3..258: its symbol's index 0..28 (symbol 257 + it). */
static uint8_t len_index[MAX_RUN + 1];

static void init_lengths(void)
{
    for (int k = 0; k < 29; k++)
        for (int l = len_base[k]; l <= MAX_RUN && (k == 28 || l < len_base[k + 1]); l++)
            len_index[l] = (uint8_t)k;
}

/* ---- Huffman codes ----------------------------------------------------- */

struct node {
    uint64_t freq;
    int sym; /* leaf: the symbol; else -1 */
    int left, right;
};

static int by_freq(const void *a, const void *b)
{
    const struct node *x = a, *y = b;
    if (x->freq != y->freq)
        return x->freq < y->freq ? -1 : 1;
    return x->sym - y->sym; /* a fixed order: the same counts give the same code */
}

/* The depth of node k's leaves into count[] (bounded at 63). */
static void depths(const struct node *t, int k, int d, int *count)
{
    if (t[k].sym >= 0) {
        count[d < 63 ? d : 63]++;
        return;
    }
    depths(t, t[k].left, d + 1, count);
    depths(t, t[k].right, d + 1, count);
}

/* Code lengths len[0..n) for the counts freq[0..n), none over `limit`: a
 * Huffman code (two queues over the leaves sorted by count), its lengths
 * then brought within the limit as JPEG's Annex K.3 does, and given back
 * shortest to the most frequent symbols.  A lone symbol gets length 1, as
 * does another, unused one. */
static void build_lengths(const uint32_t *freq, int n, int limit, uint8_t *len)
{
    struct node t[2 * LITLEN];
    int leaves = 0;
    memset(len, 0, (size_t)n);
    for (int s = 0; s < n; s++)
        if (freq[s])
            t[leaves++] = (struct node){freq[s], s, -1, -1};
    if (leaves == 0)
        return;
    if (leaves == 1) { /* a complete code of two: zlib refuses an incomplete code-length code */
        len[t[0].sym] = 1;
        len[t[0].sym ? 0 : 1] = 1;
        return;
    }
    qsort(t, (size_t)leaves, sizeof t[0], by_freq);
    int next_leaf = 0, next_inner = leaves, inners = leaves;
    for (int k = 0; k < leaves - 1; k++) {
        int pick[2];
        for (int p = 0; p < 2; p++)
            if (next_leaf < leaves && (next_inner == inners || t[next_leaf].freq <= t[next_inner].freq))
                pick[p] = next_leaf++;
            else
                pick[p] = next_inner++;
        t[inners++] = (struct node){t[pick[0]].freq + t[pick[1]].freq, -1, pick[0], pick[1]};
    }
    int count[64] = {0};
    depths(t, inners - 1, 0, count);
    for (int i = 63; i > limit; i--)
        while (count[i] > 0) {
            int j = i - 2;
            while (count[j] == 0)
                j--;
            count[i] -= 2;
            count[i - 1]++;
            count[j + 1] += 2;
            count[j]--;
        }
    /* the leaves, most frequent first, take the lengths shortest first */
    int l = 1;
    for (int k = leaves - 1; k >= 0; k--) {
        while (count[l] == 0)
            l++;
        len[t[k].sym] = (uint8_t)l;
        count[l]--;
    }
}

/* The canonical codes of lengths len[0..n) (RFC 1951 3.2.2), bit-reversed
 * for deflate's order. */
static void build_codes(const uint8_t *len, int n, uint16_t *code)
{
    int count[CODE_BITS + 2] = {0}, next[CODE_BITS + 2];
    for (int s = 0; s < n; s++)
        count[len[s]]++;
    count[0] = 0;
    int c = 0;
    for (int b = 1; b <= CODE_BITS + 1; b++) {
        c = (c + count[b - 1]) << 1;
        next[b] = c;
    }
    for (int s = 0; s < n; s++) {
        const int l = len[s];
        if (!l)
            continue;
        unsigned v = (unsigned)next[l]++, r = 0;
        for (int b = 0; b < l; b++, v >>= 1)
            r = (r << 1) | (v & 1);
        code[s] = (uint16_t)r;
    }
}

/* ---- bits -------------------------------------------------------------- */

struct bits {
    uint8_t *p;
    uint64_t buf;
    int n;
};

static inline void put(struct bits *w, uint64_t v, int n)
{
    w->buf |= v << w->n;
    w->n += n;
    if (w->n >= 32) {
        memcpy(w->p, &w->buf, 8); /* little-endian: the low 4 bytes are the next ones */
        w->p += 4;
        w->buf >>= 32;
        w->n -= 32;
    }
}

static void flush_bytes(struct bits *w)
{
    while (w->n > 0) {
        *w->p++ = (uint8_t)w->buf;
        w->buf >>= 8;
        w->n -= 8;
    }
    w->n = 0;
    w->buf = 0;
}

/* ---- the block ----------------------------------------------------------- */

/* The run of in[i - 1] starting at i (i > 0), at most MAX_RUN and within
 * n: each byte equal to the one before, eight at a time. */
static inline size_t run_at(const uint8_t *in, size_t i, size_t n)
{
    const size_t most = n - i < MAX_RUN ? n - i : MAX_RUN;
    size_t r = 0;
    for (; r + 8 <= most; r += 8) {
        uint64_t a, b;
        memcpy(&a, in + i + r, 8);
        memcpy(&b, in + i + r - 1, 8);
        if (a != b) /* little-endian: the first differing byte is the lowest */
            return r + (size_t)(__builtin_ctzll(a ^ b) >> 3);
    }
    while (r < most && in[i + r] == in[i + r - 1])
        r++;
    return r;
}

/* Bit k set where in[q + k] equals in[q + k - 1], for k in [0, 64), q > 0
 * and q + 64 <= n. */
static inline uint64_t equal_mask(const uint8_t *in, size_t q)
{
#ifdef __SSE2__
    uint64_t m = 0;
    for (int b = 0; b < 4; b++) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(in + q + 16 * b));
        const __m128i y = _mm_loadu_si128((const __m128i *)(in + q + 16 * b - 1));
        m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) << (16 * b);
    }
    return m;
#else
    uint64_t m = 0;
    for (int k = 0; k < 64; k++)
        m |= (uint64_t)(in[q + k] == in[q + k - 1]) << k;
    return m;
#endif
}

/* The first p >= i (p > 0) where a run of at least MIN_RUN starts, or n:
 * 64 positions at a time while the window and the MIN_RUN - 1 after it fit. */
static size_t next_run(const uint8_t *in, size_t i, size_t n)
{
    size_t q = i ? i : 1;
    while (q + 64 + MIN_RUN - 1 <= n) {
        const uint64_t e = equal_mask(in, q), f = equal_mask(in, q + MIN_RUN - 1);
        /* bit k: positions q + k .. q + k + MIN_RUN - 1 all repeat their
         * predecessor; position q + k + d is bit k of e >> d where k + d < 64,
         * and of f << (MIN_RUN - 1 - d) where k + d >= MIN_RUN - 1, the two
         * agreeing where both hold it and 0 elsewhere */
        uint64_t m = e;
        for (int d = 1; d < MIN_RUN; d++)
            m &= e >> d | f << (MIN_RUN - 1 - d);
        if (m)
            return q + (size_t)__builtin_ctzll(m);
        q += 64;
    }
    for (; q + MIN_RUN <= n; q++) {
        int k = 0;
        while (k < MIN_RUN && in[q + k] == in[q + k - 1])
            k++;
        if (k == MIN_RUN)
            return q;
    }
    return n;
}

/* The code-length sequence len[0..n) in the code-length alphabet (RFC 1951
 * 3.2.7): sym[] and extra[] per item, their number returned, and their
 * counts in freq[19]. */
static int cl_items(const uint8_t *len, int n, uint8_t *sym, uint8_t *extra, uint32_t *freq)
{
    int k = 0;
#define ITEM(s_, e_) (sym[k] = (uint8_t)(s_), extra[k] = (uint8_t)(e_), freq[sym[k++]]++)
    for (int i = 0; i < n;) {
        const int v = len[i];
        int r = 1;
        while (i + r < n && len[i + r] == v)
            r++;
        i += r;
        if (v == 0) {
            for (; r >= 11; r -= r > 138 ? 138 : r)
                ITEM(18, (r > 138 ? 138 : r) - 11);
            if (r >= 3)
                ITEM(17, r - 3), r = 0;
        } else {
            ITEM(v, 0), r--;
            for (; r >= 3; r -= r > 6 ? 6 : r)
                ITEM(16, (r > 6 ? 6 : r) - 3);
        }
        for (; r > 0; r--)
            ITEM(v, 0);
    }
#undef ITEM
    return k;
}

size_t gf_deflate_fast_bound(size_t n)
{
    /* every byte a literal of at most CODE_BITS bits, the header, an empty
     * stored block and the bit writer's 8-byte stores */
    return n / 8 * CODE_BITS + n % 8 * 2 + 512;
}

size_t gf_deflate_fast(const uint8_t *in, size_t n, int last, uint8_t *out)
{
    static const uint8_t cl_order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_lengths);
    /* the tokens (a literal, or 256 + a run's length) and their counts, in
     * two tables taken in turn (a run of one byte would otherwise wait on
     * each count's previous increment) */
    uint16_t *tok = malloc((n ? n : 1) * sizeof *tok);
    if (!tok)
        return 0;
    uint32_t freq[LITLEN] = {0}, freq2[LITLEN] = {0};
    size_t ntok = 0;
    for (size_t i = 0; i < n;) {
        const size_t p = next_run(in, i, n);
        for (; i < p; i++) { /* literals up to the next run */
            tok[ntok] = in[i];
            (ntok++ & 1 ? freq2 : freq)[in[i]]++;
        }
        if (p == n)
            break;
        const size_t r = run_at(in, p, n);
        tok[ntok++] = (uint16_t)(256 + r);
        freq[257 + len_index[r]]++;
        i = p + r;
    }
    for (int k = 0; k < LITLEN; k++)
        freq[k] += freq2[k];
    freq[END_BLOCK] = 1;
    uint8_t len[LITLEN + 1];
    uint16_t code[LITLEN + 1] = {0};
    build_lengths(freq, LITLEN, CODE_BITS, len);
    build_codes(len, LITLEN, code);
    int hlit = LITLEN;
    while (hlit > 257 && !len[hlit - 1])
        hlit--;
    len[hlit] = 1; /* the one distance code, distance 1: one bit, value 0 */
    /* the header's code lengths, themselves coded */
    uint8_t items[LITLEN + 1], extra[LITLEN + 1], cl_len[19];
    uint16_t cl_code[19] = {0};
    uint32_t cl_freq[19] = {0};
    const int nitems = cl_items(len, hlit + 1, items, extra, cl_freq);
    build_lengths(cl_freq, 19, CL_BITS, cl_len);
    build_codes(cl_len, 19, cl_code);
    int hclen = 19;
    while (hclen > 4 && !cl_len[cl_order[hclen - 1]])
        hclen--;

    struct bits w = {out, 0, 0};
    put(&w, last ? 1 : 0, 1); /* BFINAL */
    put(&w, 2, 2);            /* dynamic Huffman */
    put(&w, (uint64_t)(hlit - 257), 5);
    put(&w, 0, 5); /* HDIST - 1: one distance code */
    put(&w, (uint64_t)(hclen - 4), 4);
    for (int i = 0; i < hclen; i++)
        put(&w, cl_len[cl_order[i]], 3);
    static const uint8_t item_extra_bits[19] = {[16] = 2, [17] = 3, [18] = 7};
    for (int i = 0; i < nitems; i++) {
        put(&w, cl_code[items[i]], cl_len[items[i]]);
        if (items[i] >= 16)
            put(&w, extra[i], item_extra_bits[items[i]]);
    }
    /* the data: a run is its length code, extra bits and the distance bit at once */
    uint32_t run_bits[MAX_RUN + 1];
    uint8_t run_n[MAX_RUN + 1];
    for (int r = MIN_RUN; r <= MAX_RUN; r++) {
        const int k = len_index[r], sy = 257 + k;
        run_bits[r] = code[sy] | (uint32_t)(r - len_base[k]) << len[sy]; /* then distance code 0 */
        run_n[r] = (uint8_t)(len[sy] + len_extra[k] + 1);
    }
    for (size_t k = 0; k < ntok; k++) {
        const unsigned t = tok[k];
        if (t < 256)
            put(&w, code[t], len[t]);
        else
            put(&w, run_bits[t - 256], run_n[t - 256]);
    }
    free(tok);
    put(&w, code[END_BLOCK], len[END_BLOCK]);
    if (!last) /* an empty stored block: BFINAL 0, type 0, to a byte, LEN 0, NLEN */
        put(&w, 0, 3);
    flush_bytes(&w);
    if (!last) {
        memcpy(w.p, "\0\0\xff\xff", 4);
        w.p += 4;
    }
    return (size_t)(w.p - out);
}
