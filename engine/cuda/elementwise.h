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

// out = tanh(inp), out may be inp; dinp += dout·(1 − out²) from the forward's
// output (BERT's pooler; runtime/cpu/activations.h).
Status tanhForward(Context& context, DType dtype, void* out, const void* inp, std::size_t n);
Status tanhBackward(Context& context, DType dtype, void* dinp, const void* dout, const void* out, std::size_t n);

// runtime/cpu/rowbroadcast.h: out (rows, C, dtype) += row (C, rowType) on
// every row; drow (C, rowType) += the column sums of dout (rows, C, dtype),
// one thread per column summing down it in fp32.
Status addRowToRows(Context& context, DType dtype, DType rowType, void* out, const void* row, std::size_t rows,
                    std::size_t C);
Status sumRowsInto(Context& context, DType dtype, DType rowType, void* drow, const void* dout, std::size_t rows,
                   std::size_t C);

// out += inp (residual connections, gradient accumulation).
Status addInPlace(Context& context, DType dtype, void* out, const void* inp, std::size_t n);

} // namespace headroom::cuda
