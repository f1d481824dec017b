// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli compare MEASUREMENT [scenario options] [--json]
// A headroom.measurement/1 file (engine/io/measurement.h: what the exported
// hf-python script writes after a real run) beside the plan of the scenario
// it ran, counter by counter, with the error. The scenario is the one the
// file embeds, unless --scenario FILE is given; the other scenario options
// apply on top of either. A CPU run (the script's --smoke-test without a
// GPU) has no counters: the plan's are shown alone, and the run is said to
// prove only that the script runs.
#include "commands.h"

#include "format.h"
#include "options.h"

#include "io/measurement.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

namespace {

std::string percent(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", value);
    return text;
}

std::string padded(std::string text, std::size_t width)
{
    if (text.size() < width)
        text.append(width - text.size(), ' ');
    return text;
}

const char* const kCpuNote = "nothing measured: the run was on the CPU, which has no CUDA memory counters; it shows "
                             "that the script runs, not what it takes on a GPU";

// Any scenario option but --scenario: a change on top of the scenario.
bool anyScenarioOption(const Options& o)
{
    for (const std::string& name : scenarioValueOptions())
        if (name != "scenario" && o.has(name))
            return true;
    for (const std::string& name : scenarioFlagOptions())
        if (o.has(name))
            return true;
    return false;
}

} // namespace

int runCompare(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("compare", args);
    if (!o)
        return fail(o.error());
    if (o->positional().size() != 1)
        return fail(makeError(ErrorCode::InvalidArgument,
                              "compare needs one measurement file (headroom.measurement/1, as the hf-python export writes)"));
    const std::string path = o->positional().front();
    auto m = readMeasurementFile(path);
    if (!m)
        return fail(m.error());
    if (!m->scenario && !o->has("scenario"))
        return fail(makeError(ErrorCode::MissingField,
                              path + ": has no \"scenario\"; give the scenario the run was made from with --scenario FILE"));
    auto scenario = scenarioFromOptions(o.value(), nullptr, m->scenario ? &*m->scenario : nullptr);
    if (!scenario)
        return fail(scenario.error());
    auto plan = makePlan(scenario.value());
    if (!plan)
        return fail(plan.error());
    const auto rows = compareWithPlan(plan.value(), m.value());
    const std::string source = o->has("scenario") ? "file" : "measurement";

    if (o->has("json")) {
        nlohmann::json j = {{"schema", "headroom.compare/1"},
                            {"measurement", path},
                            {"scenario_source", source},
                            {"plan_gpu", scenario->hardware.gpu},
                            {"measured_device", m->device},
                            {"measured_gpu", m->gpuName},
                            {"planned", {{"max_memory_allocated_bytes", plan->peakAllocatedBytes},
                                         {"max_memory_reserved_bytes", plan->peakReservedBytes},
                                         {"device_used_bytes", plan->deviceUsedBytes}}},
                            {"rows", nlohmann::json::array()}};
        if (measuredOnCpu(m.value()))
            j["note"] = kCpuNote;
        for (const ComparisonRow& r : rows)
            j["rows"].push_back({{"counter", r.counter},
                                 {"field", r.key},
                                 {"planned_bytes", r.planned},
                                 {"measured_bytes", r.measured},
                                 {"error_percent", r.errorPercent}});
        if (!m->deviceUsedSource.empty())
            j["device_used_source"] = m->deviceUsedSource;
        nlohmann::json phases = nlohmann::json::object();
        for (const MeasuredPhase& p : m->phases) {
            phases[p.name] = {{"max_memory_allocated_bytes", p.maxAllocatedBytes}};
            if (p.maxReservedBytes)
                phases[p.name]["max_memory_reserved_bytes"] = *p.maxReservedBytes;
        }
        j["measured_phases"] = phases;
        std::cout << j.dump(2) << "\n";
        return 0;
    }

    std::string measured = measuredOnCpu(m.value()) ? std::string("run on the CPU")
                           : "measured on " + (m->gpuName.empty() ? std::string("an unnamed GPU") : m->gpuName);
    for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"torch", &m->torchVersion},
                                      {"transformers", &m->transformersVersion},
                                      {"CUDA", &m->cudaVersion},
                                      {"peft", &m->peftVersion}})
        if (!value->empty())
            measured += ", " + std::string(name) + " " + *value;
    if (m->steps)
        measured += ", " + std::to_string(*m->steps) + " steps";
    std::cout << measured << "\n"
              << "planned for " << scenario->hardware.gpu << ": " << scenarioSummary(scenario.value()) << "\n"
              << "(scenario from " << (source == "file" ? o->value("scenario") : path)
              << (anyScenarioOption(o.value()) ? ", options on top" : "") << ")\n";
    if (!m->notes.empty())
        std::cout << "notes: " << m->notes << "\n";
    std::cout << "\n";
    if (measuredOnCpu(m.value())) {
        std::cout << padded("counter", 16) << "planned\n";
        for (const auto& [counter, bytes] : {std::pair<const char*, Bytes>{"peak allocated", plan->peakAllocatedBytes},
                                             {"peak reserved", plan->peakReservedBytes},
                                             {"device used", plan->deviceUsedBytes}})
            std::cout << padded(counter, 16) << gib(static_cast<double>(bytes)) << "\n";
        std::cout << "\n" << kCpuNote << "\n";
        return 0;
    }
    std::cout << padded("counter", 16) << padded("planned", 13) << padded("measured", 13) << "error\n";
    for (const ComparisonRow& r : rows)
        std::cout << padded(r.counter, 16) << padded(gib(static_cast<double>(r.planned)), 13)
                  << padded(gib(static_cast<double>(r.measured)), 13) << percent(r.errorPercent) << "\n";
    std::cout << "\nerror = (planned - measured) / measured; positive: Headroom predicted more.\n";
    if (m->deviceUsedBytes)
        std::cout << "device used was read with " << (m->deviceUsedSource.empty() ? "an unnamed source" : m->deviceUsedSource)
                  << ": the whole device, other processes included; the plan counts this process only.\n";
    if (!m->phases.empty()) {
        std::cout << "\nmeasured per phase (the plan's peak is per step):\n";
        for (const MeasuredPhase& p : m->phases)
            std::cout << "  " << padded(p.name, 18) << "allocated " << gib(static_cast<double>(p.maxAllocatedBytes))
                      << (p.maxReservedBytes ? ", reserved " + gib(static_cast<double>(*p.maxReservedBytes)) : std::string())
                      << "\n";
    }
    return 0;
}

} // namespace headroom::cli
