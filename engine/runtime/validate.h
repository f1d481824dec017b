// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Validation: plan a scenario in the headroom profile, run its training step
// on a backend, and put planned and measured side by side, per category and
// per event (VALIDATE-PROTOCOL: headroom-cli validate). Qt-free, shared by
// the CLI, the app and the CUDA backend.
#include "core/result.h"
#include "plan/plan.h"
#include "runtime/backend.h"
#include "runtime/extrapolation.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace headroom::rt {

inline constexpr const char* kValidationSchema = "headroom.validation/1";

struct ValidationResult {
    Scenario scenario;           // as given (its profile may be pytorch)
    Plan plan;                   // the headroom-profile plan the backend is compared with
    std::string backend;
    Measurement measured;          // extrapolated when extrapolation.used
    Extrapolation extrapolation;   // the runs with fewer layers, when the model was too large
};

// The headroom-profile plan of a scenario (the scenario's own profile is
// replaced: the engine is what that profile describes).
Result<Plan> headroomPlan(const Scenario& scenario);

// Error InvalidArgument for a bad scenario, UnsupportedCombination when the
// backend does not run it ("not supported by the cpu backend yet: ..."), or
// when it is too large for the backend.
Result<ValidationResult> runValidation(const Scenario& scenario, Backend& backend, const RunOptions& options);

// Where planned and measured differ: one line per (event, tensor row) and
// per (event, category) whose bytes differ. Empty when they agree exactly.
std::vector<std::string> planMeasurementDifferences(const Plan& plan, const Measurement& measured);

nlohmann::json validationJson(const ValidationResult& result);
// The measured memory timeline in the Chrome trace event format: one counter
// event ("ph":"C") per allocation or free, with bytes per category.
std::string chromeTrace(const ValidationResult& result);
// Planned vs measured per category and per event, for a terminal.
std::string validationTable(const ValidationResult& result);

// The device-level check of a CUDA run: the memory the device used for the
// run (its peak used memory less what other processes held before) against
// the plan's peak plus the overheads measured on the device (context, cuBLAS
// workspace and handles, the kernels' arena). Within max(2 %, 64 MiB)
// passes: cudaMalloc rounds blocks up to its own page sizes, which no plan
// of tensors sees.
struct DeviceUsedCheck {
    bool present = false;    // only for a backend that measured the device
    Bytes planned = 0;       // plan peak reserved (the block pool) + overheads
    Bytes measured = 0;      // used peak - others
    Bytes tolerance = 0;
    std::int64_t difference() const { return static_cast<std::int64_t>(measured) - static_cast<std::int64_t>(planned); }
    bool within() const { return (difference() < 0 ? -difference() : difference()) <= static_cast<std::int64_t>(tolerance); }
};
DeviceUsedCheck deviceUsedCheck(const ValidationResult& result);

// The CPU backend's size limit: bigger scenarios are refused.
inline constexpr Bytes kCpuBackendByteLimit = 4 * GiB;

} // namespace headroom::rt
