// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the exporters (exporters*.cpp); not part of the engine's API.
#include "core/result.h"
#include "plan/plan.h"

#include <string>
#include <vector>

namespace headroom::exportdetail {

// Locale-free number text (std::to_chars): `decimals` digits after the point.
std::string fixed(double value, int decimals);
// The shortest text that reads back to `value` ("0.05", "32", "1e-05"): valid
// Python, JSON and YAML.
std::string shortest(double value);
// Bytes as GiB with two decimals, without and with the unit: "15.61", "15.61 GiB".
std::string gibNumber(double bytes);
std::string gibText(double bytes);
// "fits, 7.46 GiB to spare" / "out of memory by 5.10 GiB" (the CLI's wording).
std::string verdictText(const Plan& plan);
// Line breaks and tabs folded into spaces: for text inside a comment line.
std::string oneLine(const std::string& text);
// Sum of one event's categories.
Bytes eventTotal(const CategoryBytes& bytes);

// The scenario in one line: mode, precision, PEFT, optimizer, batch, attention...
std::string scenarioLine(const Scenario& s);
// GPU count, name, capacity, sharding and offload: "1 × NVIDIA GeForce RTX 4090 (23.99 GiB), sharding none".
std::string hardwareLine(const Scenario& s, const Plan& plan);

// What DeepSpeed and the Trainer must agree on (transformers
// integrations/deepspeed.py HfTrainerDeepSpeedConfig checks every value that
// is not "auto" against TrainingArguments, so both exporters use these).
bool isDeepSpeed(Sharding sharding);         // zero1, zero2, zero3
int zeroStage(Sharding sharding);            // 1, 2, 3; 0 otherwise
bool trainerBf16(Precision precision);       // TrainingArguments.bf16 / DeepSpeed "bf16": {"enabled"}
bool trainerFp16(Precision precision);       // TrainingArguments.fp16 / DeepSpeed "fp16": {"enabled"}

// A Python string literal in double quotes (exportershf.cpp).
std::string pyString(const std::string& text);

// hf-python's run-time parts (exportershfrun.cpp), each a block of Python:
// the command line (argparse: --smoke-test, --steps, --measurement), the
// smoke test's random-weights model (after model_id; autoClass is the class
// the script loads with), attn_implementation for a flash scenario (sdpa in a
// smoke test without a GPU), the smoke test's TrainingArguments, the
// measurement writer and callback, and the dataset and Trainer call.
std::string hfCommandLinePython(const Scenario& scenario);
std::string hfSmokeTestModelPython(const Scenario& scenario, const char* autoClass);
std::string hfFlashOnCpuPython();
std::string hfSmokeTestArgsPython();
std::string hfMeasurementPython(const Scenario& scenario);
std::string hfTrainerCallPython(const Scenario& scenario, const Plan& plan);

// hf-python's comments for settings TrainingArguments has no field for
// (exportershfnotes.cpp).
std::vector<std::string> hfTrainingNotes(const Scenario& scenario);

// The individual formats (exporters.cpp dispatches).
std::string exportHfPython(const Scenario& scenario, const Plan& plan);
Result<std::string> exportDeepSpeedJson(const Scenario& scenario, const Plan& plan);
Result<std::string> exportAccelerateFsdpYaml(const Scenario& scenario, const Plan& plan);
Result<std::string> exportMegatronArgs(const Scenario& scenario, const Plan& plan);     // exportersmegatron.cpp
Result<std::string> exportTorchtitanToml(const Scenario& scenario, const Plan& plan);   // exporterstorchtitan.cpp
std::string exportMarkdown(const Scenario& scenario, const Plan& plan);
std::string exportCsv(const Plan& plan);

} // namespace headroom::exportdetail
