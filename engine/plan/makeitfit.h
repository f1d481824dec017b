// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "Make it fit": from a scenario that does not fit its GPU, the cheapest
// changes (by their estimated cost in step time) that make it fit, each
// checked by planning the changed scenario. Single changes and small
// combinations of them; the planner decides what fits, this file only
// proposes and ranks.
#include "core/result.h"
#include "plan/plan.h"
#include "plan/techniques.h"

#include <string>
#include <vector>

namespace headroom {

// How far a change moves away from the run the user asked for.
enum class ChangeKind : std::uint8_t {
    Speed,   // same training, only slower (or faster): checkpointing, attention kernel, sharding...
    Method,  // same task, another method: LoRA/QLoRA, 8-bit optimizer, pure bf16 weights
    Task,    // a different task: shorter sequences (last resort)
};

// One atomic change to a scenario.
struct FitChange {
    TechniqueId technique;     // what it applies (plan/techniques.h); techniqueName() for files and the CLI
    std::uint64_t value = 0;   // its parameter where it has one (every k, new micro-batch, new sequence length)
    std::string label;         // "gradient checkpointing (every layer)"
    std::string reason;        // plain English: why it saves memory and what it costs
    double speedCost = 0;      // estimated relative step-time change: 0.33 = 33% slower, -0.1 = 10% faster
    ChangeKind kind = ChangeKind::Speed;
};

struct FitSuggestion {
    std::vector<FitChange> changes;  // applied in this order
    std::string label;               // the changes' labels joined with " + "
    Scenario scenario;               // the base with the changes applied
    Bytes deviceUsedBytes = 0;       // planned, as nvidia-smi would show it
    Bytes peakAllocatedBytes = 0;
    std::int64_t marginBytes = 0;    // capacity minus device used (positive: it fits)
    double speedCost = 0;            // combined: product of (1 + cost) minus 1
    ChangeKind kind = ChangeKind::Speed;  // the furthest of its changes
};

struct MakeItFitResult {
    bool alreadyFits = false;              // the base fits: nothing to suggest
    Bytes baseDeviceUsedBytes = 0;
    std::int64_t baseMarginBytes = 0;
    Bytes capacityBytes = 0;
    std::vector<FitSuggestion> suggestions;  // empty when it already fits or nothing fits
    std::uint64_t plansEvaluated = 0;
};

struct MakeItFitOptions {
    std::size_t maxChanges = 3;       // combinations of up to this many changes
    std::size_t maxSuggestions = 12;  // the cheapest this many
};

// The single changes that apply to `base` (those that would change it), in a fixed order.
std::vector<FitChange> candidateChanges(const Scenario& base);
// `base` with `change` applied.
Scenario applyChange(const Scenario& base, const FitChange& change);

// Suggestions sorted by kind (speed, then method, then task), then by speed
// cost, then by margin (largest first). A combination is left out when a
// subset of it fits at no greater cost. Errors: the base scenario's own.
Result<MakeItFitResult> makeItFit(const Scenario& base, const MakeItFitOptions& options = {});

const char* changeKindName(ChangeKind kind);  // "speed", "method", "task"

} // namespace headroom
