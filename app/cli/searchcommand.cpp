// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli search [scenario options] [--gpus-per-node N] [--top N] [--json]
// The best tensor/pipeline/data-parallel layouts of the scenario's GPUs
// (engine/plan/layoutsearch.h), ranked by estimated step time.
#include "commands.h"

#include "format.h"
#include "options.h"
#include "overrides.h"

#include "plan/layoutsearch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

namespace {

std::string fixed(double x, int digits)
{
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", digits, x);
    return text;
}

std::string seconds(double s) { return s < 1 ? fixed(s * 1e3, 1) + " ms" : fixed(s, 2) + " s"; }

std::string layoutName(const LayoutCandidate& c)
{
    return "tp " + std::to_string(c.tp) + (c.sp ? " (sp)" : "") + " x pp " + std::to_string(c.pp) +
           (c.vpp > 1 ? " (interleaved, vpp " + std::to_string(c.vpp) + ")" : std::string()) +
           (c.cp > 1 ? " x cp " + std::to_string(c.cp) : std::string()) + " x dp " + std::to_string(c.dp) +
           (c.dpReplicate > 1
                ? " (HSDP " + std::to_string(c.dpReplicate) + " x " + std::to_string(c.dp / c.dpReplicate) + ")"
                : std::string()) +
           (c.ep > 1 ? " (ep " + std::to_string(c.ep) +
                           (c.expertTensorParallel() != c.tp ? ", etp " + std::to_string(c.expertTensorParallel()) : "") +
                           ")"
                     : c.expertTensorParallel() != c.tp ? " (etp " + std::to_string(c.expertTensorParallel()) + ")"
                                                        : std::string()) +
           ", " + shardingName(c.sharding) + ", micro-batch " + std::to_string(c.microBatch) + " x " +
           std::to_string(c.gradAccum) + ", checkpointing " + checkpointingName(c.checkpointing);
}

// A layout in the table's short notation (explained under the table).
std::string shapeText(const LayoutCandidate& c)
{
    std::string shape = std::to_string(c.tp) + (c.sp ? "s" : "") + " x " + std::to_string(c.pp);
    if (c.vpp > 1)
        shape += 'v' + std::to_string(c.vpp); // GCC 12 warns, wrongly, on "v" + std::string (-Wrestrict)
    if (c.cp > 1)
        shape += 'c' + std::to_string(c.cp);
    shape += " x " + std::to_string(c.dp);
    if (c.dpReplicate > 1)
        shape += 'r' + std::to_string(c.dpReplicate);
    if (c.ep > 1)
        shape += 'e' + std::to_string(c.ep);
    if (c.expertTensorParallel() != c.tp)
        shape += 't' + std::to_string(c.expertTensorParallel());
    return shape;
}

nlohmann::json toJson(const LayoutCandidate& c)
{
    const StepTime& t = c.time;
    return {{"parallel",
             {{"tp", c.tp},
              {"sp", c.sp},
              {"pp", c.pp},
              {"vpp", c.vpp},
              {"cp", c.cp},
              {"dp", c.dp},
              {"dp_replicate", c.dpReplicate},
              {"ep", c.ep},
              {"etp", c.expertTensorParallel()},
              {"sharding", shardingName(c.sharding)},
              {"micro_batch", c.microBatch},
              {"grad_accum", c.gradAccum},
              {"checkpointing", checkpointingName(c.checkpointing)}}},
            {"peak_allocated_bytes", c.peakAllocatedBytes},
            {"peak_reserved_bytes", c.peakReservedBytes},
            {"device_used_bytes", c.deviceUsedBytes},
            {"margin_bytes", c.marginBytes},
            {"fits", c.fits},
            {"reserved_simulated", c.reservedSimulated},
            {"step_time_s", t.stepSeconds},
            {"terms_s",
             {{"compute", t.computeSeconds},
              {"tensor_parallel", t.tensorParallelSeconds},
              {"pipeline_send", t.pipelineSendSeconds},
              {"bubble", t.bubbleSeconds},
              {"data_parallel", t.dataParallelSeconds},
              {"context_parallel", t.contextParallelSeconds},
              {"expert_parallel", t.expertParallelSeconds}}},
            {"inter_node",
             {{"tp", t.tensorParallelInterNode},
              {"pp", t.pipelineInterNode},
              {"dp", t.dataParallelInterNode},
              {"cp", t.contextParallelInterNode},
              {"ep", t.expertParallelInterNode}}},
            {"bubble_fraction", t.bubbleFraction},
            {"tokens_per_second_per_gpu", t.tokensPerSecondPerGpu},
            {"mfu", t.mfu}};
}

nlohmann::json toJson(const LayoutSearchResult& r)
{
    nlohmann::json layouts = nlohmann::json::array();
    for (const LayoutCandidate& c : r.layouts)
        layouts.push_back(toJson(c));
    nlohmann::json j{{"refused_shapes", r.refusedShapes},
                     {"evaluated", r.evaluated},
                     {"refused", r.refused},
                     {"feasible", r.feasible},
                     {"simulated", r.simulated},
                     {"dropped_by_simulation", r.droppedBySimulation},
                     {"gpus", r.gpus},
                     {"gpu", r.gpu.id},
                     {"global_batch", r.globalBatch},
                     {"global_batch_derived", r.globalBatchDerived},
                     {"gpus_per_node", r.links.gpusPerNode},
                     {"gpus_per_node_assumed", r.gpusPerNodeAssumed},
                     {"links",
                      {{"intra_node_gb_s", r.links.intraNodeGBs},
                       {"inter_node_gb_s", r.links.interNodeGBs},
                       {"source", r.links.source}}},
                     {"assumptions",
                      {{"achievable_fraction_of_peak", kAchievableFractionOfPeak},
                       {"dense_bf16_tflops", r.gpu.denseBf16Tflops},
                       {"selective_op_recompute_fraction", kSelectiveOpRecomputeFraction},
                       {"overlap", "none: every communication term adds to the step"}}},
                     {"cancelled", r.cancelled},
                     {"layouts", layouts}};
    if (!r.commonRefusal.empty())
        j["common_refusal"] = r.commonRefusal;
    if (!r.message.empty())
        j["message"] = r.message;
    return j;
}

// Why the best beats the runner-up: the term that differs most in its
// favour (compareLayouts, engine/plan/layoutsearch.h).
std::string whyBest(const LayoutCandidate& best, const LayoutCandidate& next)
{
    const LayoutComparison c = compareLayouts(best, next);
    if (c.tie)
        return "#1 and #2 take the same estimated step time; #1 is first because it uses less device memory (" +
               gib(double(c.bestDeviceUsedBytes)) + " against " + gib(double(c.runnerUpDeviceUsedBytes)) + ").";
    std::string text = "#1 is " + seconds(c.gapSeconds) + " (" + fixed(100 * c.gapFraction, 1) +
                       "%) faster than #2: its " + stepTermName(c.savedTerm) + " takes " + seconds(c.savedSeconds) +
                       " less (" + seconds(c.bestSavedTermSeconds) + " against " + seconds(c.runnerUpSavedTermSeconds) +
                       ")";
    if (c.paidTerm)
        text += ", more than its " + std::string(stepTermName(*c.paidTerm)) + " costs over #2's (+" +
                seconds(c.paidSeconds) + ")";
    return text + ".";
}

void printText(const Scenario& sc, const LayoutSearchResult& r, const std::string& origin)
{
    std::cout << "Layout search: " << sc.model.id << " on " << r.gpus << " x " << r.gpu.id << "\n"
              << scenarioSummary(sc) << "\n"
              << origin
              << "The search replaces tp, sp, pp, sharding, micro-batch, grad-accum and checkpointing.\n";
    std::cout << "Global batch " << r.globalBatch << " sequences of " << sc.train.seqLen << " tokens"
              << (r.globalBatchDerived ? " (no global_batch given: micro-batch x grad-accum x GPUs)" : "") << ".\n"
              << "GPUs per node: " << r.links.gpusPerNode
              << (r.gpusPerNodeAssumed
                      ? " (assumed: the scenario does not say; --gpus-per-node N or hardware.gpus_per_node)"
                      : "")
              << ".\n"
              << "Links per GPU and direction: " << fixed(r.links.intraNodeGBs, 1) << " GB/s inside a node, "
              << fixed(r.links.interNodeGBs, 1) << " GB/s between nodes (" << r.links.source << ").\n"
              << "Step time: matrix products at " << fixed(100 * kAchievableFractionOfPeak, 0) << "% of "
              << fixed(r.gpu.denseBf16Tflops, 1)
              << " dense bf16 TFLOPS (an assumption), communication not overlapped (docs/planner.md \"Layout "
                 "search\").\n";
    if (r.refusedShapes)
        std::cout << r.refusedShapes << " tp x pp shapes refused by the planner, not enumerated further.\n";
    std::cout << "Evaluated " << r.evaluated << " layouts: " << r.refused << " refused by the planner, " << r.feasible
              << " fit (by the quick estimate of reserved)";
    if (r.droppedBySimulation)
        std::cout << ", " << r.droppedBySimulation << " of those checked did not fit with the allocator simulation";
    std::cout << ".\n";
    if (!r.commonRefusal.empty())
        std::cout << "Most frequent refusal: " << r.commonRefusal << "\n";
    if (r.layouts.empty()) {
        std::cout << r.message << "\n";
        return;
    }
    std::cout << "Best " << r.layouts.size() << " (each re-planned with the allocator simulation):\n";
    // The layout column as wide as its widest entry ("2s x 4v2 x 4e4t1").
    std::vector<std::string> shapes;
    int shapeWidth = 13;
    for (const LayoutCandidate& c : r.layouts) {
        shapes.push_back(shapeText(c));
        shapeWidth = std::max(shapeWidth, int(shapes.back().size()));
    }
    char line[256];
    std::snprintf(line, sizeof line, "  %-3s %-*s %-8s %-9s %-13s %-10s %-10s %-10s %-9s %-5s %s\n", "#", shapeWidth,
                  "tp x pp x dp", "sharding", "mb x acc", "checkpoint", "peak alloc", "reserved", "dev used", "step",
                  "MFU", "tok/s/GPU, bubble");
    std::cout << line;
    for (std::size_t k = 0; k < r.layouts.size(); ++k) {
        const LayoutCandidate& c = r.layouts[k];
        const std::string& shape = shapes[k];
        const std::string batch = std::to_string(c.microBatch) + " x " + std::to_string(c.gradAccum);
        std::snprintf(line, sizeof line, "  %-3zu %-*s %-8s %-9s %-13s %-10s %-10s %-10s %-9s %-5s %.0f, %.1f%%\n", k + 1,
                      shapeWidth, shape.c_str(),
                    shardingName(c.sharding), batch.c_str(), checkpointingName(c.checkpointing),
                    gib(double(c.peakAllocatedBytes)).c_str(), gib(double(c.peakReservedBytes)).c_str(),
                    gib(double(c.deviceUsedBytes)).c_str(), seconds(c.time.stepSeconds).c_str(),
                    (fixed(100 * c.time.mfu, 1) + "%").c_str(), c.time.tokensPerSecondPerGpu,
                    100 * c.time.bubbleFraction);
        std::cout << line;
    }
    std::cout
        << "(tp \"2s\": tensor parallelism 2 with sequence parallelism; pp \"4v2\": 4 stages interleaved, 2 "
           "virtual stages each; \"4c2\": 4 stages, context parallelism 2; dp \"16r2\": HSDP, 2 replicate groups of "
           "8; \"16e8\": the experts split over 8 of the 16; \"t1\" after it: each expert whole on one GPU, not split over "
           "the tp GPUs.)\n";
    const StepTime& t = r.layouts.front().time;
    std::cout << "#1, " << layoutName(r.layouts.front()) << ": compute " << seconds(t.computeSeconds)
              << ", tensor-parallel " << seconds(t.tensorParallelSeconds) << ", pipeline sends "
              << seconds(t.pipelineSendSeconds) << ", bubble " << seconds(t.bubbleSeconds) << ", data-parallel "
              << seconds(t.dataParallelSeconds) << (t.dataParallelInterNode ? " (between nodes)" : " (inside a node)");
    if (r.layouts.front().cp > 1)
        std::cout << ", context-parallel " << seconds(t.contextParallelSeconds)
                  << (t.contextParallelInterNode ? " (between nodes)" : " (inside a node)");
    if (t.expertParallelSeconds > 0)
        std::cout << ", expert-parallel " << seconds(t.expertParallelSeconds)
                  << (t.expertParallelInterNode ? " (between nodes)" : " (inside a node)");
    std::cout << ".\n";
    if (r.layouts.size() > 1)
        std::cout << whyBest(r.layouts[0], r.layouts[1]) << "\n";
}

} // namespace

int runSearch(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("search", args);
    if (o && !o->positional().empty())
        return fail(makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'"));
    if (!o)
        return fail(o.error());
    LayoutSearchOptions options;
    if (o->has("gpus-per-node")) {
        auto n = wholeNumber("gpus-per-node", o->value("gpus-per-node"), 1, 1024);
        if (!n)
            return fail(n.error());
        options.gpusPerNode = n.value();
    }
    options.keep = o->has("json") ? 20 : 5;
    if (o->has("top")) {
        auto n = wholeNumber("top", o->value("top"), 0, 100000);
        if (!n)
            return fail(n.error());
        options.keep = n.value();
    }
    Scenario base;
    auto scenario = scenarioFromOptions(o.value(), &base);
    if (!scenario)
        return fail(scenario.error());
    auto result = searchLayouts(scenario.value(), options);
    if (!result)
        return fail(result.error());
    if (o->has("json")) {
        std::cout << toJson(result.value()).dump(2) << "\n";
        return 0;
    }
    printText(scenario.value(), result.value(), originText(scenarioOrigin(o.value(), base, scenario.value())));
    return 0;
}

} // namespace headroom::cli
