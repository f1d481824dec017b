// SPDX-License-Identifier: GPL-3.0-or-later
// The shape of one rank of a tensor/pipeline/expert-parallel layout
// (plan/parallel.h): which tensors of the model it holds and how much of
// each (Megatron-LM's column- and row-parallel linears, vocab-parallel
// embedding and output layer, experts over ep and etp), and the model it
// plans (heads, widths and layers divided). parallel.cpp checks the layout
// that makes every split here exact.
#include "plan/parallel.h"

#include <cstring>
#include <utility>

namespace headroom {

namespace {

// Multi-head latent attention's down projections to the latents, q_a_proj
// and kv_a_proj_with_mqa: Megatron-LM builds them as TELinear with
// parallel_mode "duplicated", a whole copy on every tensor-parallel rank
// (megatron/core/transformer/multi_latent_attention.py MLASelfAttention,
// gpt_layer_specs.py linear_q_down_proj=backend.linear()); with sequence
// parallelism they run on the rank's sequence shard. The up projections
// (q_b_proj, kv_b_proj) are column-parallel over the heads, the output
// projection row-parallel; the latent norms are replicated.
bool mlaLatentDownProjection(const ParamTensor& t)
{
    return std::strcmp(t.module, "q_a_proj") == 0 || std::strcmp(t.module, "kv_a_proj_with_mqa") == 0;
}

// A routed expert's tensor: one of `experts` stacked copies.
bool routedExpert(const ParamTensor& t, const ModelSpec& m) { return m.experts > 1 && t.copies == m.experts; }

bool columnParallel(ModuleKind k)
{
    return k == ModuleKind::AttnQ || k == ModuleKind::AttnK || k == ModuleKind::AttnV || k == ModuleKind::AttnQkv ||
           k == ModuleKind::MlpGate || k == ModuleKind::MlpUp || k == ModuleKind::MlpGateUp || k == ModuleKind::MlpIn;
}

bool rowParallel(ModuleKind k) { return k == ModuleKind::AttnOut || k == ModuleKind::MlpDown; }

bool embeddingKind(ModuleKind k)
{
    return k == ModuleKind::Embedding || k == ModuleKind::PositionEmbedding || k == ModuleKind::TokenTypeEmbedding;
}

// One tensor as one tensor-parallel rank holds it. The checks of
// parallelLayout() make every split exact; ceilDiv keeps a split that is not
// (never reached) from under-counting.
ParamTensor splitTensor(ParamTensor t, const ModelSpec& m, const ParallelLayout& l)
{
    // Routed experts split over the expert tensor-parallel ranks
    // (megatron/core/transformer/moe/experts.py: fc1 column-parallel and fc2
    // row-parallel over the expert TP group); the router stays whole
    // (moe/router.py TopKRouter: a replicated weight).
    const std::uint64_t ways = routedExpert(t, m) ? l.etp : l.tp;
    if (ways == 1 || (m.isMla() && mlaLatentDownProjection(t)))
        return t;
    if (columnParallel(t.kind)) {
        t.rows = ceilDiv(t.rows, ways); // ColumnParallelLinear: weight and bias per partition
    } else if (rowParallel(t.kind)) {
        if (!t.isBias)
            t.cols = ceilDiv(t.cols, ways); // RowParallelLinear: input features split, bias whole
    } else if (t.kind == ModuleKind::AttnSinks) {
        t.rows = ceilDiv(t.rows, ways); // one per head of the partition
    } else if ((t.kind == ModuleKind::Embedding || t.kind == ModuleKind::LmHead) && t.rows == m.vocab) {
        t.rows =
            l.paddedVocab / l.tp; // VocabParallelEmbedding; the output layer is column-parallel over the vocabulary
    }
    return t;
}

// The model's layers chunk `chunk` of rank `stage` holds: [first, first + count).
std::pair<std::uint64_t, std::uint64_t> chunkRange(const ParallelLayout& l, std::uint64_t stage, std::uint64_t chunk)
{
    const std::uint64_t virtualStage = chunk * l.pp + stage;
    std::uint64_t first = 0;
    for (std::uint64_t v = 0; v < virtualStage && v < l.chunkLayers.size(); ++v)
        first += l.chunkLayers[v];
    return {first, l.layersOfChunk(stage, chunk)};
}

} // namespace

std::uint64_t denseLayersOfChunk(const ParallelLayout& l, std::uint64_t stage, std::uint64_t chunk,
                                 const ModelSpec& model)
{
    const auto [first, layers] = chunkRange(l, stage, chunk);
    if (model.denseLayerIds.empty())
        return model.denseLayers <= first ? 0 : std::min(model.denseLayers - first, layers);
    std::uint64_t dense = 0;
    for (std::uint64_t layer = first; layer < first + layers; ++layer)
        dense += model.isDenseLayer(layer) ? 1 : 0;
    return dense;
}

std::uint64_t denseLayersOfStage(const ParallelLayout& l, std::uint64_t stage, const ModelSpec& model)
{
    if (l.stageLayers.empty())
        return model.denseLayers;
    std::uint64_t dense = 0;
    for (std::uint64_t chunk = 0; chunk < l.vpp; ++chunk)
        dense += denseLayersOfChunk(l, stage, chunk, model);
    return dense;
}

// The positions, among the layers a rank runs (its chunks in order), of its
// dense layers; empty when they are its first ones, as with DeepSeek-V3's
// dense prefix, which a chunk after a rank's first only holds when every
// earlier virtual stage (the rank's first chunk among them) is dense.
std::vector<std::uint64_t> denseLayerIdsOfStage(const ParallelLayout& l, std::uint64_t stage, const ModelSpec& model)
{
    if (model.denseLayerIds.empty())
        return {};
    if (l.stageLayers.empty())
        return model.denseLayerIds;
    std::vector<std::uint64_t> ids;
    std::uint64_t position = 0;
    for (std::uint64_t chunk = 0; chunk < l.vpp; ++chunk) {
        const auto [first, layers] = chunkRange(l, stage, chunk);
        for (std::uint64_t layer = first; layer < first + layers; ++layer, ++position)
            if (model.isDenseLayer(layer))
                ids.push_back(position);
    }
    bool prefix = true;
    for (std::size_t k = 0; k < ids.size(); ++k)
        prefix = prefix && ids[k] == k;
    return prefix ? std::vector<std::uint64_t>{} : ids;
}

ParameterTable rankParameterTable(const ParameterTable& full, const ModelSpec& m, const ParallelLayout& l,
                                  std::uint64_t stage)
{
    ParameterTable r;
    r.layers = stage < l.stageLayers.size() ? l.stageLayers[stage] : full.layers;
    r.layer.reserve(full.layer.size());
    for (const ParamTensor& t : full.layer) {
        r.layer.push_back(splitTensor(t, m, l));
        // Expert parallelism: the rank holds experts / ep of each layer's
        // routed experts (parallelLayout checks that ep divides them).
        // Under FSDP2 the table keeps every expert: torchtitan shards the
        // experts / ep a rank holds over dp_shard x cp / ep ranks, the same
        // share of all experts (fsdp2rows.cpp unshardedLayerElements).
        if (l.ep > 1 && !l.fsdp2 && m.isMoe() && t.copies == m.experts) {
            r.layer.back().copies = t.copies / l.ep;
            r.layer.back().expertShare = true;
        }
    }
    r.denseLayers = std::min(denseLayersOfStage(l, stage, m), r.layers);
    if (r.denseLayers > 0)
        for (const ParamTensor& t : full.denseLayer)
            r.denseLayer.push_back(splitTensor(t, m, l));
    // Megatron-LM GPTModel: the embedding on the pre-process (first) stage,
    // the final norm and the output layer on the post-process (last) stage.
    bool head = false;
    for (const ParamTensor& t : full.global) {
        const bool onStage = embeddingKind(t.kind) ? l.firstStage(stage) : l.lastStage(stage);
        if (!onStage)
            continue;
        head = head || t.kind == ModuleKind::LmHead;
        r.global.push_back(splitTensor(t, m, l));
    }
    if (m.tieEmbeddings && l.lastStage(stage) && !l.firstStage(stage) && !head) {
        ParamTensor copy;
        copy.path = "output_layer (the last stage's copy of the tied word embedding)";
        copy.module = "lm_head";
        copy.kind = ModuleKind::LmHead;
        copy.rows = l.paddedVocab / l.tp;
        copy.cols = m.hidden;
        copy.isLinearWeight = true;
        r.global.push_back(copy);
    }
    return r;
}

ModelSpec rankModelSpec(const ModelSpec& model, const ParallelLayout& l, std::uint64_t stage)
{
    ModelSpec m = model;
    if (stage < l.stageLayers.size())
        m.layers = l.stageLayers[stage];
    m.denseLayers = std::min(denseLayersOfStage(l, stage, model), m.layers);
    m.denseLayerIds = denseLayerIdsOfStage(l, stage, model);
    m.denseIntermediate = model.denseIntermediate / l.tp;
    m.sharedExpertIntermediate = model.sharedExpertIntermediate / l.tp;
    m.heads = model.heads / l.tp;
    m.kvHeads = model.kvHeads / l.tp;
    // A mixture of experts' `intermediate` is its experts' width.
    m.intermediate = model.intermediate / (model.experts > 1 ? l.etp : l.tp);
    m.vocab = l.paddedVocab / l.tp;
    if (l.pp > 1)
        m.tieEmbeddings = false; // each stage's copy is its own tensor (synchronised by an all-reduce)
    return m;
}

} // namespace headroom
