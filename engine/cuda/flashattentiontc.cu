// SPDX-License-Identifier: GPL-3.0-or-later
// Fused attention forward on tensor cores: FlashAttention-2 (Dao 2023,
// Algorithm 1) with nvcuda::wmma 16x16x16 fragments, bf16/fp16 in, fp32
// accumulate. Same result contract as flashForwardKernel in flashattention.cu
// (out in dtype, lse = m + log(l) per (b, h, t) in fp32), so the fused
// backward there consumes it unchanged. Selection and fallbacks:
// flashattentiontc.h (the default where eligible; HEADROOM_FUSED_ATTENTION=fma
// keeps the fp32 kernel).
//
// Layout of the work: a block of kTcWarps = 4 warps owns kBr = 64 query rows
// of one (b, h); each warp owns 16 of them (Algorithm 1's outer loop split
// across warps, so warps never exchange softmax state). Per key tile of Bc
// rows (64 for HD <= 64, 32 above, so static shared memory stays under the
// 48 KiB every architecture gives without opting in):
//   1. the block stages K and V tiles in shared memory in dtype (rows padded
//      by 8 elements against bank conflicts; 16-byte loads, rows past T zero);
//   2. each warp computes S = Q·K^T (16 x Bc) with WMMA, Q held in registers
//      as matrix_a fragments for the whole kernel, and stores S (fp32) to its
//      own shared scratch, because WMMA's accumulator layout is unspecified;
//   3. two lanes per row apply scale and the mask (-INF past T and, causal,
//      above the diagonal), take the row max, the correction exp(m_old - m_new)
//      (0 while m_old = -INF) and write P = exp(s - m_new), rounded to dtype,
//      for the next product; l sums the fp32 p, as the fp32 kernel does;
//   4. O += P·V in 16-column slices: each slice's fp32 product goes through
//      the scratch and each lane folds it into its fixed O elements
//      (element e = 32 i + lane of the 16x16 slice) as o = o·correction + pv.
// A warp skips a tile whose first key is past its last query (causal), the
// block stops at the block's last query. The fp32 softmax state (m, l) and O
// never leave registers; the only 16-bit rounding besides the inputs is P
// before P·V (as in FlashAttention-2) and out itself.
#include "cuda/contextimpl.cuh"
#include "cuda/flashattentiontc.cuh"
#include "cuda/flashattentiontc.h"

#include "runtime/cpu/dropoutrng.h"

#include <mma.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace headroom::cuda {

namespace {

using detail::store;

constexpr int kTcWarps = 4;
constexpr int kBr = kTcWarps * 16; // query rows per block

struct TcDims {
    int T, NH, NKV;
    bool causal;
};

// Shared-memory plan of one block for head dimension HD (bytes; every
// region starts at a multiple of 128, every WMMA pointer lands on 32 bytes).
template <int HD>
struct TcPlan {
    static constexpr int Bc = HD <= 64 ? 64 : 32;
    static constexpr int kvLd = HD + 8; // elements; a multiple of 8 as WMMA needs for 16-bit types
    static constexpr int sLd = Bc + 4;  // floats; a multiple of 4 as WMMA needs for fp32
    static constexpr int pLd = Bc + 8;  // elements
    // K and V tiles; before the loop the block's Q rows are staged here (2·Bc >= kBr rows).
    static constexpr int kvBytes = tc::roundUp128((2 * Bc > kBr ? 2 * Bc : kBr) * kvLd * 2);
    static constexpr int sBytes = tc::roundUp128(kTcWarps * 16 * sLd * 4);
    static constexpr int pBytes = tc::roundUp128(kTcWarps * 16 * pLd * 2);
    static constexpr int statBytes = tc::roundUp128(kTcWarps * 16 * 4);
    static constexpr int sOffset = kvBytes;
    static constexpr int pOffset = sOffset + sBytes;
    static constexpr int statOffset = pOffset + pBytes;
    static constexpr int totalBytes = statOffset + statBytes;
    static_assert(HD % 16 == 0 && HD >= 16 && HD <= 128, "head dimension: a multiple of 16 up to 128");
    static_assert(2 * Bc >= kBr, "the K/V region must hold the staged Q rows");
    static_assert(totalBytes <= 48 * 1024, "static shared memory above the 48 KiB default");
};

template <typename E, int HD>
__global__ void __launch_bounds__(kTcWarps * 32)
    flashForwardTcKernel(E* out, float* lse, const E* q, const E* k, const E* v, TcDims dims, float scale)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    namespace wmma = nvcuda::wmma;
    using Plan = TcPlan<HD>;
    constexpr int Bc = Plan::Bc, kvLd = Plan::kvLd, sLd = Plan::sLd, pLd = Plan::pLd;
    constexpr int kSlices = HD / 16, nSlices = Bc / 16;
    constexpr unsigned kTcFull = 0xFFFFFFFFu;
    __shared__ __align__(128) unsigned char smem[Plan::totalBytes];
    E* kTile = reinterpret_cast<E*>(smem);
    E* vTile = kTile + Bc * kvLd;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* sBuf = reinterpret_cast<float*>(smem + Plan::sOffset) + warp * 16 * sLd;
    E* pBuf = reinterpret_cast<E*>(smem + Plan::pOffset) + warp * 16 * pLd;
    float* rowStat = reinterpret_cast<float*>(smem + Plan::statOffset) + warp * 16;

    const int T_ = dims.T;
    const int b = static_cast<int>(blockIdx.z), h = static_cast<int>(blockIdx.y);
    const int kvHead = h / (dims.NH / dims.NKV);
    // The latest query blocks (the most keys under causal masking) start first.
    const int qBlock = static_cast<int>(gridDim.x - 1 - blockIdx.x) * kBr;
    const int q0 = qBlock + warp * 16; // this warp's first query row
    const bool warpActive = q0 < T_;

    // Q: staged through the K/V region, then held as matrix_a fragments.
    tc::loadRows<E, HD>(kTile, q, qBlock, kBr, T_, dims.NH, h, b);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> qFrag[kSlices];
#pragma unroll
    for (int kd = 0; kd < kSlices; ++kd)
        wmma::load_matrix_sync(qFrag[kd], kTile + warp * 16 * kvLd + kd * 16, kvLd);

    // Softmax state of row r = lane / 2 (both lanes of the pair hold it);
    // O element i of slice jd is row 2 i + lane / 16, column 16 jd + lane % 16.
    const int r = lane >> 1, half = lane & 1, t = q0 + r;
    float m = -INFINITY, l = 0.0f;
    float o[kSlices][8];
#pragma unroll
    for (int jd = 0; jd < kSlices; ++jd)
#pragma unroll
        for (int i = 0; i < 8; ++i)
            o[jd][i] = 0.0f;

    const int lastKey = dims.causal ? min(qBlock + kBr - 1, T_ - 1) : T_ - 1;
    const int warpLastKey = dims.causal ? min(q0 + 15, T_ - 1) : T_ - 1;
    for (int s0 = 0; s0 <= lastKey; s0 += Bc) {
        __syncthreads(); // Q fragments loaded / the previous tile consumed by every warp
        tc::loadRows<E, HD>(kTile, k, s0, Bc, T_, dims.NKV, kvHead, b);
        tc::loadRows<E, HD>(vTile, v, s0, Bc, T_, dims.NKV, kvHead, b);
        __syncthreads();
        // Rows past T, or a tile entirely above this warp's diagonal: nothing to add.
        if (!warpActive || s0 > warpLastKey)
            continue;

        // S = Q·K^T: K^T is K read column-major (element (d, s) at s·kvLd + d).
#pragma unroll
        for (int jn = 0; jn < nSlices; ++jn) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.0f);
#pragma unroll
            for (int kd = 0; kd < kSlices; ++kd) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::col_major> kFrag;
                wmma::load_matrix_sync(kFrag, kTile + jn * 16 * kvLd + kd * 16, kvLd);
                wmma::mma_sync(acc, qFrag[kd], kFrag, acc);
            }
            wmma::store_matrix_sync(sBuf + jn * 16, acc, sLd, wmma::mem_row_major);
        }
        __syncwarp();

        // Online softmax of row r over this tile; lane pair (r, half) takes
        // columns 2 j + half (fewer bank conflicts than contiguous halves).
        float tileMax = -INFINITY;
#pragma unroll
        for (int j = 0; j < Bc / 2; ++j) {
            const int c = 2 * j + half, s = s0 + c;
            const bool visible = s < T_ && (!dims.causal || s <= t);
            const float x = visible ? sBuf[r * sLd + c] * scale : -INFINITY;
            sBuf[r * sLd + c] = x;
            tileMax = fmaxf(tileMax, x);
        }
        tileMax = fmaxf(tileMax, __shfl_xor_sync(kTcFull, tileMax, 1));
        const float mNew = fmaxf(m, tileMax);
        // A row with nothing visible yet keeps m = -INF: subtract 0 so that
        // exp gives 0 instead of exp(-INF + INF) = NaN.
        const float base = mNew == -INFINITY ? 0.0f : mNew;
        const float correction = expf(m - base); // 0 while m = -INF
        float sum = 0.0f;
#pragma unroll
        for (int j = 0; j < Bc / 2; ++j) {
            const int c = 2 * j + half;
            const float p = expf(sBuf[r * sLd + c] - base); // masked: exp(-INF) = 0
            sum += p;
            pBuf[r * pLd + c] = store<E>(p);
        }
        sum += __shfl_xor_sync(kTcFull, sum, 1);
        l = l * correction + sum;
        m = mNew;
        if (half == 0)
            rowStat[r] = correction;
        __syncwarp();

        // O = O·correction + P·V, one 16-column slice of V at a time.
        wmma::fragment<wmma::matrix_a, 16, 16, 16, E, wmma::row_major> pFrag[nSlices];
#pragma unroll
        for (int kk = 0; kk < nSlices; ++kk)
            wmma::load_matrix_sync(pFrag[kk], pBuf + kk * 16, pLd);
        float rowCorrection[8];
#pragma unroll
        for (int i = 0; i < 8; ++i)
            rowCorrection[i] = rowStat[2 * i + (lane >> 4)];
#pragma unroll
        for (int jd = 0; jd < kSlices; ++jd) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::fill_fragment(acc, 0.0f);
#pragma unroll
            for (int kk = 0; kk < nSlices; ++kk) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, E, wmma::row_major> vFrag;
                wmma::load_matrix_sync(vFrag, vTile + kk * 16 * kvLd + jd * 16, kvLd);
                wmma::mma_sync(acc, pFrag[kk], vFrag, acc);
            }
            wmma::store_matrix_sync(sBuf, acc, sLd, wmma::mem_row_major);
            __syncwarp();
#pragma unroll
            for (int i = 0; i < 8; ++i)
                o[jd][i] = o[jd][i] * rowCorrection[i] + sBuf[(2 * i + (lane >> 4)) * sLd + (lane & 15)];
            __syncwarp(); // the scratch is read before the next slice overwrites it
        }
    }
    if (!warpActive)
        return;
    if (half == 0) {
        rowStat[r] = l;
        if (t < T_)
            lse[(static_cast<std::size_t>(b) * dims.NH + h) * T_ + t] = m + logf(l);
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = 2 * i + (lane >> 4), tt = q0 + row;
        if (tt >= T_)
            continue;
        const float rowL = rowStat[row];
        const float inv = rowL > 0.0f ? 1.0f / rowL : 0.0f; // rowL >= 1 for every row below T
        const std::size_t rowOffset = ((static_cast<std::size_t>(b) * T_ + tt) * dims.NH + h) * HD;
#pragma unroll
        for (int jd = 0; jd < kSlices; ++jd)
            out[rowOffset + jd * 16 + (lane & 15)] = store<E>(o[jd][i] * inv);
    }
#else
    // Never launched: the host checks compute capability 8.0 first.
    __trap();
#endif
}

template <typename E, int HD>
Status launchTc(Context& context, void* out, float* lse, const void* q, const void* k, const void* v,
                const AttentionDims& dims, float scale)
{
    const TcDims d{static_cast<int>(dims.T), static_cast<int>(dims.NH), static_cast<int>(dims.NKV), dims.causal};
    const dim3 grid(static_cast<unsigned>((dims.T + kBr - 1) / kBr), static_cast<unsigned>(dims.NH),
                    static_cast<unsigned>(dims.B));
    flashForwardTcKernel<E, HD><<<grid, kTcWarps * 32, 0, streamOf(context)>>>(
        static_cast<E*>(out), lse, static_cast<const E*>(q), static_cast<const E*>(k), static_cast<const E*>(v), d,
        scale);
    HR_LAUNCHED();
    return {};
}

template <typename E>
Status launchTcForHd(Context& context, void* out, float* lse, const void* q, const void* k, const void* v,
                     const AttentionDims& dims, float scale)
{
    switch (dims.HD) {
    case 16: return launchTc<E, 16>(context, out, lse, q, k, v, dims, scale);
    case 32: return launchTc<E, 32>(context, out, lse, q, k, v, dims, scale);
    case 48: return launchTc<E, 48>(context, out, lse, q, k, v, dims, scale);
    case 64: return launchTc<E, 64>(context, out, lse, q, k, v, dims, scale);
    case 80: return launchTc<E, 80>(context, out, lse, q, k, v, dims, scale);
    case 96: return launchTc<E, 96>(context, out, lse, q, k, v, dims, scale);
    case 112: return launchTc<E, 112>(context, out, lse, q, k, v, dims, scale);
    case 128: return launchTc<E, 128>(context, out, lse, q, k, v, dims, scale);
    default: return detail::invalid("tensor-core attention: head dimension not a multiple of 16 up to 128");
    }
}

std::atomic<int> gKernelOverride{static_cast<int>(FusedAttentionKernel::fromEnvironment)};

// HEADROOM_FUSED_ATTENTION=fma keeps the exact fp32 kernel (to compare the
// two); unset, or any other value, the WMMA forward where eligible, the
// default since it passed gpu_attention on an H200 (docs/validation/
// gpu-h200-2026-11-26b.md). Read once per process.
bool environmentSelectsTensorCores()
{
    static const bool selected = [] {
        const char* value = std::getenv("HEADROOM_FUSED_ATTENTION");
        return value == nullptr || std::strcmp(value, "fma") != 0;
    }();
    return selected;
}

using tc::aligned16;

} // namespace

void setFusedAttentionKernelForTests(FusedAttentionKernel kernel) { gKernelOverride.store(static_cast<int>(kernel)); }

bool flashAttentionTensorCoreEligible(Context& context, DType dtype, const AttentionDims& dims)
{
    if (dtype != DType::bf16 && dtype != DType::f16)
        return false;
    if (cpu::dropoutThreshold(dims.dropout) != 0) // the WMMA kernel draws no dropout mask
        return false;
    if (dims.B == 0 || dims.T == 0 || dims.NH == 0 || dims.NKV == 0 || dims.NH % dims.NKV != 0)
        return false;
    if (dims.HD % 16 != 0 || dims.HD < 16 || dims.HD > 128)
        return false;
    if (dims.T > 0x7FFFFFFFu / 2 || dims.B > 65535 || dims.NH > 65535)
        return false;
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, context.impl().device) != cudaSuccess) {
        (void)cudaGetLastError(); // not a launch failure of a later kernel
        return false;
    }
    return major >= 8; // bf16 WMMA needs sm_80
}

bool flashAttentionTensorCoreSelected(Context& context, DType dtype, const void* out, const float* lse,
                                      const void* q, const void* k, const void* v, const AttentionDims& dims)
{
    const auto mode = static_cast<FusedAttentionKernel>(gKernelOverride.load());
    const bool wanted = mode == FusedAttentionKernel::tensorCores ||
                        (mode == FusedAttentionKernel::fromEnvironment && environmentSelectsTensorCores());
    if (!wanted || lse == nullptr)
        return false;
    if (!aligned16(out) || !aligned16(q) || !aligned16(k) || !aligned16(v))
        return false;
    return flashAttentionTensorCoreEligible(context, dtype, dims);
}

Status flashAttentionForwardTensorCores(Context& context, DType dtype, void* out, float* lse, const void* q,
                                        const void* k, const void* v, const AttentionDims& dims, float scale)
{
    if (!flashAttentionTensorCoreEligible(context, dtype, dims))
        return detail::invalid("tensor-core attention: dtype, sizes, dropout or device not supported");
    if (!aligned16(out) || !aligned16(q) || !aligned16(k) || !aligned16(v))
        return detail::invalid("tensor-core attention: q, k, v and out must be 16-byte aligned");
    if (dtype == DType::bf16)
        return launchTcForHd<__nv_bfloat16>(context, out, lse, q, k, v, dims, scale);
    return launchTcForHd<__half>(context, out, lse, q, k, v, dims, scale);
}

} // namespace headroom::cuda
