// SPDX-License-Identifier: GPL-3.0-or-later
// 4-bit NormalFloat (NF4) blockwise quantization of QLoRA (Dettmers et al.
// 2023, "QLoRA: Efficient Finetuning of Quantized LLMs", §3 "4-bit NormalFloat
// Quantization", "Double Quantization"; Appendix E lists the 16 values) as
// bitsandbytes implements it (bitsandbytes/functional.py get_4bit_type("nf4"),
// quantize_4bit; backends/default/ops.py quantize_4bit / dequantize_4bit).
//
// Each block of 64 weights stores an fp32 absmax and 64 4-bit indices into
// kNf4Codes, two per byte: element 2i in the high nibble, 2i+1 in the low one.
// Double quantization stores the absmax values themselves as 8-bit codes of
// the signed dynamic map (blockquant.h) in blocks of 256, after subtracting
// their mean: absmax = map[code]·absmax2 + offset (functional.py quantize_4bit
// with compress_statistics=True).
#pragma once

#include "runtime/cpu/blockquant.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace headroom::cpu {

// bitsandbytes functional.py get_4bit_type("nf4") (generated there by
// create_normal_map(offset=0.9677083, use_extra_value=True)); QLoRA Appendix E.
// Checked against bitsandbytes-foundation/bitsandbytes at commit 95f9af30
// (bitsandbytes/functional.py); tests/runtime/test_runtime_quant.cpp also rebuilds
// them from normal quantiles.
inline constexpr std::array<float, 16> kNf4Codes = {
    -1.0f,
    -0.6961928009986877f,
    -0.5250730514526367f,
    -0.39491748809814453f,
    -0.28444138169288635f,
    -0.18477343022823334f,
    -0.09105003625154495f,
    0.0f,
    0.07958029955625534f,
    0.16093020141124725f,
    0.24611230194568634f,
    0.33791524171829224f,
    0.44070982933044434f,
    0.5626170039176941f,
    0.7229568362236023f,
    1.0f,
};

inline constexpr std::size_t kNf4BlockSize = 64;          // bnb's default blocksize for 4-bit
inline constexpr std::size_t kNf4AbsmaxBlockSize = 256;   // double quantization's block

// Index of the nearest NF4 code to a scaled value in [−1, 1] (ties to the lower).
std::uint8_t nf4Index(float scaled);

// packed (ceil(n/2)), absmax (ceil(n/blockSize)), inp (n). An odd last element
// is paired with a zero (index 7) in the low nibble, as bnb pads.
void nf4Quantize(std::uint8_t* packed, float* absmax, const float* inp, std::size_t n,
                 std::size_t blockSize = kNf4BlockSize);

// out (n) = kNf4Codes[index] · absmax of the element's block.
void nf4Dequantize(float* out, const std::uint8_t* packed, const float* absmax, std::size_t n,
                   std::size_t blockSize = kNf4BlockSize);

// Double quantization of the absmax values (blocks entries): offset = their
// mean, codes (blocks) and absmax2 (ceil(blocks/blockSize)) the signed-dynamic
// blockwise quantization of absmax − offset.
void nf4DoubleQuantizeAbsmax(std::uint8_t* codes, float* absmax2, float& offset, const float* absmax,
                             std::size_t blocks, std::size_t blockSize = kNf4AbsmaxBlockSize);

// absmax (blocks) = dynamicMapSigned()[codes] · absmax2 + offset.
void nf4DoubleDequantizeAbsmax(float* absmax, const std::uint8_t* codes, const float* absmax2, float offset,
                               std::size_t blocks, std::size_t blockSize = kNf4AbsmaxBlockSize);

} // namespace headroom::cpu
