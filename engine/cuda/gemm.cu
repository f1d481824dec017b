// SPDX-License-Identifier: GPL-3.0-or-later
// cuBLASLt is column-major; a row-major X (r,c) with leading dimension ld is
// the column-major Xᵀ (c,r) with the same ld. So the row-major C = op(A)·op(B)
// is computed as the column-major Cᵀ = op(B)ᵀ·op(A)ᵀ: B first, A second,
// m = N, n = M (cuBLAS documentation, "Data layout"; llm.c matmul_cublaslt).
#include "cuda/contextimpl.cuh"
#include "cuda/gemm.h"

#include <memory>

namespace headroom::cuda {

namespace {

cudaDataType_t cudaTypeOf(DType dtype)
{
    switch (dtype) {
    case DType::f32: return CUDA_R_32F;
    case DType::bf16: return CUDA_R_16BF;
    case DType::f16: return CUDA_R_16F;
    }
    return CUDA_R_32F;
}

// The largest power of two (<= 256) dividing the address and the batch
// stride: cuBLASLt's heuristic assumes 256-byte-aligned pointers unless told
// (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES), and attention's per-head
// pointers are often only 64- or 128-byte aligned.
std::uint32_t alignmentOf(const void* pointer, std::int64_t strideBytes)
{
    std::uint64_t bits = reinterpret_cast<std::uintptr_t>(pointer) | static_cast<std::uint64_t>(strideBytes) | 256u;
    return static_cast<std::uint32_t>(bits & (~bits + 1));
}

struct LtDeleter {
    void operator()(cublasLtMatmulDescOpaque_t* d) const { (void)cublasLtMatmulDescDestroy(d); }
    void operator()(cublasLtMatrixLayoutOpaque_t* l) const { (void)cublasLtMatrixLayoutDestroy(l); }
    void operator()(cublasLtMatmulPreferenceOpaque_t* p) const { (void)cublasLtMatmulPreferenceDestroy(p); }
};
using Desc = std::unique_ptr<cublasLtMatmulDescOpaque_t, LtDeleter>;
using Layout = std::unique_ptr<cublasLtMatrixLayoutOpaque_t, LtDeleter>;
using Preference = std::unique_ptr<cublasLtMatmulPreferenceOpaque_t, LtDeleter>;

Status makeLayout(Layout& out, cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                  std::int64_t batch, std::int64_t stride)
{
    cublasLtMatrixLayout_t layout = nullptr;
    HR_CUBLAS(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                         static_cast<std::uint64_t>(cols), ld));
    out.reset(layout);
    if (batch > 1) {
        const int count = static_cast<int>(batch);
        HR_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
        HR_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                                                   sizeof stride));
    }
    return {};
}

template <typename T, typename W>
__global__ void addBiasKernel(T* out, const W* bias, std::size_t rows, std::size_t OC)
{
    const std::size_t n = rows * OC;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = detail::store<T>(detail::load(out[i]) + detail::load(bias[i % OC]));
}

// dbias[o] += sum_rows dout[r,o]: one warp-column per block x, rows split over y.
template <typename T>
__global__ void columnSumKernel(float* dbias, const T* dout, std::size_t rows, std::size_t OC)
{
    const std::size_t o = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    if (o >= OC)
        return;
    float sum = 0.0f;
    for (std::size_t r = blockIdx.y; r < rows; r += gridDim.y)
        sum += detail::load(dout[r * OC + o]);
    atomicAdd(&dbias[o], sum);
}

} // namespace

Status gemm(Context& context, DType abType, DType cType, const GemmArgs& a)
{
    if (a.M <= 0 || a.N <= 0 || a.K <= 0 || a.batch <= 0)
        return detail::invalid("gemm: sizes must be positive");
    if (cType != abType && cType != DType::f32)
        return detail::invalid("gemm: C must have the input dtype or fp32");
    auto& impl = context.impl();
    const cudaDataType_t abCuda = cudaTypeOf(abType), cCuda = cudaTypeOf(cType);

    cublasLtMatmulDesc_t rawDesc = nullptr;
    HR_CUBLAS(cublasLtMatmulDescCreate(&rawDesc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    Desc desc(rawDesc);
    // Operands swapped (see the top of this file): first = B, second = A.
    const cublasOperation_t opFirst = a.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opSecond = a.transA ? CUBLAS_OP_T : CUBLAS_OP_N;
    HR_CUBLAS(cublasLtMatmulDescSetAttribute(rawDesc, CUBLASLT_MATMUL_DESC_TRANSA, &opFirst, sizeof opFirst));
    HR_CUBLAS(cublasLtMatmulDescSetAttribute(rawDesc, CUBLASLT_MATMUL_DESC_TRANSB, &opSecond, sizeof opSecond));

    Layout first, second, out;
    HR_TRY(makeLayout(first, abCuda, a.transB ? a.K : a.N, a.transB ? a.N : a.K, a.ldb, a.batch, a.strideB));
    HR_TRY(makeLayout(second, abCuda, a.transA ? a.M : a.K, a.transA ? a.K : a.M, a.lda, a.batch, a.strideA));
    HR_TRY(makeLayout(out, cCuda, a.N, a.M, a.ldc, a.batch, a.strideC));

    cublasLtMatmulPreference_t rawPreference = nullptr;
    HR_CUBLAS(cublasLtMatmulPreferenceCreate(&rawPreference));
    Preference preference(rawPreference);
    const std::uint64_t workspace = impl.workspaceBytes;
    HR_CUBLAS(cublasLtMatmulPreferenceSetAttribute(rawPreference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                   sizeof workspace));
    const auto ab = static_cast<std::int64_t>(dtypeSize(abType)), cb = static_cast<std::int64_t>(dtypeSize(cType));
    const std::uint32_t alignFirst = alignmentOf(a.B, a.strideB * ab), alignSecond = alignmentOf(a.A, a.strideA * ab);
    const std::uint32_t alignOut = alignmentOf(a.C, a.strideC * cb);
    HR_CUBLAS(cublasLtMatmulPreferenceSetAttribute(rawPreference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
                                                   &alignFirst, sizeof alignFirst));
    HR_CUBLAS(cublasLtMatmulPreferenceSetAttribute(rawPreference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
                                                   &alignSecond, sizeof alignSecond));
    HR_CUBLAS(cublasLtMatmulPreferenceSetAttribute(rawPreference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
                                                   &alignOut, sizeof alignOut));
    HR_CUBLAS(cublasLtMatmulPreferenceSetAttribute(rawPreference, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES,
                                                   &alignOut, sizeof alignOut));

    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    HR_CUBLAS(cublasLtMatmulAlgoGetHeuristic(impl.cublasLt, rawDesc, first.get(), second.get(), out.get(), out.get(),
                                             rawPreference, 1, &heuristic, &found));
    if (found == 0)
        return {StatusCode::cublasError, "cublasLtMatmulAlgoGetHeuristic: no algorithm for this GEMM"};
    HR_CUBLAS(cublasLtMatmul(impl.cublasLt, rawDesc, &a.alpha, a.B, first.get(), a.A, second.get(), &a.beta, a.C,
                             out.get(), a.C, out.get(), &heuristic.algo, impl.workspace, impl.workspaceBytes,
                             impl.stream));
    return {};
}

Status linearForward(Context& context, DType dtype, DType biasType, void* out, const void* inp, const void* weight,
                     const void* bias, std::size_t rows, std::size_t C, std::size_t OC)
{
    GemmArgs g;
    g.M = static_cast<std::int64_t>(rows);
    g.N = static_cast<std::int64_t>(OC);
    g.K = static_cast<std::int64_t>(C);
    g.A = inp;
    g.lda = g.K;
    g.B = weight;
    g.transB = true;
    g.ldb = g.K;
    g.C = out;
    g.ldc = g.N;
    HR_TRY(gemm(context, dtype, dtype, g));
    if (!bias)
        return {};
    return detail::dispatch2(dtype, biasType, [&](auto tag, auto wtag) -> Status {
        using T = decltype(tag);
        using W = decltype(wtag);
        addBiasKernel<T, W><<<detail::gridFor(rows * OC), 256, 0, streamOf(context)>>>(
            static_cast<T*>(out), static_cast<const W*>(bias), rows, OC);
        HR_LAUNCHED();
        return {};
    });
}

Status linearForward(Context& context, DType dtype, void* out, const void* inp, const void* weight, const void* bias,
                     std::size_t rows, std::size_t C, std::size_t OC)
{
    return linearForward(context, dtype, dtype, out, inp, weight, bias, rows, C, OC);
}

Status linearBackward(Context& context, DType dtype, void* dinp, float* dweight, float* dbias, const void* dout,
                      const void* inp, const void* weight, std::size_t rows, std::size_t C, std::size_t OC)
{
    const auto r = static_cast<std::int64_t>(rows), c = static_cast<std::int64_t>(C), oc = static_cast<std::int64_t>(OC);
    if (dinp) { // (rows,C) += dout (rows,OC) · weight (OC,C)
        GemmArgs g;
        g.M = r, g.N = c, g.K = oc;
        g.A = dout, g.lda = oc;
        g.B = weight, g.ldb = c;
        g.C = dinp, g.ldc = c;
        g.beta = 1.0f;
        HR_TRY(gemm(context, dtype, dtype, g));
    }
    if (dweight) { // (OC,C) += doutᵀ (OC,rows) · inp (rows,C)
        GemmArgs g;
        g.M = oc, g.N = c, g.K = r;
        g.A = dout, g.transA = true, g.lda = oc;
        g.B = inp, g.ldb = c;
        g.C = dweight, g.ldc = c;
        g.beta = 1.0f;
        HR_TRY(gemm(context, dtype, DType::f32, g));
    }
    if (dbias) {
        return detail::dispatch(dtype, [&](auto tag) -> Status {
            using T = decltype(tag);
            const dim3 grid(static_cast<unsigned>((OC + 255) / 256), static_cast<unsigned>(rows < 64 ? rows : 64));
            columnSumKernel<T><<<grid, 256, 0, streamOf(context)>>>(dbias, static_cast<const T*>(dout), rows, OC);
            HR_LAUNCHED();
            return {};
        });
    }
    return {};
}

} // namespace headroom::cuda
