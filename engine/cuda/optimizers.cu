// SPDX-License-Identifier: GPL-3.0-or-later
// Elementwise optimizers: one grid-stride kernel each, fp32 arithmetic with
// the step's scalars (bias corrections, decay) computed once on the host in
// double, as the CPU reference does.
#include "cuda/contextimpl.cuh"
#include "cuda/optimizers.h"
#include "cuda/tables.h"

#include <cmath>

namespace headroom::cuda {

namespace {

#define HR_GRID_STRIDE(i, n)                                                                                  \
    for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < (n);                        \
         i += std::size_t{gridDim.x} * blockDim.x)

__global__ void sgdKernel(float* param, const float* grad, float* buffer, std::size_t n, bool firstStep, float lr,
                          float momentum, float weightDecay)
{
    HR_GRID_STRIDE(i, n)
    {
        const float p = param[i];
        float d = grad[i] + weightDecay * p;
        if (buffer) {
            d = firstStep ? d : momentum * buffer[i] + d;
            buffer[i] = d;
        }
        param[i] = p - lr * d;
    }
}

struct AdamScalars {
    float beta1, beta2, eps, decay, stepSize, biasCorrection2Sqrt;
};

AdamScalars adamScalars(std::int64_t step, const AdamWConfig& c)
{
    const double lr = c.lr;
    const double bc1 = 1.0 - std::pow(double(c.beta1), double(step));
    const double bc2Sqrt = std::sqrt(1.0 - std::pow(double(c.beta2), double(step)));
    return {c.beta1, c.beta2, c.eps, static_cast<float>(1.0 - lr * double(c.weightDecay)),
            static_cast<float>(lr / bc1), static_cast<float>(bc2Sqrt)};
}

__device__ __forceinline__ float adamUpdate(float p, float m, float v, const AdamScalars& s)
{
    return p * s.decay - s.stepSize * m / (sqrtf(v) / s.biasCorrection2Sqrt + s.eps);
}

__global__ void adamwKernel(float* param, const float* grad, float* expAvg, float* expAvgSq, std::size_t n,
                            AdamScalars s)
{
    HR_GRID_STRIDE(i, n)
    {
        const float g = grad[i];
        const float m = s.beta1 * expAvg[i] + (1.0f - s.beta1) * g;
        const float v = s.beta2 * expAvgSq[i] + (1.0f - s.beta2) * g * g;
        expAvg[i] = m;
        expAvgSq[i] = v;
        param[i] = adamUpdate(param[i], m, v, s);
    }
}

__global__ void lionKernel(float* param, const float* grad, float* expAvg, std::size_t n, float lr, float beta1,
                           float beta2, float decay)
{
    HR_GRID_STRIDE(i, n)
    {
        const float g = grad[i], m = expAvg[i];
        const float c = beta1 * m + (1.0f - beta1) * g;
        const float sign = c > 0.0f ? 1.0f : (c < 0.0f ? -1.0f : 0.0f); // torch.sign(0) = 0
        param[i] = param[i] * decay - lr * sign;
        expAvg[i] = beta2 * m + (1.0f - beta2) * g;
    }
}

// --- Adafactor ----------------------------------------------------------------

// R[r] = β2t·R[r] + (1 − β2t)·mean_c(g² + eps1); one block per row.
__global__ void adafactorRowKernel(float* rowState, const float* grad, std::size_t cols, float beta2t, float eps1)
{
    __shared__ float scratch[32];
    const std::size_t r = blockIdx.x;
    float sum = 0.0f;
    for (std::size_t c = threadIdx.x; c < cols; c += blockDim.x) {
        const float g = grad[r * cols + c];
        sum += g * g + eps1;
    }
    sum = detail::blockSum(sum, scratch);
    if (threadIdx.x == 0)
        rowState[r] = beta2t * rowState[r] + (1.0f - beta2t) * (sum / static_cast<float>(cols));
}

// C[c] = β2t·C[c] + (1 − β2t)·mean_r(g² + eps1); one thread per column.
__global__ void adafactorColKernel(float* colState, const float* grad, std::size_t rows, std::size_t cols,
                                   float beta2t, float eps1)
{
    const std::size_t c = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
    if (c >= cols)
        return;
    float sum = 0.0f;
    for (std::size_t r = 0; r < rows; ++r) {
        const float g = grad[r * cols + c];
        sum += g * g + eps1;
    }
    colState[c] = beta2t * colState[c] + (1.0f - beta2t) * (sum / static_cast<float>(rows));
}

// scratch[0] = mean of R (one block).
__global__ void meanKernel(double* out, const float* values, std::size_t n)
{
    __shared__ float scratch[32];
    float sum = 0.0f;
    for (std::size_t i = threadIdx.x; i < n; i += blockDim.x)
        sum += values[i];
    sum = detail::blockSum(sum, scratch);
    if (threadIdx.x == 0)
        *out = static_cast<double>(sum) / static_cast<double>(n);
}

__global__ void adafactorVKernel(float* state, const float* grad, std::size_t n, float beta2t, float eps1)
{
    HR_GRID_STRIDE(i, n) state[i] = beta2t * state[i] + (1.0f - beta2t) * (grad[i] * grad[i] + eps1);
}

// U before clipping: factored g·rsqrt(R_r/mean R)·rsqrt(C_c), or g·rsqrt(V).
__device__ __forceinline__ float adafactorU(const float* grad, const float* rowOrV, const float* col,
                                            const double* rowMean, std::size_t cols, std::size_t i)
{
    if (col)
        return grad[i] * rsqrtf(rowOrV[i / cols] / static_cast<float>(*rowMean)) * rsqrtf(col[i % cols]);
    return grad[i] * rsqrtf(rowOrV[i]);
}

__global__ void adafactorSquaresKernel(double* sumSquares, const float* grad, const float* rowOrV, const float* col,
                                       const double* rowMean, std::size_t cols, std::size_t n)
{
    __shared__ float scratch[32];
    float sum = 0.0f;
    HR_GRID_STRIDE(i, n)
    {
        const float u = adafactorU(grad, rowOrV, col, rowMean, cols, i);
        sum += u * u;
    }
    sum = detail::blockSum(sum, scratch);
    if (threadIdx.x == 0)
        atomicAdd(sumSquares, static_cast<double>(sum));
}

__global__ void adafactorApplyKernel(float* param, float* expAvg, const float* grad, const float* rowOrV,
                                     const float* col, const double* rowMean, const double* sumSquares,
                                     std::size_t cols, std::size_t n, float lr, float clipThreshold, bool useBeta1,
                                     float beta1, float decay)
{
    const float rms = static_cast<float>(sqrt(*sumSquares / static_cast<double>(n)));
    const float clipDivisor = fmaxf(rms / clipThreshold, 1.0f);
    HR_GRID_STRIDE(i, n)
    {
        float u = adafactorU(grad, rowOrV, col, rowMean, cols, i) / clipDivisor * lr;
        if (useBeta1) {
            u = beta1 * expAvg[i] + (1.0f - beta1) * u;
            expAvg[i] = u;
        }
        const float p = param[i];
        param[i] = p - decay * p - u;
    }
}

// --- 8-bit AdamW ----------------------------------------------------------------

// Index of the nearest code, ties to the lower one: the first midpoint >= x
// (torch.bucketize as bitsandbytes' quantize_blockwise; runtime/cpu/blockquant.cpp nearestCode).
__device__ __forceinline__ std::uint8_t nearestCode(const float* map, float x)
{
    int lo = 0, hi = 255;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        const float boundary = (map[mid] + map[mid + 1]) / 2.0f;
        if (boundary < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return static_cast<std::uint8_t>(lo);
}

__global__ void adamw8bitInitKernel(AdamW8bitState state, std::size_t n, const float* tables)
{
    const std::uint8_t zeroSigned = nearestCode(tables + kSignedMapOffset, 0.0f);
    const std::uint8_t zeroUnsigned = nearestCode(tables + kUnsignedMapOffset, 0.0f);
    HR_GRID_STRIDE(i, n)
    {
        state.expAvgCodes[i] = zeroSigned;
        state.expAvgSqCodes[i] = zeroUnsigned;
        if (i % kStateBlockSize == 0) {
            state.expAvgAbsmax[i / kStateBlockSize] = 0.0f;
            state.expAvgSqAbsmax[i / kStateBlockSize] = 0.0f;
        }
    }
}

// One block of kStateBlockSize threads per state block.
__global__ void __launch_bounds__(kStateBlockSize)
    adamw8bitKernel(float* param, const float* grad, AdamW8bitState state, std::size_t n, const float* tables,
                    AdamScalars s)
{
    __shared__ float maps[512];
    __shared__ float scratch[32];
    for (unsigned j = threadIdx.x; j < 512; j += blockDim.x)
        maps[j] = tables[j];
    __syncthreads();
    const float* signedMap = maps + kSignedMapOffset;
    const float* unsignedMap = maps + kUnsignedMapOffset;
    const std::size_t block = blockIdx.x, i = block * kStateBlockSize + threadIdx.x;
    const bool inside = i < n;
    float m = 0.0f, v = 0.0f;
    if (inside) {
        const float g = grad[i];
        m = s.beta1 * (signedMap[state.expAvgCodes[i]] * state.expAvgAbsmax[block]) + (1.0f - s.beta1) * g;
        v = s.beta2 * (unsignedMap[state.expAvgSqCodes[i]] * state.expAvgSqAbsmax[block]) + (1.0f - s.beta2) * g * g;
        param[i] = adamUpdate(param[i], m, v, s);
    }
    const float mAbsmax = detail::blockMax(inside ? fabsf(m) : 0.0f, scratch);
    const float vAbsmax = detail::blockMax(inside ? fabsf(v) : 0.0f, scratch);
    if (inside) {
        const float mInverse = 1.0f / fmaxf(mAbsmax, 1e-38f), vInverse = 1.0f / fmaxf(vAbsmax, 1e-38f);
        state.expAvgCodes[i] = nearestCode(signedMap, fminf(fmaxf(m * mInverse, -1.0f), 1.0f));
        state.expAvgSqCodes[i] = nearestCode(unsignedMap, fminf(fmaxf(v * vInverse, -1.0f), 1.0f));
    }
    if (threadIdx.x == 0) {
        state.expAvgAbsmax[block] = mAbsmax;
        state.expAvgSqAbsmax[block] = vAbsmax;
    }
}

Status checkStep(std::int64_t step, std::size_t n)
{
    if (step < 1)
        return detail::invalid("optimizer: steps count from 1");
    if (n == 0)
        return detail::invalid("optimizer: empty parameter");
    return {};
}

} // namespace

Status sgdStep(Context& context, float* param, const float* grad, float* momentumBuffer, std::size_t n,
               std::int64_t step, const SgdConfig& config)
{
    HR_TRY(checkStep(step, n));
    if (config.momentum != 0.0f && !momentumBuffer)
        return detail::invalid("SGD: momentum needs a buffer");
    sgdKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(param, grad,
                                                                 config.momentum != 0.0f ? momentumBuffer : nullptr,
                                                                 n, step <= 1, config.lr, config.momentum,
                                                                 config.weightDecay);
    HR_LAUNCHED();
    return {};
}

Status adamwStep(Context& context, float* param, const float* grad, float* expAvg, float* expAvgSq, std::size_t n,
                 std::int64_t step, const AdamWConfig& config)
{
    HR_TRY(checkStep(step, n));
    adamwKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(param, grad, expAvg, expAvgSq, n,
                                                                   adamScalars(step, config));
    HR_LAUNCHED();
    return {};
}

Status lionStep(Context& context, float* param, const float* grad, float* expAvg, std::size_t n,
                const LionConfig& config)
{
    HR_TRY(checkStep(1, n));
    const float decay = static_cast<float>(1.0 - double(config.lr) * double(config.weightDecay));
    lionKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(param, grad, expAvg, n, config.lr, config.beta1,
                                                                  config.beta2, decay);
    HR_LAUNCHED();
    return {};
}

namespace {

Status adafactorFinish(Context& context, float* param, float* expAvg, const float* grad, const float* rowOrV,
                       const float* col, std::size_t cols, std::size_t n, const AdafactorConfig& config)
{
    if (config.useBeta1 && !expAvg)
        return detail::invalid("Adafactor: beta1 needs a first-moment array");
    double* rowMean = context.impl().scratch;
    double* sumSquares = rowMean + 1;
    HR_CUDA(cudaMemsetAsync(sumSquares, 0, sizeof(double), streamOf(context)));
    adafactorSquaresKernel<<<detail::gridFor(n, 256) < 1024 ? detail::gridFor(n, 256) : 1024, 256, 0,
                             streamOf(context)>>>(sumSquares, grad, rowOrV, col, rowMean, cols, n);
    HR_LAUNCHED();
    const float decay = config.weightDecay != 0.0f ? config.lr * config.weightDecay : 0.0f;
    adafactorApplyKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(
        param, expAvg, grad, rowOrV, col, rowMean, sumSquares, cols, n, config.lr, config.clipThreshold,
        config.useBeta1, config.beta1, decay);
    HR_LAUNCHED();
    return {};
}

float decayedBeta2(std::int64_t step, float decayRate)
{
    return static_cast<float>(1.0 - std::pow(double(step), double(decayRate))); // §7: β̂2_t = 1 − t^−0.8
}

} // namespace

Status adafactorStepFactored(Context& context, float* param, const float* grad, std::size_t rows, std::size_t cols,
                             float* expAvgSqRow, float* expAvgSqCol, float* expAvg, std::int64_t step,
                             const AdafactorConfig& config)
{
    HR_TRY(checkStep(step, rows * cols));
    const float beta2t = decayedBeta2(step, config.decayRate);
    adafactorRowKernel<<<static_cast<unsigned>(rows), 256, 0, streamOf(context)>>>(expAvgSqRow, grad, cols, beta2t,
                                                                                   config.eps1);
    HR_LAUNCHED();
    adafactorColKernel<<<static_cast<unsigned>((cols + 255) / 256), 256, 0, streamOf(context)>>>(
        expAvgSqCol, grad, rows, cols, beta2t, config.eps1);
    HR_LAUNCHED();
    meanKernel<<<1, 1024, 0, streamOf(context)>>>(context.impl().scratch, expAvgSqRow, rows);
    HR_LAUNCHED();
    return adafactorFinish(context, param, expAvg, grad, expAvgSqRow, expAvgSqCol, cols, rows * cols, config);
}

Status adafactorStepUnfactored(Context& context, float* param, const float* grad, float* expAvgSq, float* expAvg,
                               std::size_t n, std::int64_t step, const AdafactorConfig& config)
{
    HR_TRY(checkStep(step, n));
    adafactorVKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(expAvgSq, grad, n,
                                                                        decayedBeta2(step, config.decayRate),
                                                                        config.eps1);
    HR_LAUNCHED();
    return adafactorFinish(context, param, expAvg, grad, expAvgSq, nullptr, 1, n, config);
}

Status adamw8bitInit(Context& context, const AdamW8bitState& state, std::size_t n)
{
    HR_TRY(checkStep(1, n));
    adamw8bitInitKernel<<<detail::gridFor(n), 256, 0, streamOf(context)>>>(state, n, context.impl().tables);
    HR_LAUNCHED();
    return {};
}

Status adamw8bitStep(Context& context, float* param, const float* grad, const AdamW8bitState& state, std::size_t n,
                     std::int64_t step, const AdamWConfig& config)
{
    HR_TRY(checkStep(step, n));
    const std::size_t blocks = (n + kStateBlockSize - 1) / kStateBlockSize;
    if (blocks > 0x7FFFFFFFu)
        return detail::invalid("8-bit AdamW: too many blocks");
    adamw8bitKernel<<<static_cast<unsigned>(blocks), kStateBlockSize, 0, streamOf(context)>>>(
        param, grad, state, n, context.impl().tables, adamScalars(step, config));
    HR_LAUNCHED();
    return {};
}

} // namespace headroom::cuda
