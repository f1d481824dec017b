// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/tensorlifetime.h"

#include "plan/sweep.h"

namespace headroom {

Mode planMode(const Plan& plan)
{
    return !plan.events.empty() && plan.events.back().phase == Phase::Decode ? Mode::Inference : Mode::Train;
}

std::uint64_t rowInstances(const Plan& plan, const TensorRow& row)
{
    if (row.layers == LayerSet::Global)
        return 1;
    std::uint64_t count = 0;
    for (std::uint64_t l = 0; l < plan.layers; ++l)
        count += rowOnLayer(row, l, plan) ? 1 : 0;
    return count;
}

std::uint64_t rowInstancesLiveAt(const Plan& plan, const TensorRow& row, std::size_t event)
{
    if (event >= plan.events.size())
        return 0;
    const Mode mode = planMode(plan);
    auto liveFor = [&](std::int64_t layer) {
        return madeAtIndex(mode, row, layer, plan.layers) <= event &&
               event <= eventIndex(mode, row.freeAt, layer, plan.layers);
    };
    if (row.layers == LayerSet::Global)
        return liveFor(-1) ? 1 : 0;
    // O(layers) per row: a front end asks for one category's rows at a time.
    std::uint64_t live = 0;
    for (std::uint64_t l = 0; l < plan.layers; ++l)
        if (rowOnLayer(row, l, plan) && liveFor(static_cast<std::int64_t>(l)))
            ++live;
    return live;
}

Bytes rowBytesLiveAt(const Plan& plan, const TensorRow& row, std::size_t event)
{
    return satMul(row.bytes, rowInstancesLiveAt(plan, row, event));
}

} // namespace headroom
