// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Measurement files: what a real PyTorch run on the user's own GPU read,
// versioned JSON, "schema": "headroom.measurement/1". The exported hf-python
// script writes one (write_headroom_measurement, HeadroomMeasurementCallback);
// `headroom-cli compare` puts it beside the plan.
//
// {
//   "schema": "headroom.measurement/1",                    required
//   "device": "cuda" | "cpu",                              where the steps ran; "cuda" when absent
//   "max_memory_allocated_bytes": 1,                       required, torch.cuda.max_memory_allocated()
//   "max_memory_reserved_bytes": 1,                        required, torch.cuda.max_memory_reserved()
//   "device_used_bytes": 1,                                device memory in use (whole device)
//   "device_used_source": "nvml" | "mem_get_info",         where device_used_bytes came from
//   "phases": {"NAME": {"max_memory_allocated_bytes": 0,   peaks per phase of the step
//                       "max_memory_reserved_bytes": 0}},  (reserved optional)
//   "gpu": {"name": "...", "total_bytes": 1},
//   "versions": {"torch": "...", "transformers": "...", "cuda": "...", "peft": "..."}, (string or null)
//   "scenario": {...headroom.scenario/1...},               the scenario the run was made from
//   "steps": 1,                                            training steps run
//   "notes": "..."
// }
//
// Strict, like scenario files: every field is checked, an unknown field is
// refused (a misspelt counter must not read as "absent"), byte counts are
// whole numbers up to 2^50 (1 PiB; the run's two peaks at least 1 byte),
// reserved is never below allocated, and errors name the field path.
//
// A run on the CPU ("device": "cpu": the exported script's --smoke-test
// without a GPU) has no CUDA memory counters, so the file carries none:
// max_memory_*, device_used_*, phases and gpu are refused there rather than
// read as zeros, and `compare` shows the plan with nothing measured beside it.
#include "core/checkedmath.h"
#include "core/result.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

inline constexpr const char* kMeasurementSchema = "headroom.measurement/1";
inline constexpr Bytes kMaxMeasuredBytes = Bytes(1) << 50;

struct MeasuredPhase {
    std::string name;
    Bytes maxAllocatedBytes = 0;
    std::optional<Bytes> maxReservedBytes;
};

inline constexpr const char* kMeasuredOnCuda = "cuda";
inline constexpr const char* kMeasuredOnCpu = "cpu";

struct Measurement {
    std::string device = kMeasuredOnCuda;  // kMeasuredOnCuda or kMeasuredOnCpu
    Bytes maxAllocatedBytes = 0;           // 0 on the CPU (no counters), at least 1 on CUDA
    Bytes maxReservedBytes = 0;
    std::optional<Bytes> deviceUsedBytes;
    std::string deviceUsedSource;        // "nvml", "mem_get_info" or "" (not given)
    std::vector<MeasuredPhase> phases;   // in name order
    std::string gpuName;
    std::optional<Bytes> gpuTotalBytes;
    std::string torchVersion, transformersVersion, cudaVersion, peftVersion;  // "" when not given or null
    std::optional<Scenario> scenario;
    std::optional<std::uint64_t> steps;
    std::string notes;
};

Result<Measurement> measurementFromText(std::string_view text);
Result<Measurement> readMeasurementFile(const std::string& path);  // errors start with the path
std::string measurementToText(const Measurement& m);               // pretty, reads back equal

// One counter of the plan beside the measured one.
struct ComparisonRow {
    std::string counter;  // "peak allocated", "peak reserved", "device used"
    std::string key;      // the measurement's field: "max_memory_allocated_bytes"...
    Bytes planned = 0;
    Bytes measured = 0;   // at least 1
    double errorPercent = 0;  // (planned - measured) / measured * 100: positive = over-predicted
};

bool measuredOnCpu(const Measurement& m);

// Peak allocated, peak reserved, and device used when the file has it; none
// for a CPU run (no CUDA counters to compare).
std::vector<ComparisonRow> compareWithPlan(const Plan& plan, const Measurement& m);

} // namespace headroom
