// SPDX-License-Identifier: GPL-3.0-or-later
// One block per row for the row statistics and dinp (the sums along C are
// block reductions in fp32); dweight/dbias by a column kernel whose threads
// each own a column, so global reads stay coalesced (llm.c layernorm_backward
// accumulates the same sums in shared memory per block instead).
#include "cuda/contextimpl.cuh"
#include "cuda/norms.h"

namespace headroom::cuda {

namespace {

using detail::blockSum;
using detail::load;
using detail::store;

constexpr unsigned kRowBlock = 256;

template <typename T, typename W>
__global__ void rmsnormForwardKernel(T* out, float* rstd, const T* inp, const W* weight, std::size_t C, float eps)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const T* x = inp + row * C;
    float sumSq = 0.0f;
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float v = load(x[c]);
        sumSq += v * v;
    }
    const float r = rsqrtf(blockSum(sumSq, scratch) / static_cast<float>(C) + eps);
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x)
        out[row * C + c] = store<T>(load(weight[c]) * (load(x[c]) * r));
    if (threadIdx.x == 0)
        rstd[row] = r;
}

template <typename T, typename W>
__global__ void rmsnormBackwardKernel(T* dinp, const T* dout, const T* inp, const W* weight, const float* rstd,
                                      std::size_t C)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const float r = rstd[row];
    float dot = 0.0f; // sum_c dout·w·n
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x)
        dot += load(dout[row * C + c]) * load(weight[c]) * load(inp[row * C + c]) * r;
    const float meanDot = blockSum(dot, scratch) / static_cast<float>(C);
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float n = load(inp[row * C + c]) * r;
        const float dn = load(dout[row * C + c]) * load(weight[c]);
        dinp[row * C + c] = store<T>(load(dinp[row * C + c]) + r * (dn - n * meanDot));
    }
}

template <typename T, typename W>
__global__ void layernormForwardKernel(T* out, float* mean, float* rstd, const T* inp, const W* weight, const W* bias,
                                       std::size_t C, float eps)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const T* x = inp + row * C;
    float sum = 0.0f;
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x)
        sum += load(x[c]);
    const float m = blockSum(sum, scratch) / static_cast<float>(C);
    float sumSq = 0.0f; // two passes: no cancellation in the variance
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float d = load(x[c]) - m;
        sumSq += d * d;
    }
    const float r = rsqrtf(blockSum(sumSq, scratch) / static_cast<float>(C) + eps);
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float b = bias ? load(bias[c]) : 0.0f;
        out[row * C + c] = store<T>((load(x[c]) - m) * r * load(weight[c]) + b);
    }
    if (threadIdx.x == 0) {
        mean[row] = m;
        rstd[row] = r;
    }
}

template <typename T, typename W>
__global__ void layernormBackwardKernel(T* dinp, const T* dout, const T* inp, const W* weight, const float* mean,
                                        const float* rstd, std::size_t C)
{
    __shared__ float scratch[32];
    const std::size_t row = blockIdx.x;
    const float m = mean[row], r = rstd[row];
    float sumDn = 0.0f, sumDnN = 0.0f;
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float n = (load(inp[row * C + c]) - m) * r;
        const float dn = load(dout[row * C + c]) * load(weight[c]);
        sumDn += dn;
        sumDnN += dn * n;
    }
    const float meanDn = blockSum(sumDn, scratch) / static_cast<float>(C);
    const float meanDnN = blockSum(sumDnN, scratch) / static_cast<float>(C);
    for (std::size_t c = threadIdx.x; c < C; c += blockDim.x) {
        const float n = (load(inp[row * C + c]) - m) * r;
        const float dn = load(dout[row * C + c]) * load(weight[c]);
        dinp[row * C + c] = store<T>(load(dinp[row * C + c]) + r * (dn - meanDn - n * meanDnN));
    }
}

// dweight[c] += sum_rows dout·n, dbias[c] += sum_rows dout, with n the
// normalised input ((x − mean)·rstd, or x·rstd when mean is null).
template <typename T>
__global__ void normParamGradKernel(float* dweight, float* dbias, const T* dout, const T* inp, const float* mean,
                                    const float* rstd, std::size_t N, std::size_t C)
{
    const std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    if (c >= C)
        return;
    float sumW = 0.0f, sumB = 0.0f;
    for (std::size_t row = blockIdx.y; row < N; row += gridDim.y) {
        const float d = load(dout[row * C + c]);
        const float n = (load(inp[row * C + c]) - (mean ? mean[row] : 0.0f)) * rstd[row];
        sumW += d * n;
        sumB += d;
    }
    if (dweight)
        atomicAdd(&dweight[c], sumW);
    if (dbias)
        atomicAdd(&dbias[c], sumB);
}

template <typename T>
Status launchParamGrads(Context& context, float* dweight, float* dbias, const T* dout, const T* inp,
                        const float* mean, const float* rstd, std::size_t N, std::size_t C)
{
    if (!dweight && !dbias)
        return {};
    const dim3 grid(static_cast<unsigned>((C + 255) / 256), static_cast<unsigned>(N < 128 ? N : 128));
    normParamGradKernel<T><<<grid, 256, 0, streamOf(context)>>>(dweight, dbias, dout, inp, mean, rstd, N, C);
    HR_LAUNCHED();
    return {};
}

Status checkSizes(std::size_t N, std::size_t C)
{
    if (N == 0 || C == 0 || N > 0x7FFFFFFFu)
        return detail::invalid("norm: N and C must be positive (N < 2^31)");
    return {};
}

} // namespace

Status rmsnormForward(Context& context, DType dtype, DType weightType, void* out, float* rstd, const void* inp,
                      const void* weight, std::size_t N, std::size_t C, float eps)
{
    HR_TRY(checkSizes(N, C));
    return detail::dispatch2(dtype, weightType, [&](auto tag, auto wtag) -> Status {
        using T = decltype(tag);
        using W = decltype(wtag);
        rmsnormForwardKernel<T, W><<<static_cast<unsigned>(N), kRowBlock, 0, streamOf(context)>>>(
            static_cast<T*>(out), rstd, static_cast<const T*>(inp), static_cast<const W*>(weight), C, eps);
        HR_LAUNCHED();
        return {};
    });
}

Status rmsnormForward(Context& context, DType dtype, void* out, float* rstd, const void* inp, const void* weight,
                      std::size_t N, std::size_t C, float eps)
{
    return rmsnormForward(context, dtype, dtype, out, rstd, inp, weight, N, C, eps);
}

Status rmsnormBackward(Context& context, DType dtype, DType weightType, void* dinp, float* dweight, const void* dout,
                       const void* inp, const void* weight, const float* rstd, std::size_t N, std::size_t C)
{
    HR_TRY(checkSizes(N, C));
    return detail::dispatch2(dtype, weightType, [&](auto tag, auto wtag) -> Status {
        using T = decltype(tag);
        using W = decltype(wtag);
        if (dinp) {
            rmsnormBackwardKernel<T, W><<<static_cast<unsigned>(N), kRowBlock, 0, streamOf(context)>>>(
                static_cast<T*>(dinp), static_cast<const T*>(dout), static_cast<const T*>(inp),
                static_cast<const W*>(weight), rstd, C);
            HR_LAUNCHED();
        }
        return launchParamGrads<T>(context, dweight, nullptr, static_cast<const T*>(dout),
                                   static_cast<const T*>(inp), nullptr, rstd, N, C);
    });
}

Status rmsnormBackward(Context& context, DType dtype, void* dinp, float* dweight, const void* dout, const void* inp,
                       const void* weight, const float* rstd, std::size_t N, std::size_t C)
{
    return rmsnormBackward(context, dtype, dtype, dinp, dweight, dout, inp, weight, rstd, N, C);
}

Status layernormForward(Context& context, DType dtype, DType weightType, void* out, float* mean, float* rstd,
                        const void* inp, const void* weight, const void* bias, std::size_t N, std::size_t C, float eps)
{
    HR_TRY(checkSizes(N, C));
    return detail::dispatch2(dtype, weightType, [&](auto tag, auto wtag) -> Status {
        using T = decltype(tag);
        using W = decltype(wtag);
        layernormForwardKernel<T, W><<<static_cast<unsigned>(N), kRowBlock, 0, streamOf(context)>>>(
            static_cast<T*>(out), mean, rstd, static_cast<const T*>(inp), static_cast<const W*>(weight),
            static_cast<const W*>(bias), C, eps);
        HR_LAUNCHED();
        return {};
    });
}

Status layernormForward(Context& context, DType dtype, void* out, float* mean, float* rstd, const void* inp,
                        const void* weight, const void* bias, std::size_t N, std::size_t C, float eps)
{
    return layernormForward(context, dtype, dtype, out, mean, rstd, inp, weight, bias, N, C, eps);
}

Status layernormBackward(Context& context, DType dtype, DType weightType, void* dinp, float* dweight, float* dbias,
                         const void* dout, const void* inp, const void* weight, const float* mean, const float* rstd,
                         std::size_t N, std::size_t C)
{
    HR_TRY(checkSizes(N, C));
    return detail::dispatch2(dtype, weightType, [&](auto tag, auto wtag) -> Status {
        using T = decltype(tag);
        using W = decltype(wtag);
        if (dinp) {
            layernormBackwardKernel<T, W><<<static_cast<unsigned>(N), kRowBlock, 0, streamOf(context)>>>(
                static_cast<T*>(dinp), static_cast<const T*>(dout), static_cast<const T*>(inp),
                static_cast<const W*>(weight), mean, rstd, C);
            HR_LAUNCHED();
        }
        return launchParamGrads<T>(context, dweight, dbias, static_cast<const T*>(dout), static_cast<const T*>(inp),
                                   mean, rstd, N, C);
    });
}

Status layernormBackward(Context& context, DType dtype, void* dinp, float* dweight, float* dbias, const void* dout,
                         const void* inp, const void* weight, const float* mean, const float* rstd, std::size_t N,
                         std::size_t C)
{
    return layernormBackward(context, dtype, dtype, dinp, dweight, dbias, dout, inp, weight, mean, rstd, N, C);
}

} // namespace headroom::cuda
