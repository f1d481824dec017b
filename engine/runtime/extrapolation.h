// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// When a model is too large for the backend (the device, or the CPU
// backend's limit), validation runs the same configuration with fewer layers
// twice and extrapolates per layer (ARCHITECTURE.md, "The live GPU run").
//
// Why that is exact for this program: every row of the step's tensor table
// is either global or one per layer (runtime/step, plan/headroomrows.cpp).
// So the bytes alive at a global event (load, embedding, head, loss,
// optimizer) are a + b·L in the layer count L, and so is the most alive over
// the layers of one layer phase (forward or backward): the layer where that
// maximum falls sits at a fixed place from one end of the stack, with a
// fixed number of layers' rows alive, plus the L-proportional ones. Two
// runs with L1 and L2 layers fix a and b per event kind and per category;
// the extrapolated peak is the largest extrapolated kind. Device-level
// numbers (used memory, step time) are extrapolated the same way.
#include "runtime/backend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::rt {

// An event kind: a global event, or one layer phase (the most over its layers).
struct EventKind {
    Phase phase = Phase::Load;
    bool layer = false; // LayerFwd or LayerBwd: the maximum over the layers
};

struct KindBytes {
    EventKind kind;
    CategoryBytes bytes{};
};

// The bytes of each kind in a measurement of a model with `layers` layers.
std::vector<KindBytes> bytesByKind(const Measurement& m, std::uint64_t layers);

struct Extrapolation {
    bool used = false;
    std::uint64_t fullLayers = 0;
    std::uint64_t smallLayers = 0, largeLayers = 0; // L2 < L1 < full
    Measurement small, large;
    std::string reason;                             // why it was needed, in words
    Bytes peakBytes = 0;
    CategoryBytes peakCategories{};
    std::string peakKind;                           // "loss backward", "backward (a layer)"
};

// Extrapolates two measurements (with `smallLayers` < `largeLayers` layers)
// to `fullLayers`. The result's measurement has the extrapolated peak,
// categories, device-used peak and step time, and no per-event arrays.
Measurement extrapolate(const Measurement& small, std::uint64_t smallLayers, const Measurement& large,
                        std::uint64_t largeLayers, std::uint64_t fullLayers, Extrapolation& info);

} // namespace headroom::rt
