// SPDX-License-Identifier: GPL-3.0-or-later
// Dropout on n elements of a dtype (runtime/cpu/dropout.h: formula, sources,
// and the draws of runtime/cpu/dropoutrng.h, so the mask is the CPU's).
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

// mask (n bytes) = the stream's draws (1 kept, 0 dropped); when x is not
// null, x = x·mask/(1 − p) in place.
Status dropoutForward(Context& context, DType dtype, void* x, std::uint8_t* mask, std::size_t n, float p,
                      std::uint64_t stream);
// dst = src·mask/(1 − p) (written, not added); dst may be src.
Status dropoutBackward(Context& context, DType dtype, void* dst, const void* src, const std::uint8_t* mask,
                       std::size_t n, float p);

} // namespace headroom::cuda
