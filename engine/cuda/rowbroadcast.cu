// SPDX-License-Identifier: GPL-3.0-or-later
// tanh and the row broadcast of runtime/cpu/activations.h and
// runtime/cpu/rowbroadcast.h (formulas and sources there): BERT's pooler
// activation and its token type embedding.
#include "cuda/contextimpl.cuh"
#include "cuda/elementwise.h"

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

template <typename T>
__global__ void tanhForwardKernel(T* out, const T* inp, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = store<T>(tanhf(load(inp[i])));
}

template <typename T>
__global__ void tanhBackwardKernel(T* dinp, const T* dout, const T* out, std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const float y = load(out[i]);
        dinp[i] = store<T>(load(dinp[i]) + load(dout[i]) * (1.0f - y * y));
    }
}

template <typename T, typename R>
__global__ void addRowKernel(T* out, const R* row, std::size_t rows, std::size_t C)
{
    const std::size_t n = rows * C;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x)
        out[i] = store<T>(load(out[i]) + load(row[i % C]));
}

// One thread per column: adjacent threads read adjacent elements of each row.
template <typename T, typename R>
__global__ void sumRowsKernel(R* drow, const T* dout, std::size_t rows, std::size_t C)
{
    for (std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; c < C;
         c += std::size_t{gridDim.x} * blockDim.x) {
        float sum = 0.0f;
        for (std::size_t r = 0; r < rows; ++r)
            sum += load(dout[r * C + c]);
        drow[c] = store<R>(load(drow[c]) + sum);
    }
}

} // namespace

Status tanhForward(Context& context, DType dtype, void* out, const void* inp, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        tanhForwardKernel<T>
            <<<detail::gridFor(n), 256, 0, streamOf(context)>>>(static_cast<T*>(out), static_cast<const T*>(inp), n);
        HR_LAUNCHED();
        return {};
    });
}

Status tanhBackward(Context& context, DType dtype, void* dinp, const void* dout, const void* out, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        tanhBackwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<T*>(dinp), static_cast<const T*>(dout), static_cast<const T*>(out), n);
        HR_LAUNCHED();
        return {};
    });
}

Status addRowToRows(Context& context, DType dtype, DType rowType, void* out, const void* row, std::size_t rows,
                    std::size_t C)
{
    return detail::dispatch2(dtype, rowType, [&](auto tag, auto rtag) -> Status {
        using T = decltype(tag);
        using R = decltype(rtag);
        addRowKernel<T, R><<<detail::gridFor(rows * C), 256, 0, streamOf(context)>>>(
            static_cast<T*>(out), static_cast<const R*>(row), rows, C);
        HR_LAUNCHED();
        return {};
    });
}

Status sumRowsInto(Context& context, DType dtype, DType rowType, void* drow, const void* dout, std::size_t rows,
                   std::size_t C)
{
    return detail::dispatch2(dtype, rowType, [&](auto tag, auto rtag) -> Status {
        using T = decltype(tag);
        using R = decltype(rtag);
        sumRowsKernel<T, R><<<detail::gridFor(C), 256, 0, streamOf(context)>>>(static_cast<R*>(drow),
                                                                               static_cast<const T*>(dout), rows, C);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace headroom::cuda
