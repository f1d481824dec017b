// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Fit search: the largest micro-batch and the longest sequence that fit the
// scenario's GPU, and the reverse question: the largest model each technique
// combination can train (or serve) on it.
#include "core/result.h"
#include "plan/plan.h"

#include <string>
#include <vector>

namespace headroom {

struct FitResult {
    bool found = false;            // false: not even 1 fits
    std::uint64_t value = 0;       // largest micro-batch / sequence length that fits
    Bytes deviceUsedBytes = 0;     // at that value
    std::uint64_t plansEvaluated = 0; // all of them, estimated and simulated
    std::uint64_t plansSimulated = 0; // of which with the caching allocator simulation
};

// Peak memory never decreases with batch or sequence (an invariant the tests
// check), so both are binary searches over plans of one parameter table.
// The bisection plans with the quick estimate of peak reserved
// (PlanOptions::estimateReserved); from its answer the search then gallops
// and bisects with simulated plans to the largest value whose simulated plan
// fits, so the value and deviceUsedBytes are what makePlan reports for it.
Result<FitResult> largestMicroBatch(const Scenario& scenario, std::uint64_t upperBound = 1u << 20);
Result<FitResult> longestSequence(const Scenario& scenario, std::uint64_t upperBound = 1u << 24);

// A named combination of techniques applied to a base scenario.
struct Technique {
    std::string id;     // "qlora-ckpt"
    std::string label;  // "QLoRA NF4 + checkpointing + flash"
};
const std::vector<Technique>& standardTechniques();
// Applies technique `id` to a copy of `base`. Error InvalidArgument for an unknown id.
Result<Scenario> applyTechnique(const Scenario& base, const std::string& id);

struct ModelFitRow {
    Technique technique;
    std::string largestPresetId;        // "" when no preset fits
    Bytes largestPresetParameters = 0;
    double largestGenericParameters = 0; // Llama-like model by size; 0 when even 10M does not fit
};

// For each standard technique: the largest catalog model and the largest
// size-scaled model that fit the base scenario's GPU with its batch settings.
Result<std::vector<ModelFitRow>> largestModels(const Scenario& base);

} // namespace headroom
