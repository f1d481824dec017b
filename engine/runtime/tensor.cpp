// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/tensor.h"

#include "runtime/cpu/parallel.h"

#include <cmath>

namespace headroom::rt {

std::uint16_t floatToFp16(float value)
{
    // IEEE 754 binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
    const auto bits = std::bit_cast<std::uint32_t>(value);
    const std::uint32_t sign = (bits >> 16) & 0x8000u;
    const std::uint32_t absBits = bits & 0x7fffffffu;
    if (absBits > 0x7f800000u)
        return static_cast<std::uint16_t>(sign | 0x7e00u); // NaN
    if (absBits >= 0x477ff000u)                             // rounds to >= 65520: infinity
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (absBits < 0x38800000u) {
        // Subnormal (or zero) in fp16: value / 2^-24 rounded to nearest even.
        const float scaled = std::bit_cast<float>(absBits) * 16777216.0f; // 2^24, exact
        const auto q = static_cast<std::uint32_t>(std::nearbyint(scaled));
        return static_cast<std::uint16_t>(sign | q);
    }
    // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
    const std::uint32_t rebased = absBits - (112u << 23);
    const std::uint32_t rounded = rebased + 0x0fffu + ((rebased >> 13) & 1u);
    return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

float fp16ToFloat(std::uint16_t value)
{
    const std::uint32_t sign = (value & 0x8000u) << 16;
    const std::uint32_t exponent = (value >> 10) & 0x1fu;
    const std::uint32_t mantissa = value & 0x3ffu;
    if (exponent == 0) {
        const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f; // 2^-24
        return sign ? -magnitude : magnitude;
    }
    if (exponent == 31)
        return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

Tensor makeTensor(TrackingAllocator& allocator, const std::string& name, Category category, DType dtype,
                  std::size_t numel)
{
    Tensor t;
    t.buffer = allocator.allocate(name, category, static_cast<Bytes>(numel) * dtypeBytes(dtype));
    t.dtype = dtype;
    t.numel = numel;
    return t;
}

float loadElement(const Tensor& t, std::size_t i)
{
    switch (t.dtype) {
    case DType::F32: return t.f32()[i];
    case DType::BF16: return bf16ToFloat(t.u16()[i]);
    case DType::F16: return fp16ToFloat(t.u16()[i]);
    case DType::I32: return static_cast<float>(t.i32()[i]);
    case DType::U8: return static_cast<float>(t.u8()[i]);
    }
    return 0.0f;
}

void storeElement(const Tensor& t, std::size_t i, float value)
{
    switch (t.dtype) {
    case DType::F32: t.f32()[i] = value; return;
    case DType::BF16: t.u16()[i] = floatToBf16(value); return;
    case DType::F16: t.u16()[i] = floatToFp16(value); return;
    case DType::I32: t.i32()[i] = static_cast<std::int32_t>(value); return;
    case DType::U8: t.u8()[i] = static_cast<std::uint8_t>(value); return;
    }
}

float roundTo(DType dtype, float value)
{
    switch (dtype) {
    case DType::BF16: return bf16ToFloat(floatToBf16(value));
    case DType::F16: return fp16ToFloat(floatToFp16(value));
    default: return value;
    }
}

F32View::F32View(const Tensor& t, Mode mode) : F32View(t, mode, 0, t.numel) {}

F32View::F32View(const Tensor& t, Mode mode, std::size_t offset, std::size_t count)
    : m_tensor(t), m_mode(mode), m_offset(offset), m_count(count)
{
    if (t.empty())
        return; // a gradient that is not kept (frozen parameter): kernels skip a null output
    if (offset + count > t.numel)
        throw std::logic_error("F32View: a range past the tensor's end");
    if (t.dtype == DType::F32) {
        m_data = t.f32() + offset;
        return;
    }
    if (t.dtype == DType::I32 || t.dtype == DType::U8)
        throw std::logic_error("F32View of an integer tensor");
    m_staging.resize(count);
    m_data = m_staging.data();
    if (mode != Write)
        cpu::parallelForRanges(count, 4, [&](std::size_t b, std::size_t e) {
            for (std::size_t i = b; i < e; ++i)
                m_staging[i] = loadElement(t, offset + i);
        });
}

F32View::~F32View()
{
    if (m_tensor.empty() || m_tensor.dtype == DType::F32 || m_mode == Read)
        return;
    cpu::parallelForRanges(m_count, 4, [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i)
            storeElement(m_tensor, m_offset + i, m_staging[i]);
    });
}

} // namespace headroom::rt
