// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizers of the CPU engine on fp32 device arrays, with the CPU
// reference's semantics (runtime/cpu/sgd.h, adamw.h, lion.h, adafactor.h,
// adamw8bit.h: formulas and sources there). The configs carry the same fields
// and defaults as the CPU ones (this header stays C++17 for nvcc, so it does
// not include them). Steps are 1-based and count the update being made.
#pragma once

#include "cuda/context.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

struct SgdConfig {
    float lr = 1e-3f;
    float momentum = 0.0f;
    float weightDecay = 0.0f;
};
// momentumBuffer (n) may be nullptr when momentum is 0.
Status sgdStep(Context& context, float* param, const float* grad, float* momentumBuffer, std::size_t n,
               std::int64_t step, const SgdConfig& config);

struct AdamWConfig {
    float lr = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weightDecay = 1e-2f;
};
Status adamwStep(Context& context, float* param, const float* grad, float* expAvg, float* expAvgSq, std::size_t n,
                 std::int64_t step, const AdamWConfig& config);

struct LionConfig {
    float lr = 1e-4f;
    float beta1 = 0.9f;
    float beta2 = 0.99f;
    float weightDecay = 0.0f;
};
Status lionStep(Context& context, float* param, const float* grad, float* expAvg, std::size_t n,
                const LionConfig& config);

struct AdafactorConfig {
    float lr = 1e-3f;
    float eps1 = 1e-30f;
    float clipThreshold = 1.0f;
    float decayRate = -0.8f;
    bool useBeta1 = false; // HF default beta1=None
    float beta1 = 0.0f;
    float weightDecay = 0.0f;
};
// param, grad (rows,cols); expAvgSqRow (rows), expAvgSqCol (cols); expAvg (rows·cols) only with useBeta1.
Status adafactorStepFactored(Context& context, float* param, const float* grad, std::size_t rows, std::size_t cols,
                             float* expAvgSqRow, float* expAvgSqCol, float* expAvg, std::int64_t step,
                             const AdafactorConfig& config);
Status adafactorStepUnfactored(Context& context, float* param, const float* grad, float* expAvgSq, float* expAvg,
                               std::size_t n, std::int64_t step, const AdafactorConfig& config);

// 8-bit blockwise AdamW (bitsandbytes AdamW8bit): codes (n) and absmax
// (ceil(n/256)) per state; m with the signed dynamic map, v the unsigned one.
// One thread block per state block; the update is fp32 (bnb's kernel too).
struct AdamW8bitState {
    std::uint8_t* expAvgCodes = nullptr;
    float* expAvgAbsmax = nullptr;
    std::uint8_t* expAvgSqCodes = nullptr;
    float* expAvgSqAbsmax = nullptr;
};
inline constexpr std::size_t kStateBlockSize = 256;
// Zero states: the code of 0 in each map, absmax 0.
Status adamw8bitInit(Context& context, const AdamW8bitState& state, std::size_t n);
Status adamw8bitStep(Context& context, float* param, const float* grad, const AdamW8bitState& state, std::size_t n,
                     std::int64_t step, const AdamWConfig& config);

} // namespace headroom::cuda
