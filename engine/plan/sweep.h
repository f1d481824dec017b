// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The sweep: from the tensor table to the timeline, the peak, the breakdown
// at the peak and the allocator counters. The peak is a sweep over events,
// never a plain sum of categories (ARCHITECTURE.md).
#include "core/result.h"
#include "plan/plan.h"
#include "plan/profile.h"

namespace headroom {

// The events of one step: training (load, embedding, each layer forward,
// head, loss forward and backward, each layer backward in reverse, embedding
// backward, optimizer step) or inference (load, prefill by layer, head, decode).
std::vector<Event> buildEvents(Mode mode, std::uint64_t layers);
inline std::size_t eventIndex(Mode mode, Phase phase, std::int64_t layer, std::uint64_t layers)
{
    const std::size_t L = layers;
    const auto l = static_cast<std::size_t>(layer < 0 ? 0 : layer);
    switch (phase) {
    case Phase::Load: return 0;
    case Phase::EmbedFwd: return 1;
    case Phase::LayerFwd: return 2 + l;
    case Phase::HeadFwd: return L + 2;
    case Phase::Decode: return L + 3;
    case Phase::LossFwd: return L + 3;
    case Phase::LossBwd: return L + 4;
    case Phase::HeadBwd: return L + 5;
    case Phase::LayerBwd: return L + 6 + (L - 1 - l);
    case Phase::EmbedBwd: return 2 * L + 6;
    case Phase::OptimizerStep: return mode == Mode::Inference ? L + 3 : 2 * L + 7;
    }
    return 0;
}
// The first event a row's instance on `layer` is alive at (TensorRow::madeAtEventEnd).
inline std::size_t madeAtIndex(Mode mode, const TensorRow& row, std::int64_t layer, std::uint64_t layers)
{
    return eventIndex(mode, row.allocAt, layer, layers) + (row.madeAtEventEnd ? 1 : 0);
}

// The block the PyTorch caching allocator hands out for a request
// (c10/cuda/CUDACachingAllocator.cpp: round_size to 512 B; requests above
// 10 MiB get their own segment rounded to 2 MiB).
Bytes allocatorBlockBytes(Bytes request);

// Whether layer `layer` holds an instance of a row of LayerSet `set`: layer l
// is checkpointed when checkpointEvery != 0 and l % checkpointEvery == 0.
bool inLayerSet(LayerSet set, std::uint64_t layer, std::uint64_t checkpointEvery, std::uint64_t slidingPeriod = 0);

// Whether `row` has an instance on `layer` of `plan`: its LayerSet (with the
// plan's checkpointing and sliding pattern) and its LayerBand (with the
// plan's dense layers).
bool rowOnLayer(const TensorRow& row, std::uint64_t layer, const Plan& plan);

// How many instances of a row the step holds: 1 for a global row, else the
// layers of its LayerSet (checkpointEvery as in Plan).
std::uint64_t instanceCount(const TensorRow& row, std::uint64_t layers, std::uint64_t checkpointEvery,
                            std::uint64_t slidingPeriod = 0);
// The same for a row of `plan`, its LayerBand included.
std::uint64_t instanceCount(const TensorRow& row, const Plan& plan);

// Steps the caching allocator simulation runs (the second starts with the
// first one's cache).
inline constexpr int kAllocatorSteps = 2;

// Micro-batches of a step the simulation replays at most (Plan::
// microBatchesPerStep): with accumulation the first makes the gradients
// (zero_grad dropped the last step's) and the second runs with them
// resident, as every later one does; the accountant's traces of the three
// accumulation cases (Llama 3.2 1B ga4, Qwen2.5 0.5B ga8, GPT-2 ga4) reserve
// nothing new after the second micro-batch of either step.
inline constexpr std::uint64_t kAllocatorMicroBatches = 2;

// Share of the churn (rounded peak less what persists from load) the quick
// estimate of peak reserved adds for cached blocks (the planner's rule before
// the simulation; Megatron-LM's theoretical_memory_usage.py multiplies by 1.05).
inline constexpr double kEstimatedFragmentation = 0.05;

// Fills plan.events, timeline, peak*, breakdown and the three counters (not
// fits/margin). plan.tensors, layers and checkpointEvery must be set. Error
// Overflow when the table totals more than 2^62 bytes. estimateReserved: with
// allocator rounding on, peak reserved is the quick estimate instead of the
// caching allocator simulation (about 30 times cheaper for a 70B model;
// plan.reservedSimulated false). allocatorCapacity: the device bytes the
// caching allocator may take (the card less the CUDA context; 0: no limit);
// the simulation releases its cache and retries at that limit, as PyTorch
// does, and goes past it for a plan that does not fit.
Result<bool> sweepPlan(Plan& plan, Mode mode, const RuntimeProfile& profile, bool estimateReserved = false,
                       Bytes allocatorCapacity = 0);

// The timeline by brute force: every instance of every row placed on every
// event it lives through. O(rows x layers x events); the tests compare it
// with sweepPlan's difference arrays.
std::vector<CategoryBytes> referenceTimeline(const Plan& plan, Mode mode);

} // namespace headroom
