// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/embedding.h"

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

template <typename T, typename W>
__global__ void embeddingForwardKernel(T* out, const std::int32_t* tokens, const W* wte, const W* wpe, std::size_t T_,
                                       std::size_t C, std::size_t V, std::size_t n, int* badToken)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t bt = i / C, c = i % C;
        const std::int32_t token = tokens[bt];
        if (token < 0 || static_cast<std::size_t>(token) >= V) {
            out[i] = store<T>(0.0f);
            if (badToken)
                *badToken = 1;
            continue;
        }
        float v = load(wte[static_cast<std::size_t>(token) * C + c]);
        if (wpe)
            v += load(wpe[(bt % T_) * C + c]);
        out[i] = store<T>(v);
    }
}

template <typename T>
__global__ void embeddingBackwardKernel(float* dwte, float* dwpe, const T* dout, const std::int32_t* tokens,
                                        std::size_t T_, std::size_t C, std::size_t V, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t bt = i / C, c = i % C;
        const float d = load(dout[i]);
        const std::int32_t token = tokens[bt];
        if (dwte && token >= 0 && static_cast<std::size_t>(token) < V)
            atomicAdd(&dwte[static_cast<std::size_t>(token) * C + c], d);
        if (dwpe)
            atomicAdd(&dwpe[(bt % T_) * C + c], d);
    }
}

} // namespace

Status embeddingForward(Context& context, DType dtype, DType tableType, void* out, const std::int32_t* tokens,
                        const void* wte, const void* wpe, std::size_t B, std::size_t T, std::size_t C, std::size_t V,
                        int* badToken)
{
    const std::size_t n = B * T * C;
    if (n == 0 || V == 0)
        return detail::invalid("embedding: sizes must be positive");
    return detail::dispatch2(dtype, tableType, [&](auto tag, auto wtag) -> Status {
        using E = decltype(tag);
        using W = decltype(wtag);
        embeddingForwardKernel<E, W><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<E*>(out), tokens, static_cast<const W*>(wte), static_cast<const W*>(wpe), T, C, V, n,
            badToken);
        HR_LAUNCHED();
        return {};
    });
}

Status embeddingForward(Context& context, DType dtype, void* out, const std::int32_t* tokens, const void* wte,
                        const void* wpe, std::size_t B, std::size_t T, std::size_t C, std::size_t V, int* badToken)
{
    return embeddingForward(context, dtype, dtype, out, tokens, wte, wpe, B, T, C, V, badToken);
}

Status embeddingBackward(Context& context, DType dtype, float* dwte, float* dwpe, const void* dout,
                         const std::int32_t* tokens, std::size_t B, std::size_t T, std::size_t C, std::size_t V)
{
    const std::size_t n = B * T * C;
    if (n == 0 || V == 0)
        return detail::invalid("embedding: sizes must be positive");
    if (!dwte && !dwpe)
        return {};
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        embeddingBackwardKernel<E><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            dwte, dwpe, static_cast<const E*>(dout), tokens, T, C, V, n);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace headroom::cuda
