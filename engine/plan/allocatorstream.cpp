// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/allocatorstream.h"

#include "plan/sweep.h"
#include "plan/tensorlifetime.h"

#include <algorithm>

namespace headroom {

namespace {

struct Instance {
    std::uint32_t allocAt, freeAt; // event indices
    // Where a row spanning the step is made (TensorRow::firstAllocAt; allocAt
    // when not lazy): once for a persistent one, in each step's first
    // micro-batch for a per-step one. allocAt for every other row.
    std::uint32_t firstAllocAt;
    Bytes bytes;
    bool persistent;                    // made once, never freed
    bool perStep;                       // TensorRow::freedAtZeroGrad: made each step, freed at its end
    std::uint32_t pieceBegin, pieceEnd; // the row's runs of tensors (TensorRow::pieceBegin)
    std::uint32_t firstId;              // its tensors take ids firstId, firstId + 1...
    std::uint8_t stream;                // TensorRow::stream
    bool madeByScript;                  // TensorRow::madeByScript
    std::uint32_t row;                  // index in Plan::tensors
    std::int32_t layer;                 // -1 for a global row
};

// Instance numbers bucketed by the event `at` reads, in instance order (a counting sort).
void bucket(const std::vector<Instance>& instances, std::size_t events, std::uint32_t Instance::*at,
            std::vector<std::uint32_t>& start, std::vector<std::uint32_t>& order)
{
    start.assign(events + 1, 0);
    for (const Instance& i : instances)
        ++start[i.*at + 1];
    for (std::size_t e = 0; e < events; ++e)
        start[e + 1] += start[e];
    order.resize(instances.size());
    std::vector<std::uint32_t>& next = order; // filled through a cursor per event
    thread_local std::vector<std::uint32_t> cursor;
    cursor.assign(start.begin(), start.end() - 1);
    for (std::uint32_t n = 0; n < instances.size(); ++n) {
        const Instance& i = instances[n];
        next[cursor[i.*at]++] = n;
    }
}

} // namespace

void appendAllocatorStream(const Plan& plan, int steps, std::vector<AllocatorEvent>& out, AllocatorStreamLabels* labels)
{
    const Mode mode = planMode(plan);
    const std::uint64_t L = plan.layers;
    const std::size_t E = plan.events.size();
    if (E == 0 || steps <= 0)
        return;
    const std::uint64_t microBatches =
        mode == Mode::Train && E >= 2 ? std::clamp<std::uint64_t>(plan.microBatchesPerStep, 1, kAllocatorMicroBatches) : 1;
    thread_local std::vector<Instance> instances;
    thread_local std::vector<std::uint32_t> firstStart, firstOrder, freeStart, freeOrder;
    thread_local std::vector<char> alive;
    instances.clear();
    std::uint32_t nextId = 0;
    if (labels)
        *labels = {};
    // Where each row's instances begin (they follow each other, layer by
    // layer), for the tensors a script makes for another row.
    thread_local std::vector<std::uint32_t> rowStart;
    rowStart.assign(plan.tensors.size() + 1, 0);
    for (std::uint32_t rowIndex = 0; rowIndex < plan.tensors.size(); ++rowIndex) {
        const TensorRow& row = plan.tensors[rowIndex];
        rowStart[rowIndex] = static_cast<std::uint32_t>(instances.size());
        rowStart[rowIndex + 1] = rowStart[rowIndex];
        if (row.managed || row.bytes == 0)
            continue;
        std::uint64_t tensorsPerInstance = 0;
        for (std::uint32_t p = row.pieceBegin; p < row.pieceEnd; ++p)
            if (!plan.pieces[p].isFree() && !plan.pieces[p].isForeign())
                tensorsPerInstance += plan.pieces[p].count;
        const auto ids = static_cast<std::uint32_t>(std::max<std::uint64_t>(tensorsPerInstance, 1));
        auto add = [&](std::int64_t layer) {
            const auto from = static_cast<std::uint32_t>(madeAtIndex(mode, row, layer, L));
            const auto to = static_cast<std::uint32_t>(eventIndex(mode, row.freeAt, layer, L));
            const bool spansStep = from == 0 && to == E - 1;
            // One micro-batch a step: the table's (gradients resident) is
            // every micro-batch, so accumulated gradients are kept as before.
            const bool perStep = spansStep && row.freedAtZeroGrad && microBatches > 1;
            const auto first = !spansStep || row.firstAllocAt == Phase::Load
                                   ? from
                                   : static_cast<std::uint32_t>(eventIndex(mode, row.firstAllocAt, layer, L));
            instances.push_back({from, to, first, row.bytes, spansStep && !perStep, perStep, row.pieceBegin, row.pieceEnd,
                                 nextId, row.stream, row.madeByScript, rowIndex, static_cast<std::int32_t>(layer)});
            nextId += ids;
            if (labels) {
                labels->rowOfId.resize(nextId, row.name);
                labels->layerOfId.resize(nextId, static_cast<std::int32_t>(layer));
            }
        };
        if (row.layers == LayerSet::Global) {
            add(-1);
            rowStart[rowIndex + 1] = static_cast<std::uint32_t>(instances.size());
            continue;
        }
        for (std::uint64_t l = 0; l < L; ++l)
            if (rowOnLayer(row, l, plan))
                add(static_cast<std::int64_t>(l));
        rowStart[rowIndex + 1] = static_cast<std::uint32_t>(instances.size());
    }
    bucket(instances, E, &Instance::firstAllocAt, firstStart, firstOrder);
    bucket(instances, E, &Instance::freeAt, freeStart, freeOrder);
    alive.assign(instances.size(), 0);
    thread_local std::vector<std::uint32_t> madeSoFar; // tensors a script has made for a madeByScript instance
    madeSoFar.assign(instances.size(), 0);
    // The instance of row `rowIndex` on `layer`, or none.
    auto instanceOf = [&](std::uint32_t rowIndex, std::int32_t layer) -> std::int64_t {
        if (rowIndex >= plan.tensors.size())
            return -1;
        for (std::uint32_t n = rowStart[rowIndex]; n < rowStart[rowIndex + 1]; ++n)
            if (instances[n].layer == layer)
                return n;
        return -1;
    };

    out.reserve(out.size() + static_cast<std::size_t>(nextId) * 2 * static_cast<std::size_t>(steps * microBatches));
    // An instance's tensors, in the order of its runs; one id each. Freed in
    // the order they were made (a foreach op's outputs die with their list).
    auto allocate = [&](std::uint32_t n) {
        const Instance& i = instances[n];
        alive[n] = 1;
        if (i.madeByScript) { // its tensors come with the script that makes them
            madeSoFar[n] = 0;
            return;
        }
        if (i.pieceBegin == i.pieceEnd) {
            out.push_back({AllocatorEvent::Kind::Alloc, i.firstId, i.bytes, i.stream});
            return;
        }
        std::uint32_t id = i.firstId;
        for (std::uint32_t p = i.pieceBegin; p < i.pieceEnd; ++p) {
            const TensorPiece& piece = plan.pieces[p];
            if (piece.isFree()) { // a script's release (attachScript)
                out.push_back({AllocatorEvent::Kind::Free, i.firstId + piece.freeOf, 0});
                continue;
            }
            if (piece.isForeign()) { // another row's tensors, made here (TensorRow::madeByScript)
                const std::int64_t m = instanceOf(piece.ofRow, i.layer);
                if (m < 0 || !instances[m].madeByScript)
                    continue;
                alive[m] = 1;
                // No more than the ids the row holds (its own pieces' tensors).
                const std::uint32_t ids = (static_cast<std::size_t>(m) + 1 < instances.size() ? instances[m + 1].firstId : nextId) -
                                          instances[m].firstId;
                for (std::uint64_t c = 0; c < piece.count && madeSoFar[m] < ids; ++c)
                    out.push_back({AllocatorEvent::Kind::Alloc, instances[m].firstId + madeSoFar[m]++, piece.bytes,
                                   instances[m].stream});
                continue;
            }
            for (std::uint64_t c = 0; c < piece.count; ++c)
                out.push_back({AllocatorEvent::Kind::Alloc, id++, piece.bytes, i.stream});
        }
    };
    thread_local std::vector<char> releasedByScript;
    auto release = [&](std::uint32_t n) {
        const Instance& i = instances[n];
        alive[n] = 0;
        if (i.madeByScript) { // what its script made, in order
            for (std::uint32_t t = 0; t < madeSoFar[n]; ++t)
                out.push_back({AllocatorEvent::Kind::Free, i.firstId + t, 0});
            return;
        }
        if (i.pieceBegin == i.pieceEnd) {
            out.push_back({AllocatorEvent::Kind::Free, i.firstId, 0});
            return;
        }
        // What a script released itself is not released again.
        std::uint32_t tensors = 0;
        for (std::uint32_t p = i.pieceBegin; p < i.pieceEnd; ++p)
            if (!plan.pieces[p].isFree() && !plan.pieces[p].isForeign())
                tensors += static_cast<std::uint32_t>(plan.pieces[p].count);
        releasedByScript.assign(tensors, 0);
        for (std::uint32_t p = i.pieceBegin; p < i.pieceEnd; ++p)
            if (plan.pieces[p].isFree())
                releasedByScript[plan.pieces[p].freeOf] = 1;
        for (std::uint32_t t = 0; t < tensors; ++t)
            if (!releasedByScript[t])
                out.push_back({AllocatorEvent::Kind::Free, i.firstId + t, 0});
    };
    // The instances alive whose last event was `event`; at the end of a step
    // (zeroGrad) the per-step ones too.
    auto freesAfter = [&](std::size_t event, bool zeroGrad) {
        for (std::uint32_t k = freeStart[event]; k < freeStart[event + 1]; ++k) {
            const std::uint32_t n = freeOrder[k];
            const Instance& i = instances[n];
            if (alive[n] && !i.persistent && (zeroGrad || !i.perStep))
                release(n);
        }
    };
    bool stepEnded = false; // the pass before this one ended with the optimizer step
    for (int step = 0; step < steps; ++step) {
        for (std::uint64_t micro = 0; micro < microBatches; ++micro) {
            // Only the last micro-batch of a step runs the optimizer step.
            const std::size_t lastEvent = micro + 1 == microBatches ? E - 1 : E - 2;
            for (std::size_t e = 0; e <= lastEvent; ++e) {
                if (labels)
                    labels->marks.push_back({out.size(), step, e});
                if (e > 0) {
                    freesAfter(e - 1, false);
                } else if (step > 0 || micro > 0) {
                    if (stepEnded) {
                        freesAfter(E - 1, true);
                    } else {
                        // A micro-batch without the optimizer step: what
                        // lives to the step's end in the table dies with it.
                        freesAfter(E - 2, false);
                        freesAfter(E - 1, false);
                    }
                }
                // Table order: the rows made here (lazy ones where the first
                // step makes them; per-step ones in each step's first
                // micro-batch), not those alive already.
                for (std::uint32_t k = firstStart[e]; k < firstStart[e + 1]; ++k) {
                    const std::uint32_t n = firstOrder[k];
                    if (!alive[n])
                        allocate(n);
                }
            }
            stepEnded = lastEvent == E - 1;
        }
    }
    freesAfter(E - 1, true);
}

std::vector<AllocatorEvent> allocatorStream(const Plan& plan, int steps)
{
    std::vector<AllocatorEvent> out;
    appendAllocatorStream(plan, steps, out);
    return out;
}

} // namespace headroom
