// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/rope.h"

namespace headroom::cuda {

namespace {

using detail::load;
using detail::store;

__global__ void ropeTableKernel(float* cosTable, float* sinTable, std::size_t T, std::size_t half, double theta)
{
    const std::size_t n = T * half;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t t = i / half, k = i % half;
        // θ_k = theta^(−2k/rotaryDim) = theta^(−k/half)
        const double angle = static_cast<double>(t) * pow(theta, -static_cast<double>(k) / static_cast<double>(half));
        cosTable[i] = static_cast<float>(cos(angle));
        sinTable[i] = static_cast<float>(sin(angle));
    }
}

// One thread per (b,t,h, k < HD − half): k < half is a rotated pair (k, k+half);
// k >= rotaryDim a pass-through element. forward: sign = +1, backward: −1 (Rᵀ).
template <typename T, bool Backward>
__global__ void ropeKernel(T* out, const T* inp, const float* cosTable, const float* sinTable, std::size_t T_,
                           std::size_t NH, std::size_t HD, std::size_t rotaryDim, std::size_t n)
{
    const std::size_t half = rotaryDim / 2, perHead = HD - half;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t head = i / perHead, k0 = i % perHead;
        const std::size_t t = head / NH % T_;
        const std::size_t base = head * HD;
        if (k0 < half) {
            const float c = cosTable[t * half + k0], s = Backward ? -sinTable[t * half + k0] : sinTable[t * half + k0];
            const float x1 = load(inp[base + k0]), x2 = load(inp[base + k0 + half]);
            const float y1 = x1 * c - x2 * s, y2 = x2 * c + x1 * s;
            if (Backward) {
                out[base + k0] = store<T>(load(out[base + k0]) + y1);
                out[base + k0 + half] = store<T>(load(out[base + k0 + half]) + y2);
            } else {
                out[base + k0] = store<T>(y1);
                out[base + k0 + half] = store<T>(y2);
            }
        } else {
            const std::size_t k = k0 + half; // in [rotaryDim, HD)
            if (Backward)
                out[base + k] = store<T>(load(out[base + k]) + load(inp[base + k]));
            else
                out[base + k] = inp[base + k];
        }
    }
}

template <bool Backward>
Status launchRope(Context& context, DType dtype, void* out, const void* inp, const float* cos, const float* sin,
                  std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim)
{
    if (rotaryDim % 2 != 0 || rotaryDim > HD || rotaryDim == 0 || B * T * NH == 0)
        return detail::invalid("rope: rotaryDim must be even, positive and at most HD");
    const std::size_t n = B * T * NH * (HD - rotaryDim / 2);
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        ropeKernel<E, Backward><<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
            static_cast<E*>(out), static_cast<const E*>(inp), cos, sin, T, NH, HD, rotaryDim, n);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace

Status ropeTable(Context& context, float* cos, float* sin, std::size_t T, std::size_t rotaryDim, double theta)
{
    if (rotaryDim % 2 != 0 || rotaryDim == 0 || T == 0)
        return detail::invalid("rope: rotaryDim must be even and positive");
    ropeTableKernel<<<detail::gridFor(T * rotaryDim / 2), 256, 0, streamOf(context)>>>(cos, sin, T, rotaryDim / 2,
                                                                                        theta);
    HR_LAUNCHED();
    return {};
}

Status ropeForward(Context& context, DType dtype, void* out, const void* inp, const float* cos, const float* sin,
                   std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim)
{
    return launchRope<false>(context, dtype, out, inp, cos, sin, B, T, NH, HD, rotaryDim);
}

Status ropeBackward(Context& context, DType dtype, void* dinp, const void* dout, const float* cos, const float* sin,
                    std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim)
{
    return launchRope<true>(context, dtype, dinp, dout, cos, sin, B, T, NH, HD, rotaryDim);
}

} // namespace headroom::cuda
