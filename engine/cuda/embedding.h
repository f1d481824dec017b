// SPDX-License-Identifier: GPL-3.0-or-later
// Token (+ learned position) embedding, as runtime/cpu/embedding.h.
// tokens int32 on the device; out, wte, wpe, dout in dtype; dwte, dwpe fp32.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

// out (B,T,C) = wte[tokens] (+ wpe[t]); wpe may be nullptr. A device kernel
// cannot throw: a token outside [0, V) gives a zero row and sets *badToken
// (a device int the caller zeroes and reads back) when badToken is not null.
Status embeddingForward(Context& context, DType dtype, void* out, const std::int32_t* tokens, const void* wte,
                        const void* wpe, std::size_t B, std::size_t T, std::size_t C, std::size_t V,
                        int* badToken = nullptr);

// dwte[tokens[b,t],:] += dout[b,t,:], dwpe[t,:] += sum_b dout[b,t,:]; either may be nullptr.
// The scatter uses fp32 atomics, so repeated tokens add up in no fixed order.
Status embeddingBackward(Context& context, DType dtype, float* dwte, float* dwpe, const void* dout,
                         const std::int32_t* tokens, std::size_t B, std::size_t T, std::size_t C, std::size_t V);

// The same with the tables (wte, wpe) in `tableType`: fp32 master tables
// under 16-bit activations in mixed precision.
Status embeddingForward(Context& context, DType dtype, DType tableType, void* out, const std::int32_t* tokens,
                        const void* wte, const void* wpe, std::size_t B, std::size_t T, std::size_t C, std::size_t V,
                        int* badToken = nullptr);

} // namespace headroom::cuda
