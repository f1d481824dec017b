// SPDX-License-Identifier: GPL-3.0-or-later
// Device helpers the tensor-core attention kernels share
// (flashattentiontc.cu forward, flashattentiontcbackward.cu backward).
#pragma once

#include <cstddef>
#include <cstdint>

namespace headroom::cuda::tc {

// Shared-memory regions start at multiples of 128 bytes, so every WMMA
// pointer lands on the 32 bytes it needs.
constexpr int roundUp128(int bytes) { return (bytes + 127) / 128 * 128; }

// The kernels load 16 bytes at a time: the host checks every tensor for it.
inline bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// Rows [first, first + rows) of one head (row stride heads·HD) into a tile
// with row stride HD + 8, 16 bytes per thread per step; rows past T are zero.
// The caller checked that the tensors are 16-byte aligned (HD % 16 == 0 keeps
// every row start aligned too).
template <typename E, int HD>
__device__ __forceinline__ void loadRows(E* tile, const E* base, int first, int rows, int T_, int heads, int head,
                                         int b)
{
    constexpr int chunks = HD / 8; // 8 16-bit elements per uint4
    constexpr int ld = HD + 8;
    for (int idx = static_cast<int>(threadIdx.x); idx < rows * chunks; idx += static_cast<int>(blockDim.x)) {
        const int j = idx / chunks, c = idx % chunks, row = first + j;
        uint4 value = make_uint4(0u, 0u, 0u, 0u);
        if (row < T_)
            value = *reinterpret_cast<const uint4*>(
                base + ((static_cast<std::size_t>(b) * T_ + row) * heads + head) * HD + c * 8);
        *reinterpret_cast<uint4*>(tile + j * ld + c * 8) = value;
    }
}

} // namespace headroom::cuda::tc
