// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/sweep.h"

#include "plan/allocatorstream.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>

namespace headroom {

std::vector<Event> buildEvents(Mode mode, std::uint64_t layers)
{
    const auto L = static_cast<std::int32_t>(layers);
    std::vector<Event> events;
    events.reserve(2 * layers + 8);
    events.push_back({Phase::Load, -1});
    events.push_back({Phase::EmbedFwd, -1});
    for (std::int32_t l = 0; l < L; ++l)
        events.push_back({Phase::LayerFwd, l});
    events.push_back({Phase::HeadFwd, -1});
    if (mode == Mode::Inference) {
        events.push_back({Phase::Decode, -1});
        return events;
    }
    events.push_back({Phase::LossFwd, -1});
    events.push_back({Phase::LossBwd, -1});
    events.push_back({Phase::HeadBwd, -1});
    for (std::int32_t l = L - 1; l >= 0; --l)
        events.push_back({Phase::LayerBwd, l});
    events.push_back({Phase::EmbedBwd, -1});
    events.push_back({Phase::OptimizerStep, -1});
    return events;
}

Bytes allocatorBlockBytes(Bytes request)
{
    if (request == 0)
        return 0;
    constexpr Bytes kMinBlock = 512;
    constexpr Bytes kLargeAlone = 10 * MiB;
    constexpr Bytes kRoundLarge = 2 * MiB;
    return request > kLargeAlone ? roundUp(request, kRoundLarge) : roundUp(request, kMinBlock);
}

bool inLayerSet(LayerSet set, std::uint64_t layer, std::uint64_t checkpointEvery, std::uint64_t slidingPeriod)
{
    const bool checkpointed = checkpointEvery != 0 && layer % checkpointEvery == 0;
    switch (set) {
    case LayerSet::Global: return false;
    case LayerSet::All: return true;
    case LayerSet::Checkpointed: return checkpointed;
    case LayerSet::Plain: return !checkpointed;
    case LayerSet::SlidingPlain: return !checkpointed && (slidingPeriod == 0 || layer % slidingPeriod != slidingPeriod - 1);
    }
    return false;
}

bool rowOnLayer(const TensorRow& row, std::uint64_t layer, const Plan& plan)
{
    if (!inLayerSet(row.layers, layer, plan.checkpointEvery, plan.slidingPeriod))
        return false;
    switch (row.band) {
    case LayerBand::Every: return true;
    case LayerBand::Dense: return plan.isDenseLayer(layer);
    case LayerBand::Sparse: return !plan.isDenseLayer(layer);
    }
    return false;
}

namespace {

std::uint64_t layerCount(LayerSet set, std::uint64_t layers, std::uint64_t checkpointEvery, std::uint64_t slidingPeriod = 0)
{
    if (set == LayerSet::Global)
        return 1;
    if (set == LayerSet::SlidingPlain) {
        std::uint64_t count = 0;
        for (std::uint64_t l = 0; l < layers; ++l)
            count += inLayerSet(set, l, checkpointEvery, slidingPeriod) ? 1 : 0;
        return count;
    }
    if (set == LayerSet::All)
        return layers;
    const std::uint64_t checkpointed = checkpointEvery == 0 ? 0 : ceilDiv(layers, checkpointEvery);
    return set == LayerSet::Checkpointed ? checkpointed : layers - checkpointed;
}


} // namespace

std::uint64_t instanceCount(const TensorRow& row, std::uint64_t layers, std::uint64_t checkpointEvery,
                            std::uint64_t slidingPeriod)
{
    return layerCount(row.layers, layers, checkpointEvery, slidingPeriod);
}

std::uint64_t instanceCount(const TensorRow& row, const Plan& plan)
{
    if (row.layers == LayerSet::Global || row.band == LayerBand::Every)
        return instanceCount(row, plan.layers, plan.checkpointEvery, plan.slidingPeriod);
    // Dense first layers (no denseLayerIds): the band is the run [0, D) or
    // [D, L), and the checkpointed layers in it the multiples of k.
    const std::uint64_t k = plan.checkpointEvery, L = plan.layers;
    if (plan.denseLayerIds.empty() && row.layers != LayerSet::SlidingPlain) {
        const std::uint64_t dense = std::min<std::uint64_t>(plan.denseLayers, L);
        const std::uint64_t lo = row.band == LayerBand::Dense ? 0 : dense;
        const std::uint64_t hi = row.band == LayerBand::Dense ? dense : L;
        const std::uint64_t checkpointed = k == 0 ? 0 : (hi + k - 1) / k - (lo + k - 1) / k;
        switch (row.layers) {
        case LayerSet::All: return hi - lo;
        case LayerSet::Checkpointed: return checkpointed;
        case LayerSet::Plain: return hi - lo - checkpointed;
        default: break;
        }
    }
    std::uint64_t count = 0;
    for (std::uint64_t l = 0; l < plan.layers; ++l)
        count += rowOnLayer(row, l, plan) ? 1 : 0;
    return count;
}

namespace {

struct Delta {
    // Lanes 0-7: bytes per category; then managed bytes and allocator-rounded bytes.
    static constexpr std::size_t kLanes = kCategoryCount + 2, kManaged = kCategoryCount, kRounded = kCategoryCount + 1;
    std::array<Bytes, kLanes> lane{};
    void add(Category c, Bytes b, Bytes m, Bytes r, bool negative)
    {
        lane[static_cast<std::size_t>(c)] += negative ? 0 - b : b;
        lane[kManaged] += negative ? 0 - m : m;
        lane[kRounded] += negative ? 0 - r : r;
    }
};

// Lane-wise sum in place. Separate arrays (never the same Delta), which lets
// the compiler add two lanes per SIMD instruction.
inline void addLanes(Delta& __restrict to, const Delta& __restrict from)
{
    for (std::size_t c = 0; c < Delta::kLanes; ++c)
        to.lane[c] += from.lane[c];
}

} // namespace

Result<bool> sweepPlan(Plan& plan, Mode mode, const RuntimeProfile& profile, bool estimateReserved,
                       Bytes allocatorCapacity)
{
    const std::uint64_t L = plan.layers;
    plan.events = buildEvents(mode, L);
    const std::size_t E = plan.events.size();

    // Everything below adds and subtracts plain 64-bit numbers: first make
    // sure no sum can wrap around.
    UInt128 grandTotal = 0;
    for (const TensorRow& row : plan.tensors)
        grandTotal += static_cast<UInt128>(row.bytes) * instanceCount(row, plan);
    if (grandTotal >= (static_cast<UInt128>(1) << 62))
        return makeError(ErrorCode::Overflow, "the scenario's tensors add up to more than 4 EiB");

    // Difference arrays over events: +bytes at the allocating event, -bytes
    // after the freeing one. Per category, plus the managed bytes and the
    // allocator-rounded bytes.
    // Scratch reused across plans on this thread: a fit search makes dozens.
    // Range updates for rows repeated on every layer go to `ranged`, a
    // difference array of the difference array, so a row costs O(1) whatever
    // the depth; rows on every k-th layer go to `strided`, a difference array
    // with step k.
    const std::size_t slots = E + 2 + (plan.checkpointEvery > 1 ? plan.checkpointEvery : 0);
    thread_local std::vector<Delta> diff, ranged, strided;
    for (auto* scratch : {&diff, &ranged, &strided}) {
        if (scratch == &strided && plan.checkpointEvery <= 1)
            continue;  // only every-k checkpointing fills it
        if (scratch->size() < slots)
            scratch->resize(slots);
        // Delta is plain integers: one memset is far cheaper than
        // assigning element by element (the sweep is most of a plan's time).
        std::memset(static_cast<void*>(scratch->data()), 0, slots * sizeof(Delta));
    }
    // Per-layer rows. A constant phase (load, optimizer step) takes all
    // instances at one event; a per-layer phase takes one instance at each
    // event of an arithmetic progression: step 1 for every layer, step k for
    // every k-th layer. "Kept" layers are every layer minus those. The
    // progressions' first and last events depend only on the phase and the
    // step, so they are worked out once here, not per row.
    const std::uint64_t k = plan.checkpointEvery;
    const std::uint64_t lastCheckpointed = k == 0 ? 0 : (L - 1) / k * k;
    const std::uint64_t checkpointedLayers = layerCount(LayerSet::Checkpointed, L, k);
    struct Span {
        std::size_t lo, hi;
    };
    auto span = [&](Phase phase, std::uint64_t firstLayer, std::uint64_t lastLayer) {
        const std::size_t a = eventIndex(mode, phase, static_cast<std::int64_t>(firstLayer), L);
        const std::size_t b = eventIndex(mode, phase, static_cast<std::int64_t>(lastLayer), L);
        return Span{std::min(a, b), std::max(a, b)};
    };
    // [forward, backward] x [every layer, every k-th layer]
    const Span spans[2][2] = {{span(Phase::LayerFwd, 0, L - 1), span(Phase::LayerFwd, 0, lastCheckpointed)},
                              {span(Phase::LayerBwd, 0, L - 1), span(Phase::LayerBwd, 0, lastCheckpointed)}};
    for (const TensorRow& row : plan.tensors) {
        if (row.bytes == 0)
            continue;
        const Bytes rounded = profile.allocatorRounding ? allocatorBlockBytes(row.bytes) : row.bytes;
        const Bytes b = row.bytes, m = row.managed ? b : 0, r = row.managed ? 0 : rounded;
        const auto category = row.category;
        if (row.layers == LayerSet::Global) {
            diff[madeAtIndex(mode, row, -1, L)].add(category, b, m, r, false);
            diff[eventIndex(mode, row.freeAt, -1, L) + 1].add(category, b, m, r, true);
            continue;
        }
        // Adds (or, for `subtract`, removes) one instance on every layer of
        // the set: every layer when stepping by 1, else every k-th. `run`:
        // the [forward, backward] spans of a run of layers stepped by 1 (a
        // band's), instead of every layer's.
        auto progression = [&](bool everyLayer, std::uint64_t count, bool subtract, const Span* run = nullptr) {
            for (int end = 0; end < 2; ++end) {
                const bool free = end == 1;
                const Phase phase = free ? row.freeAt : row.allocAt;
                const bool negative = free != subtract;
                // A free takes effect after its event, as does a made-at-end row's allocation.
                const std::size_t shift = free || row.madeAtEventEnd ? 1 : 0;
                if (phase != Phase::LayerFwd && phase != Phase::LayerBwd) {
                    const std::size_t at = eventIndex(mode, phase, -1, L) + shift;
                    diff[at].add(category, b * count, m * count, r * count, negative);
                    continue;
                }
                const std::size_t backward = phase == Phase::LayerBwd ? 1 : 0;
                const Span& sp = run ? run[backward] : spans[backward][everyLayer ? 0 : 1];
                auto& target = everyLayer ? ranged : strided;
                target[sp.lo + shift].add(category, b, m, r, negative);
                target[sp.hi + shift + (everyLayer ? 1 : k)].add(category, b, m, r, !negative);
            }
        };
        // A row of some layers only (LayerBand). Dense first layers
        // (DeepSeek-V3's, no denseLayerIds) make each band one run of
        // layers, [0, D) or [D, L): a row on every layer of its run is one
        // progression over the run. Otherwise placed layer by layer, as the
        // sliding-window rows below.
        const bool everyLayerOfSet = row.layers == LayerSet::All || (row.layers == LayerSet::Checkpointed && k == 1) ||
                                     (row.layers == LayerSet::Plain && k == 0);
        if (row.band != LayerBand::Every && plan.denseLayerIds.empty() && everyLayerOfSet) {
            const std::uint64_t dense = std::min<std::uint64_t>(plan.denseLayers, L);
            const std::uint64_t lo = row.band == LayerBand::Dense ? 0 : dense;
            const std::uint64_t hi = row.band == LayerBand::Dense ? dense : L;
            if (lo < hi) {
                const Span run[2] = {span(Phase::LayerFwd, lo, hi - 1), span(Phase::LayerBwd, lo, hi - 1)};
                progression(true, hi - lo, false, run);
            }
            continue;
        }
        if (row.band != LayerBand::Every) {
            for (std::uint64_t l = 0; l < L; ++l) {
                if (!rowOnLayer(row, l, plan))
                    continue;
                const auto layer = static_cast<std::int64_t>(l);
                diff[madeAtIndex(mode, row, layer, L)].add(category, b, m, r, false);
                diff[eventIndex(mode, row.freeAt, layer, L) + 1].add(category, b, m, r, true);
            }
            continue;
        }
        switch (row.layers) {
        case LayerSet::Global: break;
        case LayerSet::All: progression(true, L, false); break;
        case LayerSet::Checkpointed:
            if (checkpointedLayers != 0)
                progression(k == 1, checkpointedLayers, false);
            break;
        case LayerSet::Plain:
            progression(true, L, false);
            if (checkpointedLayers != 0)
                progression(k == 1, checkpointedLayers, true);
            break;
        case LayerSet::SlidingPlain:
            // Two patterns at once (checkpointing every k, full attention every
            // P): placed layer by layer, O(L) for the few rows that use it.
            for (std::uint64_t l = 0; l < L; ++l) {
                if (!inLayerSet(row.layers, l, k, plan.slidingPeriod))
                    continue;
                const auto layer = static_cast<std::int64_t>(l);
                diff[madeAtIndex(mode, row, layer, L)].add(category, b, m, r, false);
                diff[eventIndex(mode, row.freeAt, layer, L) + 1].add(category, b, m, r, true);
            }
            break;
        }
    }
    // First pass, lanes only (no calls, so the compiler keeps it in SIMD
    // registers): the running sum `carry` of the ranged array is a first-order
    // difference; the strided array becomes first-order differences by a
    // prefix sum with step k; `running` sums all first-order differences into
    // the live bytes per event, written back over `diff`.
    {
        Delta carry, running;
        for (std::size_t e = 0; e < E; ++e) {
            addLanes(carry, ranged[e]);
            addLanes(running, diff[e]);
            addLanes(running, carry);
            if (k > 1) {
                if (e >= k)
                    addLanes(strided[e], strided[e - k]);
                addLanes(running, strided[e]);
            }
            diff[e] = running;
        }
    }
    // Second pass: the timeline, its peak, and the allocator counters.
    // Appended as it goes: resize() would zero every entry first.
    std::vector<CategoryBytes>& timeline = plan.timeline;
    timeline.clear();
    timeline.reserve(E);
    Bytes peak = 0, peakAllocated = 0, roundedPeak = 0, managedAtRoundedPeak = 0;
    std::size_t peakEvent = 0;
    for (std::size_t e = 0; e < E; ++e) {
        const Delta& live = diff[e];
        CategoryBytes now;  // every entry written below
        Bytes total = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            now[c] = live.lane[c];
            total += live.lane[c];
        }
        timeline.push_back(now);
        const Bytes managedNow = live.lane[Delta::kManaged], roundedNow = live.lane[Delta::kRounded];
        if (total > peak) {
            peak = total;
            peakEvent = e;
        }
        peakAllocated = std::max(peakAllocated, total - managedNow);
        if (roundedNow + managedNow > roundedPeak + managedAtRoundedPeak) {
            roundedPeak = roundedNow;
            managedAtRoundedPeak = managedNow;
        }
    }
    plan.peakBytes = peak;
    plan.peakEvent = peakEvent;
    plan.peakAllocatedBytes = peakAllocated;
    plan.breakdown = plan.timeline[plan.peakEvent];

    // Reserved. PyTorch's caching allocator: simulate it over the table's
    // allocations and frees for two steps (the second starts with the first
    // one's cache; max_memory_reserved() after it is what users read), see
    // allocatorstream.h for the order. An exact allocator holds the live bytes.
    plan.reservedSimulated = true;
    if (profile.allocatorRounding && estimateReserved) {
        // The quick estimate: the largest rounded live set plus a share of
        // what comes and goes (cached blocks later requests cannot reuse).
        Bytes persistent = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            persistent += plan.timeline[0][c];
        const Bytes churn = roundedPeak > persistent ? roundedPeak - persistent : 0;
        const auto cached = static_cast<Bytes>(static_cast<double>(churn) * kEstimatedFragmentation);
        plan.peakReservedBytes = std::max(satAdd(roundedPeak, cached), plan.peakAllocatedBytes);
        plan.allocatorSegments = 0;
        plan.reservedSimulated = false;
    } else if (profile.allocatorRounding) {
        thread_local std::vector<AllocatorEvent> stream;
        thread_local CachingAllocatorSim allocator;
        stream.clear();
        appendAllocatorStream(plan, kAllocatorSteps, stream);
        CachingAllocatorOptions options = profile.allocator;
        options.capacityBytes = allocatorCapacity;
        options.pastCapacity = true;
        allocator.reset(options);
        for (const AllocatorEvent& e : stream)
            allocator.apply(e); // pastCapacity: never fails
        plan.peakReservedBytes = std::max(allocator.stats().peakReservedBytes, plan.peakAllocatedBytes);
        plan.allocatorSegments = allocator.stats().peakSegments;
    } else {
        plan.peakReservedBytes = std::max(roundedPeak, plan.peakAllocatedBytes);
        plan.allocatorSegments = 0;
    }
    plan.allocatorCacheBytes = plan.peakReservedBytes - plan.peakAllocatedBytes;
    plan.contextBytes = profile.contextBytes;
    plan.deviceUsedBytes = plan.peakReservedBytes + managedAtRoundedPeak + plan.contextBytes;
    return true;
}

std::vector<CategoryBytes> referenceTimeline(const Plan& plan, Mode mode)
{
    const std::uint64_t L = plan.layers;
    const std::size_t E = buildEvents(mode, L).size();
    std::vector<CategoryBytes> timeline(E, CategoryBytes{});
    for (const TensorRow& row : plan.tensors) {
        const auto c = static_cast<std::size_t>(row.category);
        auto place = [&](std::int64_t layer) {
            const std::size_t from = madeAtIndex(mode, row, layer, L), to = eventIndex(mode, row.freeAt, layer, L);
            for (std::size_t e = from; e <= to; ++e)
                timeline[e][c] += row.bytes;
        };
        if (row.layers == LayerSet::Global) {
            place(-1);
            continue;
        }
        for (std::uint64_t l = 0; l < L; ++l)
            if (rowOnLayer(row, l, plan))
                place(static_cast<std::int64_t>(l));
    }
    return timeline;
}

} // namespace headroom
