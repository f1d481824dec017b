// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/allocatorstream.h"

#include "plan/sweep.h"
#include "plan/tensorlifetime.h"

#include <algorithm>

namespace headroom {

namespace {

struct Instance {
    std::uint32_t allocAt, freeAt; // event indices
    std::uint32_t firstAllocAt;    // the first step's allocAt (TensorRow::firstAllocAt; allocAt when not lazy)
    Bytes bytes;
    bool persistent;
    std::uint32_t pieceBegin, pieceEnd; // the row's runs of tensors (TensorRow::pieceBegin)
    std::uint32_t firstId;              // its tensors take ids firstId, firstId + 1...
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
    thread_local std::vector<Instance> instances;
    thread_local std::vector<std::uint32_t> allocStart, allocOrder, firstStart, firstOrder, freeStart, freeOrder;
    instances.clear();
    std::uint32_t nextId = 0;
    if (labels)
        *labels = {};
    for (const TensorRow& row : plan.tensors) {
        if (row.managed || row.bytes == 0)
            continue;
        std::uint64_t tensorsPerInstance = 0;
        for (std::uint32_t p = row.pieceBegin; p < row.pieceEnd; ++p)
            tensorsPerInstance += plan.pieces[p].count;
        const auto ids = static_cast<std::uint32_t>(std::max<std::uint64_t>(tensorsPerInstance, 1));
        auto add = [&](std::int64_t layer) {
            const auto from = static_cast<std::uint32_t>(eventIndex(mode, row.allocAt, layer, L));
            const auto to = static_cast<std::uint32_t>(eventIndex(mode, row.freeAt, layer, L));
            const auto first = row.firstAllocAt == Phase::Load
                                   ? from
                                   : static_cast<std::uint32_t>(eventIndex(mode, row.firstAllocAt, layer, L));
            instances.push_back(
                {from, to, first, row.bytes, from == 0 && to == E - 1, row.pieceBegin, row.pieceEnd, nextId});
            nextId += ids;
            if (labels) {
                labels->rowOfId.resize(nextId, row.name);
                labels->layerOfId.resize(nextId, static_cast<std::int32_t>(layer));
            }
        };
        if (row.layers == LayerSet::Global) {
            add(-1);
            continue;
        }
        for (std::uint64_t l = 0; l < L; ++l)
            if (inLayerSet(row.layers, l, plan.checkpointEvery, plan.slidingPeriod))
                add(static_cast<std::int64_t>(l));
    }
    bucket(instances, E, &Instance::allocAt, allocStart, allocOrder);
    bucket(instances, E, &Instance::firstAllocAt, firstStart, firstOrder);
    bucket(instances, E, &Instance::freeAt, freeStart, freeOrder);

    out.reserve(out.size() + static_cast<std::size_t>(nextId) * 2 * static_cast<std::size_t>(steps));
    // An instance's tensors, in the order of its runs; one id each. Freed in
    // the order they were made (a foreach op's outputs die with their list).
    auto allocate = [&](const Instance& i) {
        if (i.pieceBegin == i.pieceEnd) {
            out.push_back({AllocatorEvent::Kind::Alloc, i.firstId, i.bytes});
            return;
        }
        std::uint32_t id = i.firstId;
        for (std::uint32_t p = i.pieceBegin; p < i.pieceEnd; ++p)
            for (std::uint64_t c = 0; c < plan.pieces[p].count; ++c)
                out.push_back({AllocatorEvent::Kind::Alloc, id++, plan.pieces[p].bytes});
    };
    auto release = [&](const Instance& i) {
        std::uint32_t id = i.firstId;
        for (std::uint32_t p = i.pieceBegin; p < i.pieceEnd; ++p)
            for (std::uint64_t c = 0; c < plan.pieces[p].count; ++c)
                out.push_back({AllocatorEvent::Kind::Free, id++, 0});
        if (i.pieceBegin == i.pieceEnd)
            out.push_back({AllocatorEvent::Kind::Free, i.firstId, 0});
    };
    auto freesAfter = [&](std::size_t event) {
        for (std::uint32_t k = freeStart[event]; k < freeStart[event + 1]; ++k) {
            const Instance& i = instances[freeOrder[k]];
            if (!i.persistent)
                release(i);
        }
    };
    for (int step = 0; step < steps; ++step) {
        for (std::size_t e = 0; e < E; ++e) {
            if (labels)
                labels->marks.push_back({out.size(), step, e});
            if (e > 0)
                freesAfter(e - 1);
            else if (step > 0)
                freesAfter(E - 1);
            // The first step makes everything, lazy rows where they are made;
            // later steps what does not persist.
            const std::vector<std::uint32_t>& begin = step == 0 ? firstStart : allocStart;
            const std::vector<std::uint32_t>& order = step == 0 ? firstOrder : allocOrder;
            for (std::uint32_t k = begin[e]; k < begin[e + 1]; ++k) {
                const Instance& i = instances[order[k]];
                if (step == 0 || !i.persistent)
                    allocate(i);
            }
        }
    }
    freesAfter(E - 1);
}

std::vector<AllocatorEvent> allocatorStream(const Plan& plan, int steps)
{
    std::vector<AllocatorEvent> out;
    appendAllocatorStream(plan, steps, out);
    return out;
}

} // namespace headroom
