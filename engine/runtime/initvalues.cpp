// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/initvalues.h"

#include "runtime/cpu/parallel.h"

#include <cmath>
#include <numbers>

namespace headroom::rt {

namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

std::uint64_t mix(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

std::uint64_t streamKey(std::uint64_t seed, std::uint64_t stream)
{
    return mix(seed + kGolden) ^ mix(stream * kGolden + 0x632be59bd9b4e019ULL);
}

// (0, 1]: never 0, so the logarithm stays finite.
float unitOpen(std::uint32_t bits)
{
    return (static_cast<float>(bits >> 8) + 1.0f) * (1.0f / 16777216.0f);
}

// [0, 1).
float unitHalfOpen(std::uint32_t bits)
{
    return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

// About 20 flops an element: enough to split a 1 M-value matrix across cores.
constexpr std::size_t kWorkPerValue = 20;

} // namespace

std::uint64_t randomBits(std::uint64_t seed, std::uint64_t stream, std::uint64_t i)
{
    return mix(streamKey(seed, stream) + (i + 1) * kGolden);
}

void fillNormal(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float stddev)
{
    const std::size_t pairs = (out.size() + 1) / 2;
    cpu::parallelForRanges(pairs, 2 * kWorkPerValue, [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p) {
            const std::uint64_t bits = randomBits(seed, stream, p);
            const float radius = stddev * std::sqrt(-2.0f * std::log(unitOpen(static_cast<std::uint32_t>(bits))));
            const float angle = 2.0f * std::numbers::pi_v<float> * unitHalfOpen(static_cast<std::uint32_t>(bits >> 32));
            out[2 * p] = radius * std::cos(angle);
            if (2 * p + 1 < out.size())
                out[2 * p + 1] = radius * std::sin(angle);
        }
    });
}

void fillUniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float bound)
{
    cpu::parallelForRanges(out.size(), kWorkPerValue, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const float u = unitHalfOpen(static_cast<std::uint32_t>(randomBits(seed, stream, i)));
            out[i] = bound * (2.0f * u - 1.0f);
        }
    });
}

} // namespace headroom::rt
