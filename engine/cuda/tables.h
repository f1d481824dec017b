// SPDX-License-Identifier: GPL-3.0-or-later
// Internal: the quantization tables the CPU reference defines
// (runtime/cpu/blockquant.h dynamic maps, runtime/cpu/nf4.h codes), copied
// from there by a C++20 translation unit so the GPU uses the very same values.
#pragma once

#include <cstddef>

namespace headroom::cuda {

inline constexpr std::size_t kSignedMapOffset = 0;   // 256 entries, bnb "dynamic"
inline constexpr std::size_t kUnsignedMapOffset = 256; // 256 entries, bnb "udynamic"
inline constexpr std::size_t kNf4Offset = 512;       // 16 entries
inline constexpr std::size_t kTableFloats = 528;

// Writes kTableFloats values.
void fillQuantTables(float* out);

} // namespace headroom::cuda
