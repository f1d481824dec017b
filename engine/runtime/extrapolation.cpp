// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/extrapolation.h"

#include "plan/sweep.h"

#include <algorithm>
#include <cmath>

namespace headroom::rt {

namespace {

bool sameKind(const EventKind& a, const EventKind& b) { return a.phase == b.phase && a.layer == b.layer; }

std::string kindLabel(const EventKind& k)
{
    if (!k.layer)
        return eventLabel(Event{k.phase, -1});
    return k.phase == Phase::LayerFwd ? "forward (the fullest layer)" : "backward (the fullest layer)";
}

// a + b·L through (l1, v1) and (l2, v2), at L; never below zero. Exact in
// integers when the values are affine in L (the slope divides evenly).
Bytes line(double l1, double v1, double l2, double v2, double L)
{
    const double slope = (v2 - v1) / (l2 - l1);
    const double value = v1 + slope * (L - l1);
    return value <= 0 ? 0 : static_cast<Bytes>(std::llround(value));
}

} // namespace

std::vector<KindBytes> bytesByKind(const Measurement& m, std::uint64_t layers)
{
    const std::vector<Event> events = buildEvents(Mode::Train, layers);
    std::vector<KindBytes> kinds;
    for (std::size_t e = 0; e < events.size() && e < m.eventBytes.size(); ++e) {
        if (e < m.eventSeen.size() && !m.eventSeen[e])
            continue;
        const bool layer = events[e].phase == Phase::LayerFwd || events[e].phase == Phase::LayerBwd;
        const EventKind kind{events[e].phase, layer};
        auto it = std::find_if(kinds.begin(), kinds.end(), [&](const KindBytes& k) { return sameKind(k.kind, kind); });
        if (it == kinds.end()) {
            kinds.push_back({kind, m.eventBytes[e]});
            continue;
        }
        if (categoryTotal(m.eventBytes[e]) > categoryTotal(it->bytes))
            it->bytes = m.eventBytes[e];
    }
    return kinds;
}

Measurement extrapolate(const Measurement& small, std::uint64_t smallLayers, const Measurement& large,
                        std::uint64_t largeLayers, std::uint64_t fullLayers, Extrapolation& info)
{
    info.used = true;
    info.fullLayers = fullLayers;
    info.smallLayers = smallLayers;
    info.largeLayers = largeLayers;
    info.small = small;
    info.large = large;
    Measurement out;
    out.device = large.device;
    out.status = small.status != "ok" ? small.status : large.status;
    out.message = small.status != "ok" ? small.message : large.message;
    if (out.status != "ok")
        return out;
    const auto l1 = double(smallLayers), l2 = double(largeLayers), L = double(fullLayers);
    const auto a = bytesByKind(small, smallLayers), b = bytesByKind(large, largeLayers);
    for (const KindBytes& ka : a) {
        auto kb = std::find_if(b.begin(), b.end(), [&](const KindBytes& k) { return sameKind(k.kind, ka.kind); });
        if (kb == b.end())
            continue;
        CategoryBytes c{};
        for (std::size_t i = 0; i < kCategoryCount; ++i)
            c[i] = line(l1, double(ka.bytes[i]), l2, double(kb->bytes[i]), L);
        if (categoryTotal(c) > info.peakBytes) {
            info.peakBytes = categoryTotal(c);
            info.peakCategories = c;
            info.peakKind = kindLabel(ka.kind);
        }
    }
    out.peakBytes = info.peakBytes;
    out.peakCategories = info.peakCategories;
    out.peakEvent = static_cast<std::size_t>(-1); // no event of the full model ran
    // Step time grows by a fixed time per layer too (each layer's forward and backward).
    out.stepSeconds = std::max(0.0, small.stepSeconds + (large.stepSeconds - small.stepSeconds) / (l2 - l1) * (L - l1));
    const double tokensPerStep = small.stepSeconds > 0 ? small.tokensPerSecond * small.stepSeconds : 0;
    out.tokensPerSecond = out.stepSeconds > 0 ? tokensPerStep / out.stepSeconds : 0;
    if (large.deviceLevel.present && small.deviceLevel.present) {
        out.deviceLevel = large.deviceLevel;
        out.deviceLevel.usedPeakBytes =
            line(l1, double(small.deviceLevel.usedPeakBytes), l2, double(large.deviceLevel.usedPeakBytes), L);
        out.deviceLevel.eventUsedBytes.clear();
        // The block pool's peaks grow by a fixed amount per layer as well; its
        // call counts are the large run's.
        const DeviceMeasurement &few = small.deviceLevel, &more = large.deviceLevel;
        out.deviceLevel.poolReservedPeakBytes =
            line(l1, double(few.poolReservedPeakBytes), l2, double(more.poolReservedPeakBytes), L);
        out.deviceLevel.poolAllocatedPeakBytes =
            line(l1, double(few.poolAllocatedPeakBytes), l2, double(more.poolAllocatedPeakBytes), L);
    }
    out.notes.push_back("extrapolated per layer from runs with " + std::to_string(smallLayers) + " and " +
                        std::to_string(largeLayers) + " layers to " + std::to_string(fullLayers) + ": " + info.reason);
    return out;
}

} // namespace headroom::rt
