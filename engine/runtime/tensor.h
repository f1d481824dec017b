// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A tensor of the training step: a tracked buffer with a storage dtype.
// The CPU kernels compute in fp32 (accumulating in double); a 16-bit tensor
// is read into an fp32 staging copy and rounded back to its storage dtype
// when written (docs/runtime.md, "Precision"). Staging copies are kernel
// scratch, as registers and shared memory are on a GPU: they are not part of
// the tensor table, and the bytes the allocator counts are the storage bytes.
#include "runtime/trackingallocator.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace headroom::rt {

enum class DType : std::uint8_t { F32, BF16, F16, I32, U8 };

inline Bytes dtypeBytes(DType d)
{
    return d == DType::F32 || d == DType::I32 ? 4 : d == DType::U8 ? 1 : 2;
}

// fp32 -> bf16 with round-to-nearest-even (as torch's c10::BFloat16 rounds);
// NaN stays a quiet NaN.
inline std::uint16_t floatToBf16(float value)
{
    const auto bits = std::bit_cast<std::uint32_t>(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u)
        return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    const std::uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);
    return static_cast<std::uint16_t>((bits + roundingBias) >> 16);
}
inline float bf16ToFloat(std::uint16_t value) { return std::bit_cast<float>(static_cast<std::uint32_t>(value) << 16); }
// IEEE binary16 with round-to-nearest-even; overflow gives infinity (as a
// cast to torch.float16 does).
std::uint16_t floatToFp16(float value);
float fp16ToFloat(std::uint16_t value);

struct Tensor {
    Buffer buffer;
    DType dtype = DType::F32;
    std::size_t numel = 0;

    bool empty() const { return buffer.empty(); }
    float* f32() const { return reinterpret_cast<float*>(buffer.data()); }
    std::int32_t* i32() const { return reinterpret_cast<std::int32_t*>(buffer.data()); }
    std::uint16_t* u16() const { return reinterpret_cast<std::uint16_t*>(buffer.data()); }
    std::uint8_t* u8() const { return reinterpret_cast<std::uint8_t*>(buffer.data()); }
    void release() { buffer.release(); numel = 0; }
};

// Allocates numel elements of dtype through the allocator, under a row name.
Tensor makeTensor(TrackingAllocator& allocator, const std::string& name, Category category, DType dtype,
                  std::size_t numel);

// Element i as fp32 / stored from fp32 (rounded to the storage dtype).
float loadElement(const Tensor& t, std::size_t i);
void storeElement(const Tensor& t, std::size_t i, float value);
// Rounds a value as storing it in `dtype` would.
float roundTo(DType dtype, float value);

// An fp32 view of a tensor for a kernel. fp32 tensors are used in place; a
// 16-bit tensor is staged: read at construction (unless write-only), rounded
// back at destruction (unless read-only).
class F32View {
public:
    enum Mode { Read, Write, ReadWrite };
    F32View(const Tensor& t, Mode mode);
    // Elements [offset, offset + count) of t only.
    F32View(const Tensor& t, Mode mode, std::size_t offset, std::size_t count);
    ~F32View();
    F32View(const F32View&) = delete;
    F32View& operator=(const F32View&) = delete;
    float* data() { return m_data; }

private:
    const Tensor& m_tensor;
    Mode m_mode;
    std::size_t m_offset = 0;
    std::size_t m_count = 0;
    std::vector<float> m_staging;
    float* m_data = nullptr;
};

} // namespace headroom::rt
