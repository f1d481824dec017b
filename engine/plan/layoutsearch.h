// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Layout search (issue 15, "Search"): for a scenario's GPUs, model and
// global batch, every tensor/pipeline/data-parallel layout the planner
// plans (tp, sp, pp, vpp, cp, HSDP, sharding, micro-batch, checkpointing;
// grad_accum follows), planned rank by rank, those that do not fit dropped, the rest
// ranked by the estimated step time of plan/steptime.h. docs/planner.md
// "Layout search" states what is enumerated and every assumption.
#include "core/result.h"
#include "plan/plan.h"
#include "plan/steptime.h"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct LayoutSearchOptions {
    // GPUs per node; 0: kDefaultGpusPerNode, and the result says it was assumed.
    std::uint64_t gpusPerNode = 0;
    // How many of the best layouts the result keeps, each re-planned with the
    // caching allocator simulation; 0: every feasible layout.
    std::size_t keep = 10;
    // Called after each (tp, pp, cp) shape with (shapes done, shapes); returning false cancels.
    std::function<bool(std::size_t, std::size_t)> progress;
};

// One layout and what it costs.
struct LayoutCandidate {
    std::uint64_t tp = 1, pp = 1, dp = 1;
    std::uint64_t vpp = 1; // virtual stages per pipeline rank: above 1, interleaved 1F1B
    std::uint64_t dpReplicate = 1; // FSDP2's HSDP replicate groups (dp / dpReplicate ranks shard within one)
    std::uint64_t cp = 1;          // context parallelism: each rank holds seq / cp tokens (FSDP2 over dp x cp)
    std::uint64_t ep = 1;          // expert parallelism: MoE layers' routed experts split over ep of the dp ranks
    // Expert tensor parallelism: each routed expert split over etp GPUs;
    // 0 is the tensor-parallel degree (ParallelConfig::etp).
    std::uint64_t etp = 0;
    std::uint64_t expertTensorParallel() const { return etp == 0 ? tp : etp; }
    bool sp = false;
    Sharding sharding = Sharding::None;
    std::uint64_t microBatch = 1, gradAccum = 1;
    Checkpointing checkpointing = Checkpointing::None;
    // The plan's counters (its worst rank's): simulated for the kept layouts.
    Bytes peakAllocatedBytes = 0, peakReservedBytes = 0, deviceUsedBytes = 0;
    std::int64_t marginBytes = 0;
    bool fits = false;
    bool reservedSimulated = false;
    StepTime time;
};

struct LayoutSearchResult {
    std::uint64_t gpus = 0;
    std::uint64_t globalBatch = 0;
    bool globalBatchDerived = false;  // train.global_batch was 0: micro_batch x grad_accum x count
    bool gpusPerNodeAssumed = false;  // the options gave none: kDefaultGpusPerNode
    Interconnect links;
    GpuSpec gpu;
    std::size_t refusedShapes = 0;    // (tp, pp, cp) shapes parallelLayout() refuses: not enumerated further
    std::size_t evaluated = 0;        // layouts enumerated and given to the planner
    std::size_t refused = 0;          // of which the planner refused (its error), skipped
    std::size_t feasible = 0;         // of which fit (by the quick estimate of reserved; see layouts)
    std::size_t simulated = 0;        // plans re-made with the allocator simulation for `layouts`
    std::string commonRefusal;        // the most frequent refusal (of a shape or a layout), "" when none
    // Best first by step time (then device used, then enumeration order);
    // each verified with the allocator simulation: a layout the estimate let
    // through but the simulation does not fit is left out (and counted in
    // droppedBySimulation).
    std::vector<LayoutCandidate> layouts;
    std::size_t droppedBySimulation = 0;
    // The closest miss when nothing fits: the layout with the least device used.
    std::optional<LayoutCandidate> closest;
    std::string message;              // why the list is empty, "" when it is not
    bool cancelled = false;
};

// The search. Errors: an inference scenario, an unknown GPU or one without
// a published bf16 peak, a global batch that no layout's data-parallel
// degree divides.
Result<LayoutSearchResult> searchLayouts(const Scenario& scenario, const LayoutSearchOptions& options = {});

// Why the best layout of a search beats the runner-up, as numbers that the
// CLI and the app put into words: the step-time term (plan/steptime.h) in
// which the best saves the most over the runner-up, and the one in which it
// pays the most, if any. Two layouts with the same estimated step are ordered
// by device used (the search's order); `tie` says that is the reason.
struct LayoutComparison {
    bool tie = false;
    double gapSeconds = 0;  // the runner-up's step minus the best's
    double gapFraction = 0; // gapSeconds over the runner-up's step
    StepTerm savedTerm = StepTerm::Compute;
    double savedSeconds = 0; // the runner-up's savedTerm minus the best's: > 0 unless tie
    double bestSavedTermSeconds = 0, runnerUpSavedTermSeconds = 0;
    std::optional<StepTerm> paidTerm; // where the best takes longer, the largest such term
    double paidSeconds = 0;           // the best's paidTerm minus the runner-up's
    Bytes bestDeviceUsedBytes = 0, runnerUpDeviceUsedBytes = 0;
};
LayoutComparison compareLayouts(const LayoutCandidate& best, const LayoutCandidate& runnerUp);

// `base` laid out as `layout` (tp, sp, pp, sharding, micro-batch,
// grad_accum, checkpointing, the global batch kept).
Scenario applyLayout(const Scenario& base, const LayoutCandidate& layout);

} // namespace headroom
