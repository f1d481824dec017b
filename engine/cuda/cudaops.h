// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA backend's Ops (runtime/ops.h): the step program's computations on
// device memory, through the kernels and cuBLASLt GEMMs of this library.
// Plain C++: includers need no CUDA header.
#include "cuda/context.h"
#include "plan/scenario.h"
#include "runtime/ops.h"

#include <memory>
#include <stdexcept>
#include <string>

namespace headroom::cuda {

// A CUDA or cuBLAS failure inside an Ops call (the Ops interface returns no
// status): the backend catches it and reports it as the run's result.
class CudaError : public std::runtime_error {
public:
    CudaError(const Status& status) : std::runtime_error(status.message()), m_code(status.code()) {}
    StatusCode code() const { return m_code; }
    bool outOfMemory() const { return m_code == StatusCode::outOfMemory; }

private:
    StatusCode m_code;
};

struct CudaOpsInfo {
    // Device memory the Ops hold for the whole run outside the tracking
    // allocator: the small fixed scratch arena (loss scale, per-row losses,
    // 16-bit copies of one LoRA adapter pair). The backend reports it with
    // the context and the cuBLAS workspace as measured device overhead.
    std::size_t scratchBytes = 0;
};

// Empty when the CUDA Ops run this scenario's program; else why not, in words.
std::string cudaOpsUnsupported(const Scenario& scenario);

// Ops on `context`'s device and stream, sized for `scenario` (its arena).
// Throws CudaError when the arena cannot be allocated.
std::unique_ptr<rt::Ops> makeCudaOps(Context& context, const Scenario& scenario, CudaOpsInfo* info = nullptr);

} // namespace headroom::cuda
