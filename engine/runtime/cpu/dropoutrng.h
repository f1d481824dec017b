// SPDX-License-Identifier: GPL-3.0-or-later
// The dropout masks of the step program, as a pure function of (stream,
// element index), shared by the CPU reference and the CUDA kernels (this
// header compiles as host and device code), so both backends drop the same
// elements and their steps can be compared value for value.
//
// Counter-based, as the Philox generator PyTorch's fused dropout and
// flash-attn's attention dropout use (Salmon et al. 2011, "Parallel random
// numbers: as easy as 1, 2, 3"): no generator state, any thread can draw
// element i on its own, and a recomputation (gradient checkpointing, the
// fused attention's backward) draws exactly the mask of the forward, as
// torch.utils.checkpoint does by restoring the RNG state. The mixing function
// is SplitMix64's (Steele, Lea and Flood 2014, "Fast splittable pseudorandom
// number generators"; Vigna's splitmix64.c: state += 0x9e3779b97f4a7c15, then
// the finaliser below): element i of a stream is the (i + 1)-th output of
// SplitMix64 seeded with the stream.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define HEADROOM_HOST_DEVICE __host__ __device__
#else
#define HEADROOM_HOST_DEVICE
#endif

namespace headroom::cpu {

HEADROOM_HOST_DEVICE inline std::uint64_t splitmix64Mix(std::uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// An element is dropped when the top 32 bits of its draw are below
// threshold = round(p · 2^32): probability p to within 2^-32.
HEADROOM_HOST_DEVICE inline std::uint32_t dropoutThreshold(float p)
{
    if (!(p > 0.0f))
        return 0;
    if (p >= 1.0f)
        return 0xffffffffu;
    return static_cast<std::uint32_t>(double(p) * 4294967296.0 + 0.5);
}

HEADROOM_HOST_DEVICE inline bool dropoutKeep(std::uint64_t stream, std::uint64_t index, std::uint32_t threshold)
{
    const std::uint64_t draw = splitmix64Mix(stream + 0x9e3779b97f4a7c15ull * (index + 1));
    return static_cast<std::uint32_t>(draw >> 32) >= threshold;
}

// What a kept element is multiplied by: 1/(1 − p) in fp32, as torch's
// dropout kernels compute it (aten/src/ATen/native/cuda/Dropout.cu:
// scale = 1/(1 - p) in the accumulate type); 0 when everything is dropped.
HEADROOM_HOST_DEVICE inline float dropoutScale(float p)
{
    return p >= 1.0f ? 0.0f : 1.0f / (1.0f - p);
}

// One stream per dropout site of a step: the run's seed, the step, the
// micro-batch, the layer and the site within it, mixed so that neighbouring
// sites draw unrelated masks.
HEADROOM_HOST_DEVICE inline std::uint64_t dropoutStream(std::uint64_t seed, std::uint64_t step, std::uint64_t micro,
                                                        std::uint64_t layer, std::uint64_t site)
{
    constexpr std::uint64_t gamma = 0x9e3779b97f4a7c15ull;
    std::uint64_t s = splitmix64Mix(seed + gamma);
    s = splitmix64Mix(s ^ (step + gamma));
    s = splitmix64Mix(s ^ (micro + gamma));
    s = splitmix64Mix(s ^ (layer + gamma));
    return splitmix64Mix(s ^ (site + gamma));
}

} // namespace headroom::cpu
