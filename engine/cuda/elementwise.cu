// SPDX-License-Identifier: GPL-3.0-or-later
// Formulas and sources: runtime/cpu/activations.h.
#include "cuda/contextimpl.cuh"
#include "cuda/elementwise.h"

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

#define HR_GRID_STRIDE(i, n)                                                                                  \
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < (n);                        \
         i += std::size_t{gridDim.x} * blockDim.x)

template <typename Out, typename In>
__global__ void castKernel(Out* out, const In* inp, std::size_t n)
{
    HR_GRID_STRIDE(i, n) out[i] = store<Out>(load(inp[i]));
}

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// √(2/π) and the cubic coefficient of the tanh approximation (Hendrycks & Gimpel 2016, §2).
constexpr float kSqrt2OverPi = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;
constexpr float kInvSqrt2 = 0.7071067811865476f;
constexpr float kInvSqrt2Pi = 0.3989422804014327f;

__device__ __forceinline__ float activate(Activation act, float x)
{
    switch (act) {
    case Activation::silu: return x * sigmoid(x);
    case Activation::gelu: return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
    case Activation::geluTanh: return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x)));
    }
    return x;
}

__device__ __forceinline__ float derivative(Activation act, float x)
{
    switch (act) {
    case Activation::silu: {
        const float s = sigmoid(x);
        return s * (1.0f + x * (1.0f - s));
    }
    case Activation::gelu: // Φ(x) + x·φ(x)
        return 0.5f * (1.0f + erff(x * kInvSqrt2)) + x * kInvSqrt2Pi * expf(-0.5f * x * x);
    case Activation::geluTanh: {
        const float t = tanhf(kSqrt2OverPi * (x + kGeluCubic * x * x * x));
        return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kSqrt2OverPi * (1.0f + 3.0f * kGeluCubic * x * x);
    }
    }
    return 1.0f;
}

template <typename T>
__global__ void activationForwardKernel(Activation act, T* out, const T* inp, std::size_t n)
{
    HR_GRID_STRIDE(i, n) out[i] = store<T>(activate(act, load(inp[i])));
}

template <typename T>
__global__ void activationBackwardKernel(Activation act, T* dinp, const T* dout, const T* inp, std::size_t n)
{
    HR_GRID_STRIDE(i, n) dinp[i] = store<T>(load(dinp[i]) + load(dout[i]) * derivative(act, load(inp[i])));
}

template <typename T>
__global__ void swigluForwardKernel(T* out, const T* gate, const T* up, std::size_t n)
{
    HR_GRID_STRIDE(i, n)
    {
        const float g = load(gate[i]);
        out[i] = store<T>(g * sigmoid(g) * load(up[i]));
    }
}

template <typename T>
__global__ void swigluBackwardKernel(T* dgate, T* dup, const T* dout, const T* gate, const T* up, std::size_t n)
{
    HR_GRID_STRIDE(i, n)
    {
        const float g = load(gate[i]), u = load(up[i]), d = load(dout[i]);
        const float s = sigmoid(g);
        if (dgate)
            dgate[i] = store<T>(load(dgate[i]) + d * u * s * (1.0f + g * (1.0f - s)));
        if (dup)
            dup[i] = store<T>(load(dup[i]) + d * g * s);
    }
}

template <typename T>
__global__ void addKernel(T* out, const T* inp, std::size_t n)
{
    HR_GRID_STRIDE(i, n) out[i] = store<T>(load(out[i]) + load(inp[i]));
}

} // namespace

Status castTensor(Context& context, void* out, DType outType, const void* inp, DType inType, std::size_t n)
{
    return detail::dispatch(outType, [&](auto outTag) -> Status {
        using Out = decltype(outTag);
        return detail::dispatch(inType, [&](auto inTag) -> Status {
            using In = decltype(inTag);
            castKernel<Out, In><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
                static_cast<Out*>(out), static_cast<const In*>(inp), n);
            HR_LAUNCHED();
            return {};
        });
    });
}

Status activationForward(Context& context, Activation act, DType dtype, void* out, const void* inp, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        activationForwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            act, static_cast<T*>(out), static_cast<const T*>(inp), n);
        HR_LAUNCHED();
        return {};
    });
}

Status activationBackward(Context& context, Activation act, DType dtype, void* dinp, const void* dout,
                          const void* inp, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        activationBackwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            act, static_cast<T*>(dinp), static_cast<const T*>(dout), static_cast<const T*>(inp), n);
        HR_LAUNCHED();
        return {};
    });
}

Status swigluForward(Context& context, DType dtype, void* out, const void* gate, const void* up, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        swigluForwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<T*>(out), static_cast<const T*>(gate), static_cast<const T*>(up), n);
        HR_LAUNCHED();
        return {};
    });
}

Status swigluBackward(Context& context, DType dtype, void* dgate, void* dup, const void* dout, const void* gate,
                      const void* up, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        swigluBackwardKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<T*>(dgate), static_cast<T*>(dup), static_cast<const T*>(dout), static_cast<const T*>(gate),
            static_cast<const T*>(up), n);
        HR_LAUNCHED();
        return {};
    });
}

Status addInPlace(Context& context, DType dtype, void* out, const void* inp, std::size_t n)
{
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using T = decltype(tag);
        addKernel<T><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(static_cast<T*>(out),
                                                                        static_cast<const T*>(inp), n);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace headroom::cuda
