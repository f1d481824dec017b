// SPDX-License-Identifier: GPL-3.0-or-later
// Elementwise kernels on n elements of a dtype: casts and the activations of
// runtime/cpu/activations.h (same formulas, fp32 arithmetic per element,
// rounded once to the storage type). Backward functions ADD into dinp.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>

namespace headroom::cuda {

// out (n, outType) = inp (n, inType) rounded to nearest even (autocast copies,
// fp32 master weights to bf16/fp16 and gradients back).
Status castTensor(Context& context, void* out, DType outType, const void* inp, DType inType, std::size_t n);

enum class Activation { silu, gelu, geluTanh };

// out = act(inp); out may be inp.
Status activationForward(Context& context, Activation act, DType dtype, void* out, const void* inp, std::size_t n);
// dinp += dout · act'(inp).
Status activationBackward(Context& context, Activation act, DType dtype, void* dinp, const void* dout,
                          const void* inp, std::size_t n);

// out = SiLU(gate)·up; dgate += dout·up·SiLU'(gate), dup += dout·SiLU(gate) (either may be nullptr).
Status swigluForward(Context& context, DType dtype, void* out, const void* gate, const void* up, std::size_t n);
Status swigluBackward(Context& context, DType dtype, void* dgate, void* dup, const void* dout, const void* gate,
                      const void* up, std::size_t n);

// out += inp (residual connections, gradient accumulation).
Status addInPlace(Context& context, DType dtype, void* out, const void* inp, std::size_t n);

} // namespace headroom::cuda
