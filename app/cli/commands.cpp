// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"

#include "format.h"
#include "options.h"
#include "overrides.h"

#include "io/planjson.h"
#include "model/catalog.h"
#include "model/parametertable.h"
#include "plan/allocatorstream.h"
#include "plan/cachingallocator.h"
#include "plan/fitsearch.h"
#include "plan/gpucatalog.h"
#include "plan/ladder.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

namespace headroom::cli {

namespace {

// The command's options (helptext.cpp); no positional arguments.
Result<Options> parseScenarioCommand(const std::string& command, const std::vector<std::string>& args)
{
    auto o = Options::parseFor(command, args);
    if (o && !o->positional().empty())
        return makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'");
    return o;
}

void printJson(const nlohmann::json& j) { std::cout << j.dump(2) << "\n"; }

// The plan's allocator stream (the two steps its reserved is simulated on) in
// the trace format of engine/io/allocatortrace.h, so that `headroom-cli
// replay` reads it as it reads a PyTorch trace: "# event <step> <label>"
// before each event's requests, and each allocation's row and layer after it.
Result<bool> writePlanAllocatorTrace(const Plan& plan, const std::string& path)
{
    AllocatorStreamLabels labels;
    std::vector<AllocatorEvent> stream;
    appendAllocatorStream(plan, kAllocatorSteps, stream, &labels);
    std::ofstream out(path);
    if (!out)
        return makeError(ErrorCode::IoError, "cannot write " + path);
    out << "# headroom allocator events: a <id> <bytes> | f <id> (the plan's stream)\n";
    std::size_t mark = 0;
    for (std::size_t k = 0; k < stream.size(); ++k) {
        for (; mark < labels.marks.size() && labels.marks[mark].position == k; ++mark)
            out << "# event " << labels.marks[mark].step << ' ' << eventLabel(plan.events[labels.marks[mark].event])
                << '\n';
        const AllocatorEvent& e = stream[k];
        if (e.kind == AllocatorEvent::Kind::Alloc)
            out << "a " << e.id << ' ' << e.bytes << (e.stream ? " s" + std::to_string(e.stream) : std::string())
                << " # " << labels.rowOfId[e.id] << ' ' << labels.layerOfId[e.id] << '\n';
        else
            out << "f " << e.id << '\n';
    }
    if (!out.flush())
        return makeError(ErrorCode::IoError, "cannot write " + path);
    return true;
}

} // namespace

int runPlan(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("plan", args);
    if (!o)
        return fail(o.error());
    Scenario base;
    auto scenario = scenarioFromOptions(o.value(), &base);
    if (!scenario)
        return fail(scenario.error());
    auto plan = makePlan(scenario.value());
    if (!plan)
        return fail(plan.error());
    if (o->has("allocator-trace")) {
        if (auto written = writePlanAllocatorTrace(plan.value(), o->value("allocator-trace")); !written)
            return fail(written.error());
    }
    const ScenarioOrigin origin = scenarioOrigin(o.value(), base, scenario.value());
    if (o->has("json")) {
        nlohmann::json j = planToJson(plan.value(), o->has("timeline"), o->has("tensors"));
        j["scenario_origin"] = originJson(origin);
        printJson(j);
    } else {
        std::cout << planReport(scenario.value(), plan.value(), o->has("tensors"), originText(origin));
    }
    return 0;
}

int runFit(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("fit", args);
    if (!o)
        return fail(o.error());
    Scenario base;
    auto scenario = scenarioFromOptions(o.value(), &base);
    if (!scenario)
        return fail(scenario.error());
    auto batch = largestMicroBatch(scenario.value());
    if (!batch)
        return fail(batch.error());
    auto seq = longestSequence(scenario.value());
    if (!seq)
        return fail(seq.error());
    Result<std::vector<ModelFitRow>> models = std::vector<ModelFitRow>{};
    if (o->has("models")) {
        models = largestModels(scenario.value());
        if (!models)
            return fail(models.error());
    }
    const bool train = scenario->mode == Mode::Train;
    if (o->has("json")) {
        nlohmann::json j;
        j["gpu"] = scenario->hardware.gpu;
        j["largest_micro_batch"] = batch->found ? nlohmann::json(batch->value) : nlohmann::json(nullptr);
        j["longest_sequence"] = seq->found ? nlohmann::json(seq->value) : nlohmann::json(nullptr);
        j["plans_evaluated"] = batch->plansEvaluated + seq->plansEvaluated;
        nlohmann::json rows = nlohmann::json::array();
        for (const ModelFitRow& r : models.value())
            rows.push_back({{"technique", r.technique.id},
                            {"label", r.technique.label},
                            {"largest_preset", r.largestPresetId},
                            {"largest_preset_parameters", r.largestPresetParameters},
                            {"largest_generic_parameters", r.largestGenericParameters}});
        if (o->has("models"))
            j["largest_models"] = rows;
        printJson(j);
        return 0;
    }
    std::cout << "Fit search on " << scenario->hardware.gpu << " for " << scenario->model.id << "\n"
              << scenarioSummary(scenario.value()) << "\n"
              << originText(scenarioOrigin(o.value(), base, scenario.value()));
    const char* batchName = train ? "micro-batch" : "batch";
    const char* seqName = train ? "sequence length" : "prompt length";
    if (batch->found)
        std::cout << "Largest " << batchName << " that fits: " << batch->value << " (device used "
                  << gib(static_cast<double>(batch->deviceUsedBytes)) << ")\n";
    else
        std::cout << "Not even a " << batchName << " of 1 fits.\n";
    if (seq->found)
        std::cout << "Longest " << seqName << " that fits: " << seq->value << " (device used "
                  << gib(static_cast<double>(seq->deviceUsedBytes)) << ")\n";
    else
        std::cout << "Not even a " << seqName << " of 1 fits.\n";
    if (o->has("models")) {
        std::cout << "\nLargest model per technique (same batch settings):\n";
        for (const ModelFitRow& r : models.value()) {
            char generic[32] = "none";
            if (r.largestGenericParameters > 0)
                std::snprintf(generic, sizeof generic, "~%.1f B", r.largestGenericParameters / 1e9);
            std::cout << "  " << r.technique.label << "\n      preset: "
                      << (r.largestPresetId.empty() ? std::string("none") : r.largestPresetId) << " · by size: " << generic
                      << "\n";
        }
    }
    return 0;
}

int runLadder(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("ladder", args);
    if (!o)
        return fail(o.error());
    auto scenario = scenarioFromOptions(o.value());
    if (!scenario)
        return fail(scenario.error());
    auto ladder = buildLadder(scenario.value(), defaultLadder());
    if (o->has("steps")) {
        std::vector<std::string> steps;
        std::stringstream list(o->value("steps"));
        for (std::string id; std::getline(list, id, ',');)
            if (!id.empty())
                steps.push_back(id);
        ladder = buildLadder(scenario.value(), steps);
    }
    if (!ladder)
        return fail(ladder.error());
    if (o->has("json")) {
        nlohmann::json rows = nlohmann::json::array();
        for (const LadderStep& step : ladder.value())
            rows.push_back({{"id", techniqueName(step.technique)},
                            {"label", step.label},
                            {"device_used_bytes", step.plan.deviceUsedBytes},
                            {"peak_allocated_bytes", step.plan.peakAllocatedBytes},
                            {"saving_bytes", step.savingBytes},
                            {"cache_only", step.cacheOnly},
                            {"fits", step.plan.fits},
                            {"peak_event", eventLabel(step.plan.events[step.plan.peakEvent])}});
        printJson({{"gpu", scenario->hardware.gpu}, {"model", scenario->model.id}, {"steps", rows}});
        return 0;
    }
    std::cout << "Technique ladder: " << scenario->model.id << " on " << scenario->hardware.gpu << "\n";
    for (const LadderStep& step : ladder.value()) {
        std::cout << "  " << (step.plan.fits ? "fits " : "OOM  ") << gib(static_cast<double>(step.plan.deviceUsedBytes));
        if (&step != &ladder->front())
            std::cout << "  (" << (step.savingBytes >= 0 ? "-" : "+")
                      << gib(static_cast<double>(step.savingBytes >= 0 ? step.savingBytes : -step.savingBytes)) << ")";
        std::cout << "  " << step.label
                  << (step.cacheOnly ? "  [the allocator's cache only: peak allocated unchanged]" : "") << "\n";
    }
    return 0;
}

int runModels(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("models", args);
    if (!o)
        return fail(o.error());
    if (o->has("json")) {
        nlohmann::json rows = nlohmann::json::array();
        for (const CatalogModel& m : modelCatalog())
            rows.push_back({{"id", m.id},
                            {"name", m.name},
                            {"model_type", m.spec.modelType},
                            {"parameters", m.parameters},
                            {"layers", m.spec.layers},
                            {"hidden", m.spec.hidden}});
        printJson(rows);
        return 0;
    }
    for (const CatalogModel& m : modelCatalog()) {
        char line[256];
        std::snprintf(line, sizeof line, "%-52s %-12s %8.2f B  %3llu layers\n", m.id.c_str(), m.spec.modelType.c_str(),
                      static_cast<double>(m.parameters) / 1e9, static_cast<unsigned long long>(m.spec.layers));
        std::cout << line;
    }
    return 0;
}

int runGpus(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("gpus", args);
    if (!o)
        return fail(o.error());
    if (o->has("json")) {
        nlohmann::json rows = nlohmann::json::array();
        for (const GpuSpec& g : gpuCatalog())
            rows.push_back({{"id", g.id},
                            {"name", g.name},
                            {"memory_bytes", g.memoryBytes},
                            {"compute_capability", std::to_string(g.computeMajor) + "." + std::to_string(g.computeMinor)},
                            {"bf16", g.bf16},
                            {"fp8", g.fp8}});
        printJson(rows);
        return 0;
    }
    for (const GpuSpec& g : gpuCatalog()) {
        char line[256];
        std::snprintf(line, sizeof line, "%-18s %-36s %9s  sm_%d%d%s%s\n", g.id.c_str(), g.name.c_str(),
                      gib(static_cast<double>(g.memoryBytes)).c_str(), g.computeMajor, g.computeMinor,
                      g.bf16 ? "  bf16" : "", g.fp8 ? "  fp8" : "");
        std::cout << line;
    }
    return 0;
}

namespace {

double threadCpuMicroseconds()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

struct Timing {
    double wallUs = 0;  // median wall-clock time per call
    double cpuUs = 0;   // median CPU time of this thread per call: unaffected by
                        // time spent descheduled when other processes share the cores
};

// Median over `repeats` samples of `inner` calls each.
template <class F>
Timing medianMicroseconds(int repeats, int inner, F&& body)
{
    std::vector<double> wall, cpu;
    wall.reserve(static_cast<std::size_t>(repeats));
    cpu.reserve(static_cast<std::size_t>(repeats));
    for (int r = 0; r < repeats; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const double cpuStart = threadCpuMicroseconds();
        for (int k = 0; k < inner; ++k)
            body();
        const double cpuStop = threadCpuMicroseconds();
        const auto stop = std::chrono::steady_clock::now();
        wall.push_back(std::chrono::duration<double, std::micro>(stop - start).count() / inner);
        cpu.push_back((cpuStop - cpuStart) / inner);
    }
    std::sort(wall.begin(), wall.end());
    std::sort(cpu.begin(), cpu.end());
    return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

} // namespace

int runBench(const std::vector<std::string>& args)
{
    auto o = parseScenarioCommand("bench", args);
    if (!o)
        return fail(o.error());
    const std::string id = o->has("model") ? o->value("model") : "meta-llama/Llama-3.1-70B";
    auto model = presetModel(id);
    if (!model)
        return fail(model.error());
    // A scenario that fits, so the fit search has work to do: QLoRA of the
    // model on one 80 GB H100, every other layer checkpointed.
    Scenario s;
    s.model = model.value();
    s.train.precision = Precision::Bf16Mixed;
    s.train.peft.method = PeftMethod::Qlora;
    s.train.peft.targets = {"all-linear"};
    s.train.weightQuant = WeightQuant::Nf4DoubleQuant;
    s.train.optimizer = Optimizer::PagedAdamW8bit;
    s.train.checkpointing = Checkpointing::EveryK;
    s.train.checkpointEvery = 2;
    s.train.attention = Attention::Flash;
    s.train.seqLen = 1024;
    s.hardware.gpu = "h100-sxm-80gb";
    if (!findGpu(s.hardware.gpu))
        s.hardware.gpu = gpuCatalog().front().id;
    volatile Bytes sink = 0;
    // A full plan: parameter table, tensor rows, sweep over every event.
    const Timing planUs = medianMicroseconds(31, 200, [&] {
        auto plan = makePlan(s);
        sink = sink + plan->peakBytes;
    });
    const ParameterTable table = buildParameterTable(s.model);
    const Timing planWithTableUs = medianMicroseconds(31, 200, [&] {
        auto plan = makePlan(s, table);
        sink = sink + plan->peakBytes;
    });
    // The caching allocator simulation alone, over the plan's stream of two steps.
    const auto stream = allocatorStream(makePlan(s, table).value(), kAllocatorSteps);
    const Timing simUs = medianMicroseconds(31, 20, [&] {
        sink = sink + simulateCachingAllocator(stream).value().peakReservedBytes;
    });
    std::uint64_t evaluated = 0;
    const Timing fitUs = medianMicroseconds(11, 5, [&] {
        auto batch = largestMicroBatch(s);
        evaluated = batch->plansEvaluated;
        sink = sink + batch->value;
    });
    const Timing seqUs = medianMicroseconds(11, 5, [&] {
        auto seq = longestSequence(s);
        sink = sink + seq->value;
    });
    if (o->has("json")) {
        printJson({{"model", id},
                   {"layers", s.model.layers},
                   {"plan_median_us", planUs.wallUs},
                   {"plan_cpu_median_us", planUs.cpuUs},
                   {"plans_per_second", 1e6 / planUs.wallUs},
                   {"plan_reusing_table_median_us", planWithTableUs.wallUs},
                   {"plan_reusing_table_cpu_median_us", planWithTableUs.cpuUs},
                   {"allocator_simulation_median_us", simUs.wallUs},
                   {"allocator_simulation_events", static_cast<std::uint64_t>(stream.size())},
                   {"fit_micro_batch_median_us", fitUs.wallUs},
                   {"fit_micro_batch_cpu_median_us", fitUs.cpuUs},
                   {"fit_micro_batch_plans", evaluated},
                   {"fit_sequence_median_us", seqUs.wallUs},
                   {"fit_sequence_cpu_median_us", seqUs.cpuUs}});
        return 0;
    }
    std::printf("headroom-cli bench: %s (%llu layers), one thread; medians, wall clock and thread CPU time\n",
                id.c_str(), static_cast<unsigned long long>(s.model.layers));
    std::printf("  full plan                 %8.2f us wall  %8.2f us cpu  (%.0f plans/s)\n", planUs.wallUs, planUs.cpuUs,
                1e6 / planUs.wallUs);
    std::printf("  plan, table reused        %8.2f us wall  %8.2f us cpu\n", planWithTableUs.wallUs, planWithTableUs.cpuUs);
    std::printf("  allocator simulation      %8.2f us wall  %8.2f us cpu  (%zu events)\n", simUs.wallUs, simUs.cpuUs,
                stream.size());
    std::printf("  fit: largest micro-batch  %8.2f us wall  %8.2f us cpu  (%llu plans)\n", fitUs.wallUs, fitUs.cpuUs,
                static_cast<unsigned long long>(evaluated));
    std::printf("  fit: longest sequence     %8.2f us wall  %8.2f us cpu\n", seqUs.wallUs, seqUs.cpuUs);
    return 0;
}

} // namespace headroom::cli
