// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Teaching sets: published memory experiments as data ("schema":
// "headroom.teaching/1", resources/teaching/*.json, compiled in by
// engine/embedcatalog.cmake). Each experiment is a headroom.scenario/1
// document plus the value the publication measured and the counter it read.
// compareTeachingSet plans every scenario and reads the same counter off the
// plan, so a reader sees the published number beside Headroom's and why they
// differ (docs/validation/seed-book.md).
#include "core/checkedmath.h"
#include "core/result.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// What the publication's number counts.
enum class TeachingCounter {
    AllocatedAfterLoad, // torch.cuda.memory_allocated() right after from_pretrained (and PEFT wrapping)
    AllocatedAfterStep, // torch.cuda.memory_allocated() right after the first optimizer.step(), before zero_grad()
    OptimizerState,     // sum of nelement() * element_size() over the optimizer's state tensors
    Gradients,          // sum of nelement() * element_size() over param.grad
};
const char* teachingCounterName(TeachingCounter c); // "allocated-after-load", ...
bool parseTeachingCounter(const std::string& s, TeachingCounter& out);

struct TeachingExperiment {
    std::string id;    // stable: "batch-4"
    std::string title; // "Batch 4 (example 5.8)"
    TeachingCounter counter = TeachingCounter::AllocatedAfterStep;
    double bookGiB = 0; // the published value, in GiB (1024^3 bytes)
    int seedLine = 0;   // where the value is printed in the source transcript
    // What the same counter read before the experiment began (earlier cells'
    // tensors and cuBLAS workspaces); part of the published value.
    double bookBeforeGiB = 0;
    int beforeSeedLine = 0; // 0: not printed (the state counters start at zero)
    std::string note;       // why the value is what it is, in the publication's own setup
    Scenario scenario;
};

struct TeachingSet {
    std::string id; // "seed-book"
    std::string title;
    std::string source;             // the publication
    std::string notebook;           // its code: repository@commit path
    std::vector<std::string> setup; // how the publication's setup was established
    std::vector<TeachingExperiment> experiments;
};

Result<TeachingSet> teachingSetFromText(std::string_view text);
// Built-in sets by id ("seed-book"); UnknownModel-like lookups fail with InvalidArgument.
std::vector<std::string> builtinTeachingSetIds();
Result<TeachingSet> builtinTeachingSet(const std::string& id);

// The counter's value in a plan, bytes. AllocatedAfterLoad: the weight rows
// (Headroom has no rows for non-parameter buffers). AllocatedAfterStep: every
// row alive at the end of the optimizer-step event, without that event's own
// temporaries and without library workspaces (the publication's reading
// before the experiment already holds them). The state counters: the
// optimizer-state and gradient rows.
Bytes teachingCounterBytes(const Plan& plan, TeachingCounter counter);

struct TeachingComparison {
    std::string id;
    std::string title;
    TeachingCounter counter = TeachingCounter::AllocatedAfterStep;
    double bookGiB = 0;
    double headroomGiB = 0;             // bookBeforeGiB + the plan's counter
    double errorGiB = 0;                // headroom - book
    double errorPercent = 0;            // 100 * error / book
    std::string explanation;            // the counter, the experiment's note, what Headroom counts
    std::vector<std::string> planNotes; // the plan's own assumptions
};

// Plans every experiment with its scenario's profile. An experiment whose
// scenario does not plan fails the whole comparison with that error.
Result<std::vector<TeachingComparison>> compareTeachingSet(const TeachingSet& set);

} // namespace headroom
