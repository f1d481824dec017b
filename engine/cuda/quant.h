// SPDX-License-Identifier: GPL-3.0-or-later
// Dequantization of QLoRA's NF4 weights and of 8-bit blockwise tensors, as
// runtime/cpu/nf4.h and runtime/cpu/blockquant.h (layouts and sources there).
// Quantization itself happens once at load time on the CPU.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

inline constexpr std::size_t kNf4BlockSize = 64;
inline constexpr std::size_t kNf4AbsmaxBlockSize = 256;

// out (n, dtype) = NF4 code · absmax of the block; packed (ceil(n/2)), element
// 2i in the high nibble; absmax (ceil(n/blockSize)) fp32.
Status nf4Dequantize(Context& context, DType dtype, void* out, const std::uint8_t* packed, const float* absmax,
                     std::size_t n, std::size_t blockSize = kNf4BlockSize);

// Double quantization: absmax[b] = signedDynamic[absmaxCodes[b]]·absmax2[b/256] + offset.
struct Nf4DoubleQuant {
    const std::uint8_t* absmaxCodes = nullptr; // (ceil(n/blockSize))
    const float* absmax2 = nullptr;            // (ceil(blocks/256))
    float offset = 0.0f;
    std::size_t absmaxBlockSize = kNf4AbsmaxBlockSize;
};
Status nf4DequantizeDouble(Context& context, DType dtype, void* out, const std::uint8_t* packed,
                           const Nf4DoubleQuant& quant, std::size_t n, std::size_t blockSize = kNf4BlockSize);

// out (n, fp32) = map[codes]·absmax[i/blockSize], map the signed (or unsigned) dynamic map.
Status dequantizeBlockwise(Context& context, float* out, const std::uint8_t* codes, const float* absmax,
                           std::size_t n, bool signedMap = true, std::size_t blockSize = 256);

} // namespace headroom::cuda
