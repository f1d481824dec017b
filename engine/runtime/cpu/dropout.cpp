// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/cpu/dropout.h"

#include "runtime/cpu/parallel.h"

namespace headroom::cpu {

void dropoutForward(float* x, std::uint8_t* mask, std::size_t n, float p, std::uint64_t stream)
{
    const std::uint32_t threshold = dropoutThreshold(p);
    const float scale = dropoutScale(p);
    parallelForRanges(n, 8, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const bool keep = dropoutKeep(stream, i, threshold);
            mask[i] = keep ? 1 : 0;
            if (x)
                x[i] = keep ? x[i] * scale : 0.0f;
        }
    });
}

void dropoutBackward(float* dst, const float* src, const std::uint8_t* mask, std::size_t n, float p)
{
    const float scale = dropoutScale(p);
    parallelForRanges(n, 2, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            dst[i] = mask[i] ? src[i] * scale : 0.0f;
    });
}

} // namespace headroom::cpu
