// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Scenario files: versioned JSON, "schema": "headroom.scenario/1". The same
// format the CLI reads (--scenario) and the GUI saves (.headroom.json).
#include "core/result.h"
#include "io/modeljson.h"
#include "plan/scenario.h"

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

namespace headroom {

inline constexpr const char* kScenarioSchema = "headroom.scenario/1";

Result<Scenario> scenarioFromJson(const nlohmann::json& document);
Result<Scenario> scenarioFromText(std::string_view text);
Result<Scenario> readScenarioFile(const std::string& path);

// Presets are written as {"preset": id}; anything else as {"spec": {...}} so
// a written file reads back to an equal scenario without the original files.
nlohmann::json scenarioToJson(const Scenario& scenario);
std::string scenarioToText(const Scenario& scenario);  // pretty, 2-space indent, trailing newline
// Atomic: writes a temporary file beside the target, then renames it over.
Result<bool> writeScenarioFile(const Scenario& scenario, const std::string& path);

} // namespace headroom
