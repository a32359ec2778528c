// SPDX-License-Identifier: MIT
// Box stencil: exact integer window sums, bit-identical to src/ops/box/box_ref.c, at
// a cost independent of the radius (running sums).
//
// General (any image, any radius): two passes through an intermediate of 32-
// or 64-bit sums (64 only where (2R+1)^2 max could overflow 32 bits).  Rows:
// each thread owns SEG consecutive pixels of one channel of a row, sums its
// first window (border rule applied) and slides.  Columns: each thread owns
// one sample column of CSEG rows and slides down it; consecutive threads hold
// consecutive samples, so loads and stores are coalesced.  The mean is (sum +
// n/2) / n, n = (2R+1)^2.
//
// Rows of whole 16-byte words take one pass with no intermediate: radius 1 of
// 8-bit images by words3x3::stencil (box1_op), radius up to ONE_R by box_batch
// (below, where its geometry is).
#include <algorithm>
#include <type_traits>

#include "box.h"
#include "words3x3.cuh"

namespace {

constexpr int SEG = 32, CSEG = 128; // a row thread's pixels, a column thread's rows
constexpr int ONE_R = 127;          // box_batch's largest radius: 16-bit sums of 255 (2R + 1)

template <typename Tin, typename Mid, int C>
__global__ void box_rows(const Tin *__restrict__ in, Mid *__restrict__ mid, int W, int H, int R, int border)
{
    const int segs = (W + SEG - 1) / SEG;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)H * segs * C)
        return;
    const int c = (int)(t % C), seg = (int)(t / C % segs);
    const size_t y = t / C / segs;
    const Tin *row = in + y * W * C;
    Mid *dst = mid + y * W * C;
    const int x0 = seg * SEG, x1 = min(W, x0 + SEG);
    Mid acc = 0;
    for (long i = (long)x0 - R; i <= (long)x0 + R; i++) {
        const long sx = gf_border_index(i, W, border);
        if (sx >= 0)
            acc += row[sx * C + c];
    }
    dst[(size_t)x0 * C + c] = acc;
    for (int x = x0 + 1; x < x1; x++) {
        const long add = gf_border_index((long)x + R, W, border), sub = gf_border_index((long)x - R - 1, W, border);
        if (add >= 0)
            acc += row[add * C + c];
        if (sub >= 0)
            acc -= row[sub * C + c];
        dst[(size_t)x * C + c] = acc;
    }
}

template <typename Tin, typename Mid, typename Acc>
__global__ void box_cols(const Mid *__restrict__ mid, Tin *__restrict__ out, int N, int H, int R, int border, Acc n)
{
    const int segs = (H + CSEG - 1) / CSEG;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (size_t)N * segs)
        return;
    const size_t s = t % N;
    const int y0 = (int)(t / N) * CSEG, y1 = min(H, y0 + CSEG);
    Acc acc = 0;
    for (long j = (long)y0 - R; j <= (long)y0 + R; j++) {
        const long sy = gf_border_index(j, H, border);
        if (sy >= 0)
            acc += mid[sy * N + s];
    }
    out[(size_t)y0 * N + s] = (Tin)((acc + n / 2) / n);
    for (int y = y0 + 1; y < y1; y++) {
        const long add = gf_border_index((long)y + R, H, border), sub = gf_border_index((long)y - R - 1, H, border);
        if (add >= 0)
            acc += mid[add * N + s];
        if (sub >= 0)
            acc -= mid[sub * N + s];
        out[(size_t)y * N + s] = (Tin)((acc + n / 2) / n);
    }
}

// Radius 1 on 8-bit rows of whole words (words3x3.cuh): the nine-sample sum
// (at most 2295) per 16-bit lane, then (sum + 4) / 9 as ((sum + 4) * 7282) >>
// 16, exact for every sum up to 2295 (checked exhaustively).  Of each row the
// op keeps its sums and the sums of it and the row above.
struct box1_op {
    static constexpr int MIN_BLOCKS = 7, Z = 1;
    uint32_t tE[4], tO[4], hE[4], hO[4]; // rows y - 1 and y summed; row y
    static __device__ uint32_t div9(uint32_t s) // two 16-bit lanes
    {
        return (((s & 0xffff) + 4) * 7282 >> 16) | (((s >> 16) + 4) * 7282 >> 16) << 16;
    }
    __device__ void first(const words3x3::row &a, const words3x3::row &b)
    {
#pragma unroll
        for (int j = 0; j < 4; j++)
            tE[j] = a.hE[j] + b.hE[j], tO[j] = a.hO[j] + b.hO[j], hE[j] = b.hE[j], hO[j] = b.hO[j];
    }
    __device__ void next(const words3x3::row &c, uint32_t (&res)[4])
    {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            res[j] = div9(tE[j] + c.hE[j]) | div9(tO[j] + c.hO[j]) << 8;
            tE[j] = hE[j] + c.hE[j], tO[j] = hO[j] + c.hO[j], hE[j] = c.hE[j], hO[j] = c.hO[j];
        }
    }
};

// ---- One pass (box_batch): rows of whole 16-byte words, radius up to
// ONE_R, 8-bit samples (16-bit window sums) and 16-bit (Z = 2: 32-bit sums).
//
// A block of FT threads owns a strip of the row, one 16-byte word per thread
// (ow words of output, at most FT - 2 hw, with a halo of hw = ceil(R C / 16)
// words each side; the row's words are shared evenly among the strips), and
// walks down `rows` rows of it, BB = 8 rows at a time.
// Vertical: each thread keeps the window sum of its 16 samples' columns in
// 16-bit lanes (at most 255 (2R + 1) < 2^16), adds the row entering and
// subtracts the row leaving (read 2R + 1 rows before, from L2 where that
// fits), and stores it to shared memory, BB rows of the strip; the loads of
// the next BB rows are issued before the horizontal step, so they arrive
// while it runs.  Horizontal: each lane owns one channel of one of the BB
// rows along a segment of the strip (a warp's 32 lanes: 8 rows x 4 (channel,
// segment) units, NS segments per channel) and slides along it, two shared
// loads, an add and box_div's multiply-high (and shift) per output, its
// results going to a shared output tile whose rows the bulk-copy engine
// stores (batch_store).  RGBA8 up to radius VEC_R slides whole pixels instead
// (batch_slide4: 4 NW segments a row, one 8-byte load per pixel entering and
// leaving, one 4-byte store), gray8 four samples a step (batch_slide1): a
// quarter of the shared accesses each.  Row strides and segment lengths put
// the lanes' loads in distinct banks.  Six warps a block (so that for C = 3,
// 4 NW units are a whole number of (channel, segment) pairs), two blocks per
// SM (72 KB of shared memory each).
constexpr int BB = 8, HU = 8; // rows per batch, outputs per step of a lane's slide
constexpr int PRO = 8;        // rows of the first window loaded at a time
constexpr int VEC_R = 16;     // RGBA8 up to this radius: batch_slide4
constexpr int PACK_R = 7;     // and up to this one, its running sums in 16-bit lanes
constexpr int WP = 7;         // above it, its first windows' pixels summed this many at a time in 16-bit lanes
static_assert(WP * (2 * VEC_R + 1) * 255 <= 0xffff);
static_assert((2 * PACK_R + 1) * (2 * PACK_R + 1) * 255 + (2 * PACK_R + 1) * (2 * PACK_R + 1) / 2 <= 0xffff);

// (s * m) >> (32 + sh) == s / n for every s up to 255 n + n/2 (an 8-bit box
// sum plus n/2): with m = ceil(2^k / n) and e = m n - 2^k, s m / 2^k = s / n
// + s e / (n 2^k), and the second term is below 1/n (so cannot carry past
// the next multiple of 1/n) when s e < 2^k.  k = 32, no shift, where that
// holds for the largest s; else k = 24 + ceil(log2 n), where e < n <= 2^(k -
// 24) and s < 2^24 (R <= 127) (Granlund and Montgomery).
struct box_div {
    uint32_t m;
    int sh;
    __device__ uint32_t operator()(uint32_t s) const { return __umulhi(s, m) >> sh; }
};

static box_div make_box_div(uint32_t n)
{
    const uint64_t m32 = ((1ull << 32) + n - 1) / n, smax = 255ull * n + n / 2;
    if (m32 <= UINT32_MAX && smax * (m32 * n - (1ull << 32)) < (1ull << 32))
        return box_div{(uint32_t)m32, 0};
    int lg = 0;
    while ((1u << lg) < n)
        lg++;
    const int k = 24 + lg < 32 ? 32 : 24 + lg;
    return box_div{(uint32_t)(((1ull << k) + n - 1) / n), k - 32};
}

// (s + n/2) / n for every 32-bit s (16-bit images: s + n/2 is at most 65535 n +
// n/2 < 2^32 up to radius 127): t = mulhi(s, m), ((s - t) / 2 + t) >> (l - 1)
// with 2^(l-1) < n <= 2^l and m = floor(2^32 (2^l - n) / n) + 1 (Granlund and
// Montgomery, figure 4.1).
struct box_div32 {
    uint32_t m, sh;
    __device__ __forceinline__ uint32_t operator()(uint32_t s) const
    {
        const uint32_t t = __umulhi(s, m);
        return (t + ((s - t) >> 1)) >> sh;
    }
};
static box_div32 make_box_div32(uint32_t n)
{
    int l = 0;
    while ((1ull << l) < n)
        l++;
    return {(uint32_t)(((1ull << 32) * ((1ull << l) - n)) / n + 1), (uint32_t)(l - 1)};
}

template <int Z> using batch_div = std::conditional_t<Z == 1, box_div, box_div32>;

// v (samples 4j, 4j + 2 in vE[j]; 4j + 1, 4j + 3 in vO[j]) += add - sub, lane by lane:
// no lane leaves 0 .. 65535, since sub is one of the rows v holds.
__device__ __forceinline__ void box_slide(uint32_t (&vE)[4], uint32_t (&vO)[4], uint4 add, uint4 sub)
{
    const uint32_t a[4] = {add.x, add.y, add.z, add.w}, d[4] = {sub.x, sub.y, sub.z, sub.w};
#pragma unroll
    for (int j = 0; j < 4; j++) {
        vE[j] = vE[j] + (a[j] & words3x3::LO) - (d[j] & words3x3::LO);
        vO[j] = vO[j] + words3x3::odd_bytes(a[j]) - words3x3::odd_bytes(d[j]);
    }
}

// Z: bytes a sample (1: 16-bit sums; 2: 32-bit sums, SPW = 8 samples a word).
template <int C, int Z = 1> struct batch_shape {
    static constexpr int NW = 6; // warps: 4 NW (channel, segment) units per row
    static constexpr int FT = 32 * NW, NS = 4 * NW / C, BLOCKS = 2; // blocks per SM
    static constexpr int SPW = 16 / Z;                               // samples a 16-byte word
    // row stride of the sums, in samples: 4 (mod 32) words (Z = 1: RS / 2)
    static constexpr int RS = Z == 1 ? 16 * FT + 8 : 8 * FT + 4;
    static constexpr int RO = 16 * FT + 16; // row stride of the outputs, in bytes: RO / 4 = 4 (mod 32)
    static constexpr int VOFF = C == 1 && Z == 1 ? 16 : 0; // bytes before s_v (batch_slide1's first chunks)
    static constexpr size_t SMEM = VOFF + (size_t)BB * RS * 2 * Z + (size_t)BB * RO;
    // Segment length for n outputs of a channel, such that the 32 lanes' loads
    // fall in distinct banks (or share a word).  Lane (row b, unit q) reads
    // sample 8 b + p_q (mod 64: RS = 8 mod 64): two words of its row's four
    // banks for C = 4; for C < 4 the warp's units span two (C = 2, 3) or four
    // (C = 1) segments, C L samples apart, and C L must place the next
    // segment's lanes in the banks the first leaves free: L = 2 mod 4 (C =
    // 2), 4 mod 8 (C = 3).  C = 1 (batch_slide1)
    // loads 8 bytes a lane, a half-warp at a time (8 rows of two segments):
    // the second segment's two banks are the two its row leaves free for L / 2
    // = 2 mod 4 words; its 4-byte stores (8 rows of four segments, rows 4
    // banks apart) fall in distinct banks for L / 4 odd: L = 4 mod 8.
    static __device__ __forceinline__ int seg_len(int n)
    {
        int L = (n + NS - 1) / NS;
        if constexpr (Z == 2) // 32-bit sums: one word a sample, a row's lanes C apart, rows 4 banks apart
            L |= 1;
        else if constexpr (C == 1)
            L += (12 - L % 8) % 8;
        else if constexpr (C == 2)
            L += (6 - L % 4) % 4;
        else if constexpr (C == 3)
            L += (12 - L % 8) % 8;
        return L;
    }
};

// A slide's steps of N outputs while N more remain before cnt (i: the next
// output; step advances it by N): the samples entering and leaving (a, d) are
// loaded a step ahead of their sums.
template <int N, typename T, typename Load, typename Step>
__device__ __forceinline__ void steps_ahead(const int &i, int cnt, T (&a)[N], T (&d)[N], Load load, Step step)
{
    if (i + N > cnt)
        return;
    load();
    while (i + 2 * N <= cnt) {
        T ca[N], cd[N];
#pragma unroll
        for (int u = 0; u < N; u++)
            ca[u] = a[u], cd[u] = d[u];
        load();
        step(ca, cd);
    }
    step(a, d);
}

// One lane's slide along its segment (cnt outputs of one channel of one row,
// from the sums v, to o): the first window, then HU outputs at a time.
template <int C, typename TS, typename TO, typename Mean>
__device__ __forceinline__ void batch_slide(const TS *v, TO *o, int cnt, int R, uint32_t half, Mean mean)
{
    uint32_t sum = half;
#pragma unroll 4
    for (int i = -R; i <= R; i++)
        sum += v[i * C];
    o[0] = mean(sum);
    const TS *va = v + (R + 1) * C, *vs = v - R * C;
    int i = 1;
    uint32_t a[HU], d[HU]; // the next HU samples entering and leaving: loaded a step ahead of their sums
    auto load = [&]() {
#pragma unroll
        for (int u = 0; u < HU; u++)
            a[u] = va[u * C], d[u] = vs[u * C];
        va += HU * C, vs += HU * C;
    };
    auto step = [&](const uint32_t(&ca)[HU], const uint32_t(&cd)[HU]) {
#pragma unroll
        for (int u = 0; u < HU; u++) {
            sum += ca[u] - cd[u];
            o[(u + 1) * C] = mean(sum);
        }
        i += HU, o += HU * C;
    };
    steps_ahead(i, cnt, a, d, load, step);
    for (; i < cnt; i++) {
        sum += va[0] - vs[0];
        va += C, vs += C, o += C;
        *o = mean(sum);
    }
}

// The four 16-bit samples S to S + 3 of the 8 that two aligned 8-byte chunks hold.
template <int S> __device__ __forceinline__ uint2 chunk_at(uint2 p, uint2 q)
{
    if constexpr (S == 0)
        return p;
    else if constexpr (S == 1)
        return make_uint2(__funnelshift_r(p.x, p.y, 16), __funnelshift_r(p.y, q.x, 16));
    else if constexpr (S == 2)
        return make_uint2(p.y, q.x);
    else
        return make_uint2(__funnelshift_r(p.y, q.x, 16), __funnelshift_r(q.x, q.y, 16));
}

// The sum of v[lo] .. v[hi - 1] (v 8-byte aligned): aligned 8-byte chunks between single samples.
__device__ __forceinline__ uint32_t span_sum(const uint16_t *v, int lo, int hi)
{
    uint32_t s = 0;
    const int a = min((lo + 3) & ~3, hi), b = a + ((hi - a) & ~3);
    for (int i = lo; i < a; i++)
        s += v[i];
#pragma unroll 4
    for (int i = a; i < b; i += 4) {
        const uint2 c = *(const uint2 *)(v + i);
        s += (c.x & 0xffff) + (c.x >> 16) + (c.y & 0xffff) + (c.y >> 16);
    }
    for (int i = b; i < hi; i++)
        s += v[i];
    return s;
}

// C = 1: one lane's slide along its segment (cnt outputs; v and o aligned to
// 4 samples), four outputs a step: the four sums entering and the four leaving
// each from two aligned 8-byte chunks (one new a step, loaded a step ahead),
// the four means to one 4-byte store.  RA = R mod 4: output i's entering sum
// v[i + R] lies RA samples into its chunk for i a multiple of 4, the leaving
// v[i - R - 1] 3 - RA.  The chunks may lie past the segment (in the row: RS >
// 16 FT + 7) or, for the first segment of row 0, up to 8 bytes before s_v
// (its offset).  SH: the mean takes a shift after the multiply-high.
template <bool SH, int RA>
__device__ __forceinline__ void batch_slide1(const uint16_t *v, uint8_t *o, int cnt, int R, uint32_t half, box_div div)
{
    auto mean = [&](uint32_t s) { return SH ? div(s) : __umulhi(s, div.m); };
    constexpr int LA = 3 - RA;
    uint32_t sum = half + span_sum(v, -R - 1, R); // the window of output -1
    const uint2 *pa = (const uint2 *)(v + R - RA), *ps = (const uint2 *)(v - R - 1 - LA);
    uint2 a0 = pa[0], a1 = pa[1], s0 = ps[0], s1 = ps[1];
    int i = 0;
#pragma unroll 2
    for (; i + 4 <= cnt; i += 4) {
        pa++, ps++;
        const uint2 a2 = pa[1], s2 = ps[1]; // a step ahead
        const uint2 e = chunk_at<RA>(a0, a1), l = chunk_at<LA>(s0, s1);
        uint32_t m[4];
        sum += (e.x & 0xffff) - (l.x & 0xffff), m[0] = mean(sum);
        sum += (e.x >> 16) - (l.x >> 16), m[1] = mean(sum);
        sum += (e.y & 0xffff) - (l.y & 0xffff), m[2] = mean(sum);
        sum += (e.y >> 16) - (l.y >> 16), m[3] = mean(sum);
        *(uint32_t *)(o + i) = gf_pack_bytes(m[0], m[1], m[2], m[3]);
        a0 = a1, a1 = a2, s0 = s1, s1 = s2;
    }
    for (; i < cnt; i++) {
        sum += v[i + R] - v[i - R - 1];
        o[i] = (uint8_t)mean(sum);
    }
}

// C = 4: one lane's slide along its segment of np whole pixels, all four
// channels at once: one 8-byte load of a pixel's four sums entering and one
// leaving, four running sums, one 4-byte store of the four means.  A pixel's
// sums lie as (c0, c2), (c1, c3) (16-bit lanes of two words, the vertical
// step's vE, vO as they are).  PK (radius up to PACK_R): the running sums too
// are two words of 16-bit lanes (every lane's sum, n/2 included, stays below
// 2^16).  Else the first window's pixels are summed WP at a time in 16-bit
// lanes, and the slide adds each word whole and takes only the high lanes
// apart (the low lane's sum is the word's less 2^16 times the high's).  With
// segments of an odd number of pixels, a half-warp's 16 loads and a warp's 32
// stores fall in distinct banks.
template <bool SH, bool PK>
__device__ __forceinline__ void batch_slide4(const uint16_t *v, uint8_t *o, int np, int R, uint32_t half,
                                             box_div div)
{
    auto mean = [&](uint32_t s) { return SH ? div(s) : __umulhi(s, div.m); };
    // s[0], s[1]: the sums of the words (c0, c2) and (c1, c3) as 32-bit
    // numbers, c0 + 2^16 c2 and c1 + 2^16 c3 (mod 2^32); PK: those are the
    // sums' own lanes.  Else s[2], s[3] are c2 and c3, and c0 = s[0] - 2^16
    // c2 (mod 2^32), exact since c0 < 2^32.
    uint32_t s[4];
    s[0] = s[1] = half * 0x10001u;
    if constexpr (!PK)
        s[2] = s[3] = half;
    auto slide = [&](uint2 a, uint2 d) {
        s[0] += a.x - d.x, s[1] += a.y - d.y;
        if constexpr (!PK)
            s[2] += (a.x >> 16) - (d.x >> 16), s[3] += (a.y >> 16) - (d.y >> 16);
    };
    auto put = [&](int q) {
        const uint32_t c2 = PK ? s[0] >> 16 : s[2], c3 = PK ? s[1] >> 16 : s[3];
        const uint32_t c0 = PK ? s[0] & 0xffff : s[0] - (c2 << 16);
        const uint32_t c1 = PK ? s[1] & 0xffff : s[1] - (c3 << 16);
        ((uint32_t *)o)[q] = __byte_perm(__byte_perm(mean(c0), mean(c1), 0x0040),
                                         __byte_perm(mean(c2), mean(c3), 0x0040), 0x5410);
    };
    const uint2 *p = (const uint2 *)v; // pixel i's four sums: p[i]
    if constexpr (PK) {
#pragma unroll 4
        for (int i = -R; i <= R; i++)
            slide(p[i], make_uint2(0, 0));
    } else { // the first window, WP pixels at a time in 16-bit lanes (exact: WP (2 VEC_R + 1) 255 < 2^16)
        const uint2 *w = p - R;
        int n = 2 * R + 1;
        for (; n >= WP; n -= WP, w += WP) {
            uint2 g = make_uint2(0, 0);
#pragma unroll
            for (int u = 0; u < WP; u++)
                g.x += w[u].x, g.y += w[u].y;
            slide(g, make_uint2(0, 0));
        }
        uint2 g = make_uint2(0, 0);
        for (int u = 0; u < n; u++)
            g.x += w[u].x, g.y += w[u].y;
        slide(g, make_uint2(0, 0));
    }
    put(0);
    const uint2 *pa = p + R + 1, *ps = p - R;
    constexpr int HP = 4; // pixels a step
    int q = 1;
    uint2 a[HP], d[HP]; // the next HP pixels entering and leaving: loaded a step ahead of their sums
    auto load = [&]() {
#pragma unroll
        for (int u = 0; u < HP; u++)
            a[u] = pa[u], d[u] = ps[u];
        pa += HP, ps += HP;
    };
    auto step = [&](const uint2(&ca)[HP], const uint2(&cd)[HP]) {
#pragma unroll
        for (int u = 0; u < HP; u++) {
            slide(ca[u], cd[u]);
            put(q + u);
        }
        q += HP;
    };
    steps_ahead(q, np, a, d, load, step);
    for (; q < np; q++) {
        slide(pa[0], ps[0]);
        pa++, ps++;
        put(q);
    }
}

// Loads and stores with an L2 eviction priority: evict-first (first) or the default.
__device__ __forceinline__ uint64_t l2_policy(bool first)
{
    uint64_t f, n;
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(f));
    asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(n));
    return first ? f : n;
}
__device__ __forceinline__ uint4 ld_hinted(const uint4 *p, uint64_t pol)
{
    uint4 v;
    asm("ld.global.nc.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
        : "l"(p), "l"(pol));
    return v;
}


// The batch's nb output rows (owv words each, rows row_bytes apart from dst)
// from the tile s_o (rows RO bytes apart) to the image: on sm_90, one thread
// hands them to the bulk-copy engine (cp.async.bulk), so that no thread loads
// and stores them; the threads' bytes must be made visible to it first
// (bulk_fence, then a barrier), and it must have read them before the next
// batch's outputs overwrite the tile (bulk_wait).  pol: the rows' L2 priority.
template <int RO>
__device__ __forceinline__ void batch_store(uint8_t *dst, size_t row_bytes, const uint8_t *s_o, int owv, int nb,
                                            uint64_t pol)
{
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) {
        for (int i = 0; i < nb; i++)
            asm volatile("cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%0], [%1], %2, %3;" ::"l"(
                             dst + i * row_bytes),
                         "r"((unsigned)__cvta_generic_to_shared(s_o + i * RO)), "r"(owv * 16), "l"(pol)
                         : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    }
#else
    if ((int)threadIdx.x < owv)
        for (int i = 0; i < nb; i++)
            ((uint4 *)(dst + i * row_bytes))[threadIdx.x] = ((const uint4 *)(s_o + i * RO))[threadIdx.x];
#endif
}
__device__ __forceinline__ void bulk_fence()
{
#if __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}
// READ: until the bulk copies have read their sources; else until they are done.
template <bool READ> __device__ __forceinline__ void bulk_wait()
{
#if __CUDA_ARCH__ >= 900
    if constexpr (READ)
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    else
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

// A thread's 16 window sums (box_slide's vE, vO) to its two words d[0], d[1]
// of a row of sums: VEC, pixel j's as (c0, c2), (c1, c3) (batch_slide4); else
// in sample order.
template <bool VEC>
__device__ __forceinline__ void store_sums(uint4 *d, const uint32_t (&vE)[4], const uint32_t (&vO)[4])
{
    if constexpr (VEC) {
        d[0] = make_uint4(vE[0], vO[0], vE[1], vO[1]);
        d[1] = make_uint4(vE[2], vO[2], vE[3], vO[3]);
    } else {
        d[0] = make_uint4(__byte_perm(vE[0], vO[0], 0x5410), __byte_perm(vE[0], vO[0], 0x7632),
                          __byte_perm(vE[1], vO[1], 0x5410), __byte_perm(vE[1], vO[1], 0x7632));
        d[1] = make_uint4(__byte_perm(vE[2], vO[2], 0x5410), __byte_perm(vE[2], vO[2], 0x7632),
                          __byte_perm(vE[3], vO[3], 0x5410), __byte_perm(vE[3], vO[3], 0x7632));
    }
}

// One lane's horizontal unit: its slide of cnt outputs from the sums v to the bytes o.
template <int C, bool VEC>
__device__ __forceinline__ void slide_unit(const uint16_t *v, uint8_t *o, int cnt, int R, uint32_t half, box_div div)
{
    if constexpr (VEC) {
        if (div.sh)
            batch_slide4<true, false>(v, o, cnt, R, half, div);
        else if (R <= PACK_R)
            batch_slide4<false, true>(v, o, cnt, R, half, div);
        else
            batch_slide4<false, false>(v, o, cnt, R, half, div);
    } else if constexpr (C == 1) {
        const auto slide = [&]<int RA>() {
            if (div.sh)
                batch_slide1<true, RA>(v, o, cnt, R, half, div);
            else
                batch_slide1<false, RA>(v, o, cnt, R, half, div);
        };
        switch (R & 3) {
        case 0: slide.template operator()<0>(); break;
        case 1: slide.template operator()<1>(); break;
        case 2: slide.template operator()<2>(); break;
        default: slide.template operator()<3>(); break;
        }
    } else if (div.sh)
        batch_slide<C>(v, o, cnt, R, half, [&](uint32_t s) { return (uint8_t)div(s); });
    else // the multiply-high alone where it is exact: one instruction of six per output less
        batch_slide<C>(v, o, cnt, R, half, [&](uint32_t s) { return (uint8_t)__umulhi(s, div.m); });
}

// A thread's window sums down its column of 16-byte words.  Z = 1: 16
// samples in 16-bit lanes (box_slide), stored by store_sums; Z = 2: 8 16-bit
// samples, 32-bit sums (at most 65535 (2R + 1) < 2^24), stored in sample order.
template <int Z, bool VEC> struct col_sums;
template <bool VEC> struct col_sums<1, VEC> {
    uint32_t vE[4] = {}, vO[4] = {};
    __device__ __forceinline__ void slide(uint4 a, uint4 d) { box_slide(vE, vO, a, d); }
    __device__ __forceinline__ void store(uint16_t *p) const { store_sums<VEC>((uint4 *)p, vE, vO); }
};
template <bool VEC> struct col_sums<2, VEC> {
    uint32_t s[8] = {}; // samples 0 to 7 of the word
    __device__ __forceinline__ void slide(uint4 add, uint4 sub)
    {
        const uint32_t a[4] = {add.x, add.y, add.z, add.w}, d[4] = {sub.x, sub.y, sub.z, sub.w};
#pragma unroll
        for (int j = 0; j < 4; j++) {
            s[2 * j] += (a[j] & 0xffff) - (d[j] & 0xffff);
            s[2 * j + 1] += (a[j] >> 16) - (d[j] >> 16);
        }
    }
    __device__ __forceinline__ void store(uint32_t *p) const
    {
        ((uint4 *)p)[0] = make_uint4(s[0], s[1], s[2], s[3]);
        ((uint4 *)p)[1] = make_uint4(s[4], s[5], s[6], s[7]);
    }
};
template <int Z> using batch_div = std::conditional_t<Z == 1, box_div, box_div32>;

// VEC (C = 4 only): the lanes slide all four channels of whole pixels (batch_slide4).
// Z: bytes a sample (2: 16-bit images, the generic slide of batch_slide).
template <int C, bool VEC = false, int Z = 1>
__global__ void __launch_bounds__(batch_shape<C, Z>::FT, batch_shape<C, Z>::BLOCKS)
    box_batch(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int words, int R, int hw,
              int ow, int rows, int border, uint32_t half, batch_div<Z> div, bool hint)
{
    using S = batch_shape<C, Z>;
    using Sum = std::conditional_t<Z == 1, uint16_t, uint32_t>;
    constexpr int SPW = S::SPW;
    extern __shared__ uint4 smem4[];
    Sum *s_v = (Sum *)((uint8_t *)smem4 + S::VOFF); // BB rows of RS window sums
    uint8_t *s_o = (uint8_t *)(s_v + BB * S::RS);               // BB rows of RO output bytes
    const int t = threadIdx.x, lane = t % 32, warp = t / 32;
    const long kout = (long)blockIdx.x * ow, k = kout - hw + t; // first output word, this thread's word
    const int owv = (int)min((long)ow, words - kout);              // output words of this strip
    const int y0 = blockIdx.y * rows, y1 = min(H, y0 + rows);

    // this lane's horizontal unit: row b of a batch, channel c, segment seg
    const int b = lane % 8, g = warp * 4 + lane / 8, c = g % C, seg = g / C;
    const int first = (int)((c - kout * SPW % C + C) % C); // channel c's first output sample, from hw * SPW
    const int nout = owv * SPW, npx = (nout - first + C - 1) / C, L = S::seg_len((nout + C - 1) / C);
    // VEC: unit g is segment g of whole pixels (4 NW of them), L4 pixels long (odd: below)
    const int L4 = ((nout / 4 + 4 * S::NW - 1) / (4 * S::NW)) | 1;
    const int cnt = VEC ? max(0, min(L4, nout / 4 - g * L4)) : max(0, min(L, npx - seg * L));
    const int j0 = hw * SPW + (VEC ? 4 * g * L4 : first + C * seg * L); // the unit's first output sample in the strip

    // The word this thread reads down the strip.  Words outside the row: WRAP
    // reads the word the rule names (rows are whole words), ZERO reads none;
    // CLAMP and MIRROR read the row's nearest word, whose window sums are
    // replaced, once each batch's sums are in shared memory, by those of the
    // columns the rule names (they lie in the strip: below).  Threads past the
    // strip's halo, whose sums nothing reads, read a word the block reads
    // anyway, so that every warp but those holding ZERO's words outside the
    // row takes fetch's common path.
    const int span = 2 * hw + ow; // the strip's words, halo included
    const long src = t >= span                  ? min(max(kout - hw + t - span, 0L), words - 1L)
                     : k >= 0 && k < words        ? k
                     : border == GF_BORDER_WRAP ? (k % words + words) % words
                     : border == GF_BORDER_ZERO ? -1
                                                : min(max(k, 0L), words - 1L);
    const uint4 zero = make_uint4(0, 0, 0, 0);
    const uint64_t pol = l2_policy(hint); // the rows leaving and the output rows (launch_batch)
    auto word_at = [&](long y) { return ((const uint4 *)(in + (size_t)y * words * 16))[src]; }; // row y inside
    auto row_word = [&](long y) {
        const long sy = gf_border_index(y, H, border);
        return sy < 0 || src < 0 ? zero : word_at(sy);
    };
    // The window of row y0 - 1 (rows y0 - 1 - R to y0 - 1 + R), PRO rows at a
    // time: their loads first, then their sums, so that PRO loads are in flight.
    col_sums<Z, VEC> cs;
    const long wlo = (long)y0 - 1 - R, whi = (long)y0 - 1 + R;
    auto window = [&](auto get) {
        for (long j = wlo; j <= whi; j += PRO) {
            uint4 w[PRO];
#pragma unroll
            for (int i = 0; i < PRO; i++)
                w[i] = j + i <= whi ? get(j + i) : zero;
#pragma unroll
            for (int i = 0; i < PRO; i++)
                cs.slide(w[i], zero);
        }
    };
    if (wlo >= 0 && whi < H && src >= 0) // rows inside the image, a word inside the row: no border rule
        window(word_at);
    else
        window(row_word);
    uint4 add[BB], sub[BB]; // the next batch's rows entering and leaving
    auto fetch = [&](int y) {
        if (y > R && y + BB + R <= H && y + BB <= y1 && src >= 0) { // the common case: whole rows, no border
            const uint4 *pa = (const uint4 *)in + (size_t)(y + R) * words + src, *ps = pa - (size_t)(2 * R + 1) * words;
#pragma unroll
            for (int i = 0; i < BB; i++)
                add[i] = pa[(size_t)i * words], sub[i] = ld_hinted(ps + (size_t)i * words, pol);
            return;
        }
#pragma unroll
        for (int i = 0; i < BB; i++)
            if (y + i < y1)
                add[i] = row_word((long)y + i + R), sub[i] = row_word((long)y + i - R - 1);
    };
    // CLAMP and MIRROR strips at a row end: of the samples the horizontal
    // step reads, [rl, lo) and [hi, rr) lie outside the row; the pixels the
    // rule names for them lie within R of the row's ends, so in the strip
    // (or the row is narrower than R, and the strip holds all of it)
    const long base = (kout - hw) * SPW; // the strip's first sample in the row
    const int rl = hw * SPW - R * C, rr = (hw + owv) * SPW + R * C;
    const int lo = (int)min((long)rr, max((long)rl, -base));
    const int hi = (int)max((long)lo, min((long)rr, (long)SPW * words - base));
    const int ne = lo - rl + rr - hi; // samples to fill
    const bool fix = (border == GF_BORDER_CLAMP || border == GF_BORDER_MIRROR) && ne > 0;
    auto at = [](int j) { return VEC ? (j & ~3) | (j & 1) << 1 | (j >> 1 & 1) : j; }; // sample j's sum in a row of s_v
    fetch(y0);
    for (int y = y0; y < y1; y += BB) {
        const int nb = min(BB, y1 - y);
#pragma unroll
        for (int i = 0; i < BB; i++)
            if (i < nb) {
                cs.slide(add[i], sub[i]);
                cs.store(s_v + i * S::RS + SPW * t);
            }
        fetch(y + BB);
        if (t == 0)
            bulk_wait<true>(); // the last batch's bulk copies have read s_o, which this batch's outputs overwrite
        __syncthreads();
        if (fix) {
            for (int e = t; e < ne; e += S::FT) {
                const int j = e < lo - rl ? rl + e : hi + e - (lo - rl);
                const long gs = base + j, px = gs >= 0 ? gs / C : -((C - 1 - gs) / C); // floor(gs / C)
                const int from = (int)(gf_border_index(px, W, border) * C + (gs - px * C) - base);
                for (int i = 0; i < nb; i++)
                    s_v[i * S::RS + at(j)] = s_v[i * S::RS + at(from)];
            }
            __syncthreads();
        }
        if (b < nb && cnt > 0) {
            const Sum *v = s_v + b * S::RS + j0;
            uint8_t *o = s_o + b * S::RO + (j0 - hw * SPW) * Z;
            if constexpr (Z == 1)
                slide_unit<C, VEC>(v, o, cnt, R, half, div);
            else
                batch_slide<C>(v, (uint16_t *)o, cnt, R, half, div);
        }
        bulk_fence(); // this thread's output bytes, visible to the bulk copies
        __syncthreads();
        batch_store<S::RO>(out + ((size_t)y * words + kout) * 16, (size_t)words * 16, s_o, owv, nb, pol);
    }
    if (t == 0)
        bulk_wait<false>();
}


// The one-pass kernel for radius R: RGBA8 up to VEC_R slides whole pixels.
template <int C, int Z> auto batch_kernel(int R)
{
    if constexpr (Z == 2)
        return box_batch<C, false, 2>;
    else
        return C == 4 && R <= VEC_R ? box_batch<C, C == 4> : box_batch<C>;
}

template <int C, int Z> cudaError_t launch_batch(const gf_image *in, gf_image *out, int R, int border, cudaStream_t st)
{
    using S = batch_shape<C, Z>;
    const int words = (int)((size_t)in->width * C * Z / 16), hw = (R * C + S::SPW - 1) / S::SPW;
    int ow = S::FT - 2 * hw;
    int sms = 1, l2 = 0;
    cudaError_t e = gf_sm_count(&sms);
    if (e == cudaSuccess)
        e = gf_device_attr(cudaDevAttrL2CacheSize, &l2);
    if (e != cudaSuccess)
        return e;
    // the row's words shared evenly among the strips (a last short strip would
    // take as long as the others); then bands of rows (a multiple of BB) such
    // that strips x bands blocks fit the SMs at once
    const unsigned strips = gf_blocks(words, ow);
    ow = (int)gf_blocks(words, strips);
    const long bands = max(1L, (long)S::BLOCKS * sms / (long)strips);
    const int rows = (int)gf_blocks(gf_blocks(in->height, bands), BB) * BB;
    const unsigned nbands = gf_blocks(in->height, rows); // bands of `rows` rows (the last may be shorter)
    // The rows leaving the windows, read for the last time, and the output
    // rows are evict-first in the L2 where the windows in flight (2R + 1 rows
    // of each resident thread's word) fill at most 60% of it, so that the rows
    // still to leave stay there.
    const size_t resident = std::min((size_t)strips * nbands, (size_t)S::BLOCKS * sms) * S::FT;
    const bool hint = resident * 16 * (2 * (size_t)R + 1) <= (size_t)l2 * 6 / 10;
    const uint32_t n = (2u * R + 1) * (2u * R + 1);
    batch_div<Z> div;
    if constexpr (Z == 1)
        div = make_box_div(n);
    else
        div = make_box_div32(n);
    batch_kernel<C, Z>(R)<<<dim3(strips, nbands), S::FT, S::SMEM, st>>>(
        (const uint8_t *)in->data, (uint8_t *)out->data, in->width, in->height, words, R, hw, ow, rows, border, n / 2,
        div, hint);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

// ---- The path chooser, and the launch.

enum path { GENERAL, WORDS, ONE_PASS };
const char *const paths[] = {"rows+cols", "3x3 words", "one pass", nullptr};

int choose(const gf_step *s, const gf_image *in)
{
    const int R = GF_BOX_ARGS(s).radius;
    if (!gf_word_rows(in) || R > ONE_R)
        return GENERAL;
    if (R == 1 && in->depth == 8)
        return WORDS;
    const cudaError_t fits = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        return gf_fit_smem(batch_kernel<C, sizeof(T)>(R), batch_shape<C, sizeof(T)>::SMEM)
                   ? cudaSuccess
                   : cudaErrorInvalidConfiguration;
    });
    return fits == cudaSuccess ? ONE_PASS : GENERAL;
}

// 64-bit intermediate or sums only where 32 bits could overflow.
bool wide_rows(int R, int depth)
{
    return (2 * (uint64_t)R + 1) * gf_maxval(depth) > UINT32_MAX;
}
bool wide_sums(int R, int depth)
{
    const uint64_t side = 2 * (uint64_t)R + 1;
    return side * side * gf_maxval(depth) + side * side / 2 > UINT32_MAX;
}

template <typename T, typename Mid, typename Acc, int C>
cudaError_t launch_general(const gf_image *in, gf_image *out, void *mid, int R, int border, cudaStream_t st)
{
    const int W = in->width, H = in->height, N = W * C;
    const Acc n = (Acc)(2 * (uint64_t)R + 1) * (Acc)(2 * (uint64_t)R + 1);
    const size_t row_threads = (size_t)H * ((W + SEG - 1) / SEG) * C;
    box_rows<T, Mid, C><<<gf_blocks(row_threads, 128), 128, 0, st>>>((const T *)in->data, (Mid *)mid, W, H, R, border);
    GF_LAUNCH_CHECK();
    const size_t col_threads = (size_t)N * ((H + CSEG - 1) / CSEG);
    box_cols<T, Mid, Acc><<<gf_blocks(col_threads, 256), 256, 0, st>>>((const Mid *)mid, (T *)out->data, N, H, R,
                                                                       border, n);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int R = GF_BOX_ARGS(s).radius, border = s->border, path = choose(s, in);
    const cudaStream_t st = gf_cuda_stream(cu);
    const bool wr = wide_rows(R, in->depth), ws = wide_sums(R, in->depth);
    void *mid = nullptr;
    if (path == GENERAL) {
        gf_status e = gf_cuda_scratch(cu, gf_samples(in) * (wr ? 8 : 4), "box intermediate", &mid);
        if (e)
            return e;
    }
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        if (path == WORDS) {
            if constexpr (sizeof(T) == 1)
                return words3x3::launch<C, box1_op>(in, out, border, st);
        }
        if (path == ONE_PASS)
            return launch_batch<C, sizeof(T)>(in, out, R, border, st);
        if (wr)
            return launch_general<T, uint64_t, uint64_t, C>(in, out, mid, R, border, st);
        if (ws)
            return launch_general<T, uint32_t, uint64_t, C>(in, out, mid, R, border, st);
        return launch_general<T, uint32_t, uint32_t, C>(in, out, mid, R, border, st);
    });
    return gf_cuda_status(e, "box kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_box = {enqueue, nullptr, choose, paths};
