// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to engine/cuda (.cu files only): error checks that turn CUDA and
// cuBLAS failures into a Status with the call, the error name and the place
// (llm.c's cudaCheck/cublasCheck, but returning instead of exiting), dtype
// dispatch, and fp32 load/store of the storage types.
#pragma once

#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace headroom::cuda::detail {

Status fromCuda(cudaError_t error, const char* call, const char* file, int line);
Status fromCublas(cublasStatus_t status, const char* call, const char* file, int line);
Status invalid(const std::string& message);

inline cudaStream_t toCuda(Stream stream) { return static_cast<cudaStream_t>(stream); }

// Blocks for a grid-stride loop over n items: enough to fill any GPU, few
// enough that each thread does several items.
inline unsigned gridFor(std::size_t n, unsigned block = 256)
{
    const std::size_t blocks = (n + block - 1) / block;
    return static_cast<unsigned>(blocks < 65536 ? (blocks == 0 ? 1 : blocks) : 65536);
}

template <typename T> __device__ __forceinline__ float load(const T& v);
template <> __device__ __forceinline__ float load<float>(const float& v) { return v; }
template <> __device__ __forceinline__ float load<__nv_bfloat16>(const __nv_bfloat16& v) { return __bfloat162float(v); }
template <> __device__ __forceinline__ float load<__half>(const __half& v) { return __half2float(v); }

template <typename T> __device__ __forceinline__ T store(float v);
template <> __device__ __forceinline__ float store<float>(float v) { return v; }
template <> __device__ __forceinline__ __nv_bfloat16 store<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ __half store<__half>(float v) { return __float2half_rn(v); }

// Calls f(T{}) with T the storage type of dtype.
template <typename F>
Status dispatch(DType dtype, F&& f)
{
    switch (dtype) {
    case DType::f32: return f(float{});
    case DType::bf16: return f(__nv_bfloat16{});
    case DType::f16: return f(__half{});
    }
    return invalid("unknown dtype");
}

// Two storage types: the activations' and the weights' (mixed precision
// keeps norm weights, biases and embedding tables as fp32 master weights
// under 16-bit activations).
template <typename F>
Status dispatch2(DType dtype, DType weightType, F&& f)
{
    return dispatch(dtype, [&](auto tag) -> Status {
        return dispatch(weightType, [&](auto wtag) -> Status { return f(tag, wtag); });
    });
}

template <typename T> constexpr cudaDataType_t cudaTypeOf();
template <> constexpr cudaDataType_t cudaTypeOf<float>() { return CUDA_R_32F; }
template <> constexpr cudaDataType_t cudaTypeOf<__nv_bfloat16>() { return CUDA_R_16BF; }
template <> constexpr cudaDataType_t cudaTypeOf<__half>() { return CUDA_R_16F; }

// Warp and block reductions (blockDim.x a multiple of 32, at most 1024).
__device__ __forceinline__ float warpSum(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    return v;
}
__device__ __forceinline__ float warpMax(float v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, offset));
    return v;
}
// Every thread of the block gets the sum. scratch: 32 floats of shared memory.
__device__ __forceinline__ float blockSum(float v, float* scratch)
{
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const int warps = static_cast<int>((blockDim.x + 31) / 32);
    v = warpSum(v);
    __syncthreads(); // scratch may still be read by a previous call
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : 0.0f;
    return warpSum(v);
}
__device__ __forceinline__ float blockMax(float v, float* scratch)
{
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
    const int warps = static_cast<int>((blockDim.x + 31) / 32);
    v = warpMax(v);
    __syncthreads();
    if (lane == 0)
        scratch[warp] = v;
    __syncthreads();
    v = lane < warps ? scratch[lane] : -INFINITY;
    return warpMax(v);
}

} // namespace headroom::cuda::detail

#define HR_CUDA(call)                                                                                       \
    do {                                                                                                    \
        const cudaError_t hrError_ = (call);                                                                \
        if (hrError_ != cudaSuccess)                                                                        \
            return ::headroom::cuda::detail::fromCuda(hrError_, #call, __FILE__, __LINE__);                 \
    } while (0)

// After every kernel launch (a bad configuration is reported here; faults
// inside the kernel surface at the next synchronising call).
#define HR_LAUNCHED() HR_CUDA(cudaGetLastError())

#define HR_CUBLAS(call)                                                                                     \
    do {                                                                                                    \
        const cublasStatus_t hrStatus_ = (call);                                                            \
        if (hrStatus_ != CUBLAS_STATUS_SUCCESS)                                                             \
            return ::headroom::cuda::detail::fromCublas(hrStatus_, #call, __FILE__, __LINE__);              \
    } while (0)

#define HR_TRY(statusExpr)                                                                                  \
    do {                                                                                                    \
        ::headroom::cuda::Status hrInner_ = (statusExpr);                                                   \
        if (!hrInner_.ok())                                                                                 \
            return hrInner_;                                                                                \
    } while (0)
