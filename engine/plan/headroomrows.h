// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The headroom profile's tensor table: the rows of the program Headroom's own
// training engine runs (engine/runtime, docs/runtime.md), one row per kind of
// buffer the engine allocates, with the event it is allocated at and the
// event it is freed after. The CPU backend's agreement suite checks these
// rows against the tracking allocator byte for byte.
#include "plan/scenario.h"

#include <string>

namespace headroom {

// Empty when the headroom program covers the scenario (and the engine runs
// it); else what it does not cover yet, in words ("model family gpt2").
std::string headroomProgramGap(const Scenario& scenario);

} // namespace headroom
