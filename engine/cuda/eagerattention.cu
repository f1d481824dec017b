// SPDX-License-Identifier: GPL-3.0-or-later
// Per query head h (KV head h/(NH/NKV), HF repeat_kv) the row-major views are
// Q_h (T,HD) at q + h·HD with row stride NH·HD, K_h/V_h at k + (h/g)·HD with
// row stride NKV·HD, P_h (T,T) at att + h·T·T; batch b adds T·NH·HD,
// T·NKV·HD and NH·T·T. One GEMM per head, batched over b.
#include "cuda/attention.h"
#include "cuda/contextimpl.cuh"
#include "cuda/gemm.h"

#include "runtime/cpu/dropoutrng.h"

namespace headroom::cuda {

namespace {

using detail::blockMax;
using detail::blockSum;
using detail::load;
using detail::store;

// In place: P[t,:] = softmax over s <= t of the scores, 0 above the diagonal;
// over every s when not causal (an encoder's attention).
template <typename T>
__global__ void causalSoftmaxKernel(T* att, std::size_t T_, bool causal)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x; // (b,h,t)
    const std::size_t t = causal ? row % T_ : T_ - 1; // the last key the query sees
    T* p = att + row * T_;
    float m = -INFINITY;
    for (std::size_t s = threadIdx.x; s <= t; s += blockDim.x)
        m = fmaxf(m, load(p[s]));
    m = blockMax(m, scratch);
    float sum = 0.0f;
    for (std::size_t s = threadIdx.x; s <= t; s += blockDim.x)
        sum += expf(load(p[s]) - m);
    const float inv = 1.0f / blockSum(sum, scratch);
    for (std::size_t s = threadIdx.x; s < T_; s += blockDim.x)
        p[s] = store<T>(s <= t ? expf(load(p[s]) - m) * inv : 0.0f);
}

// Attention dropout after the softmax: mask = the draws of the stream
// (runtime/cpu/dropoutrng.h, element row·T + s), dropped = P·mask/(1 − p);
// 0 above the diagonal, as the CPU reference writes them.
template <typename T>
__global__ void attentionDropoutKernel(std::uint8_t* mask, T* dropped, const T* att, std::size_t T_,
                                       std::uint32_t threshold, float keepScale, std::uint64_t stream, bool causal)
{
    const std::size_t row = blockIdx.x; // (b,h,t)
    const std::size_t t = causal ? row % T_ : T_ - 1; // the last key the query sees
    for (std::size_t s = threadIdx.x; s < T_; s += blockDim.x) {
        const std::size_t i = row * T_ + s;
        const bool keep = s <= t && cpu::dropoutKeep(stream, i, threshold);
        mask[i] = keep ? 1 : 0;
        dropped[i] = store<T>(keep ? load(att[i]) * keepScale : 0.0f);
    }
}

// In place on dP: dS = scale · P ⊙ (dP − sum_s P·dP); with dropout dP is
// first taken through the mask (M/(1 − p) · dP of the dropped probabilities).
template <typename T>
__global__ void softmaxBackwardKernel(T* datt, const T* att, std::size_t T_, float scale, const std::uint8_t* mask,
                                      float keepScale, bool causal)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const std::size_t t = causal ? row % T_ : T_ - 1; // the last key the query sees
    T* d = datt + row * T_;
    const T* p = att + row * T_;
    const std::uint8_t* m = mask ? mask + row * T_ : nullptr;
    auto dP = [&](std::size_t s) { return m ? (m[s] ? load(d[s]) * keepScale : 0.0f) : load(d[s]); };
    float dot = 0.0f;
    for (std::size_t s = threadIdx.x; s <= t; s += blockDim.x)
        dot += load(p[s]) * dP(s);
    dot = blockSum(dot, scratch); // every thread has read its d[s] before any writes
    for (std::size_t s = threadIdx.x; s < T_; s += blockDim.x)
        d[s] = store<T>(s <= t ? scale * load(p[s]) * (dP(s) - dot) : 0.0f);
}

struct HeadViews {
    std::int64_t T, HD, qRow, kvRow, qBatch, kvBatch, attBatch;
    std::size_t group;
};

HeadViews viewsOf(const AttentionDims& d)
{
    const auto T = static_cast<std::int64_t>(d.T), HD = static_cast<std::int64_t>(d.HD);
    const auto NH = static_cast<std::int64_t>(d.NH), NKV = static_cast<std::int64_t>(d.NKV);
    return {T, HD, NH * HD, NKV * HD, T * NH * HD, T * NKV * HD, NH * T * T, d.NH / d.NKV};
}

const char* elementAt(const void* base, std::size_t elements, DType dtype)
{
    return static_cast<const char*>(base) + elements * dtypeSize(dtype);
}
char* elementAt(void* base, std::size_t elements, DType dtype)
{
    return static_cast<char*>(base) + elements * dtypeSize(dtype);
}

Status checkDims(const AttentionDims& d)
{
    if (d.B == 0 || d.T == 0 || d.NH == 0 || d.NKV == 0 || d.HD == 0 || d.NH % d.NKV != 0)
        return detail::invalid("attention: sizes must be positive and NKV must divide NH");
    return {};
}

// C[b] (M,N) += / = alpha·op(A[b])·op(B[b]) for one head, batched over B.
GemmArgs headGemm(std::int64_t M, std::int64_t N, std::int64_t K, std::int64_t batch)
{
    GemmArgs g;
    g.M = M, g.N = N, g.K = K, g.batch = batch;
    return g;
}

} // namespace

static Status checkDropout(const AttentionDims& d, const void* mask, const void* dropped)
{
    if (d.dropout > 0 && (mask == nullptr || dropped == nullptr))
        return detail::invalid("attention: dropout needs the mask and the dropped probabilities");
    return {};
}

Status eagerAttentionForward(Context& context, DType dtype, void* out, void* att, const void* q, const void* k,
                             const void* v, const AttentionDims& dims, float scale, std::uint8_t* mask,
                             void* dropped)
{
    HR_TRY(checkDims(dims));
    HR_TRY(checkDropout(dims, mask, dropped));
    const bool dropout = dims.dropout > 0;
    const HeadViews w = viewsOf(dims);
    const auto batch = static_cast<std::int64_t>(dims.B);
    for (std::size_t h = 0; h < dims.NH; ++h) {
        const std::size_t kvHead = h / w.group;
        GemmArgs s = headGemm(w.T, w.T, w.HD, batch); // S = scale·Q_h·K_hᵀ
        s.A = elementAt(q, h * dims.HD, dtype), s.lda = w.qRow, s.strideA = w.qBatch;
        s.B = elementAt(k, kvHead * dims.HD, dtype), s.transB = true, s.ldb = w.kvRow, s.strideB = w.kvBatch;
        s.C = elementAt(att, h * dims.T * dims.T, dtype), s.ldc = w.T, s.strideC = w.attBatch;
        s.alpha = scale;
        HR_TRY(gemm(context, dtype, dtype, s));
    }
    HR_TRY(detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        causalSoftmaxKernel<E><<<static_cast<unsigned>(dims.B * dims.NH * dims.T), 256, 0, streamOf(context)>>>(
            static_cast<E*>(att), dims.T, dims.causal);
        HR_LAUNCHED();
        if (dropout) {
            attentionDropoutKernel<E><<<static_cast<unsigned>(dims.B * dims.NH * dims.T), 256, 0,
                                        streamOf(context)>>>(mask, static_cast<E*>(dropped),
                                                             static_cast<const E*>(att), dims.T,
                                                             cpu::dropoutThreshold(dims.dropout),
                                                             cpu::dropoutScale(dims.dropout), dims.dropoutStream,
                                                             dims.causal);
            HR_LAUNCHED();
        }
        return {};
    }));
    const void* weights = dropout ? dropped : att; // what the value GEMM reads
    for (std::size_t h = 0; h < dims.NH; ++h) {
        const std::size_t kvHead = h / w.group;
        GemmArgs o = headGemm(w.T, w.HD, w.T, batch); // out_h = P_h·V_h
        o.A = elementAt(weights, h * dims.T * dims.T, dtype), o.lda = w.T, o.strideA = w.attBatch;
        o.B = elementAt(v, kvHead * dims.HD, dtype), o.ldb = w.kvRow, o.strideB = w.kvBatch;
        o.C = elementAt(out, h * dims.HD, dtype), o.ldc = w.qRow, o.strideC = w.qBatch;
        HR_TRY(gemm(context, dtype, dtype, o));
    }
    return {};
}

Status eagerAttentionBackward(Context& context, DType dtype, void* dq, void* dk, void* dv, void* datt,
                              const void* dout, const void* att, const void* q, const void* k, const void* v,
                              const AttentionDims& dims, float scale, const std::uint8_t* mask, const void* dropped)
{
    HR_TRY(checkDims(dims));
    HR_TRY(checkDropout(dims, mask, dropped));
    const bool dropout = dims.dropout > 0;
    const void* weights = dropout ? dropped : att; // what the forward's value GEMM read
    const HeadViews w = viewsOf(dims);
    const auto batch = static_cast<std::int64_t>(dims.B);
    for (std::size_t h = 0; h < dims.NH; ++h) {
        const std::size_t kvHead = h / w.group;
        const std::size_t attOffset = h * dims.T * dims.T, qOffset = h * dims.HD, kvOffset = kvHead * dims.HD;
        if (dv) { // dv_h += P_hᵀ·dout_h
            GemmArgs g = headGemm(w.T, w.HD, w.T, batch);
            g.A = elementAt(weights, attOffset, dtype), g.transA = true, g.lda = w.T, g.strideA = w.attBatch;
            g.B = elementAt(dout, qOffset, dtype), g.ldb = w.qRow, g.strideB = w.qBatch;
            g.C = elementAt(dv, kvOffset, dtype), g.ldc = w.kvRow, g.strideC = w.kvBatch;
            g.beta = 1.0f;
            HR_TRY(gemm(context, dtype, dtype, g));
        }
        GemmArgs g = headGemm(w.T, w.T, w.HD, batch); // dP_h = dout_h·V_hᵀ
        g.A = elementAt(dout, qOffset, dtype), g.lda = w.qRow, g.strideA = w.qBatch;
        g.B = elementAt(v, kvOffset, dtype), g.transB = true, g.ldb = w.kvRow, g.strideB = w.kvBatch;
        g.C = elementAt(datt, attOffset, dtype), g.ldc = w.T, g.strideC = w.attBatch;
        HR_TRY(gemm(context, dtype, dtype, g));
    }
    HR_TRY(detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        softmaxBackwardKernel<E><<<static_cast<unsigned>(dims.B * dims.NH * dims.T), 256, 0, streamOf(context)>>>(
            static_cast<E*>(datt), static_cast<const E*>(att), dims.T, scale, dropout ? mask : nullptr,
            cpu::dropoutScale(dims.dropout), dims.causal);
        HR_LAUNCHED();
        return {};
    }));
    for (std::size_t h = 0; h < dims.NH; ++h) {
        const std::size_t kvHead = h / w.group;
        const std::size_t attOffset = h * dims.T * dims.T, qOffset = h * dims.HD, kvOffset = kvHead * dims.HD;
        if (dq) { // dq_h += dS_h·K_h (scale is in dS)
            GemmArgs g = headGemm(w.T, w.HD, w.T, batch);
            g.A = elementAt(datt, attOffset, dtype), g.lda = w.T, g.strideA = w.attBatch;
            g.B = elementAt(k, kvOffset, dtype), g.ldb = w.kvRow, g.strideB = w.kvBatch;
            g.C = elementAt(dq, qOffset, dtype), g.ldc = w.qRow, g.strideC = w.qBatch;
            g.beta = 1.0f;
            HR_TRY(gemm(context, dtype, dtype, g));
        }
        if (dk) { // dk_h += dS_hᵀ·Q_h
            GemmArgs g = headGemm(w.T, w.HD, w.T, batch);
            g.A = elementAt(datt, attOffset, dtype), g.transA = true, g.lda = w.T, g.strideA = w.attBatch;
            g.B = elementAt(q, qOffset, dtype), g.ldb = w.qRow, g.strideB = w.qBatch;
            g.C = elementAt(dk, kvOffset, dtype), g.ldc = w.kvRow, g.strideC = w.kvBatch;
            g.beta = 1.0f;
            HR_TRY(gemm(context, dtype, dtype, g));
        }
    }
    return {};
}

} // namespace headroom::cuda
