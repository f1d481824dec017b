// SPDX-License-Identifier: GPL-3.0-or-later
// Formulas and sources: runtime/cpu/dropout.h.
#include "cuda/contextimpl.cuh"
#include "cuda/dropout.h"

#include "runtime/cpu/dropoutrng.h"

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

template <typename T>
__global__ void dropoutForwardKernel(T* x, std::uint8_t* mask, std::size_t n, std::uint32_t threshold,
                                     float keepScale, std::uint64_t stream)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const bool keep = cpu::dropoutKeep(stream, i, threshold);
        mask[i] = keep ? 1 : 0;
        if (x)
            x[i] = store<T>(keep ? load(x[i]) * keepScale : 0.0f);
    }
}

template <typename T>
__global__ void dropoutBackwardKernel(T* dst, const T* src, const std::uint8_t* mask, std::size_t n, float keepScale)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        dst[i] = store<T>(mask[i] ? load(src[i]) * keepScale : 0.0f);
}

} // namespace

Status dropoutForward(Context& context, DType dtype, void* x, std::uint8_t* mask, std::size_t n, float p,
                      std::uint64_t stream)
{
    if (mask == nullptr && n > 0)
        return detail::invalid("dropout: no mask");
    if (n == 0)
        return {};
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        dropoutForwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<T*>(x), mask, n, cpu::dropoutThreshold(p), cpu::dropoutScale(p), stream);
        HR_LAUNCHED();
        return {};
    });
}

Status dropoutBackward(Context& context, DType dtype, void* dst, const void* src, const std::uint8_t* mask,
                       std::size_t n, float p)
{
    if ((mask == nullptr || dst == nullptr || src == nullptr) && n > 0)
        return detail::invalid("dropout backward: a null buffer");
    if (n == 0)
        return {};
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        dropoutBackwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<T*>(dst), static_cast<const T*>(src), mask, n, cpu::dropoutScale(p));
        HR_LAUNCHED();
        return {};
    });
}

} // namespace headroom::cuda
