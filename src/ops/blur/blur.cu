// SPDX-License-Identifier: MIT
// Gaussian blur: separable integer fixed point (numeric.h), bit-identical to
// src/ops/blur/blur_ref.c.  The kernels, chosen by choose() below:
// - general (any image, any radius): blur_rows and blur_cols, through an
//   intermediate of 8 fraction bits (16-bit for 8-bit images, 32-bit for
//   16-bit), the taps and samples from shared memory;
// - 16-bit images at radius 1 to REG_R: blur_rows_reg and blur_cols_reg, the
//   taps and a window of samples in registers;
// - 8-bit rows of whole 16-byte words, on the tensor cores (exact integer
//   products): both passes in one kernel, blur_fused, for the few windows of
//   the small radii (the intermediate stays in registers); else two passes of
//   blur_mma up to radius MMA_R.
#include <climits>

#include "blur.h"
#include "kernel_util.cuh"

namespace {

template <typename Tin> struct mid_of;
template <> struct mid_of<uint8_t> { using type = uint16_t; using acc = uint32_t; };
template <> struct mid_of<uint16_t> { using type = uint32_t; using acc = uint64_t; };

// Pixels [xs, xs + n) of a row of C channels (border rule applied) into s, one sample a word.
template <typename T, int THREADS>
__device__ __forceinline__ void stage_span(const T *__restrict__ row, uint32_t *s, int W, int C, long xs, int n,
                                           int border)
{
    if (xs >= 0 && xs + n <= W) {
        for (int k = threadIdx.x; k < n * C; k += THREADS)
            s[k] = row[xs * C + k];
        return;
    }
    for (int k = threadIdx.x; k < n * C; k += THREADS) {
        const int p = k / C;
        const long sx = gf_border_index(xs + p, W, border);
        s[k] = sx < 0 ? 0u : (uint32_t)row[sx * C + k - p * C];
    }
}

// ---- General (any image, any radius).  Row pass: a block of ROW_THREADS per
// ROW_TILE pixels of one row, each thread 2C outputs (consecutive threads,
// consecutive words: no bank conflicts).  The taps go in chunks of up to HCH
// offsets: for chunk 0 (offsets 0 .. n - 1) the block stages the row segment
// its tile's windows span, ROW_TILE + 2 (n - 1) pixels, one sample a 32-bit
// word; for a later chunk (offsets i0 .. i0 + n - 1) the two segments they
// reach on either side (lo and hi), ROW_TILE + n - 1 pixels each.  Each
// thread adds q_i (lo + hi) for its outputs.  Below radius HCH there is one
// chunk, which holds the tile and its halo once.  Column pass: the same down
// columns, 32 x 8 threads per tile of COL_TX = 32 samples x COL_TY = 64 rows,
// a row of 32 samples staged at a time (a warp's reads are one row).
constexpr int ROW_TILE = 512, ROW_THREADS = 256, HCH = 512;
constexpr int COL_TX = 32, COL_TY = 64, COL_THREADS_Y = 8;

// Shared memory of a pass of `tile` outputs (each `unit` words) at radius R: a chunk's taps, then its spans.
size_t general_smem(int tile, int unit, int R)
{
    const size_t n = R + 1 < HCH ? R + 1 : HCH;
    const size_t spans = R + 1 <= HCH ? tile + 2 * (n - 1) : 2 * (tile + n - 1);
    return (n + spans * unit) * 4;
}

// Chunk i0 of the offsets (n of them): where its spans start in the line and
// how long they are; lo and hi are where, in s, the samples at offsets -i0
// and +i0 of element 0 lie.
struct chunk {
    int n, lo, hi, nspans, len[2];
    long start[2];
};
__device__ __forceinline__ chunk chunk_at(int i0, int R, int tile, long x0)
{
    chunk c;
    c.n = min(HCH, R + 1 - i0);
    if (i0 == 0) // one span, x0 - (n - 1) .. x0 + tile + n - 2
        c.nspans = 1, c.start[0] = x0 - (c.n - 1), c.len[0] = tile + 2 * (c.n - 1), c.lo = c.hi = c.n - 1;
    else // lo from x0 - i0 - (n - 1), hi from x0 + i0, tile + n - 1 each
        c.nspans = 2, c.len[0] = c.len[1] = tile + c.n - 1, c.start[0] = x0 - i0 - (c.n - 1), c.start[1] = x0 + i0,
        c.lo = c.n - 1, c.hi = c.len[0];
    return c;
}

template <typename Tin, int C>
__global__ void __launch_bounds__(ROW_THREADS)
    blur_rows(const Tin *__restrict__ in, typename mid_of<Tin>::type *__restrict__ mid, int W, int tiles,
              const uint32_t *__restrict__ taps, int R, int border, int sh1)
{
    using Acc = typename mid_of<Tin>::acc;
    constexpr int PER = ROW_TILE * C / ROW_THREADS;
    extern __shared__ uint32_t s_rows[];
    uint32_t *s_q = s_rows, *s = s_rows + min(R + 1, HCH);
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * ROW_TILE;
    const Tin *row = in + (size_t)y * W * C;
    const int nk = min(ROW_TILE, W - x0) * C;
    Acc acc[PER] = {};
    for (int i0 = 0; i0 <= R; i0 += HCH) {
        const chunk ch = chunk_at(i0, R, ROW_TILE, x0);
        __syncthreads(); // the last chunk is read
#pragma unroll
        for (int j = 0; j < 2; j++)
            if (j < ch.nspans)
                stage_span<Tin, ROW_THREADS>(row, s + j * ch.hi * C, W, C, ch.start[j], ch.len[j], border);
        for (int i = threadIdx.x; i < ch.n; i += ROW_THREADS)
            s_q[i] = taps[i0 + i];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < PER; j++) {
            const int k = threadIdx.x + j * ROW_THREADS; // sample k of the tile: pixel x0 + k / C
            const uint32_t *lo = s + ch.lo * C + k, *hi = s + ch.hi * C + k;
            int i = 0;
            if (i0 == 0) // the centre, once
                acc[j] += (Acc)s_q[0] * hi[0], i = 1;
            for (; i < ch.n; i++)
                acc[j] += (Acc)s_q[i] * (lo[-i * C] + hi[i * C]);
        }
    }
    typename mid_of<Tin>::type *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        const int k = threadIdx.x + j * ROW_THREADS;
        if (k < nk)
            dst[k] = (typename mid_of<Tin>::type)((acc[j] + ((Acc)1 << (sh1 - 1))) >> sh1);
    }
}

template <typename Tin>
__global__ void __launch_bounds__(COL_TX *COL_THREADS_Y)
    blur_cols(const typename mid_of<Tin>::type *__restrict__ mid, Tin *__restrict__ out, int N, int H,
              const uint32_t *__restrict__ taps, int R, int border, int sh2, uint32_t maxval)
{
    using Acc = typename mid_of<Tin>::acc;
    constexpr int PER = COL_TY / COL_THREADS_Y;
    extern __shared__ uint32_t s_cols[];
    uint32_t *s_q = s_cols, *s = s_cols + min(R + 1, HCH); // rows of COL_TX samples
    const int y0 = blockIdx.y * COL_TY, tx = threadIdx.x, ty = threadIdx.y;
    const int sc = blockIdx.x * COL_TX + tx;
    Acc acc[PER] = {};
    for (int i0 = 0; i0 <= R; i0 += HCH) {
        const chunk ch = chunk_at(i0, R, COL_TY, y0);
        __syncthreads();
#pragma unroll
        for (int j = 0; j < 2; j++) {
            uint32_t *d = s + j * ch.hi * COL_TX + tx;
            if (j < ch.nspans && ch.start[j] >= 0 && ch.start[j] + ch.len[j] <= H && sc < N) { // no border
                const auto *src = mid + (size_t)ch.start[j] * N + sc;
                for (int r = ty; r < ch.len[j]; r += COL_THREADS_Y)
                    d[r * COL_TX] = src[(size_t)r * N];
            } else {
                for (int r = ty; j < ch.nspans && r < ch.len[j]; r += COL_THREADS_Y) {
                    const long sy = gf_border_index(ch.start[j] + r, H, border);
                    d[r * COL_TX] = (sy < 0 || sc >= N) ? 0u : (uint32_t)mid[(size_t)sy * N + sc];
                }
            }
        }
        for (int i = ty * COL_TX + tx; i < ch.n; i += COL_TX * COL_THREADS_Y)
            s_q[i] = taps[i0 + i];
        __syncthreads();
#pragma unroll
        for (int j = 0; j < PER; j++) {
            const int r = ty + j * COL_THREADS_Y;
            const uint32_t *lo = s + (ch.lo + r) * COL_TX + tx, *hi = s + (ch.hi + r) * COL_TX + tx;
            int i = 0;
            if (i0 == 0)
                acc[j] += (Acc)s_q[0] * hi[0], i = 1;
            for (; i < ch.n; i++)
                acc[j] += (Acc)s_q[i] * ((Acc)lo[-i * COL_TX] + hi[i * COL_TX]);
        }
    }
    if (sc >= N)
        return;
#pragma unroll
    for (int j = 0; j < PER; j++) {
        const int y = y0 + ty + j * COL_THREADS_Y;
        const Acc v = (acc[j] + ((Acc)1 << (sh2 - 1))) >> sh2;
        if (y < H)
            out[(size_t)y * N + sc] = (Tin)(v > maxval ? maxval : v);
    }
}

// ---- 16-bit images at radius 1 to REG_R: the taps and a window of samples
// in registers (R a template parameter, so every index is a constant); sums
// in 64 bits (taps below 2^31 times samples, or the 24-bit intermediate).
//
// Row pass: a block of 128 threads per tile of 128 / C groups x RK pixels of
// one row, staged with its halo in shared memory one sample per 32-bit word;
// thread (group g, channel c) loads its RK + 2R samples once into registers
// and makes RK outputs.  RK = 9 is odd, so the 32 lanes' loads (stride 9 C
// words between groups) fall in distinct banks.  Results go through shared
// memory to be stored as whole words.
constexpr int REG_R = 16, RK = 9, RTHREADS = 128;

template <typename T, int C, int R>
__global__ void __launch_bounds__(RTHREADS)
    blur_rows_reg(const T *__restrict__ in, typename mid_of<T>::type *__restrict__ mid, int W, int tiles,
                  const uint32_t *__restrict__ taps, int border, int sh1)
{
    using Mid = typename mid_of<T>::type;
    using Acc = typename mid_of<T>::acc;
    constexpr int G = RTHREADS / C, TILE = G * RK, SPAN = (TILE + 2 * R) * C;
    __shared__ uint32_t s_row[SPAN];
    __shared__ Mid s_out[TILE * C];
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * TILE;
    const T *row = in + (size_t)y * W * C;
    stage_span<T, RTHREADS>(row, s_row, W, C, (long)x0 - R, TILE + 2 * R, border);
    uint32_t q[R + 1];
#pragma unroll
    for (int i = 0; i <= R; i++)
        q[i] = taps[i];
    __syncthreads();
    const int c = threadIdx.x % C, g = threadIdx.x / C;
    if (g < G) {
        uint32_t w[RK + 2 * R];
#pragma unroll
        for (int j = 0; j < RK + 2 * R; j++)
            w[j] = s_row[(g * RK + j) * C + c];
#pragma unroll
        for (int j = 0; j < RK; j++) {
            Acc acc = (Acc)q[0] * w[j + R];
#pragma unroll
            for (int i = 1; i <= R; i++)
                acc += (Acc)q[i] * (w[j + R - i] + w[j + R + i]);
            s_out[(g * RK + j) * C + c] = (Mid)((acc + ((Acc)1 << (sh1 - 1))) >> sh1);
        }
    }
    __syncthreads();
    const int n = min(TILE, W - x0) * C;
    Mid *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    for (int k = threadIdx.x; k < n; k += RTHREADS)
        dst[k] = s_out[k];
}

// Column pass: each thread owns two neighbouring samples (one 8-byte load of
// the 32-bit intermediate per row) down a strip of CK rows, keeping the 2R +
// 1 rows of its window in registers: a ring indexed by the row modulo 2R + 1,
// the loop unrolled by 2R + 1 so that every index is a constant.  Needs W C even.
constexpr int CK = 64, CTHREADS = 128;

template <typename T> struct pair_io;
template <> struct pair_io<uint16_t> {
    using in = uint2;
    using out = uint32_t;
    static __device__ uint32_t a(in v) { return v.x; }
    static __device__ uint32_t b(in v) { return v.y; }
    static __device__ out put(uint64_t a, uint64_t b) { return (out)(a | b << 16); }
};

template <typename T, int R>
__global__ void __launch_bounds__(CTHREADS) blur_cols_reg(const typename pair_io<T>::in *__restrict__ mid,
                                                          typename pair_io<T>::out *__restrict__ out, int pairs, int H,
                                                          const uint32_t *__restrict__ taps, int border, int sh2,
                                                          uint32_t maxval)
{
    using IO = pair_io<T>;
    using Acc = typename mid_of<T>::acc;
    constexpr int P = 2 * R + 1;
    const int p = blockIdx.x * CTHREADS + threadIdx.x;
    if (p >= pairs)
        return;
    const int y0 = blockIdx.y * CK;
    uint32_t q[R + 1];
#pragma unroll
    for (int i = 0; i <= R; i++)
        q[i] = taps[i];
    const typename IO::in zero = {};
    uint32_t wa[P], wb[P]; // slot (row - (y0 - R)) % P
#pragma unroll
    for (int i = 0; i < P - 1; i++) {
        const long sy = gf_border_index((long)y0 - R + i, H, border);
        const typename IO::in v = sy < 0 ? zero : mid[(size_t)sy * pairs + p];
        wa[i] = IO::a(v);
        wb[i] = IO::b(v);
    }
    for (int k0 = 0; k0 < CK; k0 += P) {
#pragma unroll
        for (int j = 0; j < P; j++) { // output row y = y0 + k0 + j; its window starts at slot j
            const int y = y0 + k0 + j;
            if (k0 + j >= CK || y >= H)
                break;
            const long sy = gf_border_index((long)y + R, H, border);
            const typename IO::in v = sy < 0 ? zero : mid[(size_t)sy * pairs + p];
            wa[(j + P - 1) % P] = IO::a(v);
            wb[(j + P - 1) % P] = IO::b(v);
            Acc a = (Acc)q[0] * wa[(j + R) % P], b = (Acc)q[0] * wb[(j + R) % P];
#pragma unroll
            for (int i = 1; i <= R; i++) {
                a += (Acc)q[i] * (wa[(j + R - i) % P] + wa[(j + R + i) % P]);
                b += (Acc)q[i] * (wb[(j + R - i) % P] + wb[(j + R + i) % P]);
            }
            a = (a + ((Acc)1 << (sh2 - 1))) >> sh2;
            b = (b + ((Acc)1 << (sh2 - 1))) >> sh2;
            out[(size_t)y * pairs + p] = IO::put(a > maxval ? maxval : a, b > maxval ? maxval : b);
        }
    }
}

// ---- 8-bit images on the tensor cores.  A pass of the blur is a product with
// a banded (Toeplitz) matrix of taps, done by mma.sync m16n8k32 (u8 x u8 ->
// s32); each pass writes its result transposed, so that the second pass is the
// first one again, run over the intermediate.
//
// blur_mma blurs the lines of an image of nrows x ncols pixels along ncols and
// writes an ncols x nrows image: pass 1 reads the 8-bit image and writes the
// 16-bit intermediate transposed, pass 2 reads that and writes the 8-bit
// result, transposed back.  A stream is one channel of one line; a tile is RB
// lines (S = RB * C streams) by MMA_X positions along them.  A block stages a
// tile's lines with their halo in shared memory as byte planes, a row of bytes
// per stream (pass 2: a plane of low bytes and one of high bytes), the border
// rule applied there.  Blocks are persistent (as many as fit at once), and the
// next tile's bytes are on their way (cp.async) while a tile is computed and
// stored.  Warp w makes outputs x0 + 16 w + m, m = 0..15, of every stream, 8
// streams per mma: D[m][n] += A[m][k] B[k][n], where B[k][n] is stream n's
// byte at position k of a 32-wide window of input and A[m][k] the tap that
// input k gives output m (0 beyond the radius); NK windows cover the 16
// outputs and their halo.  A tap q < 2^16 is split into bytes, q = 256 qh +
// ql: pass 1 is two products, pass 2 four (the intermediate is split too).
// Every sum is exact, so the result is the integer reference's, bit for bit.
// The order of k within a window is free so long as A and B agree: lane tig
// holds window bytes 8 tig .. 8 tig + 7 (its b0, b1), one 8-byte load.
constexpr int MMA_X = 128, MMA_THREADS = 2 * MMA_X; // a warp per 16 outputs
// The window counts blur_mma is built for: a radius takes the least that covers it.
constexpr int MMA_NKS[] = {4, 5, 7, 10}, MMA_NK = 10;

template <typename Tin> struct mma_io;
template <> struct mma_io<uint8_t> { using out = uint16_t; static constexpr int planes = 1; };
template <> struct mma_io<uint16_t> { using out = uint8_t; static constexpr int planes = 2; };

// Lines per block (RB), and streams S = RB * C, a multiple of an mma's 8; pass 2
// (16-bit lines, twice the bytes) takes half as many.  Three channels: 32
// lines in both passes while the windows are few (NK <= 4: pass 2's output
// rows are then whole 32-byte sectors), 16 in pass 2 beyond (the larger
// tiles' shared memory would cost blocks).
template <typename Tin, int C, int NK>
constexpr int MMA_LINES = C == 3 ? (sizeof(Tin) == 1 || NK <= 4 ? 32 : 16) : 128 / C / (int)sizeof(Tin);
template <typename Tin, int C, int NK> constexpr int MMA_STREAMS = MMA_LINES<Tin, C, NK> * C;

// Windows of 32 that cover 16 outputs: each starts r8 before its first output.
static inline int mma_windows(int R)
{
    return (((R + 7) & ~7) + R + 16 + 31) / 32;
}

// Shared-memory layout of blur_mma with NK windows (bytes), all compile-time.
// Windows start r8 = R rounded up to 8 before their first output (8-byte
// loads), the staged line lh = R rounded up to 16 before x0 (16-byte global
// loads); lh - r8 is 0 or 8, so WIDTH pixels cover every window at every R.
template <typename Tin, int C, int NK> struct mma_geom {
    static constexpr int S = MMA_STREAMS<Tin, C, NK>;                 // streams
    static constexpr int WIDTH = MMA_X + 32 * NK;                        // staged pixels per line
    static constexpr int CHUNKS = S * WIDTH * (int)sizeof(Tin) / 16;     // 16-byte loads per tile
    static constexpr int RAW = CHUNKS * 16;                              // the next tile, as loaded
    static constexpr int PITCH = WIDTH % 64 == 32 ? WIDTH : WIDTH + 32;  // 8-byte loads of 8 streams x 4
    static constexpr int PLANES = mma_io<Tin>::planes * S * PITCH;      //   lanes: 32 distinct banks
    static constexpr int OBYTES = S * (int)sizeof(typename mma_io<Tin>::out);
    static constexpr int OPITCH = OBYTES % 32 == 16 ? OBYTES : OBYTES + 16; // stores: 16 distinct words
    static constexpr int BYTES = RAW + PLANES + MMA_X * OPITCH;
    static_assert(WIDTH % 16 == 0 && OBYTES % 16 == 0, "alignment");
};

__device__ __forceinline__ void mma_u8(uint32_t (&d)[4], const uint32_t (&a)[4], uint2 b)
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b.x), "r"(b.y));
}

// Taps split into bytes (ah, al) times 16-bit samples split into bytes (hi,
// lo): the product is 2^16 d0 + 2^8 d1 + d2, each sum exact.
__device__ __forceinline__ void mma_u16(uint32_t (&d0)[4], uint32_t (&d1)[4], uint32_t (&d2)[4],
                                        const uint32_t (&ah)[4], const uint32_t (&al)[4], uint2 hi, uint2 lo)
{
    mma_u8(d0, ah, hi);
    mma_u8(d1, ah, lo);
    mma_u8(d1, al, hi);
    mma_u8(d2, al, lo);
}

// Sample e of staged line l, value v, into its byte plane(s) (S streams).
template <typename Tin, int C, int S>
__device__ __forceinline__ void mma_put(uint8_t *planes, int pitch, int l, int e, uint32_t v)
{
    const int p = e / C, c = e - p * C;
    uint8_t *b = planes + (l * C + c) * pitch + p;
    b[0] = (uint8_t)v;
    if constexpr (sizeof(Tin) == 2)
        b[S * pitch] = (uint8_t)(v >> 8);
}

// The 16 bytes at samples E k .. E k + E - 1 of staged line l into the planes
// (E = 16 / sizeof(Tin)); byte permutes where C divides the word.
template <typename Tin, int C, int S>
__device__ __forceinline__ void mma_put16(uint8_t *planes, int pitch, int l, int k, uint4 v)
{
    constexpr int E = 16 / sizeof(Tin);
    if constexpr (sizeof(Tin) == 1 && C == 1) {
        *(uint4 *)(planes + l * pitch + 16 * k) = v;
    } else if constexpr (sizeof(Tin) == 1 && C == 4) { // 4 pixels: a 4 x 4 byte transpose
        const uint32_t t0 = __byte_perm(v.x, v.y, 0x5140), t1 = __byte_perm(v.z, v.w, 0x5140);
        const uint32_t t2 = __byte_perm(v.x, v.y, 0x7362), t3 = __byte_perm(v.z, v.w, 0x7362);
        uint8_t *b = planes + l * 4 * pitch + 4 * k;
        *(uint32_t *)b = __byte_perm(t0, t1, 0x5410);
        *(uint32_t *)(b + pitch) = __byte_perm(t0, t1, 0x7632);
        *(uint32_t *)(b + 2 * pitch) = __byte_perm(t2, t3, 0x5410);
        *(uint32_t *)(b + 3 * pitch) = __byte_perm(t2, t3, 0x7632);
    } else if constexpr (sizeof(Tin) == 2 && C == 4) { // 2 pixels: each channel's low bytes, its high bytes
        uint8_t *b = planes + l * 4 * pitch + 2 * k, *h = b + S * pitch;
        const uint32_t p0[2] = {v.x, v.y}, p1[2] = {v.z, v.w}; // channels 0-1, 2-3 of pixel 0, of pixel 1
#pragma unroll
        for (int c = 0; c < 4; c++) {
            const uint32_t at = (c % 2) * 2; // channel c's low byte in its word
            *(uint16_t *)(b + c * pitch) = (uint16_t)__byte_perm(p0[c / 2], p1[c / 2], 0x40 + at * 0x11);
            *(uint16_t *)(h + c * pitch) = (uint16_t)__byte_perm(p0[c / 2], p1[c / 2], 0x51 + at * 0x11);
        }
    } else if constexpr (sizeof(Tin) == 2 && C == 1) { // 8 pixels: their low bytes, their high bytes
        uint8_t *b = planes + l * pitch + 8 * k;
        *(uint2 *)b = make_uint2(__byte_perm(v.x, v.y, 0x6420), __byte_perm(v.z, v.w, 0x6420));
        *(uint2 *)(b + S * pitch) = make_uint2(__byte_perm(v.x, v.y, 0x7531), __byte_perm(v.z, v.w, 0x7531));
    } else {
        const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
        for (int i = 0; i < E; i++)
            mma_put<Tin, C, S>(planes, pitch, l, E * k + i,
                            sizeof(Tin) == 1 ? w[i / 4] >> 8 * (i % 4) & 0xff : w[i / 2] >> 16 * (i % 2) & 0xffff);
    }
}

// Bytes i0..i3 of the words w, as one word (indices known at compile time: 3 byte permutes).
template <int N>
__device__ __forceinline__ uint32_t mma_pick4(const uint32_t (&w)[N], int i0, int i1, int i2, int i3)
{
    const uint32_t t0 = __byte_perm(w[i0 / 4], w[i1 / 4], i0 % 4 | (4 + i1 % 4) << 4);
    const uint32_t t1 = __byte_perm(w[i2 / 4], w[i3 / 4], i2 % 4 | (4 + i3 % 4) << 4);
    return __byte_perm(t0, t1, 0x5410);
}

// Three channels: the 48 bytes of group g (three chunks) of staged line l,
// 16 pixels of 8 bits or 8 of 16, into the planes, a 16- or 8-byte store per plane.
template <typename Tin, int S>
__device__ __forceinline__ void mma_put48(uint8_t *planes, int pitch, int l, int g, const uint8_t *src)
{
    const uint4 a = ((const uint4 *)src)[0], b = ((const uint4 *)src)[1], c = ((const uint4 *)src)[2];
    const uint32_t w[12] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w};
#pragma unroll
    for (int ch = 0; ch < 3; ch++) {
        uint8_t *dst = planes + (l * 3 + ch) * pitch;
        if constexpr (sizeof(Tin) == 1) { // byte 3p + ch of pixel p
            uint32_t o[4];
#pragma unroll
            for (int j = 0; j < 4; j++)
                o[j] = mma_pick4(w, 12 * j + ch, 12 * j + 3 + ch, 12 * j + 6 + ch, 12 * j + 9 + ch);
            *(uint4 *)(dst + 16 * g) = make_uint4(o[0], o[1], o[2], o[3]);
        } else { // bytes 6p + 2ch (low) and 6p + 2ch + 1 (high) of pixel p
            uint32_t lo[2], hi[2];
#pragma unroll
            for (int j = 0; j < 2; j++) {
                const int b0 = 24 * j + 2 * ch;
                lo[j] = mma_pick4(w, b0, b0 + 6, b0 + 12, b0 + 18);
                hi[j] = mma_pick4(w, b0 + 1, b0 + 7, b0 + 13, b0 + 19);
            }
            *(uint2 *)(dst + 8 * g) = make_uint2(lo[0], lo[1]);
            *(uint2 *)(dst + S * pitch + 8 * g) = make_uint2(hi[0], hi[1]);
        }
    }
}

// Chunk k of staged line l where it crosses the border (or the line is past
// the image), sample by sample; out of line, as the rare case.
template <typename Tin, int C, int S>
__device__ __noinline__ void mma_put_border(uint8_t *planes, int pitch, const Tin *in, long line, int nrows, int ncols,
                                            int r0, int xs, int l, int k, int border)
{
    constexpr int E = 16 / sizeof(Tin);
    for (int i = 0; i < E; i++) {
        const int e = k * E + i, p = e / C;
        const long sx = gf_border_index((long)xs + p, ncols, border);
        mma_put<Tin, C, S>(planes, pitch, l, e,
                        r0 + l < nrows && sx >= 0 ? in[(size_t)(r0 + l) * line + sx * C + e - p * C] : 0);
    }
}

template <typename Tin, int C, int NK>
__global__ void __launch_bounds__(MMA_THREADS)
    blur_mma(const Tin *__restrict__ in, typename mma_io<Tin>::out *__restrict__ out, int nrows, int ncols, int tiles,
             int ntiles, const uint32_t *__restrict__ taps, int R, int border)
{
#if __CUDA_ARCH__ >= 800
    using Tout = typename mma_io<Tin>::out;
    using G = mma_geom<Tin, C, NK>;
    constexpr int RB = MMA_LINES<Tin, C, NK>, S = MMA_STREAMS<Tin, C, NK>, E = 16 / sizeof(Tin);
    constexpr int CPL = G::WIDTH * C / E, CHUNKS = G::CHUNKS;
    static_assert(CHUNKS == RB * CPL, "chunks");
    extern __shared__ __align__(16) uint8_t smem_mma[];
    uint8_t *raw = smem_mma, *planes = smem_mma + G::RAW, *ostage = planes + G::PLANES;
    const int lh = (R + 15) & ~15, r8 = (R + 7) & ~7;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, tig = lane % 4;
    const long line = (long)ncols * C;

    // The staged span of a tile: lines r0 .. r0 + RB - 1, pixels x0 - lh ..
    // x0 - lh + WIDTH - 1, in CHUNKS chunks of 16 bytes.  Chunks inside the
    // image are copied whole into raw (cp.async, a tile ahead), each by the
    // thread that later spreads it into the planes (three channels: a thread
    // spreads three neighbouring chunks, whole pixels, after a barrier);
    // chunks across the border, and lines past the image, go sample by sample.
    struct span {
        int x0, r0;
        long s0;
    };
    const auto span_of = [&](int t) {
        const int x0 = t % tiles * MMA_X, r0 = t / tiles * RB;
        return span{x0, r0, (long)(x0 - lh) * C};
    };
    const auto whole = [&](const span &sp, int q, const Tin **src) {
        const int l = q / CPL;
        const long s = sp.s0 + (long)(q - l * CPL) * E;
        *src = in + (size_t)(sp.r0 + l) * line + s;
        return sp.r0 + l < nrows && s >= 0 && s + E <= line;
    };
    const auto prefetch = [&](const span &sp) {
        for (int q = threadIdx.x; q < CHUNKS; q += MMA_THREADS) {
            const Tin *src;
            if (whole(sp, q, &src))
                gf_cp_async16(raw + 16 * q, src);
        }
        asm volatile("cp.async.commit_group;");
    };
    const auto put = [&](const span &sp, int q) {
        const int l = q / CPL, k = q - l * CPL;
        const Tin *src;
        if (whole(sp, q, &src))
            mma_put16<Tin, C, S>(planes, G::PITCH, l, k, *(const uint4 *)(raw + 16 * q));
        else
            mma_put_border<Tin, C, S>(planes, G::PITCH, in, line, nrows, ncols, sp.r0, sp.x0 - lh, l, k, border);
    };
    const auto stage = [&](const span &sp) {
        asm volatile("cp.async.wait_all;" ::: "memory");
        if constexpr (C == 3) { // three chunks (whole pixels) per thread; a line is whole groups of three
            static_assert(CPL % 3 == 0, "groups");
            __syncthreads(); // the three came by three threads
            for (int q3 = threadIdx.x; q3 < CHUNKS / 3; q3 += MMA_THREADS) {
                const int q = 3 * q3, l = q / CPL;
                const Tin *src;
                if (whole(sp, q, &src) && whole(sp, q + 2, &src)) // then the middle one too
                    mma_put48<Tin, S>(planes, G::PITCH, l, (q - l * CPL) / 3, raw + 16 * q);
                else
                    for (int i = 0; i < 3; i++)
                        put(sp, q + i);
            }
        } else {
            for (int q = threadIdx.x; q < CHUNKS; q += MMA_THREADS)
                put(sp, q);
        }
    };

    int t = blockIdx.x;
    if (t < ntiles)
        prefetch(span_of(t));

    // A: the taps' high and low bytes, in the k order of the loads.
    uint32_t ah[NK][4], al[NK][4];
#pragma unroll
    for (int j = 0; j < NK; j++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t h = 0, lo = 0;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int m = g + (r & 1) * 8, k = 8 * tig + (r & 2) * 2 + i;
                const int d = abs(32 * j + k - r8 - m);
                const uint32_t q = d <= R ? taps[d] : 0u;
                h |= (q >> 8) << 8 * i;
                lo |= (q & 0xff) << 8 * i;
            }
            ah[j][r] = h;
            al[j][r] = lo;
        }

    // Persistent: while one tile is computed and stored, the next one's loads are in flight.
    for (; t < ntiles; t += gridDim.x) {
        const span sp = span_of(t);
        stage(sp);
        __syncthreads(); // planes full, raw free; the last tile's ostage read out
        if (t + (int)gridDim.x < ntiles)
            prefetch(span_of(t + gridDim.x));

        const int xm = warp * 16;
        const uint8_t *bl = planes + g * G::PITCH + xm + lh - r8 + 8 * tig;
#pragma unroll 2
        for (int nt = 0; nt < S / 8; nt++) {
            const uint8_t *b = bl + nt * 8 * G::PITCH;
            uint32_t d0[4] = {0, 0, 0, 0}, d1[4] = {0, 0, 0, 0}, d2[4] = {0, 0, 0, 0};
#pragma unroll
            for (int j = 0; j < NK; j++) {
                const uint2 lo = *(const uint2 *)(b + 32 * j);
                if constexpr (sizeof(Tin) == 1) {
                    mma_u8(d0, ah[j], lo);
                    mma_u8(d1, al[j], lo);
                } else {
                    mma_u16(d0, d1, d2, ah[j], al[j], *(const uint2 *)(b + S * G::PITCH + 32 * j), lo);
                }
            }
            // D[m][n]: d[0], d[1] at m = g, n = 2 tig, 2 tig + 1; d[2], d[3] at m = g + 8
#pragma unroll
            for (int h = 0; h < 2; h++) {
                uint8_t *o = ostage + (xm + g + 8 * h) * G::OPITCH + (nt * 8 + 2 * tig) * (int)sizeof(Tout);
                uint32_t r[2];
#pragma unroll
                for (int i = 0; i < 2; i++) {
                    const int k = 2 * h + i;
                    if constexpr (sizeof(Tin) == 1) { // sum / 2^8: at most 255 << 8
                        r[i] = ((uint32_t)d0[k] * 256 + (uint32_t)d1[k] + (1u << (GF_BLUR_SHIFT1(8) - 1))) >>
                               GF_BLUR_SHIFT1(8);
                    } else { // sum / 2^24, the sum below 2^32 (taps sum to 2^16, samples at most 255 << 8)
                        const uint32_t sum = ((uint32_t)d0[k] << 16) + ((uint32_t)d1[k] << 8) + (uint32_t)d2[k];
                        r[i] = min((sum + (1u << (GF_BLUR_SHIFT2(8) - 1))) >> GF_BLUR_SHIFT2(8), 255u);
                    }
                }
                if constexpr (sizeof(Tout) == 2)
                    *(uint32_t *)o = r[0] | r[1] << 16;
                else
                    *(uint16_t *)o = (uint16_t)(r[0] | r[1] << 8);
            }
        }
        __syncthreads(); // ostage full; planes free for the next tile

        // Output line x0 + xl holds samples r0 C .. of the transposed image.
        const int xn = min(MMA_X, ncols - sp.x0), n = min(RB, nrows - sp.r0) * C;
        const size_t oline = (size_t)nrows * C;
        Tout *dst = out + (size_t)sp.x0 * oline + (size_t)sp.r0 * C;
        if (n == S) {
            constexpr int V = S * (int)sizeof(Tout) / 16;
            for (int q = threadIdx.x; q < xn * V; q += MMA_THREADS) {
                const int xl = q / V, k = q - xl * V;
                const uint4 w = *(const uint4 *)(ostage + xl * G::OPITCH + 16 * k);
                *(uint4 *)(dst + xl * oline + k * (16 / sizeof(Tout))) = w;
            }
        } else {
            for (int q = threadIdx.x; q < xn * n; q += MMA_THREADS) {
                const int xl = q / n, k = q - xl * n;
                dst[xl * oline + k] = ((const Tout *)(ostage + xl * G::OPITCH))[k];
            }
        }
    }
#endif
}

// ---- 8-bit images, both passes in one kernel (blur_fused), for the few
// windows of small radii (NK <= FUSED_NK): the 16-bit intermediate stays in
// registers, so the image is read once and written once.
//
// A warp owns 16 columns of one channel and walks down a strip of rows.  Pass 1
// is blur_mma's: D1[m][n] = sum_k A1[m][k] B1[k][n], m the 16 output columns,
// k a 32-wide window of input columns, n 8 rows (a byte plane per channel and
// row in shared memory).  Lane (g, tig) gets D1 at columns g and g + 8, rows
// 2 tig and 2 tig + 1 of each 8; over 16 rows (a chunk: two n-tiles) that is
// 4 rows of 2 columns.  Pass 2 runs down the columns with the same mma: B2[k][n]
// is the intermediate at row k of a 32-row window, column n, and lane (g, tig)
// must hold column g at 8 k-slots, 4 of which (4 tig .. 4 tig + 3) from the
// first 16 rows, 4 (16 + 4 tig ..) from the next 16.  The order of k is free so
// long as A2 agrees, so slot 4 tig + i takes row rho(tig, i) = 2 tig, 2 tig + 1,
// 8 + 2 tig, 9 + 2 tig of its chunk: exactly the rows the lane made in pass 1,
// for columns g and g + 8, the two n-tiles of pass 2.  A chunk's intermediate
// is thus four registers per lane (low and high bytes, two columns), packed by
// byte permutes, with no exchange between lanes.  A window of pass 2 spans two
// chunks; NK windows cover 16 output rows and their halo (2 NK chunks, a ring
// of registers indexed at compile time: a step is 2 NK chunks, unrolled).
// Each step stages 32 NK new rows (cp.async, STAGES - 1 steps ahead, into
// raw; spread into byte planes; steps inside the image without border
// arithmetic), makes pass 1 of its chunks and pass 2 of the 16-row outputs
// they complete, and stores them through shared memory as 16-byte words.  The
// first step (s = -1) stages the halo above the strip (all but its chunk 0,
// which no output window reaches) and makes no output.  Blocks are persistent
// over the strips (XT columns by HS rows), so the taps' fragments are made
// once per block.
// Roundings: pass 1 adds 2^7 through the low-byte product's accumulator, so
// the intermediate is d_hi + (d_lo >> 8); pass 2 adds 2^23 through the
// low-low product's, and the output is byte 2 of 256 d0 + d1 + (d2 >> 8) (the
// taps sum to 2^16 and the intermediate is at most 255 << 8, so that sum is
// below 2^24 and needs no clamp).  The integer reference's result, bit for bit.
constexpr int FUSED_NK = 3, FUSED_STAGES = 3;
static_assert(GF_BLUR_SHIFT1(8) == 8 && GF_BLUR_SHIFT2(8) == 24, "the roundings below");

// Smallest plane pitch >= width whose C planes per row put the 8 rows of an
// n-tile 32 bytes apart modulo 64 (8-byte loads of 8 rows x 4 lanes: 32
// distinct banks per half-warp), 16-byte aligned where the spreading stores 16
// bytes (1 and 3 channels), else 8.
static constexpr int fused_pitch(int width, int c)
{
    int p = width;
    while ((c * p) % 64 != 32 || p % (c % 2 ? 16 : 8) != 0)
        p += 8;
    return p;
}

template <int C, int NK> struct fused_geom {
    static constexpr int XG = C == 4 ? (NK == 1 ? 2 : 4) : C == 3 ? 4 : 8 / C; // 16-column groups per block
    static constexpr int WARPS = XG * C, THREADS = 32 * WARPS;      // a warp per group and channel
    static constexpr int XT = 16 * XG;                              // output columns per block
    static constexpr int ROWS = 32 * NK;                            // rows per step: 2 NK chunks
    static constexpr int HS = (NK == 1 ? 8 : 4) * ROWS;             // output rows per task
    // staged pixels per row: the windows span XT + 32 NK - 16 pixels from r8
    // before x0 (r8 <= 16 NK - 8); staged from there (TIGHT) for one window
    // where r8 C is a whole number of 16-byte words (C even), else from lh,
    // 0 or 8 pixels earlier (NK >= 2 tight: spills, RGBA8 sigma 5 6% slower)
    static constexpr bool TIGHT = NK == 1 && C % 2 == 0;
    static constexpr int WIDTH = XT + 32 * NK - (TIGHT ? 16 : 0);
    static constexpr int CPL = WIDTH * C / 16;                      // 16-byte chunks per staged row
    static constexpr int CHUNKS = ROWS * CPL;
    static constexpr int RAW = CHUNKS * 16;
    static constexpr int PITCH = fused_pitch(WIDTH, C);
    static constexpr int PLANES = ROWS * C * PITCH;
    static constexpr int WPR = XT * C / 16;                         // 16-byte output words per row
    static constexpr int OPITCH = XT * C + 16;
    static constexpr int REST = PLANES + ROWS * OPITCH;
    // buffers of loads in flight: as many as leave room for two blocks per SM (at least 2)
    static constexpr int STAGES = (112 * 1024 - REST) / RAW < 2 ? 2
                                  : (112 * 1024 - REST) / RAW > FUSED_STAGES ? FUSED_STAGES
                                                                            : (112 * 1024 - REST) / RAW;
    static constexpr int BYTES = STAGES * RAW + REST;
    static constexpr int MINW = NK == 1 ? 24 : 16;                  // warps per SM asked of the registers
    static constexpr int MINB = MINW / WARPS > 1 ? MINW / WARPS : 1;
    static_assert(WIDTH % 16 == 0 && RAW % 16 == 0 && PLANES % 16 == 0, "alignment");
};

// Chunk k of staged row r, from image row sr (< 0: zeros) where it crosses the
// border, sample by sample; out of line, as the rare case.
template <int C>
__device__ __noinline__ void fused_put_border(uint8_t *planes, int pitch, const uint8_t *in, long line, int W, long sr,
                                             int xs, int r, int k, int border)
{
    for (int i = 0; i < 16; i++) {
        const int e = 16 * k + i, p = e / C;
        const long sx = gf_border_index((long)xs + p, W, border);
        mma_put<uint8_t, C, 8>(planes, pitch, r, e, sr >= 0 && sx >= 0 ? in[sr * line + sx * C + e - p * C] : 0);
    }
}

template <int C, int NK>
__global__ void __launch_bounds__(fused_geom<C, NK>::THREADS, fused_geom<C, NK>::MINB)
    blur_fused(const uint8_t *__restrict__ in, uint8_t *__restrict__ out, int W, int H, int xtiles, int ntasks,
               const uint32_t *__restrict__ taps, int R, int border)
{
#if __CUDA_ARCH__ >= 800
    using G = fused_geom<C, NK>;
    constexpr int T = 2 * NK; // chunks per step; the chunks one output chunk's windows span
    extern __shared__ __align__(16) uint8_t smem_fused[];
    uint8_t *planes = smem_fused + G::STAGES * G::RAW, *ostage = planes + G::PLANES;
    const int r8 = (R + 7) & ~7, lh = G::TIGHT ? r8 : (R + 15) & ~15; // staged columns before x0
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, tig = lane % 4;
    const int xg = warp % G::XG, c = warp / G::XG;
    const long line = (long)W * C;
    // The task (a strip of XT columns and HS rows) in hand, set in the task loop
    // below: blocks are persistent, so that the taps' fragments are made once.
    int x0 = 0, y0 = 0, rows_out = 0, nout = 0, nsteps = 0; // output chunks, steps
    long s0 = 0;                                            // first staged sample of a row

    // Staged row r of step s is image row y0 - r8 + 16 (T - 1) + ROWS s + r:
    // chunk i of step s is chunk T - 1 + T s + i of the strip, whose chunk 0
    // starts r8 rows above y0 (the window of output chunk o starts at chunk o).
    // A step whose rows and columns all lie inside the image (most) is staged
    // without the border arithmetic.
    const auto first_row = [&](int s) { return (long)y0 - r8 + 16 * (T - 1) + (long)G::ROWS * s; };
    int s_in0 = 0, s_in1 = -1; // the steps staged inside the image, set per task
    const auto inner = [&](int s) { return s >= s_in0 && s <= s_in1; };
    const auto src_row = [&](int s, int r) { return gf_border_index(first_row(s) + r, H, border); };
    const auto whole = [&](long sr, int k) { return sr >= 0 && s0 + 16 * k >= 0 && s0 + 16 * k + 16 <= line; };
    // A thread's chunks (q) and three-chunk groups (C = 3) are threadIdx.x + THREADS j
    // for j up to a compile-time count; the offset of chunk q from its step's
    // first sample fits an int (ROWS <= 96 lines of at most 4 * 10^6 bytes).
    constexpr int NQ = (G::CHUNKS + G::THREADS - 1) / G::THREADS, NG = (G::CHUNKS / 3 + G::THREADS - 1) / G::THREADS;
    const int iline = (int)line;
    const auto chunk = [&](int j) { return (int)threadIdx.x + G::THREADS * j; };
    // The first step's chunk 0 (its first 16 rows) is never read: its first chunk of outputs is chunk 1's
    const auto first_used = [&](int s) { return s < 0 ? 16 * G::CPL : 0; };
    const auto prefetch = [&](int s, uint8_t *raw) { // a commit group even where s is past the strip
        const int q0 = first_used(s);
        if (inner(s)) {
            const uint8_t *base = in + first_row(s) * line + s0;
#pragma unroll
            for (int j = 0; j < NQ; j++) {
                const int q = chunk(j), r = q / G::CPL;
                if ((G::CHUNKS % G::THREADS == 0 || q < G::CHUNKS) && q >= q0)
                    gf_cp_async16(raw + 16 * q, base + (r * iline + 16 * (q - r * G::CPL)));
            }
        } else {
            for (int q = q0 + threadIdx.x; s < nsteps && q < G::CHUNKS; q += G::THREADS) {
                const int r = q / G::CPL, k = q - r * G::CPL;
                const long sr = src_row(s, r);
                if (whole(sr, k))
                    gf_cp_async16(raw + 16 * q, in + sr * line + s0 + 16 * k);
            }
        }
        asm volatile("cp.async.commit_group;");
    };
    const auto put = [&](int s, const uint8_t *raw, int q) {
        const int r = q / G::CPL, k = q - r * G::CPL;
        const long sr = src_row(s, r);
        if (whole(sr, k))
            mma_put16<uint8_t, C, 8>(planes, G::PITCH, r, k, *(const uint4 *)(raw + 16 * q));
        else
            fused_put_border<C>(planes, G::PITCH, in, line, W, sr, x0 - lh, r, k, border);
    };
    const auto stage = [&](int s, const uint8_t *raw) { // the loads of steps after s may still be in flight
        asm volatile("cp.async.wait_group %0;" ::"n"(G::STAGES - 2) : "memory");
        const bool fast = inner(s);
        const int q0 = first_used(s);
        if constexpr (C == 3) { // three chunks (whole pixels) per thread, as in blur_mma
            static_assert(G::CPL % 3 == 0, "groups");
            __syncthreads();
            if (fast) {
#pragma unroll
                for (int j = 0; j < NG; j++) {
                    const int q = 3 * chunk(j), r = q / G::CPL;
                    if (((G::CHUNKS / 3) % G::THREADS == 0 || q < G::CHUNKS) && q >= q0)
                        mma_put48<uint8_t, 8>(planes, G::PITCH, r, (q - r * G::CPL) / 3, raw + 16 * q);
                }
                return;
            }
            for (int q3 = q0 / 3 + threadIdx.x; q3 < G::CHUNKS / 3; q3 += G::THREADS) {
                const int q = 3 * q3, r = q / G::CPL, k = q - r * G::CPL;
                const long sr = src_row(s, r);
                if (whole(sr, k) && whole(sr, k + 2))
                    mma_put48<uint8_t, 8>(planes, G::PITCH, r, k / 3, raw + 16 * q);
                else
                    for (int i = 0; i < 3; i++)
                        put(s, raw, q + i);
            }
        } else if (fast) {
#pragma unroll
            for (int j = 0; j < NQ; j++) {
                const int q = chunk(j), r = q / G::CPL;
                if ((G::CHUNKS % G::THREADS == 0 || q < G::CHUNKS) && q >= q0)
                    mma_put16<uint8_t, C, 8>(planes, G::PITCH, r, q - r * G::CPL, *(const uint4 *)(raw + 16 * q));
            }
        } else {
            for (int q = q0 + threadIdx.x; q < G::CHUNKS; q += G::THREADS)
                put(s, raw, q);
        }
    };

    // A1: pass 1's taps (high and low bytes) in the k order of the 8-byte loads,
    // as in blur_mma; A2: pass 2's, k-slot 4 tig + i (+ 16) at row rho(tig, i) (+ 16).
    uint32_t a1h[NK][4], a1l[NK][4], a2h[NK][4], a2l[NK][4];
#pragma unroll
    for (int j = 0; j < NK; j++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            uint32_t h1 = 0, l1 = 0, h2 = 0, l2 = 0;
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const int m = g + (r & 1) * 8;
                const int k1 = 8 * tig + (r & 2) * 2 + i;
                const int k2 = (r & 2) * 8 + (i < 2 ? 2 * tig + i : 6 + 2 * tig + i);
                const int d1 = abs(32 * j + k1 - r8 - m), d2 = abs(32 * j + k2 - r8 - m);
                const uint32_t q1 = d1 <= R ? taps[d1] : 0u, q2 = d2 <= R ? taps[d2] : 0u;
                h1 |= (q1 >> 8) << 8 * i;
                l1 |= (q1 & 0xff) << 8 * i;
                h2 |= (q2 >> 8) << 8 * i;
                l2 |= (q2 & 0xff) << 8 * i;
            }
            a1h[j][r] = h1;
            a1l[j][r] = l1;
            a2h[j][r] = h2;
            a2l[j][r] = l2;
        }

    // The ring: chunk slot u, pass 2's n-tile t (columns 8 t + g): low bytes, high bytes.
    uint32_t rlo[T][2], rhi[T][2];
    const uint8_t *bplane = planes + c * G::PITCH + xg * 16 + lh - r8 + 8 * tig + g * C * G::PITCH;

    // The barriers of a task's first step order its stores to the planes and
    // ostage after the last task's reads; its loads go to buffers the last
    // task no longer reads (those past its last step were never filled).
    for (int task = blockIdx.x; task < ntasks; task += gridDim.x) {
        x0 = task % xtiles * G::XT;
        y0 = task / xtiles * G::HS;
        rows_out = min(G::HS, H - y0);
        nout = (rows_out + 15) / 16;
        nsteps = (rows_out + G::ROWS - 1) / G::ROWS;
        s0 = (long)(x0 - lh) * C;
        // steps s_in0 .. s_in1 lie inside the image: first_row(s) >= 0 and first_row(s) + ROWS <= H
        const long fr0 = first_row(0), top = -fr0, bottom = H - G::ROWS - fr0;
        s_in0 = (int)max(-1L, top >= 0 ? (top + G::ROWS - 1) / G::ROWS : -(-top / G::ROWS));
        s_in1 = (int)min((long)nsteps - 1, bottom >= 0 ? bottom / G::ROWS : -((-bottom + G::ROWS - 1) / G::ROWS));
        if (s0 < 0 || s0 + 16 * G::CPL > line) // the staged columns cross a row end
            s_in1 = s_in0 - 1;
        for (int s = -1; s < G::STAGES - 2; s++)
            prefetch(s, smem_fused + (s + 1) * G::RAW);
        for (int s = -1, bs = 0; s < nsteps; s++, bs = bs + 1 == G::STAGES ? 0 : bs + 1) { // bs: step s's buffer
            stage(s, smem_fused + bs * G::RAW);
            __syncthreads(); // planes full, raw free; the last step's ostage read out
            // step s + STAGES - 1 into the buffer of step s - 1, read out before the barrier
            prefetch(s + G::STAGES - 1, smem_fused + (bs == 0 ? G::STAGES - 1 : bs - 1) * G::RAW);
#pragma unroll
            for (int i = 0; i < T; i++) {
                if (s < 0 && i == 0) // chunk -1: not needed
                    continue;
                if (s >= 0 && T * s + i >= nout) // its first output chunk is past the strip
                    break;
                // pass 1: chunk i of the step (rows 16 i ..) into ring slot (i - 1) mod T
                uint32_t mid[2][4];
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const uint8_t *b = bplane + (16 * i + 8 * h) * C * G::PITCH;
                    uint32_t dh[4] = {0, 0, 0, 0}, dl[4] = {128, 128, 128, 128};
#pragma unroll
                    for (int j = 0; j < NK; j++) {
                        const uint2 v = *(const uint2 *)(b + 32 * j);
                        mma_u8(dh, a1h[j], v);
                        mma_u8(dl, a1l[j], v);
                    }
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        mid[h][k] = dh[k] + (dl[k] >> 8);
                }
                const int slot = (i + T - 1) % T;
#pragma unroll
                for (int t = 0; t < 2; t++) { // column g + 8 t: rows 2 tig, 2 tig + 1 of each n-tile
                    const uint32_t t0 = __byte_perm(mid[0][2 * t], mid[0][2 * t + 1], 0x5140);
                    const uint32_t t1 = __byte_perm(mid[1][2 * t], mid[1][2 * t + 1], 0x5140);
                    rlo[slot][t] = __byte_perm(t0, t1, 0x5410);
                    rhi[slot][t] = __byte_perm(t0, t1, 0x7632);
                }
                if (s < 0)
                    continue;
                // pass 2: output chunk T s + i, its windows over slots i, i + 1, ... (mod T)
#pragma unroll
                for (int t = 0; t < 2; t++) {
                    uint32_t e0[4] = {0, 0, 0, 0}, e1[4] = {0, 0, 0, 0};
                    uint32_t e2[4] = {1u << 23, 1u << 23, 1u << 23, 1u << 23};
#pragma unroll
                    for (int j = 0; j < NK; j++) {
                        const int u0 = (i + 2 * j) % T, u1 = (i + 2 * j + 1) % T;
                        mma_u16(e0, e1, e2, a2h[j], a2l[j], make_uint2(rhi[u0][t], rhi[u1][t]),
                                make_uint2(rlo[u0][t], rlo[u1][t]));
                    }
                    // D2: e[0], e[1] at row g, columns 2 tig, 2 tig + 1; e[2], e[3] at row g + 8
#pragma unroll
                    for (int k = 0; k < 4; k++) {
                        const uint32_t v = e0[k] * 256 + e1[k] + (e2[k] >> 8);
                        const int row = 16 * i + g + 8 * (k >> 1), x = xg * 16 + 8 * t + 2 * tig + (k & 1);
                        ostage[row * G::OPITCH + x * C + c] = (uint8_t)(v >> 16);
                    }
                }
            }
            __syncthreads(); // ostage full; planes free
            if (s < 0)
                continue;
            const int xn = min(G::XT, W - x0) * C / 16, rn = min(G::ROWS, rows_out - G::ROWS * s);
            uint8_t *dst = out + (size_t)(y0 + G::ROWS * s) * line + (size_t)x0 * C;
            if (rn == G::ROWS && xn == G::WPR) { // a whole step: a compile-time count of words per thread
                constexpr int WORDS = G::ROWS * G::WPR, NW = (WORDS + G::THREADS - 1) / G::THREADS;
#pragma unroll
                for (int j = 0; j < NW; j++) {
                    const int q = chunk(j), r = q / G::WPR, k = q - r * G::WPR;
                    if (WORDS % G::THREADS == 0 || q < WORDS)
                        *(uint4 *)(dst + (r * iline + 16 * k)) = *(const uint4 *)(ostage + r * G::OPITCH + 16 * k);
                }
                continue;
            }
            for (int q = threadIdx.x; q < rn * G::WPR; q += G::THREADS) {
                const int r = q / G::WPR, k = q - r * G::WPR;
                if (k < xn)
                    *(uint4 *)(dst + r * line + 16 * k) = *(const uint4 *)(ostage + r * G::OPITCH + 16 * k);
            }
        }
    }
#endif
}

// Whether this build's blur_mma runs on the current device (compiled for sm_80 or later).
bool mma_available()
{
    cudaFuncAttributes a;
    if (cudaFuncGetAttributes(&a, blur_mma<uint8_t, 1, MMA_NK>) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return a.ptxVersion >= 80 && a.binaryVersion >= 80;
}

// Calls f.template operator()<V>() for the V in Vs that equals n.
template <int... Vs, typename F> cudaError_t with_int(int n, F &&f)
{
    cudaError_t e = cudaErrorInvalidValue; // not reached: choose() checks n
    ((n == Vs ? (e = f.template operator()<Vs>(), true) : false) || ...);
    return e;
}
#define FUSED_NKS 1, 2, 3
#define MMA_NK_LIST 4, 5, 7, 10
#define REG_RADII 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16

// The window count of blur_mma for radius R: the least built that covers it (0: none).
int mma_nk(int R)
{
    const int nk = mma_windows(R);
    for (int k : MMA_NKS)
        if (nk <= k)
            return k;
    return 0;
}

template <int C, int NK> bool mma_fits()
{
    return gf_fit_smem(blur_mma<uint8_t, C, NK>, mma_geom<uint8_t, C, NK>::BYTES) &&
           gf_fit_smem(blur_mma<uint16_t, C, NK>, mma_geom<uint16_t, C, NK>::BYTES);
}

template <int C, int NK>
cudaError_t launch_mma(const uint8_t *src, uint16_t *mid, uint8_t *dst, int W, int H, const uint32_t *taps, int R,
                       int border, cudaStream_t st)
{
    constexpr int B1 = mma_geom<uint8_t, C, NK>::BYTES, B2 = mma_geom<uint16_t, C, NK>::BYTES;
    const int tx1 = (int)gf_blocks(W, MMA_X), tx2 = (int)gf_blocks(H, MMA_X);
    const int n1 = tx1 * (int)gf_blocks(H, MMA_LINES<uint8_t, C, NK>);
    const int n2 = tx2 * (int)gf_blocks(W, MMA_LINES<uint16_t, C, NK>);
    int sms = 0, per1 = 0, per2 = 0;
    cudaError_t e;
    if ((e = gf_sm_count(&sms)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per1, blur_mma<uint8_t, C, NK>, MMA_THREADS, B1)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per2, blur_mma<uint16_t, C, NK>, MMA_THREADS, B2)))
        return e;
    blur_mma<uint8_t, C, NK><<<min(n1, sms * max(per1, 1)), MMA_THREADS, B1, st>>>(src, mid, H, W, tx1, n1, taps, R,
                                                                                  border);
    GF_LAUNCH_CHECK();
    blur_mma<uint16_t, C, NK><<<min(n2, sms * max(per2, 1)), MMA_THREADS, B2, st>>>(mid, dst, W, H, tx2, n2, taps, R,
                                                                                   border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

template <int C, int NK>
cudaError_t launch_fused(const uint8_t *src, uint8_t *dst, int W, int H, const uint32_t *taps, int R, int border,
                         cudaStream_t st)
{
    using G = fused_geom<C, NK>;
    const int xtiles = (int)gf_blocks(W, G::XT);
    const long ntasks = (long)xtiles * gf_blocks(H, G::HS);
    int sms = 0, per = 0;
    cudaError_t e;
    if ((e = gf_sm_count(&sms)) ||
        (e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, blur_fused<C, NK>, G::THREADS, G::BYTES)))
        return e;
    if (ntasks > INT_MAX)
        return cudaErrorInvalidValue; // not reached: images are limited far below
    blur_fused<C, NK><<<(unsigned)min(ntasks, (long)sms * max(per, 1)), G::THREADS, G::BYTES, st>>>(
        src, dst, W, H, xtiles, (int)ntasks, taps, R, border);
    GF_LAUNCH_CHECK();
    return cudaSuccess;
}

// ---- The path chooser, and the launch.

enum path { GENERAL, REG, FUSED, MMA };
const char *const paths[] = {"rows+cols", "register windows", "tensor cores in one pass", "tensor cores in two passes",
                             nullptr};

// centre: the centre tap (2^16 for a tiny sigma, which the tensor cores' byte split cannot hold)
int choose_path(const gf_image *in, int R, uint32_t centre)
{
    const int W = in->width, H = in->height, C = in->channels;
    if (in->depth == 16)
        return R <= REG_R && (W * C) % 2 == 0 ? REG : GENERAL;
    if (!gf_word_rows(in) || centre >= 65536 || !mma_available())
        return GENERAL;
    const int nk = mma_windows(R);
    bool fits = false;
    gf_dispatch(in, [&]<typename T, int CC>() -> cudaError_t {
        if (nk <= FUSED_NK)
            with_int<FUSED_NKS>(nk, [&]<int K>() -> cudaError_t {
                fits = gf_fit_smem(blur_fused<CC, K>, fused_geom<CC, K>::BYTES);
                return cudaSuccess;
            });
        return cudaSuccess;
    });
    if (fits)
        return FUSED;
    if ((H * C) % 8 || !mma_nk(R))
        return GENERAL;
    gf_dispatch(in, [&]<typename T, int CC>() -> cudaError_t {
        return with_int<MMA_NK_LIST>(mma_nk(R), [&]<int K>() -> cudaError_t {
            fits = mma_fits<CC, K>();
            return cudaSuccess;
        });
    });
    return fits ? MMA : GENERAL;
}

// The step's taps (*taps, which the caller frees), and the centre one.
uint32_t centre_tap(const gf_step *s, int depth, uint32_t **taps, gf_status *st)
{
    *st = gf_blur_taps(GF_BLUR_ARGS(s).sigma, GF_BLUR_ARGS(s).radius, GF_BLUR_BITS(depth), taps);
    return *st ? 0 : (*taps)[0];
}

int choose(const gf_step *s, const gf_image *in)
{
    gf_status st;
    uint32_t *q = nullptr;
    const uint32_t c = centre_tap(s, in->depth, &q, &st);
    free(q);
    return st ? GENERAL : choose_path(in, GF_BLUR_ARGS(s).radius, c);
}

gf_status enqueue(gf_cuda *cu, const gf_step *s, const gf_image *in, gf_image *out)
{
    const int W = in->width, H = in->height, d = in->depth, R = GF_BLUR_ARGS(s).radius, border = s->border;
    const int sh1 = GF_BLUR_SHIFT1(d), sh2 = GF_BLUR_SHIFT2(d);
    const uint32_t maxval = gf_maxval(d);
    const cudaStream_t st = gf_cuda_stream(cu);
    gf_status status;
    uint32_t *q = nullptr;
    const uint32_t centre = centre_tap(s, d, &q, &status);
    void *d_taps = nullptr, *scratch = nullptr;
    const int path = choose_path(in, R, centre);
    if (!status)
        status = gf_cuda_upload(cu, q, ((size_t)R + 1) * sizeof *q, &d_taps);
    free(q);
    if (!status && path != FUSED)
        status = gf_cuda_scratch(cu, gf_samples(in) * (d == 16 ? 4 : 2), "blur intermediate", &scratch);
    if (status)
        return status;
    const uint32_t *taps = (const uint32_t *)d_taps;
    const cudaError_t e = gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        using Mid = typename mid_of<T>::type;
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        Mid *mid = (Mid *)scratch;
        if constexpr (sizeof(T) == 1) {
            if (path == FUSED)
                return with_int<FUSED_NKS>(mma_windows(R), [&]<int K>() {
                    return launch_fused<C, K>(src, dst, W, H, taps, R, border, st);
                });
            if (path == MMA)
                return with_int<MMA_NK_LIST>(mma_nk(R), [&]<int K>() {
                    return launch_mma<C, K>(src, mid, dst, W, H, taps, R, border, st);
                });
        } else if (path == REG) {
            return with_int<REG_RADII>(R, [&]<int RR>() -> cudaError_t {
                const unsigned tiles = gf_blocks(W, RTHREADS / C * RK);
                blur_rows_reg<T, C, RR><<<tiles * H, RTHREADS, 0, st>>>(src, mid, W, (int)tiles, taps, border, sh1);
                GF_LAUNCH_CHECK();
                const int pairs = W * C / 2;
                using IO = pair_io<T>;
                blur_cols_reg<T, RR><<<dim3(gf_blocks(pairs, CTHREADS), gf_blocks(H, CK)), CTHREADS, 0, st>>>(
                    (const typename IO::in *)mid, (typename IO::out *)dst, pairs, H, taps, border, sh2, maxval);
                GF_LAUNCH_CHECK();
                return cudaSuccess;
            });
        }
        const unsigned tiles = gf_blocks(W, ROW_TILE);
        const size_t rs = general_smem(ROW_TILE, C, R), cs = general_smem(COL_TY, COL_TX, R);
        if (!gf_fit_smem(blur_rows<T, C>, rs) || !gf_fit_smem(blur_cols<T>, cs))
            return cudaErrorInvalidConfiguration; // not reached: HCH bounds them (at most 147 KB)
        blur_rows<T, C><<<tiles * H, ROW_THREADS, rs, st>>>(src, mid, W, (int)tiles, taps, R, border, sh1);
        GF_LAUNCH_CHECK();
        const int N = W * C;
        blur_cols<T><<<dim3(gf_blocks(N, COL_TX), gf_blocks(H, COL_TY)), dim3(COL_TX, COL_THREADS_Y), cs, st>>>(
            mid, dst, N, H, taps, R, border, sh2, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
    return gf_cuda_status(e, "blur kernels");
}

} // namespace

extern "C" const gf_cuda_op gf_cuda_blur = {enqueue, nullptr, choose, paths};
