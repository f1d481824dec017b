// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/validate.h"

#include "runtime/stepflops.h"

#include "io/scenariofile.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace headroom::rt {

namespace {

nlohmann::json categoriesJson(const CategoryBytes& c)
{
    nlohmann::json j = nlohmann::json::object();
    for (std::size_t i = 0; i < kCategoryCount; ++i)
        j[categoryName(static_cast<Category>(i))] = c[i];
    return j;
}

std::string gib(Bytes b)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.3f MiB", static_cast<double>(b) / static_cast<double>(MiB));
    return text;
}

// Bytes of each row name alive at event e (the planner's semantics).
std::map<std::string, Bytes> plannedTensors(const Plan& plan, std::size_t e)
{
    std::map<std::string, Bytes> out;
    const std::uint64_t L = plan.layers;
    for (const TensorRow& row : plan.tensors) {
        auto alive = [&](std::int64_t layer) {
            const std::size_t from = madeAtIndex(Mode::Train, row, layer, L);
            const std::size_t to = eventIndex(Mode::Train, row.freeAt, layer, L);
            return from <= e && e <= to;
        };
        Bytes total = 0;
        if (row.layers == LayerSet::Global) {
            total = alive(-1) ? row.bytes : 0;
        } else {
            for (std::uint64_t l = 0; l < L; ++l) {
                if (rowOnLayer(row, l, plan) && alive(static_cast<std::int64_t>(l)))
                    total += row.bytes;
            }
        }
        if (total > 0)
            out[row.name] += total;
    }
    return out;
}

} // namespace

Result<Plan> headroomPlan(const Scenario& scenario)
{
    Scenario s = scenario;
    s.profile = Profile::Headroom;
    return makePlan(s);
}

Result<ValidationResult> runValidation(const Scenario& scenario, Backend& backend, const RunOptions& options)
{
    if (scenario.mode != Mode::Train)
        return makeError(ErrorCode::UnsupportedCombination, "validate runs training steps: set mode to train");
    if (auto why = backend.unsupported(scenario); !why.empty())
        return makeError(ErrorCode::UnsupportedCombination,
                         "not supported by the " + backend.name() + " backend yet: " + why);
    auto plan = headroomPlan(scenario);
    if (!plan)
        return plan.error();
    if (options.steps == 0)
        return makeError(ErrorCode::InvalidArgument, "steps: must be at least 1");
    ValidationResult r;
    r.scenario = scenario;
    r.plan = std::move(plan.value());
    r.backend = backend.name();
    const std::uint64_t L = scenario.model.layers;
    const Bytes capacity = backend.capacityBytes();
    const bool tooLarge = capacity > 0 && r.plan.peakBytes > capacity;
    const bool limited = options.maxLayers > 0 && options.maxLayers < L;
    if (!tooLarge && !limited) {
        r.measured = backend.run(scenario, options);
        return r;
    }
    // Fewer layers, twice, then per layer (runtime/extrapolation.h).
    auto peakWith = [&](std::uint64_t layers) -> Bytes {
        Scenario s = scenario;
        s.model.layers = layers;
        auto p = headroomPlan(s);
        return p ? p->peakBytes : ~Bytes{0};
    };
    std::uint64_t large = limited ? std::min(options.maxLayers, L - 1) : L - 1;
    if (!limited && backend.extrapolationLayers() > 0)
        large = std::min(large, backend.extrapolationLayers());
    while (large >= 2 && capacity > 0 && peakWith(large) > capacity)
        --large;
    const std::string needs = "the scenario needs " + formatGiB(static_cast<double>(r.plan.peakBytes)) +
                              " at its peak with " + std::to_string(L) + " layers";
    if (large < 2 || scenario.train.checkpointing == Checkpointing::EveryK)
        return makeError(ErrorCode::UnsupportedCombination,
                         scenario.train.checkpointing == Checkpointing::EveryK
                             ? needs + ", more than the " + backend.name() +
                                   " backend holds, and extrapolating over layers with every-k checkpointing is "
                                   "not implemented"
                             : needs + ": the " + backend.name() + " backend runs small models only (limit " +
                                   formatGiB(static_cast<double>(capacity)) + "), and two layers of it need " +
                                   formatGiB(static_cast<double>(peakWith(2))));
    const std::uint64_t small = std::max<std::uint64_t>(1, large / 2);
    Scenario smallScenario = scenario, largeScenario = scenario;
    smallScenario.model.layers = small;
    largeScenario.model.layers = large;
    r.extrapolation.reason =
        tooLarge ? needs + ", more than the " + backend.name() + " backend holds (" +
                       formatGiB(static_cast<double>(capacity)) + ")"
                 : "at most " + std::to_string(options.maxLayers) + " layers were asked for (--max-layers)";
    const Measurement smallRun = backend.run(smallScenario, options);
    const Measurement largeRun = backend.run(largeScenario, options);
    r.measured = extrapolate(smallRun, small, largeRun, large, L, r.extrapolation);
    return r;
}

DeviceUsedCheck deviceUsedCheck(const ValidationResult& r)
{
    DeviceUsedCheck c;
    const DeviceMeasurement& d = r.measured.deviceLevel;
    if (!d.present || d.usedPeakBytes == 0)
        return c;
    c.present = true;
    // The device holds the block pool's segments (runtime/blockpool.h), not
    // just the live tensors: planned is the plan's reserved, which simulates
    // that pool.
    c.planned = r.plan.peakReservedBytes + d.overheadBytes();
    c.measured = d.usedPeakBytes > d.othersBytes ? d.usedPeakBytes - d.othersBytes : 0;
    // Issue 5's bound: 2 % of the planned bytes or 64 MiB, whichever is larger.
    c.tolerance = std::max<Bytes>(c.planned / 50, 64 * MiB);
    return c;
}

std::vector<std::string> planMeasurementDifferences(const Plan& plan, const Measurement& m)
{
    std::vector<std::string> out;
    for (std::size_t e = 0; e < plan.events.size() && e < m.eventBytes.size(); ++e) {
        if (!m.eventSeen[e])
            continue;
        const std::string label = eventLabel(plan.events[e]);
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            if (plan.timeline[e][c] != m.eventBytes[e][c])
                out.push_back(label + ": " + categoryName(static_cast<Category>(c)) + " planned " +
                              std::to_string(plan.timeline[e][c]) + " measured " + std::to_string(m.eventBytes[e][c]));
        const auto planned = plannedTensors(plan, e);
        std::set<std::string> names;
        for (const auto& [n, b] : planned)
            names.insert(n);
        for (const auto& [n, b] : m.eventTensors[e])
            names.insert(n);
        for (const std::string& n : names) {
            const Bytes p = planned.count(n) ? planned.at(n) : 0;
            const Bytes q = m.eventTensors[e].count(n) ? m.eventTensors[e].at(n) : 0;
            if (p != q)
                out.push_back(label + ": tensor " + n + " planned " + std::to_string(p) + " measured " + std::to_string(q));
        }
    }
    if (m.status == "ok" && plan.peakBytes != m.peakBytes)
        out.push_back("peak: planned " + std::to_string(plan.peakBytes) + " measured " + std::to_string(m.peakBytes));
    return out;
}

nlohmann::json validationJson(const ValidationResult& r)
{
    const Plan& plan = r.plan;
    const Measurement& m = r.measured;
    nlohmann::json j;
    j["schema"] = kValidationSchema;
    j["status"] = m.status;
    if (m.status != "ok")
        j["message"] = m.message;
    j["backend"] = r.backend;
    j["device"] = m.device;
    j["scenario"] = scenarioToJson(r.scenario);
    j["planned"] = {{"peak_bytes", plan.peakBytes},
                    {"peak_event", eventLabel(plan.events[plan.peakEvent])},
                    {"categories", categoriesJson(plan.breakdown)}};
    j["measured"] = {{"peak_bytes", m.peakBytes},
                     {"peak_event", m.peakEvent < plan.events.size() ? eventLabel(plan.events[m.peakEvent]) : ""},
                     {"categories", categoriesJson(m.peakCategories)}};
    nlohmann::json difference = nlohmann::json::object();
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        difference[categoryName(static_cast<Category>(c))] =
            static_cast<std::int64_t>(m.peakCategories[c]) - static_cast<std::int64_t>(plan.breakdown[c]);
    j["difference"] = {{"peak_bytes", static_cast<std::int64_t>(m.peakBytes) - static_cast<std::int64_t>(plan.peakBytes)},
                       {"categories", difference}};
    nlohmann::json events = nlohmann::json::array();
    for (std::size_t e = 0; e < plan.events.size(); ++e) {
        Bytes planned = 0;
        for (Bytes b : plan.timeline[e])
            planned += b;
        nlohmann::json ev = {{"label", eventLabel(plan.events[e])}, {"planned_bytes", planned}};
        if (e < m.eventSeen.size() && m.eventSeen[e]) {
            const Bytes measured = categoryTotal(m.eventBytes[e]);
            ev["measured_bytes"] = measured;
            ev["difference"] = static_cast<std::int64_t>(measured) - static_cast<std::int64_t>(planned);
        } else {
            ev["measured_bytes"] = nullptr;
        }
        events.push_back(ev);
    }
    j["events"] = events;
    // Tensor by tensor at the planned peak: every row name, planned and measured.
    if (plan.peakEvent < m.eventSeen.size() && m.eventSeen[plan.peakEvent]) {
        const auto planned = plannedTensors(plan, plan.peakEvent);
        std::set<std::string> names;
        for (const auto& [n, b] : planned)
            names.insert(n);
        for (const auto& [n, b] : m.eventTensors[plan.peakEvent])
            names.insert(n);
        nlohmann::json tensors = nlohmann::json::array();
        for (const std::string& n : names) {
            const Bytes p = planned.count(n) ? planned.at(n) : 0;
            const Bytes q = m.eventTensors[plan.peakEvent].count(n) ? m.eventTensors[plan.peakEvent].at(n) : 0;
            tensors.push_back({{"name", n}, {"planned_bytes", p}, {"measured_bytes", q}});
        }
        j["peak_tensors"] = tensors;
    }
    if (m.deviceLevel.present) {
        const DeviceMeasurement& d = m.deviceLevel;
        const DeviceUsedCheck check = deviceUsedCheck(r);
        nlohmann::json device = {{"total_bytes", d.totalBytes},         {"others_bytes", d.othersBytes},
                                 {"context_bytes", d.contextBytes},     {"workspace_bytes", d.workspaceBytes},
                                 {"handle_bytes", d.handleBytes},       {"scratch_bytes", d.scratchBytes},
                                 {"overhead_bytes", d.overheadBytes()}, {"used_peak_bytes", d.usedPeakBytes},
                                 {"event_used_bytes", d.eventUsedBytes}};
        device["pool"] = {{"planned_reserved_peak_bytes", r.plan.peakReservedBytes},
                          {"reserved_peak_bytes", d.poolReservedPeakBytes},
                          {"allocated_peak_bytes", d.poolAllocatedPeakBytes},
                          {"segment_allocations", d.poolSegmentAllocations},
                          {"segment_frees", d.poolSegmentFrees},
                          {"alloc_retries", d.poolAllocRetries}};
        if (check.present)
            device["check"] = {{"planned_bytes", check.planned},     {"measured_bytes", check.measured},
                               {"difference", check.difference()},   {"tolerance_bytes", check.tolerance},
                               {"within_tolerance", check.within()}};
        j["device_level"] = device;
    }
    j["step_seconds"] = m.stepSeconds;
    j["tokens_per_second"] = m.tokensPerSecond;
    // Achieved model FLOP/s (runtime/stepflops.h: PaLM Appendix B's count).
    const double flops = modelFlopsPerStep(r.scenario);
    j["model_flops_per_step"] = flops;
    j["model_tflops_per_second"] = m.stepSeconds > 0 ? flops / m.stepSeconds / 1e12 : 0.0;
    j["losses"] = m.losses;
    j["extrapolated"] = r.extrapolation.used;
    if (r.extrapolation.used) {
        const Extrapolation& x = r.extrapolation;
        nlohmann::json runs = nlohmann::json::array();
        for (const auto& [layers, run] : {std::pair{x.smallLayers, &x.small}, std::pair{x.largeLayers, &x.large}}) {
            nlohmann::json one = {{"layers", layers},
                                  {"status", run->status},
                                  {"peak_bytes", run->peakBytes},
                                  {"categories", categoriesJson(run->peakCategories)},
                                  {"step_seconds", run->stepSeconds}};
            if (run->status != "ok")
                one["message"] = run->message;
            if (run->deviceLevel.present)
                one["device_used_peak_bytes"] = run->deviceLevel.usedPeakBytes;
            runs.push_back(one);
        }
        j["extrapolation"] = {{"full_layers", x.fullLayers}, {"reason", x.reason}, {"peak_kind", x.peakKind},
                              {"runs", runs}};
    }
    nlohmann::json notes = nlohmann::json::array();
    if (r.scenario.profile != Profile::Headroom)
        notes.push_back(std::string("planned with the headroom profile (the engine's own program), not the scenario's ") +
                        profileName(r.scenario.profile) + " profile");
    for (const std::string& n : m.notes)
        notes.push_back(n);
    const auto differences = planMeasurementDifferences(plan, m);
    if (m.status == "ok")
        notes.push_back(differences.empty()
                            ? "planned and measured agree to the byte at every event, per category and per tensor row"
                            : std::to_string(differences.size()) + " differences between planned and measured; first: " +
                                  differences.front());
    j["notes"] = notes;
    return j;
}

std::string chromeTrace(const ValidationResult& r)
{
    // Chrome trace event format: counter events ("ph":"C") carry their
    // series in args; Perfetto and chrome://tracing draw one track per arg.
    nlohmann::json events = nlohmann::json::array();
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"tid", 1},
                      {"args", {{"name", "headroom " + r.backend + " training step"}}}});
    std::size_t lastEvent = static_cast<std::size_t>(-1);
    for (const AllocationRecord& a : r.measured.records) {
        const double us = a.seconds * 1e6;
        if (a.event != lastEvent && a.event < r.plan.events.size()) {
            events.push_back({{"name", eventLabel(r.plan.events[a.event])}, {"ph", "i"}, {"s", "p"}, {"ts", us},
                              {"pid", 1}, {"tid", 1}});
            lastEvent = a.event;
        }
        nlohmann::json args = nlohmann::json::object();
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            args[categoryName(static_cast<Category>(c))] = a.live[c];
        events.push_back({{"name", "memory (bytes)"}, {"ph", "C"}, {"ts", us}, {"pid", 1}, {"tid", 1}, {"args", args}});
    }
    nlohmann::json trace = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
    return trace.dump() + "\n";
}

std::string validationTable(const ValidationResult& r)
{
    std::ostringstream out;
    const Plan& plan = r.plan;
    const Measurement& m = r.measured;
    out << "Validation on " << m.device << " (" << r.backend << " backend): " << m.status << "\n";
    if (r.extrapolation.used)
        out << "  extrapolated per layer from runs with " << r.extrapolation.smallLayers << " and "
            << r.extrapolation.largeLayers << " of " << r.extrapolation.fullLayers << " layers: "
            << r.extrapolation.reason << "\n";
    if (m.status != "ok")
        out << "  " << m.message << "\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-18s %16s %16s %14s\n", "category", "planned", "measured", "difference");
    out << line;
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        std::snprintf(line, sizeof line, "%-18s %16llu %16llu %14lld\n", categoryName(static_cast<Category>(c)),
                      static_cast<unsigned long long>(plan.breakdown[c]),
                      static_cast<unsigned long long>(m.peakCategories[c]),
                      static_cast<long long>(m.peakCategories[c]) - static_cast<long long>(plan.breakdown[c]));
        out << line;
    }
    std::snprintf(line, sizeof line, "%-18s %16llu %16llu %14lld\n", "peak", static_cast<unsigned long long>(plan.peakBytes),
                  static_cast<unsigned long long>(m.peakBytes),
                  static_cast<long long>(m.peakBytes) - static_cast<long long>(plan.peakBytes));
    out << line;
    out << "planned peak at " << eventLabel(plan.events[plan.peakEvent]) << " (" << gib(plan.peakBytes) << ")";
    if (m.peakEvent < plan.events.size())
        out << ", measured at " << eventLabel(plan.events[m.peakEvent]) << " (" << gib(m.peakBytes) << ")";
    out << "\n";
    if (m.stepSeconds > 0) {
        // Achieved model FLOP/s (runtime/stepflops.h: PaLM Appendix B's count,
        // no recompute); %.3g keeps a CPU's small figure readable.
        std::snprintf(line, sizeof line, "step time %.4f s, %.0f tokens/s, %.3g TFLOP/s achieved (model FLOPs)\n",
                      m.stepSeconds, m.tokensPerSecond, modelFlopsPerStep(r.scenario) / m.stepSeconds / 1e12);
        out << line;
    }
    const auto differences = planMeasurementDifferences(plan, m);
    if (m.status == "ok")
        out << (differences.empty() ? "planned and measured agree to the byte at every event\n"
                                    : std::to_string(differences.size()) + " differences, first: " + differences.front() + "\n");
    if (m.deviceLevel.present) {
        const DeviceMeasurement& d = m.deviceLevel;
        out << "device: context " << gib(d.contextBytes) << ", cuBLAS workspace " << gib(d.workspaceBytes)
            << ", cuBLAS handles " << gib(d.handleBytes) << ", kernel arena " << gib(d.scratchBytes)
            << ", other processes " << gib(d.othersBytes) << "\n";
        std::snprintf(line, sizeof line,
                      "block pool: peak reserved planned %s, measured %s (%+.3f MiB); peak allocated %s in "
                      "rounded blocks; %llu cudaMalloc, %llu cudaFree, %llu retries\n",
                      gib(plan.peakReservedBytes).c_str(), gib(d.poolReservedPeakBytes).c_str(),
                      (static_cast<double>(d.poolReservedPeakBytes) - static_cast<double>(plan.peakReservedBytes)) /
                          static_cast<double>(MiB),
                      gib(d.poolAllocatedPeakBytes).c_str(), static_cast<unsigned long long>(d.poolSegmentAllocations),
                      static_cast<unsigned long long>(d.poolSegmentFrees),
                      static_cast<unsigned long long>(d.poolAllocRetries));
        out << line;
        if (const DeviceUsedCheck check = deviceUsedCheck(r); check.present) {
            std::snprintf(line, sizeof line, "device used: planned %s (reserved + overheads), measured %s, %+.3f MiB: %s\n",
                          gib(check.planned).c_str(), gib(check.measured).c_str(),
                          static_cast<double>(check.difference()) / static_cast<double>(MiB),
                          check.within() ? "within 2 % / 64 MiB" : "OUTSIDE 2 % / 64 MiB");
            out << line;
        }
    }
    return out.str();
}

} // namespace headroom::rt
