// SPDX-License-Identifier: GPL-3.0-or-later
// Dropout in training (Srivastava et al. 2014, "Dropout", §2, in the
// "inverted" form torch uses): y = x · m / (1 − p) with m ~ Bernoulli(1 − p),
// and dx = dy · m / (1 − p). The mask is kept for the backward as one byte
// per element, as torch's CUDA fused dropout keeps a bool tensor
// (aten/src/ATen/native/cuda/Dropout.cu fused_dropout_cuda: mask of kBool).
// The draws are dropoutrng.h's, so the CUDA kernels drop the same elements.
#pragma once

#include "runtime/cpu/dropoutrng.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cpu {

// mask[i] = keep(stream, i) as 0 or 1; when x is given, x[i] = x[i] · mask[i] / (1 − p) in place.
void dropoutForward(float* x, std::uint8_t* mask, std::size_t n, float p, std::uint64_t stream);

// dst[i] = src[i] · mask[i] / (1 − p); dst may be src.
void dropoutBackward(float* dst, const float* src, const std::uint8_t* mask, std::size_t n, float p);

} // namespace headroom::cpu
