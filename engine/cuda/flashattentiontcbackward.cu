// SPDX-License-Identifier: GPL-3.0-or-later
// Fused attention backward on tensor cores: FlashAttention-2 (Dao 2023,
// Algorithm 2) with nvcuda::wmma 16x16x16 fragments, bf16/fp16 in, fp32
// accumulate. Same contract as the fp32 kernels in flashattention.cu (dq, dk,
// dv accumulate in dtype; delta (B,NH,T) fp32 scratch for D_t = dout_t·out_t;
// P recomputed from lse). Selection and fallbacks: flashattentiontc.h (the
// default where eligible; HEADROOM_FUSED_ATTENTION_BACKWARD=fma or the test
// override keeps the fp32 kernel). Verified on an H200 on 2026-11-26
// (gpu_attention's tc-bwd and tc-both cases; docs/validation/
// gpu-h200-2026-11-26c.md).
//
// Three kernels, so that every output element has exactly one writer (no
// atomics, the same result on every run):
//   1. D_t = rowsum(dout ∘ out) in fp32 per (b, h, t) (Algorithm 2, line 4).
//   2. dK/dV: a block of kBwdWarps = 4 warps owns 64 KEY rows of one
//      (b, kvHead), 16 per warp, with K and V held in registers as matrix_a
//      fragments. It walks every query head of its KV head (GQA: dk/dv sum
//      over the group inside the block, race-free) and, per head, the query
//      tiles of R rows (Algorithm 2's inner loop; causal: from the block's
//      first key on). Per tile, each warp computes on its 16 keys
//        S^T  = K·Q^T                  (WMMA, to fp32 scratch)
//        P^T  = exp(S^T·scale − lse_t)  (fp32; masked entries 0)
//        dV  += P^T·dO                 (WMMA, P rounded to dtype)
//        dP^T = V·dO^T                 (WMMA, to fp32 scratch)
//        dS^T = P^T ∘ (dP^T − D_t)     (fp32, rounded to dtype)
//        dK  += dS^T·Q                 (WMMA)
//      with dK and dV in WMMA accumulators (fp32 registers) for the whole
//      kernel; at the end dk += scale·dK and dv += dV (read, add, write).
//   3. dQ: a block owns 64 QUERY rows of one (b, h), Q and dO in registers,
//      and walks the key tiles of R rows (causal: up to its last query),
//      recomputing S, P, dP and dS the same way, and dQ += dS·K (WMMA);
//      at the end dq += scale·dQ.
// Shared memory per block (static, under the 48 KiB every architecture gives
// without opting in): two tiles of R rows of the other side in dtype (Q and
// dO, or K and V; rows padded by 8 elements against bank conflicts; the
// block's own 64 rows are staged through the same region before the loop),
// per warp a 16 x R fp32 scratch (WMMA's accumulator layout is unspecified,
// so the element-wise step goes through memory, as in the forward) and a
// 16 x R dtype buffer for P, then dS, as matrix_a. R = 64 for HD <= 64
// (44.5 KiB), 32 above (31.3 KiB at HD 128).
// Besides the inputs and the outputs' own rounding, the only 16-bit roundings
// are P before dV and dS before dK and dQ, as in FlashAttention-2; S, dP, D,
// the softmax and every accumulation are fp32.
#include "cuda/contextimpl.cuh"
#include "cuda/flashattentiontc.cuh"
#include "cuda/flashattentiontc.h"

#include <mma.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

constexpr int kBwdWarps = 4;
constexpr int kOwnRows = kBwdWarps * 16; // key rows (dk/dv) or query rows (dq) per block

struct BwdDims {
    int T, NH, NKV;
    bool causal;
};

// Shared-memory plan of one block for head dimension HD (bytes; every region
// starts at a multiple of 128 and every WMMA pointer lands on 32 bytes: row
// offsets are multiples of 16 rows, column offsets multiples of 16 elements).
template <int HD>
struct BwdPlan {
    // A member, not a free function: on sm_75, where the kernels are empty,
    // a free one would be unreferenced (a warning, so an error here).
    static constexpr int R = HD <= 64 ? 64 : 32; // rows of the other side per tile
    static constexpr int ld = HD + 8;            // elements; a multiple of 8 as WMMA needs for 16-bit types
    static constexpr int sLd = R + 4;            // floats; a multiple of 4 as WMMA needs for fp32
    static constexpr int pLd = R + 8;            // elements
    static constexpr int tileBytes = tc::roundUp128(2 * R * ld * 2);
    static constexpr int sBytes = tc::roundUp128(kBwdWarps * 16 * sLd * 4);
    static constexpr int pBytes = tc::roundUp128(kBwdWarps * 16 * pLd * 2);
    static constexpr int statBytes = tc::roundUp128(2 * R * 4);
    static constexpr int sOffset = tileBytes;
    static constexpr int pOffset = sOffset + sBytes;
    static constexpr int statOffset = pOffset + pBytes;
    static constexpr int totalBytes = statOffset + statBytes;
    static_assert(HD % 16 == 0 && HD >= 16 && HD <= 128, "head dimension: a multiple of 16 up to 128");
    static_assert(2 * R >= kOwnRows, "the two tiles must hold the block's own rows while they are staged");
    static_assert(sLd >= 16, "the scratch also takes one 16x16 accumulator at the end");
    static_assert(totalBytes <= 48 * 1024, "static shared memory above the 48 KiB default");
};

// D_t = dout_t·out_t for every row (b, t, h) of (B,T,NH,HD), one warp per
// row, 16-byte loads; written to delta (B,NH,T). Plain fp32 arithmetic, so
// this one compiles (and is never launched) below sm_80 as well.
template <typename E, int HD>
__global__ void flashDeltaTcKernel(float* delta, const E* dout, const E* out, BwdDims dims, std::size_t rows)
{
    constexpr int chunks = HD / 8;
    const std::size_t row = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32; // (b, t, h)
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (row >= rows) // whole warps leave together: blockDim.x is a multiple of 32
        return;
    float dot = 0.0f;
    for (int c = lane; c < chunks; c += 32) {
        const uint4 a = *reinterpret_cast<const uint4*>(dout + row * HD + c * 8);
        const uint4 o = *reinterpret_cast<const uint4*>(out + row * HD + c * 8);
        const E* ae = reinterpret_cast<const E*>(&a);
        const E* oe = reinterpret_cast<const E*>(&o);
#pragma unroll
        for (int i = 0; i < 8; ++i)
            dot += load(ae[i]) * load(oe[i]);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        dot += __shfl_xor_sync(0xFFFFFFFFu, dot, offset);
    const std::size_t h = row % static_cast<std::size_t>(dims.NH), bt = row / static_cast<std::size_t>(dims.NH);
    const std::size_t t = bt % static_cast<std::size_t>(dims.T), b = bt / static_cast<std::size_t>(dims.T);
    if (lane == 0)
        delta[(b * dims.NH + h) * dims.T + t] = dot;
}

// dK and dV of 64 key rows of (b = blockIdx.z, kvHead = blockIdx.y); see the
// top of the file. Key blocks in launch order: block 0 first, since under
// causal masking the earliest keys see the most queries.
template <typename E, int HD>
__global__ void __launch_bounds__(kBwdWarps * 32)
    flashBackwardDkDvTcKernel(E* dk, E* dv, const E* dout, const float* lse, const float* delta, const E* q,
                              const E* k, const E* v, BwdDims dims, float scale)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    namespace wmma = nvcuda::wmma;
    using Plan = BwdPlan<HD>;
    constexpr int R = Plan::R, ld = Plan::ld, sLd = Plan::sLd, pLd = Plan::pLd;
    constexpr int kSlices = HD / 16, rSlices = R / 16;
    __shared__ __align__(128) unsigned char smem[Plan::totalBytes];
    E* qTile = reinterpret_cast<E*>(smem);
    E* doTile = qTile + R * ld;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* sBuf = reinterpret_cast<float*>(smem + Plan::sOffset) + warp * 16 * sLd;
    E* pBuf = reinterpret_cast<E*>(smem + Plan::pOffset) + warp * 16 * pLd;
    float* lseTile = reinterpret_cast<float*>(smem + Plan::statOffset);
    float* dTile = lseTile + R;

    const int T_ = dims.T;
    const int b = static_cast<int>(blockIdx.z), kvHead = static_cast<int>(blockIdx.y);
    const int group = dims.NH / dims.NKV;
    const int kBlock = static_cast<int>(blockIdx.x) * kOwnRows;
    const int s0 = kBlock + warp * 16; // this warp's first key row
    const bool warpActive = s0 < T_;

    // K and V of the block's keys, staged one after the other through the
    // tile region, then held as matrix_a fragments for the whole kernel.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> kFrag[kSlices], vFrag[kSlices];
    tc::loadRows<E, HD>(qTile, k, kBlock, kOwnRows, T_, dims.NKV, kvHead, b);
    __syncthreads();
#pragma unroll
    for (int kd = 0; kd < kSlices; ++kd)
        wmma::load_matrix_sync(kFrag[kd], qTile + warp * 16 * ld + kd * 16, ld);
    __syncthreads(); // every warp has its K fragments before V overwrites the region
    tc::loadRows<E, HD>(qTile, v, kBlock, kOwnRows, T_, dims.NKV, kvHead, b);
    __syncthreads();
#pragma unroll
    for (int kd = 0; kd < kSlices; ++kd)
        wmma::load_matrix_sync(vFrag[kd], qTile + warp * 16 * ld + kd * 16, ld);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> accK[kSlices], accV[kSlices];
#pragma unroll
    for (int jd = 0; jd < kSlices; ++jd) {
        wmma::fill_fragment(accK[jd], 0.0f);
        wmma::fill_fragment(accV[jd], 0.0f);
    }

    // The element-wise step: lane pair (r, half) takes key row r of the
    // warp's 16 and query columns 2 j + half of the tile (as in the forward).
    const int r = lane >> 1, half = lane & 1, s = s0 + r;
    const int firstQuery = dims.causal ? kBlock : 0; // causal: queries before the block's first key see none of it
    for (int g = 0; g < group; ++g) {
        const int h = kvHead * group + g;
        const std::size_t statsBase = (static_cast<std::size_t>(b) * dims.NH + h) * T_;
        for (int t0 = firstQuery; t0 < T_; t0 += R) {
            __syncthreads(); // the fragments are loaded / the previous tile is consumed by every warp
            tc::loadRows<E, HD>(qTile, q, t0, R, T_, dims.NH, h, b);
            tc::loadRows<E, HD>(doTile, dout, t0, R, T_, dims.NH, h, b);
            for (int j = static_cast<int>(threadIdx.x); j < R; j += static_cast<int>(blockDim.x)) {
                const bool inside = t0 + j < T_;
                lseTile[j] = inside ? lse[statsBase + t0 + j] : 0.0f;
                dTile[j] = inside ? delta[statsBase + t0 + j] : 0.0f;
            }
            __syncthreads();
            // Keys past T, or (causal) a tile whose last query precedes this warp's first key.
            if (!warpActive || (dims.causal && t0 + R - 1 < s0))
                continue;

            // S^T = K·Q^T (16 x R): Q^T is the Q tile read column-major.
#pragma unroll
            for (int jn = 0; jn < rSlices; ++jn) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                wmma::fill_fragment(acc, 0.0f);
#pragma unroll
                for (int kd = 0; kd < kSlices; ++kd) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major> qFrag;
                    wmma::load_matrix_sync(qFrag, qTile + jn * 16 * ld + kd * 16, ld);
                    wmma::mma_sync(acc, kFrag[kd], qFrag, acc);
                }
                wmma::store_matrix_sync(sBuf + jn * 16, acc, sLd, wmma::mem_row_major);
            }
            __syncwarp();

            // P^T = exp(S^T·scale − lse_t); 0 where masked (key or query
            // past T, or causal t < s), written to zero rather than through
            // exp(-INF) so no masked entry can become NaN. lse_t is finite
            // for every t < T (each query sees at least one key).
            float p[R / 2];
#pragma unroll
            for (int j = 0; j < R / 2; ++j) {
                const int c = 2 * j + half, t = t0 + c;
                const bool visible = s < T_ && t < T_ && (!dims.causal || t >= s);
                p[j] = visible ? expf(sBuf[r * sLd + c] * scale - lseTile[c]) : 0.0f;
                pBuf[r * pLd + c] = store<E>(p[j]);
            }
            __syncwarp(); // P written, S read by every lane before dP^T overwrites the scratch

            // dV += P^T·dO: P^T (16 x R) row-major from pBuf, dO (R x HD) row-major.
            {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> pFrag[rSlices];
#pragma unroll
                for (int kk = 0; kk < rSlices; ++kk)
                    wmma::load_matrix_sync(pFrag[kk], pBuf + kk * 16, pLd);
#pragma unroll
                for (int jd = 0; jd < kSlices; ++jd)
#pragma unroll
                    for (int kk = 0; kk < rSlices; ++kk) {
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::row_major> doFrag;
                        wmma::load_matrix_sync(doFrag, doTile + kk * 16 * ld + jd * 16, ld);
                        wmma::mma_sync(accV[jd], pFrag[kk], doFrag, accV[jd]);
                    }
            }

            // dP^T = V·dO^T (16 x R): dO^T is the dO tile read column-major.
#pragma unroll
            for (int jn = 0; jn < rSlices; ++jn) {
                wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
                wmma::fill_fragment(acc, 0.0f);
#pragma unroll
                for (int kd = 0; kd < kSlices; ++kd) {
                    wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major> doFrag;
                    wmma::load_matrix_sync(doFrag, doTile + jn * 16 * ld + kd * 16, ld);
                    wmma::mma_sync(acc, vFrag[kd], doFrag, acc);
                }
                wmma::store_matrix_sync(sBuf + jn * 16, acc, sLd, wmma::mem_row_major);
            }
            __syncwarp(); // dP^T stored, P read from pBuf by every lane before dS overwrites it

            // dS^T = P^T ∘ (dP^T − D_t), rounded to dtype for the dK product;
            // masked entries have p = 0 and so ds = 0.
#pragma unroll
            for (int j = 0; j < R / 2; ++j) {
                const int c = 2 * j + half;
                pBuf[r * pLd + c] = store<E>(p[j] * (sBuf[r * sLd + c] - dTile[c]));
            }
            __syncwarp();

            // dK += dS^T·Q: dS^T (16 x R) row-major from pBuf, Q (R x HD) row-major.
            {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> dsFrag[rSlices];
#pragma unroll
                for (int kk = 0; kk < rSlices; ++kk)
                    wmma::load_matrix_sync(dsFrag[kk], pBuf + kk * 16, pLd);
#pragma unroll
                for (int jd = 0; jd < kSlices; ++jd)
#pragma unroll
                    for (int kk = 0; kk < rSlices; ++kk) {
                        wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::row_major> qFrag;
                        wmma::load_matrix_sync(qFrag, qTile + kk * 16 * ld + jd * 16, ld);
                        wmma::mma_sync(accK[jd], dsFrag[kk], qFrag, accK[jd]);
                    }
            }
            __syncwarp(); // pBuf read before the next tile writes P
        }
    }
    if (!warpActive)
        return; // no block-wide barrier follows

    // dk += scale·dK, dv += dV: each 16x16 accumulator through the scratch;
    // element e = 32 i + lane of the slice is row 2 i + lane / 16.
    const std::size_t rowStride = static_cast<std::size_t>(dims.NKV) * HD;
    const std::size_t base = ((static_cast<std::size_t>(b) * T_ + s0) * dims.NKV + kvHead) * HD;
#pragma unroll
    for (int jd = 0; jd < kSlices; ++jd) {
        if (dk) {
            wmma::store_matrix_sync(sBuf, accK[jd], sLd, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int row = 2 * i + (lane >> 4), col = lane & 15;
                if (s0 + row < T_) {
                    E& target = dk[base + row * rowStride + jd * 16 + col];
                    target = store<E>(load(target) + scale * sBuf[row * sLd + col]);
                }
            }
            __syncwarp();
        }
        if (dv) {
            wmma::store_matrix_sync(sBuf, accV[jd], sLd, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const int row = 2 * i + (lane >> 4), col = lane & 15;
                if (s0 + row < T_) {
                    E& target = dv[base + row * rowStride + jd * 16 + col];
                    target = store<E>(load(target) + sBuf[row * sLd + col]);
                }
            }
            __syncwarp();
        }
    }
#else
    // Never launched: the host checks compute capability 8.0 first.
    (void)dk, (void)dv, (void)dout, (void)lse, (void)delta, (void)q, (void)k, (void)v, (void)dims, (void)scale;
    __trap();
#endif
}

// dQ of 64 query rows of (b = blockIdx.z, h = blockIdx.y); see the top of
// the file. The latest query blocks (the most keys under causal masking)
// start first.
template <typename E, int HD>
__global__ void __launch_bounds__(kBwdWarps * 32)
    flashBackwardDqTcKernel(E* dq, const E* dout, const float* lse, const float* delta, const E* q, const E* k,
                            const E* v, BwdDims dims, float scale)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    namespace wmma = nvcuda::wmma;
    using Plan = BwdPlan<HD>;
    constexpr int R = Plan::R, ld = Plan::ld, sLd = Plan::sLd, pLd = Plan::pLd;
    constexpr int kSlices = HD / 16, rSlices = R / 16;
    __shared__ __align__(128) unsigned char smem[Plan::totalBytes];
    E* kTile = reinterpret_cast<E*>(smem);
    E* vTile = kTile + R * ld;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* sBuf = reinterpret_cast<float*>(smem + Plan::sOffset) + warp * 16 * sLd;
    E* pBuf = reinterpret_cast<E*>(smem + Plan::pOffset) + warp * 16 * pLd;

    const int T_ = dims.T;
    const int b = static_cast<int>(blockIdx.z), h = static_cast<int>(blockIdx.y);
    const int kvHead = h / (dims.NH / dims.NKV);
    const int qBlock = static_cast<int>(gridDim.x - 1 - blockIdx.x) * kOwnRows;
    const int q0 = qBlock + warp * 16; // this warp's first query row
    const bool warpActive = q0 < T_;

    // Q and dO of the block's queries, staged one after the other through
    // the tile region, then held as matrix_a fragments.
    wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> qFrag[kSlices], doFrag[kSlices];
    tc::loadRows<E, HD>(kTile, q, qBlock, kOwnRows, T_, dims.NH, h, b);
    __syncthreads();
#pragma unroll
    for (int kd = 0; kd < kSlices; ++kd)
        wmma::load_matrix_sync(qFrag[kd], kTile + warp * 16 * ld + kd * 16, ld);
    __syncthreads();
    tc::loadRows<E, HD>(kTile, dout, qBlock, kOwnRows, T_, dims.NH, h, b);
    __syncthreads();
#pragma unroll
    for (int kd = 0; kd < kSlices; ++kd)
        wmma::load_matrix_sync(doFrag[kd], kTile + warp * 16 * ld + kd * 16, ld);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> accQ[kSlices];
#pragma unroll
    for (int jd = 0; jd < kSlices; ++jd)
        wmma::fill_fragment(accQ[jd], 0.0f);

    // Lane pair (r, half): query row r of the warp's 16, key columns 2 j + half.
    const int r = lane >> 1, half = lane & 1, t = q0 + r;
    const std::size_t statsBase = (static_cast<std::size_t>(b) * dims.NH + h) * T_;
    const float L = t < T_ ? lse[statsBase + t] : 0.0f;
    const float D = t < T_ ? delta[statsBase + t] : 0.0f;

    const int lastKey = dims.causal ? min(qBlock + kOwnRows - 1, T_ - 1) : T_ - 1;
    const int warpLastKey = dims.causal ? min(q0 + 15, T_ - 1) : T_ - 1;
    for (int kt = 0; kt <= lastKey; kt += R) {
        __syncthreads(); // the fragments are loaded / the previous tile is consumed by every warp
        tc::loadRows<E, HD>(kTile, k, kt, R, T_, dims.NKV, kvHead, b);
        tc::loadRows<E, HD>(vTile, v, kt, R, T_, dims.NKV, kvHead, b);
        __syncthreads();
        // Queries past T, or (causal) a tile entirely above this warp's diagonal.
        if (!warpActive || kt > warpLastKey)
            continue;

        // S = Q·K^T (16 x R): K^T is the K tile read column-major.
#pragma unroll
        for (int jn = 0; jn < rSlices; ++jn) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.0f);
#pragma unroll
            for (int kd = 0; kd < kSlices; ++kd) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major> kFrag;
                wmma::load_matrix_sync(kFrag, kTile + jn * 16 * ld + kd * 16, ld);
                wmma::mma_sync(acc, qFrag[kd], kFrag, acc);
            }
            wmma::store_matrix_sync(sBuf + jn * 16, acc, sLd, wmma::mem_row_major);
        }
        __syncwarp();

        // P = exp(S·scale − lse_t), 0 where masked (see the dK/dV kernel).
        float p[R / 2];
#pragma unroll
        for (int j = 0; j < R / 2; ++j) {
            const int c = 2 * j + half, sKey = kt + c;
            const bool visible = t < T_ && sKey < T_ && (!dims.causal || sKey <= t);
            p[j] = visible ? expf(sBuf[r * sLd + c] * scale - L) : 0.0f;
        }
        __syncwarp(); // S read by every lane before dP overwrites the scratch

        // dP = dO·V^T (16 x R): V^T is the V tile read column-major.
#pragma unroll
        for (int jn = 0; jn < rSlices; ++jn) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.0f);
#pragma unroll
            for (int kd = 0; kd < kSlices; ++kd) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major> vFrag;
                wmma::load_matrix_sync(vFrag, vTile + jn * 16 * ld + kd * 16, ld);
                wmma::mma_sync(acc, doFrag[kd], vFrag, acc);
            }
            wmma::store_matrix_sync(sBuf + jn * 16, acc, sLd, wmma::mem_row_major);
        }
        __syncwarp();

        // dS = P ∘ (dP − D_t), rounded to dtype for the dQ product.
#pragma unroll
        for (int j = 0; j < R / 2; ++j) {
            const int c = 2 * j + half;
            pBuf[r * pLd + c] = store<E>(p[j] * (sBuf[r * sLd + c] - D));
        }
        __syncwarp();

        // dQ += dS·K: dS (16 x R) row-major from pBuf, K (R x HD) row-major.
        wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> dsFrag[rSlices];
#pragma unroll
        for (int kk = 0; kk < rSlices; ++kk)
            wmma::load_matrix_sync(dsFrag[kk], pBuf + kk * 16, pLd);
#pragma unroll
        for (int jd = 0; jd < kSlices; ++jd)
#pragma unroll
            for (int kk = 0; kk < rSlices; ++kk) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::row_major> kFrag;
                wmma::load_matrix_sync(kFrag, kTile + kk * 16 * ld + jd * 16, ld);
                wmma::mma_sync(accQ[jd], dsFrag[kk], kFrag, accQ[jd]);
            }
        __syncwarp(); // pBuf read before the next tile writes dS
    }
    if (!warpActive)
        return; // no block-wide barrier follows

    // dq += scale·dQ, each 16x16 accumulator through the scratch.
    const std::size_t rowStride = static_cast<std::size_t>(dims.NH) * HD;
    const std::size_t base = ((static_cast<std::size_t>(b) * T_ + q0) * dims.NH + h) * HD;
#pragma unroll
    for (int jd = 0; jd < kSlices; ++jd) {
        wmma::store_matrix_sync(sBuf, accQ[jd], sLd, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            const int row = 2 * i + (lane >> 4), col = lane & 15;
            if (q0 + row < T_) {
                E& target = dq[base + row * rowStride + jd * 16 + col];
                target = store<E>(load(target) + scale * sBuf[row * sLd + col]);
            }
        }
        __syncwarp();
    }
#else
    (void)dq, (void)dout, (void)lse, (void)delta, (void)q, (void)k, (void)v, (void)dims, (void)scale;
    __trap();
#endif
}

template <typename E, int HD>
Status launchBackwardTc(Context& context, void* dq, void* dk, void* dv, float* delta, const void* dout,
                        const void* out, const float* lse, const void* q, const void* k, const void* v,
                        const AttentionDims& dims, float scale)
{
    const BwdDims d{static_cast<int>(dims.T), static_cast<int>(dims.NH), static_cast<int>(dims.NKV), dims.causal};
    const cudaStream_t stream = streamOf(context);
    const std::size_t rows = dims.B * dims.T * dims.NH;
    flashDeltaTcKernel<E, HD><<<static_cast<unsigned>((rows * 32 + 255) / 256), 256, 0, stream>>>(
        delta, static_cast<const E*>(dout), static_cast<const E*>(out), d, rows);
    HR_LAUNCHED();
    const unsigned blocks = static_cast<unsigned>((dims.T + kOwnRows - 1) / kOwnRows);
    if (dq) {
        flashBackwardDqTcKernel<E, HD>
            <<<dim3(blocks, static_cast<unsigned>(dims.NH), static_cast<unsigned>(dims.B)), kBwdWarps * 32, 0,
               stream>>>(static_cast<E*>(dq), static_cast<const E*>(dout), lse, delta, static_cast<const E*>(q),
                         static_cast<const E*>(k), static_cast<const E*>(v), d, scale);
        HR_LAUNCHED();
    }
    if (dk || dv) {
        flashBackwardDkDvTcKernel<E, HD>
            <<<dim3(blocks, static_cast<unsigned>(dims.NKV), static_cast<unsigned>(dims.B)), kBwdWarps * 32, 0,
               stream>>>(static_cast<E*>(dk), static_cast<E*>(dv), static_cast<const E*>(dout), lse, delta,
                         static_cast<const E*>(q), static_cast<const E*>(k), static_cast<const E*>(v), d, scale);
        HR_LAUNCHED();
    }
    return {};
}

template <typename E>
Status launchBackwardTcForHd(Context& context, void* dq, void* dk, void* dv, float* delta, const void* dout,
                             const void* out, const float* lse, const void* q, const void* k, const void* v,
                             const AttentionDims& dims, float scale)
{
#define HR_BWD_TC_CASE(hd)                                                                                           \
    case hd: return launchBackwardTc<E, hd>(context, dq, dk, dv, delta, dout, out, lse, q, k, v, dims, scale)
    switch (dims.HD) {
        HR_BWD_TC_CASE(16);
        HR_BWD_TC_CASE(32);
        HR_BWD_TC_CASE(48);
        HR_BWD_TC_CASE(64);
        HR_BWD_TC_CASE(80);
        HR_BWD_TC_CASE(96);
        HR_BWD_TC_CASE(112);
        HR_BWD_TC_CASE(128);
    default: return detail::invalid("tensor-core attention backward: head dimension not a multiple of 16 up to 128");
    }
#undef HR_BWD_TC_CASE
}

std::atomic<int> gBackwardOverride{static_cast<int>(FusedAttentionKernel::fromEnvironment)};

// HEADROOM_FUSED_ATTENTION_BACKWARD=fma keeps the exact fp32 backward (to
// compare the two); unset, or any other value, the WMMA backward where
// eligible, the default since it passed gpu_attention on an H200 and the
// Llama 3.2 1B step agreed with the plan to the byte with it
// (docs/validation/gpu-h200-2026-11-26c.md). Read once per process.
bool environmentSelectsBackwardTensorCores()
{
    static const bool selected = [] {
        const char* value = std::getenv("HEADROOM_FUSED_ATTENTION_BACKWARD");
        return value == nullptr || std::strcmp(value, "fma") != 0;
    }();
    return selected;
}

using tc::aligned16;

bool allAligned(void* dq, void* dk, void* dv, float* delta, const void* dout, const void* out, const float* lse,
                const void* q, const void* k, const void* v)
{
    // A null dq, dk or dv (gradient not wanted) is aligned.
    return aligned16(dq) && aligned16(dk) && aligned16(dv) && aligned16(delta) && aligned16(dout) &&
           aligned16(out) && aligned16(lse) && aligned16(q) && aligned16(k) && aligned16(v);
}

} // namespace

void setFusedAttentionBackwardKernelForTests(FusedAttentionKernel kernel)
{
    gBackwardOverride.store(static_cast<int>(kernel));
}

bool flashAttentionBackwardTensorCoreSelected(Context& context, DType dtype, void* dq, void* dk, void* dv,
                                              float* delta, const void* dout, const void* out, const float* lse,
                                              const void* q, const void* k, const void* v, const AttentionDims& dims)
{
    const auto mode = static_cast<FusedAttentionKernel>(gBackwardOverride.load());
    const bool wanted = mode == FusedAttentionKernel::tensorCores ||
                        (mode == FusedAttentionKernel::fromEnvironment && environmentSelectsBackwardTensorCores());
    if (!wanted || lse == nullptr || delta == nullptr || dout == nullptr || out == nullptr)
        return false;
    if (!allAligned(dq, dk, dv, delta, dout, out, lse, q, k, v))
        return false;
    return flashAttentionTensorCoreEligible(context, dtype, dims);
}

Status flashAttentionBackwardTensorCores(Context& context, DType dtype, void* dq, void* dk, void* dv, float* delta,
                                         const void* dout, const void* out, const float* lse, const void* q,
                                         const void* k, const void* v, const AttentionDims& dims, float scale)
{
    if (!flashAttentionTensorCoreEligible(context, dtype, dims))
        return detail::invalid("tensor-core attention backward: dtype, sizes, dropout or device not supported");
    if (!allAligned(dq, dk, dv, delta, dout, out, lse, q, k, v))
        return detail::invalid("tensor-core attention backward: every tensor must be 16-byte aligned");
    if (dtype == DType::bf16)
        return launchBackwardTcForHd<__nv_bfloat16>(context, dq, dk, dv, delta, dout, out, lse, q, k, v, dims,
                                                    scale);
    return launchBackwardTcForHd<__half>(context, dq, dk, dv, delta, dout, out, lse, q, k, v, dims, scale);
}

} // namespace headroom::cuda
