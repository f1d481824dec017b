// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Where a command's scenario came from: the built-in scenario or a file, the
// settings the user's options changed, and the notable ones that still come
// from that scenario (grad-accum 8 and full checkpointing of the built-in
// one, say), so that nothing stays on silently.
#include "options.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace headroom::cli {

struct SettingValue {
    std::string option;         // the option's name, without "--"
    std::string value;          // its value in the scenario planned ("" where it does not apply)
    std::string scenarioValue;  // its value in the scenario before the options
};

struct ScenarioOrigin {
    std::string file;                 // --scenario FILE; empty: the built-in scenario
    std::string builtInLabel;         // "meta-llama/Llama-3.1-8B qlora on rtx-4090"
    std::vector<SettingValue> set;    // changed by the options (given, or implied by one given)
    std::vector<SettingValue> kept;   // not touched, and notable: the model, the GPU, and every
                                      // setting that differs from a plain scenario's (scenario.h)
};

// `base`: the scenario before the options (scenarioFromOptions' `base`); `planned`: after.
ScenarioOrigin scenarioOrigin(const Options& options, const Scenario& base, const Scenario& planned);

// "Scenario: built-in default (...); your options set: micro-batch 4 (was 2)\n"
// "  still from the scenario: grad-accum 8, checkpointing full, ...\n"
std::string originText(const ScenarioOrigin& origin);
nlohmann::json originJson(const ScenarioOrigin& origin);

} // namespace headroom::cli
