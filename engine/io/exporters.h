// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Exporters: a scenario and its plan as text another tool reads. Training
// configurations for the Hugging Face stack (a transformers/PEFT/bitsandbytes
// script, a DeepSpeed config, an accelerate FSDP config), for Megatron-LM
// (pretrain_gpt.py arguments) and torchtitan (a job file), a Markdown report,
// the timeline as CSV, and the plan and the scenario as JSON.
//
// Every exporter is deterministic: the same scenario and plan give the same
// bytes (no dates, no host names), so tests and users can diff the output.
// The numbers they carry are the plan's, formatted with std::to_chars rather
// than printf, so the process locale never changes a digit ("15.61", not "15,61").
#include "core/result.h"
#include "plan/plan.h"

#include <string>
#include <vector>

namespace headroom {

enum class ExportFormat {
    HfPython,            // a Python script: TrainingArguments, BitsAndBytesConfig, LoraConfig
    DeepSpeedJson,       // a DeepSpeed config (ds_config.json)
    AccelerateFsdpYaml,  // an `accelerate launch --config_file` YAML for FSDP
    MegatronArgs,        // Megatron-LM pretrain_gpt.py arguments, a bash array
    TorchtitanToml,      // a torchtitan job file (--job.config_file)
    Markdown,            // a report: summary, breakdown, counters, verdict, notes, tensors
    Csv,                 // the timeline: one row per event, one column per category
    PlanJson,            // planToJson(plan, true, true), 2-space indent
    ScenarioJson,        // scenarioToText(scenario): a headroom.scenario/1 file
};

// "hf-python", "deepspeed-json", "accelerate-fsdp-yaml", "megatron-args",
// "torchtitan-toml", "markdown", "csv", "plan-json", "scenario-json".
const char* exportFormatName(ExportFormat format);
// False for a name not in the list above (out is left alone).
bool parseExportFormat(const std::string& name, ExportFormat& out);
// Every format, in the order above.
const std::vector<ExportFormat>& allExportFormats();

// The scenario as `format`, with `plan` (makePlan(scenario)) for its numbers.
// Errors: UnsupportedCombination for deepspeed-json, accelerate-fsdp-yaml,
// megatron-args and torchtitan-toml of an inference scenario (they configure
// training), and for megatron-args and torchtitan-toml of a scenario the
// library cannot express (LoRA, an optimizer or sharding it lacks...: the
// detail says which); InvalidArgument for a plan without events, or a
// layout plan/parallel.h refuses.
Result<std::string> exportPlan(const Scenario& scenario, const Plan& plan, ExportFormat format);

} // namespace headroom
