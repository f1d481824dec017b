// SPDX-License-Identifier: GPL-3.0-or-later
// A stand-in for `headroom-cli validate` that speaks VALIDATE-PROTOCOL.md,
// so the app's Validate view and its fault handling can be tested before
// (and independently of) the real command. Qt-free on purpose: it is a
// separate process, as the real child is.
//
// The "measured" numbers are NOT measurements: the plan of the scenario
// (engine/plan) with each category scaled by a fixed factor (kFactor
// below), so a test can derive every expected number from the plan and the
// factors. The result's notes say so.
//
//   fake_validator validate --json --progress --scenario FILE [--backend cpu|cuda]
//                           [--inject-fault crash|hang|oom]
//   fake_validator devices --json
//
// Cases the contract has no flag for are chosen by the environment
// variable HEADROOM_FAKE_VALIDATOR (the app passes its environment on):
//   gpu          a CUDA device exists (devices lists one; --backend cuda runs)
//   malformed    exit 0 with a truncated result object
//   exit7        exit 7 without a result (a failure that is not a signal)
//   badinput     exit 2 with one line, as for a scenario the CLI refuses
// HEADROOM_FAKE_VALIDATOR_DELAY_MS: sleep per event (default 2), for cancel tests.
#include "io/scenariofile.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

using namespace headroom;
using nlohmann::json;

namespace {

// measured = planned × factor, per category (weights, gradients, optimizer
// state, activations, logits, temporaries, KV cache, workspace). Different
// from 1 where a real run typically differs, so errors show in both signs.
constexpr std::array<double, kCategoryCount> kFactor{1.004, 1.0, 1.0, 1.063, 0.97, 0.88, 1.0, 1.0};

std::string mode()
{
    const char* value = std::getenv("HEADROOM_FAKE_VALIDATOR");
    return value ? value : "";
}

int delayMs()
{
    const char* value = std::getenv("HEADROOM_FAKE_VALIDATOR_DELAY_MS");
    return value ? std::atoi(value) : 2;
}

int refuse(int status, const std::string& line)
{
    std::cerr << "headroom-cli: " << line << std::endl;
    return status;
}

void progress(double fraction, const char* phase, const std::string& event)
{
    json line{{"progress", fraction}, {"phase", phase}, {"step", 1}, {"steps", 1}};
    if (!event.empty())
        line["event"] = event;
    // One line, flushed at once: the app reads progress as it comes.
    std::cerr << line.dump() << std::endl;
}

const char* contractPhase(Phase phase)
{
    switch (phase) {
    case Phase::Load: return "setup";
    case Phase::LossFwd:
    case Phase::LossBwd: return "loss";
    case Phase::HeadBwd:
    case Phase::LayerBwd:
    case Phase::EmbedBwd: return "backward";
    case Phase::OptimizerStep: return "optimizer";
    default: return "forward";
    }
}

double total(const CategoryBytes& bytes, bool measured)
{
    double sum = 0;
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        sum += static_cast<double>(bytes[c]) * (measured ? kFactor[c] : 1.0);
    return sum;
}

json categories(const CategoryBytes& bytes, bool measured)
{
    json object = json::object();
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        if (bytes[c] > 0)
            object[categoryName(static_cast<Category>(c))] =
                measured ? static_cast<std::uint64_t>(static_cast<double>(bytes[c]) * kFactor[c]) : bytes[c];
    return object;
}

int devices()
{
    if (mode() != "gpu")
        return refuse(3, "no CUDA engine in this build");
    std::cout << json{{"devices", json::array({{{"index", 0}, {"name", "Fake GPU 24GB"}, {"total_bytes", 25757220864ull}}})}}.dump()
              << std::endl;
    return 0;
}

int validate(int argc, char** argv)
{
    std::string scenarioPath, backend = "cpu", fault;
    bool asJson = false, withProgress = false;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--json")
            asJson = true;
        else if (arg == "--progress")
            withProgress = true;
        else if (arg == "--scenario" && i + 1 < argc)
            scenarioPath = argv[++i];
        else if (arg == "--backend" && i + 1 < argc)
            backend = argv[++i];
        else if (arg == "--inject-fault" && i + 1 < argc)
            fault = argv[++i];
        else if (arg == "--help") {
            std::cout << "fake_validator validate [--backend cpu|cuda] --scenario FILE [--json] [--progress] "
                         "[--inject-fault crash|hang|oom]\n";
            return 0;
        } else
            return refuse(2, "unknown option " + arg);
    }
    if (mode() == "badinput")
        return refuse(2, "scenario: micro_batch must be at least 1");
    if (backend == "cuda" && mode() != "gpu")
        return refuse(3, "no CUDA device found");
    if (backend != "cpu" && backend != "cuda")
        return refuse(2, "unknown backend " + backend);
    if (fault != "" && fault != "crash" && fault != "hang" && fault != "oom")
        return refuse(2, "unknown fault " + fault);
    auto scenario = readScenarioFile(scenarioPath);
    if (!scenario)
        return refuse(2, scenario.error().detail);
    auto planned = makePlan(scenario.value());
    if (!planned)
        return refuse(2, planned.error().detail);
    const Plan& plan = planned.value();

    if (withProgress)
        progress(0.0, "setup", "");
    std::cerr << "fake validator: not a measurement (tests/ui/fakes/fake_validator.cpp)" << std::endl;
    // The contract: faults strike after the first progress line.
    if (fault == "crash")
        std::abort();
    if (fault == "hang")
        for (;;)
            std::this_thread::sleep_for(std::chrono::hours(1));
    if (mode() == "exit7")
        return refuse(7, "internal failure (fake)");

    const std::size_t events = plan.events.size();
    json eventList = json::array();
    std::size_t measuredPeakEvent = 0;
    double measuredPeak = 0;
    std::string oomMessage;
    for (std::size_t e = 0; e < events; ++e) {
        const std::string label = eventLabel(plan.events[e]);
        if (withProgress)
            progress(static_cast<double>(e + 1) / static_cast<double>(events + 1), contractPhase(plan.events[e].phase), label);
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs()));
        const double measured = total(plan.timeline[e], true);
        json entry{{"label", label}, {"planned_bytes", static_cast<std::uint64_t>(total(plan.timeline[e], false))}};
        // oom: the first event that allocates activations is refused; the
        // planned side of every event is still reported, the measured side stops.
        const bool refused = fault == "oom" && plan.timeline[e][static_cast<std::size_t>(Category::Activations)] > 0;
        if (refused && oomMessage.empty()) {
            char text[160];
            std::snprintf(text, sizeof text, "out of memory at %.1f GiB in %s", measured / 1073741824.0, label.c_str());
            oomMessage = text;
        }
        if (!oomMessage.empty()) {
            eventList.push_back(entry);
            continue;
        }
        entry["measured_bytes"] = static_cast<std::uint64_t>(measured);
        eventList.push_back(entry);
        if (measured > measuredPeak) {
            measuredPeak = measured;
            measuredPeakEvent = e;
        }
    }
    if (withProgress)
        progress(1.0, "done", "");

    const double stepSeconds = 0.25;  // fake: fixed, so tokens/s is derivable in tests
    json result{
        {"schema", "headroom.validation/1"},
        {"status", oomMessage.empty() ? "ok" : "out_of_memory"},
        {"backend", backend},
        {"device", backend == "cuda" ? "Fake GPU 24GB" : "CPU (fake validator)"},
        {"scenario", scenarioToJson(scenario.value())},
        {"planned",
         {{"peak_bytes", plan.peakBytes}, {"peak_event", eventLabel(plan.events[plan.peakEvent])}, {"categories", categories(plan.breakdown, false)}}},
        {"measured",
         {{"peak_bytes", static_cast<std::uint64_t>(measuredPeak)},
          {"peak_event", eventLabel(plan.events[measuredPeakEvent])},
          {"categories", categories(plan.timeline[measuredPeakEvent], true)}}},
        {"events", eventList},
        {"step_seconds", stepSeconds},
        {"tokens_per_second", static_cast<double>(plan.tokensPerMicroBatch) / stepSeconds},
        {"extrapolated", false},
        {"notes", json::array({"fake validator for tests: the plan scaled by fixed factors, not a measurement"})}};
    if (!oomMessage.empty())
        result["message"] = oomMessage;

    if (mode() == "malformed") {
        const std::string text = result.dump();
        std::cout << text.substr(0, text.size() / 2) << std::endl;  // cut mid-object
        return 0;
    }
    if (asJson)
        std::cout << result.dump() << std::endl;
    else
        std::cout << "planned peak " << plan.peakBytes << " bytes, measured " << static_cast<std::uint64_t>(measuredPeak)
                  << " bytes (fake)\n";
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc >= 2 && std::strcmp(argv[1], "devices") == 0)
        return devices();
    if (argc >= 2 && std::strcmp(argv[1], "validate") == 0)
        return validate(argc, argv);
    return refuse(2, "usage: fake_validator validate|devices ...");
}
