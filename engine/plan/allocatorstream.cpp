// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/allocatorstream.h"

#include "plan/sweep.h"
#include "plan/tensorlifetime.h"

namespace headroom {

namespace {

bool inLayerSet(LayerSet set, std::uint64_t layer, std::uint64_t checkpointEvery)
{
    const bool checkpointed = checkpointEvery != 0 && layer % checkpointEvery == 0;
    switch (set) {
    case LayerSet::Global: return false;
    case LayerSet::All: return true;
    case LayerSet::Checkpointed: return checkpointed;
    case LayerSet::Plain: return !checkpointed;
    }
    return false;
}

struct Instance {
    std::uint32_t allocAt, freeAt; // event indices
    Bytes bytes;
    bool persistent;
};

// Instance numbers bucketed by event, in instance order (a counting sort).
void bucket(const std::vector<Instance>& instances, std::size_t events, bool byFree, std::vector<std::uint32_t>& start,
            std::vector<std::uint32_t>& order)
{
    start.assign(events + 1, 0);
    for (const Instance& i : instances)
        ++start[(byFree ? i.freeAt : i.allocAt) + 1];
    for (std::size_t e = 0; e < events; ++e)
        start[e + 1] += start[e];
    order.resize(instances.size());
    std::vector<std::uint32_t>& next = order; // filled through a cursor per event
    thread_local std::vector<std::uint32_t> cursor;
    cursor.assign(start.begin(), start.end() - 1);
    for (std::uint32_t n = 0; n < instances.size(); ++n) {
        const Instance& i = instances[n];
        next[cursor[byFree ? i.freeAt : i.allocAt]++] = n;
    }
}

} // namespace

void appendAllocatorStream(const Plan& plan, int steps, std::vector<AllocatorEvent>& out)
{
    const Mode mode = planMode(plan);
    const std::uint64_t L = plan.layers;
    const std::size_t E = plan.events.size();
    if (E == 0 || steps <= 0)
        return;
    thread_local std::vector<Instance> instances;
    thread_local std::vector<std::uint32_t> allocStart, allocOrder, freeStart, freeOrder;
    instances.clear();
    for (const TensorRow& row : plan.tensors) {
        if (row.managed || row.bytes == 0)
            continue;
        auto add = [&](std::int64_t layer) {
            const auto from = static_cast<std::uint32_t>(eventIndex(mode, row.allocAt, layer, L));
            const auto to = static_cast<std::uint32_t>(eventIndex(mode, row.freeAt, layer, L));
            instances.push_back({from, to, row.bytes, from == 0 && to == E - 1});
        };
        if (row.layers == LayerSet::Global) {
            add(-1);
            continue;
        }
        for (std::uint64_t l = 0; l < L; ++l)
            if (inLayerSet(row.layers, l, plan.checkpointEvery))
                add(static_cast<std::int64_t>(l));
    }
    bucket(instances, E, false, allocStart, allocOrder);
    bucket(instances, E, true, freeStart, freeOrder);

    out.reserve(out.size() + instances.size() * 2 * static_cast<std::size_t>(steps));
    auto freesAfter = [&](std::size_t event) {
        for (std::uint32_t k = freeStart[event]; k < freeStart[event + 1]; ++k) {
            const std::uint32_t n = freeOrder[k];
            if (!instances[n].persistent)
                out.push_back({AllocatorEvent::Kind::Free, n, 0});
        }
    };
    for (int step = 0; step < steps; ++step) {
        for (std::size_t e = 0; e < E; ++e) {
            if (e > 0)
                freesAfter(e - 1);
            else if (step > 0)
                freesAfter(E - 1);
            for (std::uint32_t k = allocStart[e]; k < allocStart[e + 1]; ++k) {
                const std::uint32_t n = allocOrder[k];
                if (step == 0 || !instances[n].persistent)
                    out.push_back({AllocatorEvent::Kind::Alloc, n, instances[n].bytes});
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
