// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The plan as JSON, shared by `headroom-cli plan --json` and the GUI's
// "export plan as JSON". Keys are stable: peak_bytes, categories, peak_event,
// fits, peak_allocated_bytes, peak_reserved_bytes, allocator_cache_bytes,
// allocator_segments, device_used_bytes...
#include "plan/plan.h"

#include <nlohmann/json.hpp>

namespace headroom {

nlohmann::json planToJson(const Plan& plan, bool withTimeline, bool withTensors);

} // namespace headroom
