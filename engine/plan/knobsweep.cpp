// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/knobsweep.h"

#include "plan/planner.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace headroom {

namespace {

constexpr std::size_t kMaxPoints = 64;
constexpr std::uint64_t kBatchCeiling = 4096;
constexpr std::uint64_t kSequenceCeiling = 1u << 22;

std::uint64_t& knob(Scenario& s, SweepAxis axis)
{
    if (axis == SweepAxis::MicroBatch)
        return s.mode == Mode::Train ? s.train.microBatch : s.inference.batch;
    return s.mode == Mode::Train ? s.train.seqLen : s.inference.promptTokens;
}

// Up to kMaxPoints values from 1 to `top`, evenly spaced, always including
// the scenario's own value and the largest that fits, so both are exact.
std::vector<std::uint64_t> sampleValues(std::uint64_t top, std::uint64_t current, std::uint64_t fitting)
{
    std::set<std::uint64_t> values{current};
    if (fitting > 0)
        values.insert(fitting);
    if (top <= kMaxPoints) {
        for (std::uint64_t v = 1; v <= top; ++v)
            values.insert(v);
    } else {
        for (std::size_t i = 0; i < kMaxPoints; ++i)
            values.insert(std::max<std::uint64_t>(
                1, static_cast<std::uint64_t>(std::llround(static_cast<double>(top) * static_cast<double>(i + 1) / kMaxPoints))));
    }
    return {values.begin(), values.end()};
}

} // namespace

SweepResult computeSweep(const Scenario& scenario, SweepAxis axis)
{
    SweepResult result;
    result.axis = axis;
    result.mode = scenario.mode;
    Scenario s = scenario;
    result.current = knob(s, axis);
    const ParameterTable table = buildParameterTable(s.model);
    auto own = makePlan(s, table);
    // The other points vary the micro-batch: the global batch (a check only,
    // plan/parallel.h) would refuse them. It changes no byte of a plan.
    s.train.globalBatch = 0;
    if (!own) {
        result.error = own.error();
        return result;
    }
    result.capacityBytes = own->capacityBytes;

    const std::uint64_t ceiling = axis == SweepAxis::MicroBatch ? kBatchCeiling : kSequenceCeiling;
    auto fit = axis == SweepAxis::MicroBatch ? largestMicroBatch(s, ceiling) : longestSequence(s, ceiling);
    std::uint64_t fitting = 0;
    if (fit) {
        result.largestFitting = fit.value();
        fitting = fit->found ? fit->value : 0;
    }
    // Show the current value, the fit boundary and a stretch beyond it.
    const std::uint64_t floor = axis == SweepAxis::MicroBatch ? 8 : 4096;
    const std::uint64_t top = std::min(ceiling, std::max({floor, 2 * result.current, fitting + fitting / 4 + 1}));
    for (std::uint64_t value : sampleValues(top, result.current, fitting)) {
        knob(s, axis) = value;
        auto plan = makePlan(s, table);
        if (!plan)
            break;  // too large to plan (overflow): the series ends here
        result.points.push_back({value, plan->breakdown, plan->deviceUsedBytes, plan->fits});
    }
    return result;
}

namespace {

// `size` values (fewer when `top` is small) at a step that is a multiple of
// `granule`, reaching `top`; top 0: size values at step `defaultStep`.
std::vector<std::uint64_t> mapAxis(std::size_t size, std::uint64_t top, std::uint64_t granule, std::uint64_t defaultStep)
{
    std::uint64_t step = defaultStep;
    std::size_t count = size;
    if (top > 0) {
        const std::uint64_t perCell = (top + size - 1) / size;
        step = std::max<std::uint64_t>(granule, (perCell + granule - 1) / granule * granule);
        count = static_cast<std::size_t>(std::min<std::uint64_t>(size, (top + step - 1) / step));
    }
    std::vector<std::uint64_t> values;
    for (std::size_t i = 1; i <= count; ++i)
        values.push_back(i * step);
    return values;
}

} // namespace

FitMap computeFitMap(const Scenario& scenario, std::size_t size, std::uint64_t batchTop, std::uint64_t sequenceTop,
                     const FitMapProgress& progress)
{
    // Sequence steps of 256 tokens (64 when fitted to a range): the
    // granularity people choose lengths at, our choice.
    constexpr std::uint64_t kSequenceStep = 256;
    constexpr std::uint64_t kSequenceGranule = 64;
    FitMap map;
    Scenario s = scenario;
    s.train.globalBatch = 0;  // as computeSweep: the map varies the micro-batch
    map.currentBatch = knob(s, SweepAxis::MicroBatch);
    map.currentSequence = knob(s, SweepAxis::SequenceLength);
    const ParameterTable table = buildParameterTable(s.model);
    if (auto own = makePlan(s, table); !own) {
        map.error = own.error();
        return map;
    }
    map.batches = mapAxis(size, batchTop, 1, 1);
    map.sequences = mapAxis(size, sequenceTop, kSequenceGranule, kSequenceStep);
    const std::size_t columns = map.batches.size(), rows = map.sequences.size();
    const std::size_t cells = columns * rows;
    map.fits.assign(cells, 0);
    map.deviceUsedBytes.assign(cells, 0);
    map.simulated.assign(cells, 0);
    if (cells == 0)
        return map;
    auto at = [&](std::size_t cell) -> Scenario& {
        knob(s, SweepAxis::SequenceLength) = map.sequences[cell / columns];
        knob(s, SweepAxis::MicroBatch) = map.batches[cell % columns];
        return s;
    };
    // 1. Every cell with the quick estimate. A cell that does not plan (too
    // large: overflow) fails the same way with the simulation, and a profile
    // without the caching allocator has nothing to simulate: both are final.
    PlanOptions estimate;
    estimate.estimateReserved = true;
    Bytes capacity = 0;
    for (std::size_t row = 0; row < rows; ++row) {
        for (std::size_t col = 0; col < columns; ++col) {
            const std::size_t cell = row * columns + col;
            auto plan = makePlan(at(cell), table, estimate);
            if (!plan) {
                map.simulated[cell] = 1;
                continue;  // too large to plan (overflow): does not fit
            }
            capacity = plan->capacityBytes;
            map.fits[cell] = plan->fits ? 1 : 0;
            map.deviceUsedBytes[cell] = plan->deviceUsedBytes;
            map.simulated[cell] = plan->reservedSimulated ? 1 : 0;
        }
        // The last row is reported once the simulated cells are done.
        if (progress && !progress(row, rows)) {
            map.cancelled = true;
            return map;
        }
    }

    // 2. The simulation where the verdict could differ (plan/knobsweep.h).
    std::vector<std::size_t> queue;
    std::vector<std::uint8_t> queued(cells, 0);
    auto push = [&](std::size_t cell) {
        if (!map.simulated[cell] && !queued[cell]) {
            queued[cell] = 1;
            queue.push_back(cell);
        }
    };
    auto neighbours = [&](std::size_t cell, auto&& visit) {
        const std::size_t row = cell / columns, col = cell % columns;
        if (col > 0)
            visit(cell - 1);
        if (col + 1 < columns)
            visit(cell + 1);
        if (row > 0)
            visit(cell - columns);
        if (row + 1 < rows)
            visit(cell + columns);
    };
    // Cells next to a change of verdict, both of them.
    auto pushBoundary = [&] {
        for (std::size_t cell = 0; cell < cells; ++cell) {
            const std::size_t col = cell % columns;
            if (col + 1 < columns && map.fits[cell] != map.fits[cell + 1]) {
                push(cell);
                push(cell + 1);
            }
            if (cell + columns < cells && map.fits[cell] != map.fits[cell + columns]) {
                push(cell);
                push(cell + columns);
            }
        }
    };
    for (std::size_t corner : {std::size_t{0}, columns - 1, cells - columns, cells - 1})
        push(corner);
    const double cap = static_cast<double>(capacity);
    for (std::size_t cell = 0; cell < cells; ++cell) {
        const auto used = static_cast<double>(map.deviceUsedBytes[cell]);
        if (used > 0 && used * kSimulatedOverEstimateMax > cap && used * kSimulatedOverEstimateMin <= cap)
            push(cell);
    }
    pushBoundary();
    while (!queue.empty()) {
        for (std::size_t next = 0; next < queue.size(); ++next) {
            const std::size_t cell = queue[next];
            auto plan = makePlan(at(cell), table);
            map.simulated[cell] = 1;
            ++map.simulatedCells;
            if (!plan) {  // not expected: it planned with the estimate
                map.fits[cell] = 0;
                map.deviceUsedBytes[cell] = 0;
                continue;
            }
            const std::uint8_t fits = plan->fits ? 1 : 0;
            if (fits != map.fits[cell])
                neighbours(cell, push);  // the estimate was wrong here: look around
            map.fits[cell] = fits;
            map.deviceUsedBytes[cell] = plan->deviceUsedBytes;
            if (progress && next % 64 == 63 && !progress(rows - 1, rows)) {
                map.cancelled = true;
                return map;
            }
        }
        queue.clear();
        pushBoundary();
    }
    if (progress && !progress(rows, rows))
        map.cancelled = true;
    return map;
}

} // namespace headroom
