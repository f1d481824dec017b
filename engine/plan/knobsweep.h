// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Memory against one knob (micro-batch, or sequence length) with everything
// else fixed: a series of plans of one parameter table, and the engine's fit
// search for the largest value that fits; and the fit map, micro-batch ×
// sequence length. Qt-free values computed by the engine's pure functions,
// so the app runs them off the UI thread (ui/document/fitmapworker.h).
#include "core/result.h"
#include "plan/fitsearch.h"
#include "plan/plan.h"

#include <functional>
#include <optional>
#include <vector>

namespace headroom {

enum class SweepAxis { MicroBatch, SequenceLength };

// Every point is a simulated plan (makePlan): about 5 ms for the
// micro-batch series and 32 ms for the 65-point sequence series of the 70B
// QLoRA bench scenario, off the UI thread (fitmapworker.h).
struct SweepPoint {
    std::uint64_t value = 0;             // micro-batch (inference: batch) or sequence (inference: prompt tokens)
    CategoryBytes breakdown{};           // at that value's peak
    Bytes deviceUsedBytes = 0;
    bool fits = false;
};

struct SweepResult {
    SweepAxis axis = SweepAxis::MicroBatch;
    Mode mode = Mode::Train;
    std::uint64_t current = 0;            // the scenario's own value
    std::vector<SweepPoint> points;       // increasing values
    std::optional<FitResult> largestFitting;
    Bytes capacityBytes = 0;
    std::optional<Error> error; // set when the scenario itself does not plan
};

SweepResult computeSweep(const Scenario& scenario, SweepAxis axis);

// Which (micro-batch, sequence length) pairs fit: a grid of plans, one
// parameter table. Inference: batch × prompt tokens.
//
// Every cell is first planned with the quick estimate of peak reserved
// (PlanOptions::estimateReserved, ~30× cheaper than the caching allocator
// simulation for a 70B model); then cells are re-planned with the
// simulation wherever the verdict could differ: the four corners, every
// cell next to a change of verdict and every cell whose estimate is close
// enough to capacity for the simulation to land on the other side
// (kSimulatedOverEstimateMin/Max); a simulated cell whose verdict differs from its
// estimate has its neighbours simulated too, until no verdict changes and
// every cell on the boundary between fits and does not fit is simulated.
// Fitting is not always monotonic with the simulation (an island of "does
// not fit" where the allocator's cache is unlucky), which is what the band
// is for; outside it the estimate's verdict stands. test_ui_charts compares
// whole maps with makePlan's verdicts.
struct FitMap {
    std::vector<std::uint64_t> batches;    // increasing
    std::vector<std::uint64_t> sequences;  // increasing
    std::vector<std::uint8_t> fits;        // [s * batches.size() + b]: 1 fits, 0 does not (or too large to plan)
    std::vector<Bytes> deviceUsedBytes;    // same layout; 0 where it does not plan
    // Same layout: 1 where deviceUsedBytes is from a simulated plan (what
    // makePlan reports), 0 where it is the quick estimate (its verdict
    // agrees with the simulation; its bytes may be off by several percent).
    std::vector<std::uint8_t> simulated;
    std::size_t simulatedCells = 0;
    std::uint64_t currentBatch = 0, currentSequence = 0;
    std::optional<Error> error; // set when the scenario itself does not plan
    bool cancelled = false;

    bool fitsAt(std::size_t b, std::size_t s) const { return fits[s * batches.size() + b] != 0; }
};

// Simulated device used over the estimate, the range measured over 37,632
// plans (47 catalog models up to 80B, the 8 standard techniques, three
// checkpointing settings, micro-batch 1..32, sequence 256..16k): 0.957 to
// 1.89 (the high end: small models whose fp32 logits leave large cached
// blocks). A cell whose estimate times this range straddles capacity is
// simulated whatever its neighbours say; with some margin beyond what was measured.
inline constexpr double kSimulatedOverEstimateMin = 0.94;
inline constexpr double kSimulatedOverEstimateMax = 2.0;

// Called after each row of the map with (rows done, rows); returning false cancels.
using FitMapProgress = std::function<bool(std::size_t, std::size_t)>;

// Up to size × size cells: micro-batches step, 2·step, ... up to `batchTop`
// and sequence lengths likewise up to `sequenceTop` (steps of 64 tokens),
// at most `size` values each. A top of 0 means size values at steps of 1 and
// 256 tokens (64 × 64: micro-batch 1..64, 256..16k tokens).
FitMap computeFitMap(const Scenario& scenario, std::size_t size = 64, std::uint64_t batchTop = 0,
                     std::uint64_t sequenceTop = 0, const FitMapProgress& progress = {});

} // namespace headroom
