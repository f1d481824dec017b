// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The step program (runtime/step/trainer.h) on the CPU reference kernels:
// what the CPU backend runs, and what the tests drive directly.
#include "runtime/ops.h"
#include "runtime/step/trainer.h"

#include <memory>

namespace headroom::rt {

// Empty when the CPU backend runs this scenario; else what it does not
// support yet, in words. The CPU Ops run everything the program does.
inline std::string cpuUnsupported(const Scenario& scenario) { return programUnsupported(scenario); }

namespace detail {
// Owns the CPU Ops before the Trainer base is made (base classes are
// constructed in order of declaration).
struct CpuOpsHolder {
    std::unique_ptr<Ops> cpuOps = makeCpuOps();
};
} // namespace detail

class CpuTrainer : private detail::CpuOpsHolder, public Trainer {
public:
    CpuTrainer(const Scenario& scenario, TrackingAllocator& allocator, const TrainerOptions& options = {})
        : CpuOpsHolder(), Trainer(scenario, allocator, *cpuOps, options)
    {
    }
};

} // namespace headroom::rt
