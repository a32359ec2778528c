// SPDX-License-Identifier: MIT
// Gaussian blur: separable integer fixed point, bit-identical to src/cpu/blur.c.
//
// Row pass (blur_rows): one block of 256 threads per ROW_TILE = 512 pixels of
// one row.  The block stages the taps q[0..R] and the row segment with its
// halo, (ROW_TILE + 2R) pixels x C channels, in shared memory as 32-bit words
// (border rule applied while loading), then each thread computes outputs
// k, k + 256, ... of the tile: consecutive threads read consecutive words, so
// there are no bank conflicts.  Taps are symmetric: q0*x0 + sum q_i*(x_-i + x_i).
// Column pass (blur_cols): 32 x 8 threads per tile of COL_TX = 32 samples x
// COL_TY = 64 rows; the block stages (COL_TY + 2R) rows x 32 samples, each
// warp reading one 32-sample row segment (coalesced), and each thread walks
// down its column for 8 outputs; a warp's shared reads are one row: no
// conflicts, no padding needed.
// 8-bit images at radius 1 to 16 (sigma up to 5) take blur_rows_reg and
// blur_cols_reg instead: taps and sample windows in registers.
// Halos that do not fit the shared-memory opt-in limit (R beyond ~400 for the
// column pass) fall back to the global-memory kernels, which give the same
// result: the arithmetic is integer and exact.
#include "kernel_util.cuh"

namespace {

constexpr int ROW_TILE = 512, ROW_THREADS = 256;
constexpr int COL_TX = 32, COL_TY = 64, COL_THREADS_Y = 8;

template <typename Tin> struct mid_of;
template <> struct mid_of<uint8_t> { using type = uint16_t; using acc = uint32_t; };
template <> struct mid_of<uint16_t> { using type = uint32_t; using acc = uint64_t; };

template <typename Tin, int C>
__global__ void blur_rows(const Tin *__restrict__ in, typename mid_of<Tin>::type *__restrict__ mid, int W,
                          int tiles, const uint32_t *__restrict__ taps, int R, int border, int sh1)
{
    using Acc = typename mid_of<Tin>::acc;
    extern __shared__ uint32_t smem[];
    uint32_t *s_taps = smem, *s_row = smem + R + 1;
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * ROW_TILE; // 1-D grid: H may exceed 65535
    const Tin *row = in + (size_t)y * W * C;
    for (int i = threadIdx.x; i <= R; i += blockDim.x)
        s_taps[i] = taps[i];
    gf_stage_row<Tin, C, ROW_THREADS, ROW_TILE>(row, s_row, W, x0, R, border);
    __syncthreads();
    const int n = min(ROW_TILE, W - x0) * C;
    typename mid_of<Tin>::type *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    for (int k = threadIdx.x; k < n; k += blockDim.x) {
        const uint32_t *s = s_row + R * C + k;
        Acc acc = (Acc)s_taps[0] * s[0];
        for (int i = 1; i <= R; i++)
            acc += (Acc)s_taps[i] * (s[-i * C] + s[i * C]);
        dst[k] = (typename mid_of<Tin>::type)((acc + ((Acc)1 << (sh1 - 1))) >> sh1);
    }
}

template <typename Tin, int C>
__global__ void blur_rows_naive(const Tin *__restrict__ in, typename mid_of<Tin>::type *__restrict__ mid, int W,
                                int H, const uint32_t *__restrict__ taps, int R, int border, int sh1)
{
    using Acc = typename mid_of<Tin>::acc;
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)W * H * C)
        return;
    const size_t y = k / ((size_t)W * C);
    const int x = (int)(k / C % W), c = (int)(k % C);
    const Tin *row = in + y * W * C;
    Acc acc = 0;
    for (int i = -R; i <= R; i++) {
        const long sx = gf_border_index((long)x + i, W, border);
        if (sx >= 0)
            acc += (Acc)taps[i < 0 ? -i : i] * row[sx * C + c];
    }
    mid[k] = (typename mid_of<Tin>::type)((acc + ((Acc)1 << (sh1 - 1))) >> sh1);
}

template <typename Tin>
__global__ void blur_cols(const typename mid_of<Tin>::type *__restrict__ mid, Tin *__restrict__ out, int N, int H,
                          const uint32_t *__restrict__ taps, int R, int border, int sh2, uint32_t maxval)
{
    using Acc = typename mid_of<Tin>::acc;
    extern __shared__ uint32_t smem[];
    uint32_t *s_taps = smem, *s_col = smem + R + 1; // [(COL_TY + 2R)][COL_TX]
    const int s0 = blockIdx.x * COL_TX, y0 = blockIdx.y * COL_TY, tx = threadIdx.x;
    const int tid = threadIdx.y * COL_TX + tx;
    for (int i = tid; i <= R; i += COL_TX * COL_THREADS_Y)
        s_taps[i] = taps[i];
    const int rows = COL_TY + 2 * R, s = s0 + tx;
    if (y0 >= R && y0 + COL_TY + R <= H) { // no border
        const typename mid_of<Tin>::type *src = mid + (size_t)(y0 - R) * N + s;
        for (int r = threadIdx.y; r < rows; r += COL_THREADS_Y)
            s_col[r * COL_TX + tx] = s < N ? (uint32_t)src[(size_t)r * N] : 0u;
    } else {
        for (int r = threadIdx.y; r < rows; r += COL_THREADS_Y) {
            const long sy = gf_border_index((long)y0 - R + r, H, border);
            s_col[r * COL_TX + tx] = (sy < 0 || s >= N) ? 0u : (uint32_t)mid[(size_t)sy * N + s];
        }
    }
    __syncthreads();
    if (s >= N)
        return;
    for (int r = threadIdx.y; r < COL_TY && y0 + r < H; r += COL_THREADS_Y) {
        const uint32_t *c = s_col + (r + R) * COL_TX + tx;
        Acc acc = (Acc)s_taps[0] * c[0];
        for (int i = 1; i <= R; i++)
            acc += (Acc)s_taps[i] * ((Acc)c[-i * COL_TX] + c[i * COL_TX]);
        const Acc v = (acc + ((Acc)1 << (sh2 - 1))) >> sh2;
        out[(size_t)(y0 + r) * N + s] = (Tin)(v > maxval ? maxval : v);
    }
}

template <typename Tin>
__global__ void blur_cols_naive(const typename mid_of<Tin>::type *__restrict__ mid, Tin *__restrict__ out, int N,
                                int H, const uint32_t *__restrict__ taps, int R, int border, int sh2, uint32_t maxval)
{
    using Acc = typename mid_of<Tin>::acc;
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (size_t)N * H)
        return;
    const long y = (long)(k / N);
    const size_t s = k % N;
    Acc acc = 0;
    for (int j = -R; j <= R; j++) {
        const long sy = gf_border_index(y + j, H, border);
        if (sy >= 0)
            acc += (Acc)taps[j < 0 ? -j : j] * mid[(size_t)sy * N + s];
    }
    const Acc v = (acc + ((Acc)1 << (sh2 - 1))) >> sh2;
    out[k] = (Tin)(v > maxval ? maxval : v);
}

// ---- 8-bit images, radius 1 to REG_R: the taps and a window of samples in
// registers (R a template parameter, so every index is a constant).

constexpr int REG_R = 16;

// Row pass: a block of 128 threads per tile of 128 / C groups x RK pixels of
// one row.  The tile and its halo are staged in shared memory one sample per
// 32-bit word, as in blur_rows; then thread (group g, channel c) loads its
// RK + 2R samples once into registers and makes RK outputs.  RK = 9 is odd,
// so the 32 lanes' loads (stride 9 * C words between groups) fall in distinct
// banks.  Results go through shared memory to be stored as whole words.
constexpr int RK = 9, RTHREADS = 128;

template <int C, int R>
__global__ void __launch_bounds__(RTHREADS) blur_rows_reg(const uint8_t *__restrict__ in, uint16_t *__restrict__ mid,
                                                          int W, int tiles, const uint32_t *__restrict__ taps,
                                                          int border, int sh1)
{
    constexpr int G = RTHREADS / C, TILE = G * RK, SPAN = (TILE + 2 * R) * C;
    __shared__ uint32_t s_row[SPAN];
    __shared__ uint16_t s_out[TILE * C];
    const int y = blockIdx.x / tiles, x0 = (blockIdx.x % tiles) * TILE;
    const uint8_t *row = in + (size_t)y * W * C;
    gf_stage_row<uint8_t, C, RTHREADS, TILE>(row, s_row, W, x0, R, border);
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
            uint32_t acc = q[0] * w[j + R];
#pragma unroll
            for (int i = 1; i <= R; i++)
                acc += q[i] * (w[j + R - i] + w[j + R + i]);
            s_out[(g * RK + j) * C + c] = (uint16_t)((acc + (1u << (sh1 - 1))) >> sh1);
        }
    }
    __syncthreads();
    const int n = min(TILE, W - x0) * C;
    uint16_t *dst = mid + (size_t)y * W * C + (size_t)x0 * C;
    for (int k = threadIdx.x; k < n; k += RTHREADS)
        dst[k] = s_out[k];
}

// Column pass: each thread owns two neighbouring samples (one 32-bit load of
// the 16-bit intermediate per row) down a strip of CK rows, keeping the 2R + 1
// rows of its window in registers; the window is a ring indexed by the row
// modulo 2R + 1, and the loop is unrolled by 2R + 1 so that every index is a
// constant.  Needs N = W * C even.
constexpr int CK = 64, CTHREADS = 128;

template <int R>
__global__ void __launch_bounds__(CTHREADS) blur_cols_reg(const uint32_t *__restrict__ mid, uint16_t *__restrict__ out,
                                                          int pairs, int H, const uint32_t *__restrict__ taps,
                                                          int border, int sh2)
{
    constexpr int P = 2 * R + 1;
    const int p = blockIdx.x * CTHREADS + threadIdx.x;
    if (p >= pairs)
        return;
    const int y0 = blockIdx.y * CK;
    uint32_t q[R + 1];
#pragma unroll
    for (int i = 0; i <= R; i++)
        q[i] = taps[i];
    uint32_t wa[P], wb[P]; // slot (row - (y0 - R)) % P
#pragma unroll
    for (int i = 0; i < P - 1; i++) {
        const long sy = gf_border_index((long)y0 - R + i, H, border);
        const uint32_t v = sy < 0 ? 0u : mid[(size_t)sy * pairs + p];
        wa[i] = v & 0xffff;
        wb[i] = v >> 16;
    }
    for (int k0 = 0; k0 < CK; k0 += P) {
#pragma unroll
        for (int j = 0; j < P; j++) { // output row y = y0 + k0 + j; its window starts at slot j
            const int y = y0 + k0 + j;
            if (k0 + j >= CK || y >= H)
                break;
            const long sy = gf_border_index((long)y + R, H, border);
            const uint32_t v = sy < 0 ? 0u : mid[(size_t)sy * pairs + p];
            wa[(j + P - 1) % P] = v & 0xffff;
            wb[(j + P - 1) % P] = v >> 16;
            uint32_t a = q[0] * wa[(j + R) % P], b = q[0] * wb[(j + R) % P];
#pragma unroll
            for (int i = 1; i <= R; i++) {
                a += q[i] * (wa[(j + R - i) % P] + wa[(j + R + i) % P]);
                b += q[i] * (wb[(j + R - i) % P] + wb[(j + R + i) % P]);
            }
            a = (a + (1u << (sh2 - 1))) >> sh2;
            b = (b + (1u << (sh2 - 1))) >> sh2;
            out[(size_t)y * pairs + p] = (uint16_t)((a > 255 ? 255 : a) | (b > 255 ? 255 : b) << 8);
        }
    }
}

// Calls f.template operator()<R>() for R in 1..REG_R.
template <int RR, typename F> static cudaError_t with_radius(int R, F &&f)
{
    if constexpr (RR > REG_R)
        return cudaErrorInvalidValue; // not reached: the caller checks R
    else
        return R == RR ? f.template operator()<RR>() : with_radius<RR + 1>(R, f);
}

} // namespace

extern "C" size_t gf_blur_scratch_bytes(const gf_image *in)
{
    return gf_samples(in) * (in->depth == 16 ? 4 : 2);
}

extern "C" cudaError_t gf_blur_launch(const gf_image *in, gf_image *out, void *scratch, const uint32_t *d_taps,
                                      int R, int border, int variant, cudaStream_t st)
{
    const int W = in->width, H = in->height, d = in->depth;
    const int sh1 = GF_BLUR_SHIFT1(d), sh2 = GF_BLUR_SHIFT2(d);
    const uint32_t maxval = gf_maxval(d);
    return gf_dispatch(in, [&]<typename T, int C>() -> cudaError_t {
        using Mid = typename mid_of<T>::type;
        Mid *mid = (Mid *)scratch;
        const T *src = (const T *)in->data;
        T *dst = (T *)out->data;
        const size_t n = gf_samples(in);
        if (sizeof(T) == 1 && variant != GF_KERNEL_NAIVE && R >= 1 && R <= REG_R && (W * C) % 2 == 0)
            return with_radius<1>(R, [&]<int RR>() -> cudaError_t {
                constexpr int TILE = RTHREADS / C * RK;
                const unsigned tiles = gf_blocks(W, TILE);
                blur_rows_reg<C, RR><<<tiles * H, RTHREADS, 0, st>>>((const uint8_t *)src, (uint16_t *)mid, W,
                                                                    (int)tiles, d_taps, border, sh1);
                GF_LAUNCH_CHECK();
                const int pairs = W * C / 2;
                blur_cols_reg<RR><<<dim3(gf_blocks(pairs, CTHREADS), gf_blocks(H, CK)), CTHREADS, 0, st>>>(
                    (const uint32_t *)mid, (uint16_t *)dst, pairs, H, d_taps, border, sh2);
                GF_LAUNCH_CHECK();
                return cudaSuccess;
            });
        const size_t row_smem = ((size_t)R + 1 + ((size_t)ROW_TILE + 2 * (size_t)R) * C) * 4;
        if (variant == GF_KERNEL_NAIVE || !gf_fit_smem(blur_rows<T, C>, row_smem))
            blur_rows_naive<T, C><<<gf_blocks(n, 256), 256, 0, st>>>(src, mid, W, H, d_taps, R, border, sh1);
        else
        {
            const unsigned tiles = gf_blocks(W, ROW_TILE);
            blur_rows<T, C><<<tiles * H, ROW_THREADS, row_smem, st>>>(src, mid, W, (int)tiles, d_taps, R, border, sh1);
        }
        GF_LAUNCH_CHECK();
        const int N = W * C;
        const size_t col_smem = ((size_t)R + 1 + ((size_t)COL_TY + 2 * (size_t)R) * COL_TX) * 4;
        if (variant == GF_KERNEL_NAIVE || !gf_fit_smem(blur_cols<T>, col_smem))
            blur_cols_naive<T><<<gf_blocks(n, 256), 256, 0, st>>>(mid, dst, N, H, d_taps, R, border, sh2, maxval);
        else
            blur_cols<T><<<dim3(gf_blocks(N, COL_TX), gf_blocks(H, COL_TY)), dim3(COL_TX, COL_THREADS_Y), col_smem,
                           st>>>(mid, dst, N, H, d_taps, R, border, sh2, maxval);
        GF_LAUNCH_CHECK();
        return cudaSuccess;
    });
}
