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
    // A tensor/pipeline-parallel layout: plan only the stages that can be
    // the worst (parallelrows.cpp makeParallelPlan): the first, the first
    // middle stage with the larger layer count of an uneven split, and the
    // last. The stages left out hold the same rows as a planned one with
    // fewer micro-batches in flight and no embedding, so they never use more;
    // Plan::ranks then lists the planned stages only. For the inner loop of
    // the layout search (layoutsearch.h); the counters are the full plan's.
    bool worstRankOnly = false;
    // false: no Plan::notes (the layout search's inner loop reads only the
    // counters, and builds thousands of plans: their texts were a few
    // percent of its time). Refusals are errors, never notes, either way.
    bool withNotes = true;
    // A tensor/pipeline-parallel layout: stages alike in their model build
    // their activation rows once (planbuild.h StageRowMemo). false: each
    // stage builds its own, for the test that checks the sharing changes no row.
    bool shareStageRows = true;
};
Result<Plan> makePlan(const Scenario& scenario, const ParameterTable& table, const PlanOptions& options);

// Resolved PEFT target module names: the scenario's, "all-linear" expanded,
// or PEFT's default for the architecture when none are given.
std::vector<std::string> resolveLoraTargets(const ModelSpec& model, const ParameterTable& table,
                                            const std::vector<std::string>& requested);

// Signed bytes as GiB text: "3.20 GiB".
std::string formatGiB(double bytes);

} // namespace headroom
