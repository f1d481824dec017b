// SPDX-License-Identifier: GPL-3.0-or-later
// IEEE 754 binary16 and bfloat16 (the upper half of binary32) conversions,
// round to nearest even, as the CUDA intrinsics __float2half_rn and
// __float2bfloat16_rn (CUDA Math API, "Half Precision Conversion").
#include "cuda/dtype.h"

#include <bit>
#include <cstring>

namespace headroom::cuda {

const char* dtypeName(DType dtype)
{
    switch (dtype) {
    case DType::f32: return "fp32";
    case DType::bf16: return "bf16";
    case DType::f16: return "fp16";
    }
    return "?";
}

std::uint16_t floatToBf16Bits(float value)
{
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7FFFFFFFu) > 0x7F800000u)
        return static_cast<std::uint16_t>((bits >> 16) | 0x0040u); // quiet NaN, sign kept
    // Adding 0x7FFF plus the lowest kept bit rounds half to even.
    const std::uint32_t rounded = bits + 0x7FFFu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>(rounded >> 16);
}

float bf16BitsToFloat(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t floatToHalfBits(float value)
{
    std::uint32_t x = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7FFFFFFFu;
    if (x >= 0x7F800000u) // inf, NaN
        return static_cast<std::uint16_t>(sign | (x > 0x7F800000u ? 0x7E00u : 0x7C00u));
    if (x >= 0x477FF000u) // >= 65520 = 65504 + half an ulp: rounds (to even) to inf
        return static_cast<std::uint16_t>(sign | 0x7C00u);
    const std::uint32_t exponent = x >> 23;
    if (x < 0x38800000u) { // below 2^-14: a subnormal half, units of 2^-24
        if (x <= 0x33000000u) // <= 2^-25: rounds to zero (the tie goes to the even 0)
            return static_cast<std::uint16_t>(sign);
        const std::uint32_t mantissa = (x & 0x7FFFFFu) | 0x800000u;
        const std::uint32_t shift = 126u - exponent; // value = mantissa·2^(e−150), half units 2^−24
        std::uint32_t h = mantissa >> shift;
        const std::uint32_t rest = mantissa & ((1u << shift) - 1u);
        const std::uint32_t halfway = 1u << (shift - 1u);
        if (rest > halfway || (rest == halfway && (h & 1u)))
            ++h;
        return static_cast<std::uint16_t>(sign | h);
    }
    std::uint32_t h = ((exponent - 112u) << 10) | ((x & 0x7FFFFFu) >> 13);
    const std::uint32_t rest = x & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
        ++h; // a carry into the exponent is the correct next binade
    return static_cast<std::uint16_t>(sign | h);
}

float halfBitsToFloat(std::uint16_t bits)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
    const std::uint32_t mantissa = bits & 0x3FFu;
    if (exponent == 0x1Fu)
        return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
    if (exponent == 0) {
        // subnormal or zero: mantissa·2^-24, exact in float
        const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
        return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

float roundToDType(float value, DType dtype)
{
    switch (dtype) {
    case DType::f32: return value;
    case DType::bf16: return bf16BitsToFloat(floatToBf16Bits(value));
    case DType::f16: return halfBitsToFloat(floatToHalfBits(value));
    }
    return value;
}

void packHost(void* out, const float* inp, std::size_t n, DType dtype)
{
    if (dtype == DType::f32) {
        std::memcpy(out, inp, n * sizeof(float));
        return;
    }
    auto* bits = static_cast<std::uint16_t*>(out);
    for (std::size_t i = 0; i < n; ++i)
        bits[i] = dtype == DType::bf16 ? floatToBf16Bits(inp[i]) : floatToHalfBits(inp[i]);
}

void unpackHost(float* out, const void* inp, std::size_t n, DType dtype)
{
    if (dtype == DType::f32) {
        std::memcpy(out, inp, n * sizeof(float));
        return;
    }
    const auto* bits = static_cast<const std::uint16_t*>(inp);
    for (std::size_t i = 0; i < n; ++i)
        out[i] = dtype == DType::bf16 ? bf16BitsToFloat(bits[i]) : halfBitsToFloat(bits[i]);
}

} // namespace headroom::cuda
