// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The technique ladder: one scenario with techniques applied one after another,
// and the saving of each step (the teaching flow of the study notes: record
// the peak after each trick).
#include "core/result.h"
#include "plan/plan.h"
#include "plan/techniques.h"

#include <string>
#include <vector>

namespace headroom {

struct LadderStep {
    TechniqueId technique; // TechniqueId::Checkpointing; techniqueName() for files and the CLI
    std::string label;     // "+ gradient checkpointing"
    Scenario scenario;     // the cumulative scenario after this step
    Plan plan;
    std::int64_t savingBytes = 0;  // device used before this step minus after (first step: 0)
    // The step moves device used but not the peak of allocated memory: only
    // the caching allocator's cache (or the context) changes, as flash
    // attention after checkpointing on a card far too small (the simulation
    // releases and retries its cache past capacity: cachingallocator.h).
    bool cacheOnly = false;
};

// The techniques a ladder step can be: naive-fp16 (full fine-tune, fp16
// mixed, AdamW, eager, no checkpointing: the usual starting point), fp32,
// fp16-mixed, bf16-mixed, bf16, checkpointing, flash, sdpa, chunked-ce,
// adamw-8bit, paged-adamw-8bit, lion, adafactor, lomo, lora, qlora,
// micro-batch-1 (those without a parameter of their own).
const std::vector<TechniqueId>& ladderSteps();
const std::vector<TechniqueId>& defaultLadder();
Result<std::vector<LadderStep>> buildLadder(const Scenario& base, const std::vector<TechniqueId>& steps);
// The same from step names (the CLI's --steps); an unknown name is an error.
Result<std::vector<LadderStep>> buildLadder(const Scenario& base, const std::vector<std::string>& stepNames);

} // namespace headroom
