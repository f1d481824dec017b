// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/planjson.h"

namespace headroom {

namespace {

nlohmann::json categoriesJson(const CategoryBytes& bytes)
{
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        out[categoryName(static_cast<Category>(c))] = bytes[c];
    return out;
}

const char* layerSetName(LayerSet s)
{
    switch (s) {
    case LayerSet::Global: return "global";
    case LayerSet::All: return "every-layer";
    case LayerSet::Checkpointed: return "checkpointed-layers";
    case LayerSet::Plain: return "kept-layers";
    case LayerSet::SlidingPlain: return "kept-sliding-window-layers";
    }
    return "?";
}

} // namespace

nlohmann::json planToJson(const Plan& plan, bool withTimeline, bool withTensors)
{
    nlohmann::json j;
    j["schema"] = "headroom.plan/1";
    j["peak_bytes"] = plan.peakBytes;
    j["categories"] = categoriesJson(plan.breakdown);
    j["peak_event"] = eventLabel(plan.events[plan.peakEvent]);
    j["peak_event_index"] = plan.peakEvent;
    j["peak_phase"] = phaseName(plan.events[plan.peakEvent].phase);
    j["fits"] = plan.fits;
    j["margin_bytes"] = plan.marginBytes;
    j["capacity_bytes"] = plan.capacityBytes;
    j["gpu"] = plan.gpu.id;
    j["peak_allocated_bytes"] = plan.peakAllocatedBytes;
    j["peak_reserved_bytes"] = plan.peakReservedBytes;
    j["allocator_cache_bytes"] = plan.allocatorCacheBytes;
    j["allocator_segments"] = plan.allocatorSegments;
    j["context_bytes"] = plan.contextBytes;
    j["nccl_bytes"] = plan.ncclBytes;
    j["device_used_bytes"] = plan.deviceUsedBytes;
    j["parameters"] = plan.totalParameters;
    j["active_parameters"] = plan.activeParameters;
    j["trainable_parameters"] = plan.trainableParameters;
    j["tokens_per_micro_batch"] = plan.tokensPerMicroBatch;
    j["notes"] = plan.notes;
    // Tensor/pipeline/context parallelism: one entry per pipeline stage; the counters
    // above are the worst stage's (Plan::ranks). Absent for one GPU or data
    // parallelism, so those plans' JSON is as before.
    if (!plan.ranks.empty()) {
        j["parallel"] = {{"tp", plan.tensorParallel}, {"pp", plan.pipelineParallel}, {"dp", plan.dataParallel}};
        if (plan.contextParallel > 1) // written only when used, so earlier layouts' JSON is as before
            j["parallel"]["cp"] = plan.contextParallel;
        if (plan.expertParallel > 1)
            j["parallel"]["ep"] = plan.expertParallel;
        if (plan.expertTensorParallel != 0) // a mixture of experts'
            j["parallel"]["etp"] = plan.expertTensorParallel;
        if (plan.virtualStages > 1) // likewise: interleaved 1F1B only
            j["parallel"]["vpp"] = plan.virtualStages;
        nlohmann::json ranks = nlohmann::json::array();
        for (const RankPlan& r : plan.ranks) {
            nlohmann::json rank = {{"stage", r.stage},
                                   {"layers", r.layers},
                                   {"in_flight_micro_batches", r.inFlightMicroBatches},
                                   {"peak_allocated_bytes", r.peakAllocatedBytes},
                                   {"peak_reserved_bytes", r.peakReservedBytes},
                                   {"device_used_bytes", r.deviceUsedBytes},
                                   {"categories", categoriesJson(r.breakdown)}};
            // With vpp > 1: each chunk's layers; in_flight_micro_batches then counts chunk micro-batches.
            if (!r.chunkLayers.empty())
                rank["chunk_layers"] = r.chunkLayers;
            ranks.push_back(std::move(rank));
        }
        j["ranks"] = std::move(ranks);
        j["worst_rank"] = plan.worstRank;
    }
    if (withTimeline) {
        nlohmann::json timeline = nlohmann::json::array();
        for (std::size_t e = 0; e < plan.events.size(); ++e) {
            Bytes total = 0;
            for (Bytes b : plan.timeline[e])
                total += b;
            timeline.push_back({{"event", eventLabel(plan.events[e])},
                                {"phase", phaseName(plan.events[e].phase)},
                                {"layer", plan.events[e].layer},
                                {"total_bytes", total},
                                {"categories", categoriesJson(plan.timeline[e])}});
        }
        j["timeline"] = std::move(timeline);
    }
    if (withTensors) {
        nlohmann::json tensors = nlohmann::json::array();
        for (const TensorRow& row : plan.tensors)
            tensors.push_back({{"name", row.name},
                               {"category", categoryName(row.category)},
                               {"bytes", row.bytes},
                               {"layers", layerSetName(row.layers)},
                               {"layer_band", row.band == LayerBand::Dense    ? "dense"
                                              : row.band == LayerBand::Sparse ? "moe"
                                                                              : "every"},
                               {"alloc", phaseName(row.allocAt)},
                               {"alloc_at_event_end", row.madeAtEventEnd},
                               {"free", phaseName(row.freeAt)},
                               {"managed", row.managed},
                               {"source", row.source}});
        j["tensors"] = std::move(tensors);
    }
    return j;
}

} // namespace headroom
