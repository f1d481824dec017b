// SPDX-License-Identifier: GPL-3.0-or-later
#include "overrides.h"

#include "helptext.h"

#include <set>

namespace headroom::cli {

ScenarioOrigin scenarioOrigin(const Options& options, const Scenario& base, const Scenario& planned)
{
    ScenarioOrigin origin;
    origin.file = options.value("scenario");
    if (origin.file.empty())
        origin.builtInLabel = base.model.id + " " + peftMethodName(base.train.peft.method) + " on " + base.hardware.gpu;
    // A plain scenario (scenario.h's defaults) in the same mode: what a setting
    // reads when nobody chose it. For the settings that only apply under
    // another (LoRA's under PEFT, GaLore's rank, K of every-k, loss chunks,
    // labels), a plain one with that other setting as planned.
    Scenario plain;
    plain.mode = planned.mode;
    plain.model = planned.model;
    plain.model.head = ModelHead::LanguageModel;
    plain.model.numLabels = 0;
    Scenario plainUnder = plain;
    plainUnder.model = planned.model;
    plainUnder.train.peft.method = planned.train.peft.method;
    plainUnder.train.optimizer = planned.train.optimizer;
    plainUnder.train.checkpointing = planned.train.checkpointing;
    plainUnder.train.chunkedCrossEntropy = planned.train.chunkedCrossEntropy;
    const std::set<std::string> dependent{"num-labels",    "galore-rank",      "lora-rank",  "lora-alpha",
                                          "lora-dropout", "lora-targets",     "checkpoint-every", "loss-chunks"};

    const auto& table = scenarioOptionTable();
    std::set<std::string> seen;
    for (const ScenarioOptionHelp& entry : table) {
        if (!entry.get || !seen.insert(entry.setting).second)
            continue;
        bool given = false;
        for (const ScenarioOptionHelp& other : table)
            given = given || (other.setting == entry.setting && options.has(other.option.name));
        const SettingValue value{entry.option.name, entry.get(planned), entry.get(base)};
        // Changed by an option given for another setting (--peft none drops the NF4 base); a setting
        // that only now applies (--mode inference: the batch) is the scenario's, not the options'.
        const bool implied = !value.value.empty() && !value.scenarioValue.empty() && value.value != value.scenarioValue;
        const std::string plainValue = entry.get(dependent.count(entry.setting) ? plainUnder : plain);
        if (given || implied)
            origin.set.push_back(value);
        else if (!value.value.empty() &&
                 (entry.setting == "model" || entry.setting == "gpu" || value.value != plainValue))
            origin.kept.push_back(value);
    }
    return origin;
}

std::string originText(const ScenarioOrigin& origin)
{
    std::string out = "Scenario: " + (origin.file.empty() ? "built-in default (" + origin.builtInLabel + ")" : origin.file);
    if (origin.set.empty())
        return out + "\n";
    out += "; your options set: ";
    for (std::size_t k = 0; k < origin.set.size(); ++k) {
        const SettingValue& s = origin.set[k];
        out += (k ? ", " : "") + s.option + " " + (s.value.empty() ? "(unused here)" : s.value);
        if (!s.value.empty() && !s.scenarioValue.empty() && s.scenarioValue != s.value)
            out += " (was " + s.scenarioValue + ")";
    }
    out += "\n";
    if (!origin.kept.empty()) {
        out += "  still from the scenario: ";
        for (std::size_t k = 0; k < origin.kept.size(); ++k)
            out += (k ? ", " : "") + origin.kept[k].option + " " + origin.kept[k].value;
        out += "\n";
    }
    return out;
}

nlohmann::json originJson(const ScenarioOrigin& origin)
{
    nlohmann::json set = nlohmann::json::array(), kept = nlohmann::json::array();
    for (const SettingValue& s : origin.set)
        set.push_back({{"option", s.option},
                       {"value", s.value.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.value)},
                       {"scenario_value", s.scenarioValue.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.scenarioValue)}});
    for (const SettingValue& s : origin.kept)
        kept.push_back({{"option", s.option}, {"value", s.value}});
    nlohmann::json j = {{"base", origin.file.empty() ? "built-in" : "file"}, {"overrides", set}, {"from_scenario", kept}};
    if (!origin.file.empty())
        j["file"] = origin.file;
    return j;
}

} // namespace headroom::cli
