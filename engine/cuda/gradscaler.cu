// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/gradscaler.h"

namespace headroom::cuda {

namespace {

__global__ void unscaleKernel(float* grads, std::size_t n, const float* scale, float* foundInf)
{
    const float inverse = static_cast<float>(1.0 / static_cast<double>(*scale));
    bool bad = false;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const float g = grads[i];
        bad = bad || !isfinite(g);
        grads[i] = g * inverse;
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0)
        *foundInf = 1.0f;
}

__global__ void updateScaleKernel(float* scale, int* tracker, const float* foundInf, float growth, float backoff,
                                  int interval)
{
    if (*foundInf != 0.0f) {
        *scale *= backoff;
        *tracker = 0;
        return;
    }
    const int successful = *tracker + 1;
    if (successful == interval) {
        const float grown = *scale * growth;
        if (isfinite(grown))
            *scale = grown;
        *tracker = 0;
    } else {
        *tracker = successful;
    }
}

} // namespace

Status unscaleAndCheck(Context& context, float* grads, std::size_t n, const float* scale, float* foundInf)
{
    if (n == 0)
        return {};
    unscaleKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(grads, n, scale, foundInf);
    HR_LAUNCHED();
    return {};
}

Status updateLossScale(Context& context, float* scale, int* growthTracker, const float* foundInf,
                       float growthFactor, float backoffFactor, int growthInterval)
{
    if (growthInterval < 1)
        return detail::invalid("loss scaling: the growth interval must be positive");
    updateScaleKernel<<<1, 1, 0, streamOf(context)>>>(scale, growthTracker, foundInf, growthFactor, backoffFactor,
                                                      growthInterval);
    HR_LAUNCHED();
    return {};
}

} // namespace headroom::cuda
