// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The plan's tensor table as the stream of allocations and frees the caching
// allocator sees (plan/cachingallocator.h), step after step.
#include "plan/cachingallocator.h"
#include "plan/plan.h"

#include <vector>

namespace headroom {

// Appends to `out` the requests of `steps` steps (training steps, or
// inference passes) of `plan` (tensors, layers, checkpointEvery and events
// set; managed rows are left out: cudaMallocManaged is outside the
// allocator).
//
// A row made of several tensors (TensorRow::pieceBegin: a layer's
// parameters, a foreach op's outputs) asks for each of them in turn, with an
// id each (the ids of one instance follow each other), and frees them in the
// same order; a row of one tensor takes one id. Ids are numbered in table
// order, row by row and layer by layer.
//
// Order:
// - A step is Plan::microBatchesPerStep passes over the events (at most
//   kAllocatorMicroBatches, sweep.h); only the last runs the optimizer step,
//   and in the others what the table keeps to the step's end dies with the
//   micro-batch (before the next one's load event).
// - Rows allocated at load and alive through the last event persist between
//   steps (weights, optimizer state...): allocated once, before step 1, never
//   freed. Every other instance is allocated and freed in each pass. A row
//   the first step makes later (TensorRow::firstAllocAt: torch.optim's lazy
//   state) is allocated at that event of the first step instead, and
//   persists from there. With several micro-batches a step, a row freed at
//   zero_grad (TensorRow::freedAtZeroGrad: accumulated gradients) is
//   allocated at its firstAllocAt event in each step's first micro-batch and
//   freed at the step's end, with the optimizer step's other frees.
// - At each event, first the frees of the instances whose last event was the
//   one before (for the first event of a later step: the last event of the
//   step before), then the allocations of the event in table order.
//   A row is alive "through its freeAt event, inclusive" (plan.h), so it
//   is released before anything of the next event exists: PyTorch frees a
//   tensor when its last reference goes, before the next module's outputs are
//   made. Within one event the table has no finer order, so every allocation
//   of the event coexists, as in the sweep's timeline.
// - After the last step, the instances still alive but not persistent are freed.
//   A pass marks its events with its step (AllocatorStreamLabels), so a step
//   of several micro-batches marks each event once per micro-batch.
//
// `labels`, when given, says where each step's event begins in `out` and which
// row each id belongs to, so the stream can be read against a recorded one
// (headroom-cli plan --allocator-trace, tools/reference/stream_diff.py).
struct AllocatorStreamLabels {
    struct Mark {
        std::size_t position; // index in `out` of the event's first request (its frees, then its allocations)
        int step;
        std::size_t event; // index in plan.events
    };
    std::vector<Mark> marks;
    std::vector<const char*> rowOfId;    // TensorRow::name of the row whose instance holds the id
    std::vector<std::int32_t> layerOfId; // its layer, -1 for a global row
};
void appendAllocatorStream(const Plan& plan, int steps, std::vector<AllocatorEvent>& out,
                           AllocatorStreamLabels* labels = nullptr);
std::vector<AllocatorEvent> allocatorStream(const Plan& plan, int steps);

} // namespace headroom
