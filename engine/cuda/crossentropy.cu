// SPDX-License-Identifier: GPL-3.0-or-later
// One block per row: max, then sum of exp(x − max) (logsumexp), as
// runtime/cpu/crossentropy.cpp and llm.c's fused_classifier; fp32 throughout
// (the fp32 upcast of HF's loss_function).
#include "cuda/contextimpl.cuh"
#include "cuda/crossentropy.h"

namespace headroom::cuda {

namespace {

using detail::blockMax;
using detail::blockSum;
using detail::load;
using detail::store;

constexpr std::int32_t kIgnoreIndex = -100; // torch's default ignore_index

__device__ __forceinline__ bool validTarget(std::int32_t target, std::size_t V)
{
    return target >= 0 && static_cast<std::size_t>(target) < V;
}

template <typename T>
__global__ void crossEntropyForwardKernel(float* lse, float* rowLoss, const T* logits, const std::int32_t* targets,
                                          std::size_t V, int* badTarget)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const T* x = logits + row * V;
    float m = -INFINITY;
    for (std::size_t v = threadIdx.x; v < V; v += blockDim.x)
        m = fmaxf(m, load(x[v]));
    m = blockMax(m, scratch);
    float sum = 0.0f;
    for (std::size_t v = threadIdx.x; v < V; v += blockDim.x)
        sum += expf(load(x[v]) - m);
    const float l = m + logf(blockSum(sum, scratch));
    if (threadIdx.x == 0) {
        lse[row] = l;
        const std::int32_t target = targets[row];
        const bool valid = validTarget(target, V);
        if (!valid && target != kIgnoreIndex && badTarget)
            *badTarget = 1;
        rowLoss[row] = valid ? l - load(x[target]) : 0.0f;
    }
}

__global__ void crossEntropyMeanKernel(float* meanLoss, int* validCount, const float* rowLoss,
                                       const std::int32_t* targets, std::size_t N)
{
    __shared__ float scratch[32];
    float sum = 0.0f, count = 0.0f;
    for (std::size_t n = threadIdx.x; n < N; n += blockDim.x) {
        sum += rowLoss[n];
        count += targets[n] != kIgnoreIndex ? 1.0f : 0.0f;
    }
    sum = blockSum(sum, scratch);
    count = blockSum(count, scratch);
    if (threadIdx.x == 0) {
        *validCount = static_cast<int>(count);
        *meanLoss = count > 0.0f ? sum / count : NAN;
    }
}

template <typename T>
__global__ void crossEntropyBackwardKernel(T* dlogits, const T* logits, const float* lse, const std::int32_t* targets,
                                           const int* validCount, std::size_t N, std::size_t V, float dloss)
{
    const std::size_t n = N * V;
    const float factor = *validCount > 0 ? dloss / static_cast<float>(*validCount) : 0.0f;
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
         i += std::size_t{gridDim.x} * blockDim.x) {
        const std::size_t row = i / V, v = i % V;
        const std::int32_t target = targets[row];
        if (!validTarget(target, V))
            continue;
        const float p = expf(load(logits[i]) - lse[row]);
        const float indicator = static_cast<std::size_t>(target) == v ? 1.0f : 0.0f;
        dlogits[i] = store<T>(load(dlogits[i]) + factor * (p - indicator));
    }
}

} // namespace

Status crossEntropyForward(Context& context, DType dtype, float* lse, float* rowLoss, const void* logits,
                           const std::int32_t* targets, std::size_t N, std::size_t V, int* badTarget)
{
    if (N == 0 || V == 0 || N > 0x7FFFFFFFu)
        return detail::invalid("cross-entropy: N and V must be positive");
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        crossEntropyForwardKernel<E><<<static_cast<unsigned>(N), 512, 0, streamOf(context)>>>(
            lse, rowLoss, static_cast<const E*>(logits), targets, V, badTarget);
        HR_LAUNCHED();
        return {};
    });
}

Status crossEntropyMean(Context& context, float* meanLoss, int* validCount, const float* rowLoss,
                        const std::int32_t* targets, std::size_t N)
{
    crossEntropyMeanKernel<<<1, 1024, 0, streamOf(context)>>>(meanLoss, validCount, rowLoss, targets, N);
    HR_LAUNCHED();
    return {};
}

Status crossEntropyBackward(Context& context, DType dtype, void* dlogits, const void* logits, const float* lse,
                            const std::int32_t* targets, const int* validCount, std::size_t N, std::size_t V,
                            float dloss)
{
    if (N == 0 || V == 0)
        return detail::invalid("cross-entropy: N and V must be positive");
    return detail::dispatch(dtype, [&](auto tag) -> Status {
        using E = decltype(tag);
        crossEntropyBackwardKernel<E><<<detail::gridFor(N * V), 256, 0, streamOf(context)>>>(
            static_cast<E*>(dlogits), static_cast<const E*>(logits), lse, targets, validCount, N, V, dloss);
        HR_LAUNCHED();
        return {};
    });
}

} // namespace headroom::cuda
