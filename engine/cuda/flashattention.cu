// SPDX-License-Identifier: GPL-3.0-or-later
// Fused causal (or an encoder's bidirectional) GQA attention in O(T) memory (runtime/cpu/flashattention.h has
// the algorithm and its sources: online softmax, Milakov & Gimelshein 2018;
// FlashAttention, Dao et al. 2022 §3.1; backward with D_t = dout_t·out_t and
// recomputed P, FlashAttention-2, Dao 2023, Algorithm 2).
//
// Layout of the work: a block of kWarps warps, one warp per query row (forward
// and dq) or per key row (dk/dv). Tiles of Bc rows of the other side are
// staged in shared memory as fp32 (rows padded to HD + 1 floats so the 32
// lanes of a warp, one per tile row, hit 32 different banks); lane j scores
// tile row j, then the warp combines the tile with shuffles. Each lane keeps
// the head-dimension slots d = lane + 32·i, i < kMaxSlots, so HD <= 256.
// This is the simple, exact form; it does not use tensor cores.
// flashattentiontc.cu has a tensor-core (WMMA) forward with the same result
// contract, taken by default where the call is eligible (bf16/fp16, HD a
// multiple of 16 up to 128, no dropout, sm_80+); HEADROOM_FUSED_ATTENTION=fma
// keeps this kernel. flashattentiontcbackward.cu has a WMMA backward, taken
// by default where eligible in the same way; HEADROOM_FUSED_ATTENTION_BACKWARD=fma
// keeps the fp32 backward below.
//
// Attention dropout: each kernel draws M[t,s] from the stream itself
// (runtime/cpu/dropoutrng.h, the CPU reference's function), as flash-attn
// regenerates its mask in the backward; the normaliser l and the saved lse
// count every key, v and dP see P·M/(1 − p).
#include "cuda/attention.h"
#include "cuda/contextimpl.cuh"
#include "cuda/flashattentiontc.h"

#include "runtime/cpu/dropoutrng.h"

#include <type_traits>

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;
using detail::warpMax;
using detail::warpSum;

constexpr int kWarps = 4;
constexpr int kMaxSlots = 8;
constexpr unsigned kFull = 0xFFFFFFFFu;

struct Dims {
    int T, NH, NKV, HD;
    std::uint32_t dropThreshold; // 0: no dropout
    float keepScale;
    std::uint64_t stream;
    bool causal; // false: an encoder's attention, every key for every query
};

// P·M/(1 − p) for element ((b·NH + h)·T + t)·T + s of the scores.
__device__ __forceinline__ float dropped(const Dims& dims, float p, int b, int h, int t, int s)
{
    if (dims.dropThreshold == 0)
        return p;
    const std::uint64_t index =
        ((static_cast<std::uint64_t>(b) * dims.NH + h) * dims.T + t) * static_cast<std::uint64_t>(dims.T) + s;
    return cpu::dropoutKeep(dims.stream, index, dims.dropThreshold) ? p * dims.keepScale : 0.0f;
}

// Loads rows [first, first + Bc) of one head (row stride heads·HD) into a
// padded fp32 tile; rows past T are zero.
template <typename T, int Bc>
__device__ void loadTile(float* tile, const T* base, int first, int T_, int heads, int head, int HD, int b)
{
    const int stride = HD + 1;
    for (int idx = static_cast<int>(threadIdx.x); idx < Bc * HD; idx += static_cast<int>(blockDim.x)) {
        const int j = idx / HD, d = idx % HD, row = first + j;
        float value = 0.0f;
        if (row < T_)
            value = load(base[((static_cast<std::size_t>(b) * T_ + row) * heads + head) * HD + d]);
        tile[j * stride + d] = value;
    }
}

template <typename T>
__device__ void loadRow(float* dst, const T* base, int row, int heads, int head, int HD, int b, int T_)
{
    const int lane = static_cast<int>(threadIdx.x % 32);
    for (int d = lane; d < HD; d += 32)
        dst[d] = load(base[((static_cast<std::size_t>(b) * T_ + row) * heads + head) * HD + d]);
}

__device__ __forceinline__ float dotRow(const float* row, const float* tileRow, int HD)
{
    float dot = 0.0f;
    for (int d = 0; d < HD; ++d)
        dot += row[d] * tileRow[d];
    return dot;
}

template <typename T, int Bc>
__global__ void __launch_bounds__(kWarps * 32)
    flashForwardKernel(T* out, float* lse, const T* q, const T* k, const T* v, Dims dims, float scale)
{
    extern __shared__ float smem[];
    const int HD = dims.HD, stride = HD + 1;
    float* kTile = smem;
    float* vTile = kTile + Bc * stride;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* qRow = vTile + Bc * stride + warp * HD;
    const int b = static_cast<int>(blockIdx.z), h = static_cast<int>(blockIdx.y);
    const int kvHead = h / (dims.NH / dims.NKV);
    const int firstQuery = static_cast<int>(blockIdx.x) * kWarps, t = firstQuery + warp;
    const bool active = t < dims.T;
    if (active)
        loadRow(qRow, q, t, dims.NH, h, HD, b, dims.T);
    float acc[kMaxSlots] = {};
    float m = -INFINITY, l = 0.0f;
    const int lastKey = dims.causal ? min(firstQuery + kWarps - 1, dims.T - 1) : dims.T - 1;
    const int lastSeen = dims.causal ? t : dims.T - 1; // the last key row t sees
    for (int s0 = 0; s0 <= lastKey; s0 += Bc) {
        __syncthreads(); // the previous tile is consumed
        loadTile<T, Bc>(kTile, k, s0, dims.T, dims.NKV, kvHead, HD, b);
        loadTile<T, Bc>(vTile, v, s0, dims.T, dims.NKV, kvHead, HD, b);
        __syncthreads();
        if (!active || s0 > lastSeen)
            continue;
        float score = -INFINITY;
        if (lane < Bc && s0 + lane <= lastSeen)
            score = scale * dotRow(qRow, kTile + lane * stride, HD);
        const float mNew = fmaxf(m, warpMax(score)); // finite: key s0 <= lastSeen is in this tile
        const float p = score == -INFINITY ? 0.0f : expf(score - mNew);
        const float correction = expf(m - mNew); // 0 on the first tile (m = −inf)
        l = l * correction + warpSum(p);
        const float pv = dropped(dims, p, b, h, t, s0 + lane); // what v is weighted by
#pragma unroll
        for (int i = 0; i < kMaxSlots; ++i)
            acc[i] *= correction;
        for (int j = 0; j < Bc; ++j) {
            const float pj = __shfl_sync(kFull, pv, j);
#pragma unroll
            for (int i = 0; i < kMaxSlots; ++i) {
                const int d = lane + 32 * i;
                if (d < HD)
                    acc[i] += pj * vTile[j * stride + d];
            }
        }
        m = mNew;
    }
    if (!active)
        return;
    const std::size_t rowOffset = ((static_cast<std::size_t>(b) * dims.T + t) * dims.NH + h) * HD;
#pragma unroll
    for (int i = 0; i < kMaxSlots; ++i) {
        const int d = lane + 32 * i;
        if (d < HD)
            out[rowOffset + d] = store<T>(acc[i] / l);
    }
    if (lane == 0)
        lse[(static_cast<std::size_t>(b) * dims.NH + h) * dims.T + t] = m + logf(l);
}

// delta (B,NH,T) = sum_d dout·out, one warp per row.
template <typename T>
__global__ void flashDeltaKernel(float* delta, const T* dout, const T* out, Dims dims, std::size_t rows)
{
    const std::size_t row = (blockIdx.x * std::size_t{blockDim.x} + threadIdx.x) / 32; // (b,t,h)
    const int lane = static_cast<int>(threadIdx.x % 32);
    if (row >= rows)
        return;
    float dot = 0.0f;
    for (int d = lane; d < dims.HD; d += 32)
        dot += load(dout[row * dims.HD + d]) * load(out[row * dims.HD + d]);
    dot = warpSum(dot);
    const std::size_t h = row % dims.NH, bt = row / dims.NH, t = bt % dims.T, b = bt / dims.T;
    if (lane == 0)
        delta[(b * dims.NH + h) * dims.T + t] = dot;
}

template <typename T, int Bc>
__global__ void __launch_bounds__(kWarps * 32)
    flashBackwardDqKernel(T* dq, const T* dout, const float* lse, const float* delta, const T* q, const T* k,
                          const T* v, Dims dims, float scale)
{
    extern __shared__ float smem[];
    const int HD = dims.HD, stride = HD + 1;
    float* kTile = smem;
    float* vTile = kTile + Bc * stride;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* qRow = vTile + Bc * stride + warp * HD;
    float* doRow = vTile + Bc * stride + (kWarps + warp) * HD;
    const int b = static_cast<int>(blockIdx.z), h = static_cast<int>(blockIdx.y);
    const int kvHead = h / (dims.NH / dims.NKV);
    const int firstQuery = static_cast<int>(blockIdx.x) * kWarps, t = firstQuery + warp;
    const bool active = t < dims.T;
    float L = 0.0f, D = 0.0f;
    if (active) {
        loadRow(qRow, q, t, dims.NH, h, HD, b, dims.T);
        loadRow(doRow, dout, t, dims.NH, h, HD, b, dims.T);
        L = lse[(static_cast<std::size_t>(b) * dims.NH + h) * dims.T + t];
        D = delta[(static_cast<std::size_t>(b) * dims.NH + h) * dims.T + t];
    }
    __syncwarp();
    float acc[kMaxSlots] = {};
    const int lastKey = dims.causal ? min(firstQuery + kWarps - 1, dims.T - 1) : dims.T - 1;
    const int lastSeen = dims.causal ? t : dims.T - 1; // the last key row t sees
    for (int s0 = 0; s0 <= lastKey; s0 += Bc) {
        __syncthreads();
        loadTile<T, Bc>(kTile, k, s0, dims.T, dims.NKV, kvHead, HD, b);
        loadTile<T, Bc>(vTile, v, s0, dims.T, dims.NKV, kvHead, HD, b);
        __syncthreads();
        if (!active || s0 > lastSeen)
            continue;
        float ds = 0.0f;
        if (lane < Bc && s0 + lane <= lastSeen) {
            const float p = expf(scale * dotRow(qRow, kTile + lane * stride, HD) - L);
            // dP through the mask: M/(1 − p) · dout·v (1 without dropout).
            const float dp = dropped(dims, dotRow(doRow, vTile + lane * stride, HD), b, h, t, s0 + lane);
            ds = p * (dp - D);
        }
        for (int j = 0; j < Bc; ++j) {
            const float dsj = __shfl_sync(kFull, ds, j);
#pragma unroll
            for (int i = 0; i < kMaxSlots; ++i) {
                const int d = lane + 32 * i;
                if (d < HD)
                    acc[i] += dsj * kTile[j * stride + d];
            }
        }
    }
    if (!active)
        return;
    const std::size_t rowOffset = ((static_cast<std::size_t>(b) * dims.T + t) * dims.NH + h) * HD;
#pragma unroll
    for (int i = 0; i < kMaxSlots; ++i) {
        const int d = lane + 32 * i;
        if (d < HD)
            dq[rowOffset + d] = store<T>(load(dq[rowOffset + d]) + scale * acc[i]);
    }
}

// One warp per key row s of KV head blockIdx.y; walks the queries t >= s of
// every query head of its group.
template <typename T, int Bc>
__global__ void __launch_bounds__(kWarps * 32)
    flashBackwardDkDvKernel(T* dk, T* dv, const T* dout, const float* lse, const float* delta, const T* q,
                            const T* k, const T* v, Dims dims, float scale)
{
    extern __shared__ float smem[];
    const int HD = dims.HD, stride = HD + 1;
    float* qTile = smem;
    float* doTile = qTile + Bc * stride;
    float* lTile = doTile + Bc * stride;
    float* dTile = lTile + Bc;
    const int warp = static_cast<int>(threadIdx.x / 32), lane = static_cast<int>(threadIdx.x % 32);
    float* kRow = dTile + Bc + warp * HD;
    float* vRow = dTile + Bc + (kWarps + warp) * HD;
    const int b = static_cast<int>(blockIdx.z), kvHead = static_cast<int>(blockIdx.y);
    const int group = dims.NH / dims.NKV;
    const int firstKey = static_cast<int>(blockIdx.x) * kWarps, s = firstKey + warp;
    const bool active = s < dims.T;
    if (active) {
        loadRow(kRow, k, s, dims.NKV, kvHead, HD, b, dims.T);
        loadRow(vRow, v, s, dims.NKV, kvHead, HD, b, dims.T);
    }
    __syncwarp();
    float accK[kMaxSlots] = {}, accV[kMaxSlots] = {};
    for (int g = 0; g < group; ++g) {
        const int h = kvHead * group + g;
        const std::size_t statsBase = (static_cast<std::size_t>(b) * dims.NH + h) * dims.T;
        for (int t0 = dims.causal ? firstKey : 0; t0 < dims.T; t0 += Bc) {
            __syncthreads();
            loadTile<T, Bc>(qTile, q, t0, dims.T, dims.NH, h, HD, b);
            loadTile<T, Bc>(doTile, dout, t0, dims.T, dims.NH, h, HD, b);
            for (int j = static_cast<int>(threadIdx.x); j < Bc; j += static_cast<int>(blockDim.x)) {
                const bool inside = t0 + j < dims.T;
                lTile[j] = inside ? lse[statsBase + t0 + j] : 0.0f;
                dTile[j] = inside ? delta[statsBase + t0 + j] : 0.0f;
            }
            __syncthreads();
            if (!active || (dims.causal && t0 + Bc <= s))
                continue;
            float p = 0.0f, ds = 0.0f;
            const int t = t0 + lane;
            if (lane < Bc && t < dims.T && (!dims.causal || t >= s)) {
                p = expf(scale * dotRow(kRow, qTile + lane * stride, HD) - lTile[lane]);
                const float dp = dropped(dims, dotRow(vRow, doTile + lane * stride, HD), b, h, t, s);
                ds = p * (dp - dTile[lane]);
                p = dropped(dims, p, b, h, t, s); // dv reads P·M/(1 − p)
            }
            for (int j = 0; j < Bc; ++j) {
                const float pj = __shfl_sync(kFull, p, j), dsj = __shfl_sync(kFull, ds, j);
#pragma unroll
                for (int i = 0; i < kMaxSlots; ++i) {
                    const int d = lane + 32 * i;
                    if (d < HD) {
                        accV[i] += pj * doTile[j * stride + d];
                        accK[i] += dsj * qTile[j * stride + d];
                    }
                }
            }
        }
    }
    if (!active)
        return;
    const std::size_t rowOffset = ((static_cast<std::size_t>(b) * dims.T + s) * dims.NKV + kvHead) * HD;
#pragma unroll
    for (int i = 0; i < kMaxSlots; ++i) {
        const int d = lane + 32 * i;
        if (d < HD) {
            if (dk)
                dk[rowOffset + d] = store<T>(load(dk[rowOffset + d]) + scale * accK[i]);
            if (dv)
                dv[rowOffset + d] = store<T>(load(dv[rowOffset + d]) + accV[i]);
        }
    }
}

Status checkFlash(const AttentionDims& d)
{
    if (d.B == 0 || d.T == 0 || d.NH == 0 || d.NKV == 0 || d.HD == 0 || d.NH % d.NKV != 0)
        return detail::invalid("attention: sizes must be positive and NKV must divide NH");
    if (d.HD > 32 * kMaxSlots)
        return detail::invalid("flash attention: head dimension above 256");
    if (d.T > 0x7FFFFFFFu / 2 || d.B > 65535 || d.NH > 65535)
        return detail::invalid("flash attention: sizes beyond the launch grid");
    return {};
}

Dims dimsOf(const AttentionDims& d)
{
    return {static_cast<int>(d.T), static_cast<int>(d.NH), static_cast<int>(d.NKV), static_cast<int>(d.HD),
            cpu::dropoutThreshold(d.dropout), cpu::dropoutScale(d.dropout), d.dropoutStream, d.causal};
}

// Bc = 32 keys per tile up to HD 128, 16 beyond, so shared memory stays under
// the 48 KiB every architecture gives without opting in.
template <int Bc, typename Launch>
Status withTile(Launch&& launch)
{
    return launch(std::integral_constant<int, Bc>{});
}

} // namespace

Status flashAttentionForward(Context& context, DType dtype, void* out, float* lse, const void* q, const void* k,
                             const void* v, const AttentionDims& dims, float scale)
{
    HR_TRY(checkFlash(dims));
    // The WMMA kernel where eligible, unless HEADROOM_FUSED_ATTENTION=fma (read once).
    if (flashAttentionTensorCoreSelected(context, dtype, out, lse, q, k, v, dims))
        return flashAttentionForwardTensorCores(context, dtype, out, lse, q, k, v, dims, scale);
    const Dims d = dimsOf(dims);
    const dim3 grid(static_cast<unsigned>((dims.T + kWarps - 1) / kWarps), static_cast<unsigned>(dims.NH),
                    static_cast<unsigned>(dims.B));
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        const auto launch = [&](auto bc) -> Status {
            constexpr int Bc = decltype(bc)::value;
            const std::size_t shared = (2 * Bc * (d.HD + 1) + kWarps * d.HD) * sizeof(float);
            flashForwardKernel<E, Bc><<<grid, kWarps * 32, shared, streamOf(context)>>>(
                static_cast<E*>(out), lse, static_cast<const E*>(q), static_cast<const E*>(k),
                static_cast<const E*>(v), d, scale);
            HR_LAUNCHED();
            return {};
        };
        return d.HD <= 128 ? withTile<32>(launch) : withTile<16>(launch);
    });
}

Status flashAttentionBackward(Context& context, DType dtype, void* dq, void* dk, void* dv, float* delta,
                              const void* dout, const void* out, const float* lse, const void* q, const void* k,
                              const void* v, const AttentionDims& dims, float scale)
{
    HR_TRY(checkFlash(dims));
    // The WMMA backward (flashattentiontcbackward.cu) where selected (the
    // default; HEADROOM_FUSED_ATTENTION_BACKWARD=fma, read once, or the test
    // override keeps the fp32 kernels below) and eligible.
    if (flashAttentionBackwardTensorCoreSelected(context, dtype, dq, dk, dv, delta, dout, out, lse, q, k, v, dims))
        return flashAttentionBackwardTensorCores(context, dtype, dq, dk, dv, delta, dout, out, lse, q, k, v, dims,
                                                 scale);
    const Dims d = dimsOf(dims);
    const std::size_t rows = dims.B * dims.T * dims.NH;
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        flashDeltaKernel<E><<<static_cast<unsigned>((rows * 32 + 255) / 256), 256, 0, streamOf(context)>>>(
            delta, static_cast<const E*>(dout), static_cast<const E*>(out), d, rows);
        HR_LAUNCHED();
        const auto launch = [&](auto bc) -> Status {
            constexpr int Bc = decltype(bc)::value;
            const unsigned tiles = static_cast<unsigned>((dims.T + kWarps - 1) / kWarps);
            if (dq) {
                const std::size_t shared = (2 * Bc * (d.HD + 1) + 2 * kWarps * d.HD) * sizeof(float);
                flashBackwardDqKernel<E, Bc>
                    <<<dim3(tiles, static_cast<unsigned>(dims.NH), static_cast<unsigned>(dims.B)), kWarps * 32,
                       shared, streamOf(context)>>>(static_cast<E*>(dq), static_cast<const E*>(dout), lse, delta,
                                                    static_cast<const E*>(q), static_cast<const E*>(k),
                                                    static_cast<const E*>(v), d, scale);
                HR_LAUNCHED();
            }
            if (dk || dv) {
                const std::size_t shared = (2 * Bc * (d.HD + 1) + 2 * Bc + 2 * kWarps * d.HD) * sizeof(float);
                flashBackwardDkDvKernel<E, Bc>
                    <<<dim3(tiles, static_cast<unsigned>(dims.NKV), static_cast<unsigned>(dims.B)), kWarps * 32,
                       shared, streamOf(context)>>>(static_cast<E*>(dk), static_cast<E*>(dv),
                                                    static_cast<const E*>(dout), lse, delta,
                                                    static_cast<const E*>(q), static_cast<const E*>(k),
                                                    static_cast<const E*>(v), d, scale);
                HR_LAUNCHED();
            }
            return {};
        };
        return d.HD <= 128 ? withTile<32>(launch) : withTile<16>(launch);
    });
}

} // namespace headroom::cuda
