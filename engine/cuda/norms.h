// SPDX-License-Identifier: GPL-3.0-or-later
// RMSNorm and LayerNorm over the last dimension, as runtime/cpu/rmsnorm.h and
// runtime/cpu/layernorm.h (formulas and sources there). inp, out, weight,
// bias and dinp in dtype; rstd and mean (N) and dweight, dbias (C) in fp32.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>

namespace headroom::cuda {

Status rmsnormForward(Context& context, DType dtype, void* out, float* rstd, const void* inp, const void* weight,
                      std::size_t N, std::size_t C, float eps);
Status rmsnormBackward(Context& context, DType dtype, void* dinp, float* dweight, const void* dout, const void* inp,
                       const void* weight, const float* rstd, std::size_t N, std::size_t C);

// bias may be nullptr (bias-free LayerNorm).
Status layernormForward(Context& context, DType dtype, void* out, float* mean, float* rstd, const void* inp,
                        const void* weight, const void* bias, std::size_t N, std::size_t C, float eps);
Status layernormBackward(Context& context, DType dtype, void* dinp, float* dweight, float* dbias, const void* dout,
                         const void* inp, const void* weight, const float* mean, const float* rstd, std::size_t N,
                         std::size_t C);

// The same with the weight (and bias) in `weightType`, e.g. fp32 master
// weights under bf16 activations (mixed precision).
Status rmsnormForward(Context& context, DType dtype, DType weightType, void* out, float* rstd, const void* inp,
                      const void* weight, std::size_t N, std::size_t C, float eps);
Status rmsnormBackward(Context& context, DType dtype, DType weightType, void* dinp, float* dweight, const void* dout,
                       const void* inp, const void* weight, const float* rstd, std::size_t N, std::size_t C);
Status layernormForward(Context& context, DType dtype, DType weightType, void* out, float* mean, float* rstd,
                        const void* inp, const void* weight, const void* bias, std::size_t N, std::size_t C, float eps);
Status layernormBackward(Context& context, DType dtype, DType weightType, void* dinp, float* dweight, float* dbias,
                         const void* dout, const void* inp, const void* weight, const float* mean, const float* rstd,
                         std::size_t N, std::size_t C);

} // namespace headroom::cuda
