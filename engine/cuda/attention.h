// SPDX-License-Identifier: GPL-3.0-or-later
// Causal (or bidirectional) grouped-query attention, the two forms of runtime/cpu/attention.h
// and runtime/cpu/flashattention.h (formulas and sources there).
// q, out, dout, dq (B,T,NH,HD); k, v, dk, dv (B,T,NKV,HD); all in dtype.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

struct AttentionDims {
    std::size_t B = 0, T = 0, NH = 0, NKV = 0, HD = 0;
    // Attention dropout (runtime/cpu/attention.h): probability and the stream
    // of its mask (runtime/cpu/dropoutrng.h), element ((b·NH + h)·T + t)·T + s.
    float dropout = 0.0f;
    std::uint64_t dropoutStream = 0;
    // false: an encoder's bidirectional attention (BERT), every key for every query.
    bool causal = true;
};

// Eager: the scores go through cuBLASLt (one strided-batched GEMM per query
// head, batched over B), a causal softmax kernel writes the probabilities
// att (B,NH,T,T) in dtype, as HF's eager_attention_forward keeps them. With
// dropout a kernel writes the 1-byte mask (B,NH,T,T) and the dropped
// probabilities (B,NH,T,T, dtype) that the value GEMM reads; both required then.
Status eagerAttentionForward(Context& context, DType dtype, void* out, void* att, const void* q, const void* k,
                             const void* v, const AttentionDims& dims, float scale, std::uint8_t* mask = nullptr,
                             void* dropped = nullptr);
// datt (B,NH,T,T, dtype): scratch for dP and dS. dq, dk, dv accumulate.
// With dropout, dv reads the dropped probabilities and dP goes through the mask.
Status eagerAttentionBackward(Context& context, DType dtype, void* dq, void* dk, void* dv, void* datt,
                              const void* dout, const void* att, const void* q, const void* k, const void* v,
                              const AttentionDims& dims, float scale, const std::uint8_t* mask = nullptr,
                              const void* dropped = nullptr);

// Fused memory-efficient attention: tiles of keys in shared memory, online
// softmax, only out and lse (B,NH,T, fp32) saved; O(T) memory. HD <= 256.
Status flashAttentionForward(Context& context, DType dtype, void* out, float* lse, const void* q, const void* k,
                             const void* v, const AttentionDims& dims, float scale);
// delta (B,NH,T, fp32): scratch for D_t = dout_t·out_t. dq, dk, dv accumulate.
// dq by one kernel over query rows, dk/dv by one over key rows, so no
// atomics and no (T,T) array.
Status flashAttentionBackward(Context& context, DType dtype, void* dq, void* dk, void* dv, float* delta,
                              const void* dout, const void* out, const float* lse, const void* q, const void* k,
                              const void* v, const AttentionDims& dims, float scale);

} // namespace headroom::cuda
