// SPDX-License-Identifier: GPL-3.0-or-later
// Every matrix product of the CUDA backend goes through gemm() (one wrapper,
// as llm.c's matmul_cublaslt): cuBLASLt with fp32 accumulation
// (CUBLAS_COMPUTE_32F); bf16/fp16 inputs use the tensor cores, fp32 inputs
// stay exact fp32 (no TF32) so they can be checked against the CPU reference.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

// Row-major, batched with constant strides (elements):
//   C[i] (M,N) = alpha · op(A[i]) · op(B[i]) + beta · C[i],  i < batch
// op(A) is (M,K): A stored (M,K) with lda, or (K,M) when transA. op(B) is
// (K,N): B stored (K,N) with ldb, or (N,K) when transB. A and B have abType,
// C has cType (abType, or f32 for fp32 master gradients).
struct GemmArgs {
    bool transA = false, transB = false;
    std::int64_t M = 0, N = 0, K = 0;
    const void* A = nullptr;
    std::int64_t lda = 0, strideA = 0;
    const void* B = nullptr;
    std::int64_t ldb = 0, strideB = 0;
    void* C = nullptr;
    std::int64_t ldc = 0, strideC = 0;
    std::int64_t batch = 1;
    float alpha = 1.0f, beta = 0.0f;
};
Status gemm(Context& context, DType abType, DType cType, const GemmArgs& args);

// torch.nn.Linear (runtime/cpu/matmul.h): out (rows,OC) = inp (rows,C) · weight (OC,C)ᵀ + bias (OC) or nullptr.
Status linearForward(Context& context, DType dtype, void* out, const void* inp, const void* weight, const void* bias,
                     std::size_t rows, std::size_t C, std::size_t OC);

// dinp (rows,C) += dout·weight (dtype); dweight (OC,C) += doutᵀ·inp and
// dbias (OC) += column sums of dout, both fp32; each may be nullptr.
Status linearBackward(Context& context, DType dtype, void* dinp, float* dweight, float* dbias, const void* dout,
                      const void* inp, const void* weight, std::size_t rows, std::size_t C, std::size_t OC);

// The same with the bias in `biasType` (an fp32 master bias under 16-bit
// activations in mixed precision).
Status linearForward(Context& context, DType dtype, DType biasType, void* out, const void* inp, const void* weight,
                     const void* bias, std::size_t rows, std::size_t C, std::size_t OC);

} // namespace headroom::cuda
