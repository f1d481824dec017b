// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include "plan/planner.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string_view>

namespace headroom::cli {

std::string gib(double bytes) { return formatGiB(bytes); }

namespace {

std::string params(double n)
{
    char text[32];
    if (n >= 1e9)
        std::snprintf(text, sizeof text, "%.2f B", n / 1e9);
    else if (n >= 1e6)
        std::snprintf(text, sizeof text, "%.1f M", n / 1e6);
    else
        std::snprintf(text, sizeof text, "%.0f", n);
    return text;
}

std::string pad(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s;
}

std::string padLeft(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.insert(0, width - s.size(), ' ');
    return s;
}

} // namespace

std::string scenarioSummary(const Scenario& s)
{
    std::ostringstream out;
    if (s.mode == Mode::Inference) {
        const InferenceConfig& i = s.inference;
        out << "inference · " << precisionName(i.precision);
        if (i.weightQuant != WeightQuant::None)
            out << " · weights " << weightQuantName(i.weightQuant);
        out << " · batch " << i.batch << " · prompt " << i.promptTokens << " + " << i.newTokens << " new tokens · KV "
            << kvCacheDtypeName(i.kvCacheDtype) << " · " << attentionName(i.attention);
        return out.str();
    }
    const TrainConfig& t = s.train;
    out << "train · " << precisionName(t.precision);
    if (t.peft.method != PeftMethod::None) {
        out << " · " << peftMethodName(t.peft.method) << " r" << t.peft.rank;
        if (t.weightQuant != WeightQuant::None)
            out << " " << weightQuantName(t.weightQuant);
    }
    out << " · " << optimizerName(t.optimizer) << " · micro-batch " << t.microBatch << " × seq " << t.seqLen
        << " × accum " << t.gradAccum << " · checkpointing " << checkpointingName(t.checkpointing);
    if (t.checkpointing == Checkpointing::EveryK)
        out << " " << t.checkpointEvery;
    out << " · " << attentionName(t.attention);
    if (t.chunkedCrossEntropy)
        out << " · chunked CE";
    return out.str();
}

std::string verdict(const Plan& plan)
{
    const double margin = static_cast<double>(plan.marginBytes);
    return plan.fits ? "fits, " + gib(margin) + " to spare" : "out of memory by " + gib(-margin);
}

std::string planReport(const Scenario& s, const Plan& plan, bool withTensors, const std::string& origin)
{
    std::ostringstream out;
    // A Hub model names the revision it came from (12 digits of a commit, as git abbreviates).
    out << "Headroom plan: " << s.model.id;
    if (!s.model.revision.empty())
        out << '@' << std::string_view(s.model.revision).substr(0, 12);
    out << (s.model.approximate ? " (approximate, scaled from size)" : "") << " ("
        << params(static_cast<double>(plan.totalParameters)) << " parameters";
    if (plan.activeParameters != plan.totalParameters)
        out << ", " << params(static_cast<double>(plan.activeParameters)) << " active per token";
    if (s.mode == Mode::Train)
        out << ", " << params(static_cast<double>(plan.trainableParameters)) << " trainable";
    out << ")\n" << scenarioSummary(s) << "\n";
    out << "GPU: " << plan.gpu.name << " (" << gib(static_cast<double>(plan.capacityBytes)) << ") × "
        << s.hardware.count << ", sharding " << shardingName(s.hardware.sharding)
        << (s.hardware.cpuOffload ? " + CPU offload" : "");
    if (!plan.ranks.empty())
        out << ", tp " << plan.tensorParallel << (s.hardware.parallel.sp && plan.tensorParallel > 1 ? " + sp" : "")
            << " × pp " << plan.pipelineParallel
            << (plan.virtualStages > 1 ? " (interleaved 1f1b, vpp " + std::to_string(plan.virtualStages) + ")"
                                       : " (" + std::string(pipelineScheduleName(s.hardware.parallel.ppSchedule)) + ")")
            << (plan.contextParallel > 1 ? " × cp " + std::to_string(plan.contextParallel) : std::string()) << " × dp "
            << plan.dataParallel
            // The routed experts' split (the Stages view's line says it too).
            << (plan.expertParallel > 1 ? " · ep " + std::to_string(plan.expertParallel) : std::string())
            << (plan.expertTensorParallel != 0 && plan.expertTensorParallel != plan.tensorParallel
                    ? " · etp " + std::to_string(plan.expertTensorParallel)
                    : std::string());
    out << " · profile " << profileName(s.profile) << "\n" << origin << "\n";
    out << "Peak " << gib(static_cast<double>(plan.peakBytes)) << " at " << eventLabel(plan.events[plan.peakEvent])
        << " (of " << plan.events.size() << " events)\n";
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        const Bytes b = plan.breakdown[c];
        if (b == 0)
            continue;
        char share[16];
        std::snprintf(share, sizeof share, "%5.1f%%", 100.0 * static_cast<double>(b) / static_cast<double>(plan.peakBytes));
        out << "  " << pad(categoryName(static_cast<Category>(c)), 17) << padLeft(gib(static_cast<double>(b)), 12) << "  "
            << share << "\n";
    }
    out << "\nCounters: peak allocated " << gib(static_cast<double>(plan.peakAllocatedBytes)) << " · peak reserved "
        << gib(static_cast<double>(plan.peakReservedBytes)) << " · device used (nvidia-smi, with "
        << gib(static_cast<double>(plan.contextBytes)) << " context"
        << (plan.ncclBytes > 0 ? ", " + gib(static_cast<double>(plan.ncclBytes)) + " of it NCCL" : std::string()) << ") "
        << gib(static_cast<double>(plan.deviceUsedBytes))
        << "\nVerdict: " << verdict(plan) << "\n";
    // Tensor/pipeline parallelism: every stage, the worst marked (its plan is the one above).
    if (!plan.ranks.empty()) {
        out << "Stages (the counters above are the worst's):\n";
        for (std::size_t r = 0; r < plan.ranks.size(); ++r) {
            const RankPlan& rank = plan.ranks[r];
            out << "  stage " << rank.stage << ": " << rank.layers << " layers";
            if (!rank.chunkLayers.empty()) {
                // Interleaved: the chunks' layers, and in-flight counts in chunk micro-batches.
                const auto [fewest, most] = std::minmax_element(rank.chunkLayers.begin(), rank.chunkLayers.end());
                out << " in " << rank.chunkLayers.size() << " chunks ";
                if (rank.chunkLayers.size() <= 8) {
                    out << "(";
                    for (std::size_t c = 0; c < rank.chunkLayers.size(); ++c)
                        out << (c ? " + " : "") << rank.chunkLayers[c];
                    out << ")";
                } else {
                    out << "of " << *fewest << (*most != *fewest ? " to " + std::to_string(*most) : std::string());
                }
                out << ", " << rank.inFlightMicroBatches << " chunk micro-batch"
                    << (rank.inFlightMicroBatches == 1 ? "" : "es");
            } else {
                out << ", " << rank.inFlightMicroBatches << " micro-batch"
                    << (rank.inFlightMicroBatches == 1 ? "" : "es");
            }
            out << " in flight, peak allocated " << gib(static_cast<double>(rank.peakAllocatedBytes))
                << ", device used " << gib(static_cast<double>(rank.deviceUsedBytes))
                << (r == plan.worstRank ? "  (worst)" : "") << "\n";
        }
    }
    for (const std::string& note : plan.notes)
        out << "Note: " << note << "\n";
    if (withTensors) {
        out << "\nTensor table (bytes per instance; per-layer rows repeat for each layer in their set)\n";
        for (const TensorRow& row : plan.tensors) {
            if (row.bytes == 0)
                continue;
            out << "  " << pad(row.name, 34) << pad(categoryName(row.category), 16)
                << padLeft(gib(static_cast<double>(row.bytes)), 12) << "  " << phaseName(row.allocAt) << (row.madeAtEventEnd ? " (end)" : "") << " -> "
                << phaseName(row.freeAt)
                << (row.layers == LayerSet::Global ? "" : row.layers == LayerSet::All ? " [each layer]"
                                                        : row.layers == LayerSet::Plain ? " [kept layers]"
                                                        : row.layers == LayerSet::SlidingPlain ? " [kept sliding-window layers]"
                                                                                        : " [checkpointed layers]")
                << (row.band == LayerBand::Dense ? " [dense layers]" : row.band == LayerBand::Sparse ? " [MoE layers]" : "")
                << "\n      " << row.source << "\n";
        }
    }
    return out.str();
}

int fail(const Error& error)
{
    std::cerr << "headroom-cli: " << errorCodeName(error.code) << ": " << error.detail << "\n";
    return 2;
}

} // namespace headroom::cli
