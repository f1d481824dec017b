// SPDX-License-Identifier: GPL-3.0-or-later
// Rotary position embedding in Hugging Face's rotate_half layout with partial
// rotary, as runtime/cpu/rope.h (formulas and sources there).
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>

namespace headroom::cuda {

// cos, sin (T, rotaryDim/2) fp32, angles computed in double as the CPU table.
Status ropeTable(Context& context, float* cos, float* sin, std::size_t T, std::size_t rotaryDim, double theta);

// out, inp (B,T,NH,HD); out may be inp.
Status ropeForward(Context& context, DType dtype, void* out, const void* inp, const float* cos, const float* sin,
                   std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim);
// dinp += Rᵀ·dout.
Status ropeBackward(Context& context, DType dtype, void* dinp, const void* dout, const float* cos, const float* sin,
                    std::size_t B, std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim);

} // namespace headroom::cuda
