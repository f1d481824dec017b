// SPDX-License-Identifier: GPL-3.0-or-later
// Initial weight values drawn from a counter-based generator: element i of a
// stream is a pure function of (seed, stream, i), so the fill runs on every
// core and gives the same bits for any thread count.
//
// Why not std::mt19937 + std::normal_distribution: they are sequential, and
// drawing Llama 3.1 8B's 8 billion values on one thread took longer than the
// 90 s the H200 run gave `validate --backend cuda` (docs/validation/
// gpu-h200-2026-11-26b.md).
#pragma once

#include <cstdint>
#include <span>

namespace headroom::rt {

// Normal(0, stddev) by Box-Muller on pairs of 32-bit uniforms
// (Box & Muller 1958, Ann. Math. Statist. 29(2): z = sqrt(-2 ln u1) cos(2 pi u2),
// and sin for the pair's second value).
void fillNormal(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float stddev);

// Uniform(-bound, bound).
void fillUniform(std::span<float> out, std::uint64_t seed, std::uint64_t stream, float bound);

// The 64 random bits of element i: SplitMix64's output function (Steele, Lea &
// Flood 2014, "Fast splittable pseudorandom number generators") on a
// per-stream key plus i times its golden-ratio increment.
std::uint64_t randomBits(std::uint64_t seed, std::uint64_t stream, std::uint64_t i);

} // namespace headroom::rt
