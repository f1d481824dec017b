// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to engine/cuda (and its GPU tests/bench): the tensor-core (WMMA)
// form of the fused attention forward, flashattentiontc.cu. Plain C++, no CUDA
// header needed to include it.
//
// flashAttentionForward (attention.h) takes this path only where it is
// selected and eligible: by default (HEADROOM_FUSED_ATTENTION=fma in the
// environment, read once, or the test override below keeps the fp32 kernel), dtype bf16 or fp16, HD a multiple of 16 up
// to 128, no attention dropout, a device of compute capability 8.0 or newer,
// 16-byte aligned q, k, v, out. Everything else runs the exact fp32 kernel.
// The result has the same meaning (out in dtype, lse (B,NH,T) fp32), so the
// fused backward consumes it unchanged.
#pragma once

#include "cuda/attention.h"

namespace headroom::cuda {

// Which fused kernel flashAttentionForward (or, through
// setFusedAttentionBackwardKernelForTests, flashAttentionBackward) runs.
enum class FusedAttentionKernel {
    fromEnvironment, // tensor cores (the default), HEADROOM_FUSED_ATTENTION=fma (forward) or
                     // HEADROOM_FUSED_ATTENTION_BACKWARD=fma (backward) the fp32 kernel
    fma,             // always the exact fp32 kernel
    tensorCores,     // the WMMA kernel wherever eligible
};

// Tests and benchmarks only: overrides the environment for the whole process
// (not thread-safe against concurrent attention calls).
void setFusedAttentionKernelForTests(FusedAttentionKernel kernel);

// Whether the WMMA kernel can run these sizes and dtype on the context's
// device (pointer alignment is checked at the call).
bool flashAttentionTensorCoreEligible(Context& context, DType dtype, const AttentionDims& dims);

// Whether flashAttentionForward should take the WMMA path for this call.
bool flashAttentionTensorCoreSelected(Context& context, DType dtype, const void* out, const float* lse,
                                      const void* q, const void* k, const void* v, const AttentionDims& dims);

// The WMMA forward itself; callers check flashAttentionTensorCoreSelected first.
Status flashAttentionForwardTensorCores(Context& context, DType dtype, void* out, float* lse, const void* q,
                                        const void* k, const void* v, const AttentionDims& dims, float scale);

// The tensor-core (WMMA) fused backward, flashattentiontcbackward.cu
// (FlashAttention-2, Dao 2023, Algorithm 2; verified on an H200). Same
// contract as flashAttentionBackward (attention.h): dq, dk, dv accumulate,
// delta is scratch. flashAttentionBackward takes it where selected (by
// default; HEADROOM_FUSED_ATTENTION_BACKWARD=fma, read once, or the override
// below keeps the exact fp32 kernel) and eligible:
// flashAttentionTensorCoreEligible plus every non-null pointer 16-byte
// aligned.
void setFusedAttentionBackwardKernelForTests(FusedAttentionKernel kernel);

bool flashAttentionBackwardTensorCoreSelected(Context& context, DType dtype, void* dq, void* dk, void* dv,
                                              float* delta, const void* dout, const void* out, const float* lse,
                                              const void* q, const void* k, const void* v, const AttentionDims& dims);

// The WMMA backward itself; callers check flashAttentionBackwardTensorCoreSelected first.
Status flashAttentionBackwardTensorCores(Context& context, DType dtype, void* dq, void* dk, void* dv, float* delta,
                                         const void* dout, const void* out, const float* lse, const void* q,
                                         const void* k, const void* v, const AttentionDims& dims, float scale);

} // namespace headroom::cuda
