// SPDX-License-Identifier: GPL-3.0-or-later
// Internal: what a Context holds, for the .cu launchers.
#pragma once

#include "cuda/check.cuh"
#include "cuda/context.h"

namespace headroom::cuda {

struct Context::Impl {
    int device = 0;
    cudaStream_t stream = nullptr;
    cublasHandle_t cublas = nullptr;
    cublasLtHandle_t cublasLt = nullptr;
    void* workspace = nullptr;
    std::uint64_t workspaceBytes = 0;
    std::uint64_t handleBytes = 0;
    float* tables = nullptr;   // tables.h: dynamic maps and NF4 codes
    double* scratch = nullptr; // kScratchDoubles, for reductions inside one call
    static constexpr std::size_t kScratchDoubles = 64;
    ~Impl();
};

inline cudaStream_t streamOf(const Context& context) { return context.impl().stream; }

} // namespace headroom::cuda
