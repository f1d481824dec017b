// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Planner: Scenario -> Plan. Value in, value out; invalid input is an Error.
#include "core/result.h"
#include "model/parametertable.h"
#include "plan/plan.h"

namespace headroom {

Result<Plan> makePlan(const Scenario& scenario);
// The same with the model's parameter table built once by the caller (fit
// search and sweeps plan many variants of one model).
Result<Plan> makePlan(const Scenario& scenario, const ParameterTable& table);

struct PlanOptions {
    // Peak reserved from the quick estimate (sweep.h, kEstimatedFragmentation)
    // instead of the caching allocator simulation: for the inner loop of a
    // search only. A search re-plans the value it returns without this, so
    // what users see is always simulated (Plan::reservedSimulated).
    bool estimateReserved = false;
};
Result<Plan> makePlan(const Scenario& scenario, const ParameterTable& table, const PlanOptions& options);

// Resolved PEFT target module names: the scenario's, "all-linear" expanded,
// or PEFT's default for the architecture when none are given.
std::vector<std::string> resolveLoraTargets(const ModelSpec& model, const ParameterTable& table,
                                            const std::vector<std::string>& requested);

// Signed bytes as GiB text: "3.20 GiB".
std::string formatGiB(double bytes);

} // namespace headroom
