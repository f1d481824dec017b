// SPDX-License-Identifier: GPL-3.0-or-later
// Storage types of the CUDA kernels. Tensors cross the API as void* device
// pointers plus a DType; the kernels compute in fp32 whatever they store
// (as llm.c's floatX kernels and torch autocast's fp32 reductions do).
// Conventions of every kernel under engine/cuda (mirroring runtime/cpu/matmul.h):
// - row-major device arrays, shapes in comments, rows = B·T;
// - activations and their gradients in the storage dtype; per-row statistics
//   (rstd, mean, logsumexp) and parameter gradients of norms and embeddings
//   in fp32 (master gradients), optimizer states in fp32 (or 8-bit codes);
// - backward kernels ADD into gradient outputs; a null gradient pointer
//   means "not needed".
#pragma once

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

enum class DType { f32, bf16, f16 };

inline constexpr std::size_t dtypeSize(DType dtype) { return dtype == DType::f32 ? 4 : 2; }
const char* dtypeName(DType dtype);

// Host-side conversions with the rounding the device uses (round to nearest
// even, as __float2bfloat16 / __float2half): tests round their random inputs
// through these so the CPU reference sees exactly what the GPU stores.
std::uint16_t floatToBf16Bits(float value);
float bf16BitsToFloat(std::uint16_t bits);
std::uint16_t floatToHalfBits(float value);
float halfBitsToFloat(std::uint16_t bits);

// Rounds value to what dtype can hold (identity for f32).
float roundToDType(float value, DType dtype);

// Packs n floats into dtype storage (n·dtypeSize bytes at out) and back.
void packHost(void* out, const float* inp, std::size_t n, DType dtype);
void unpackHost(float* out, const void* inp, std::size_t n, DType dtype);

// An opaque cudaStream_t (nullptr: the legacy default stream).
using Stream = void*;

} // namespace headroom::cuda
