// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor table of one rank of a tensor/pipeline-parallel layout, and the
// plan of a layout: every pipeline stage planned, the worst one reported.
// Sources:
// - Activations under tensor and sequence parallelism: Korthikanti et al.
//   2022, "Reducing Activation Recomputation in Large Transformer Models"
//   (arXiv:2205.05198) §4.2, Table 2: per layer sbh(34 + 5as/h) without
//   parallelism; sbh(10 + 24/t + 5as/(ht)) with tensor parallelism t (the
//   attention and MLP inner activations divided by t, the 10 sbh of the two
//   norms' inputs, the two linear inputs after them and the two dropout masks
//   replicated); sbh/t (34 + 5as/h) with sequence parallelism too (those 10
//   sbh split along the sequence). Here the rank's layer saves are the
//   planner's own itemisation (layersaves.cpp) over the rank's model (heads,
//   KV heads, MLP width and vocabulary divided by t): what divides follows
//   from the shapes; sequence parallelism then divides by t every activation
//   row that does not depend on those widths (the b x s x h and b x s
//   tensors of the norms, residual and dropout).
// - Micro-batches in flight: Narayanan et al. 2021, "Efficient Large-Scale
//   Language Model Training on GPU Clusters Using Megatron-LM"
//   (arXiv:2104.04473) §2.2.1-2.2.2: under 1F1B stage i (of p) holds the
//   activations of at most p - i micro-batches (the first stage p); under
//   GPipe every stage holds all m micro-batches of the step.
// - Interleaved 1F1B (vpp > 1): the schedule of parallel.h interleavedPeak
//   (Megatron-LM get_pp_rank_microbatches and get_schedule_table; torch
//   ScheduleInterleaved1F1B), whose warm-up on rank r runs
//   min(2 (p - r - 1) + (v - 1) p, v m) chunk forwards; the steady state then
//   runs one forward before each backward, so a rank holds warm-up + 1 chunk
//   micro-batches from the first steady-state forward on (Megatron-LM's
//   max_outstanding_backprops = num_warmup_microbatches + 1), or all v m
//   when the warm-up takes every forward. Narayanan et al. 2021 §2.2.2: the
//   first stage holds about p(1 + (p - 1)/(p v)) micro-batches' worth.
#include "core/shortdecimal.h"
#include "plan/denselayers.h"
#include "plan/moesaves.h"
#include "plan/planbuild.h"
#include "plan/sweep.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace headroom::detail {

namespace {

// The build context for the same rank with another model and table (the
// rank's with the tensor-parallel widths undivided): every setting the same
// (Megatron-LM's loss rows among them), notes and pieces left out, as this
// build is only compared.
BuildContext withModel(const BuildContext& ctx, const ModelSpec& model, const ParameterTable& table)
{
    BuildContext w(ctx, model, table);
    w.notes = nullptr;
    w.pieces = nullptr;
    return w;
}

Bytes scaledBytes(Bytes bytes, double factor)
{
    const long double scaled = std::ceil(static_cast<long double>(bytes) * factor);
    return scaled >= static_cast<long double>(~Bytes{0}) ? ~Bytes{0} : static_cast<Bytes>(scaled);
}

// torchtitan's MoE block under tp all-gathers its input and replicates the
// router (llama4/infra/parallelize.py apply_moe_ep_tp): the router's saved
// input, its scores and the routing tensors are over every token of the
// sequence on each tp rank, as is the dispatch of all the token slots (each
// rank runs its tp share of every expert: the slot rows, expertSlotRow,
// scale by etp / tp = 1).
bool moeRowWholeUnderTorchtitanTp(const char* name)
{
    for (const char* key : {"moe.router_in", "moe.router_weight_fp32", "moe.routing", "moe.dispatch"})
        if (std::strcmp(key, name) == 0)
            return true;
    return false;
}

// Sequence parallelism (Korthikanti et al. 2022 §4.2.2): the activation rows
// whose bytes do not change when the tensor-parallel widths are undivided are
// the replicated ones (b x s x h, b x s): divide them by t. A row so divided
// is one tensor to the allocator (its pieces no longer add up). Under FSDP2
// (torchtitan's DTensor sequence parallelism) the all-gathered inputs of the
// column-parallel linears stay whole (torchtitanrows.cpp
// keptWholeUnderDTensorSequenceParallel).
void applySequenceParallel(const BuildContext& ctx, std::vector<TensorRow>& rows, std::size_t begin)
{
    const RankShape& rank = *ctx.rank;
    const ParallelLayout& l = *rank.layout;
    const ModelSpec& full = *rank.fullModel;
    // The rows of a model with dense layers are built twice, the second time
    // for its dense view (planner.cpp, denselayers.h): undivide that view.
    const bool denseView = full.isMoe() && !ctx.model.isMoe();
    ModelSpec whole = ctx.model;
    whole.heads = full.heads;
    whole.kvHeads = full.kvHeads;
    whole.intermediate = denseView ? full.denseIntermediate : full.intermediate;
    whole.denseIntermediate = full.denseIntermediate;
    whole.sharedExpertIntermediate = denseView ? 0 : full.sharedExpertIntermediate;
    whole.vocab = l.paddedVocab;
    // The undivided parameter table too: rows sized from the linears'
    // shapes (op-level checkpointing's kept mm outputs, Float8's casts) must
    // differ where the split makes them differ.
    const ParameterTable builtTable = rank.fullTable ? ParameterTable{} : buildParameterTable(full);
    const ParameterTable& fullTable = rank.fullTable ? *rank.fullTable : builtTable;
    const ParameterTable denseTable = denseView ? denseLayerTable(fullTable) : ParameterTable{};
    const ParameterTable& wholeTable = denseView ? denseTable : fullTable; // no copy: a search plans thousands
    std::vector<TensorRow> undivided;
    addSharedRows(withModel(ctx, whole, wholeTable), undivided, SharedRows::Undivided, addActivationRows);
    if (undivided.size() != rows.size() - begin) {
        ctx.note(
            "Sequence parallelism was not applied: the rank's activation rows did not match the undivided model's.");
        return;
    }
    for (std::size_t i = 0; i < undivided.size(); ++i) {
        TensorRow& row = rows[begin + i];
        // The experts' token slots: the dispatcher gathers each rank's
        // sequence shard (tokens / tp) over the etp ranks of its expert
        // (token_dispatcher.py MoEAlltoAllTokenDispatcher.token_dispatch:
        // gather_from_sequence_parallel_region over the expert TP group), so a
        // GPU holds tokens x top-k x etp / tp slots, at the expert width / etp
        // the rank's model already has. The rank's rows are over all the
        // tokens: scale them by etp / tp.
        if (expertSlotRow(ctx.model, row.name)) {
            row.bytes = ceilDiv(satMul(row.bytes, l.etp), l.tp);
            row.pieceBegin = row.pieceEnd = 0;
            continue;
        }
        if (row.bytes != undivided[i].bytes ||
            (row.name != undivided[i].name && std::strcmp(row.name, undivided[i].name) != 0))
            continue;
        if (l.fsdp2 && (keptWholeUnderDTensorSequenceParallel(row.name) || moeRowWholeUnderTorchtitanTp(row.name)))
            continue;
        row.bytes = ceilDiv(row.bytes, l.tp);
        row.pieceBegin = row.pieceEnd = 0;
    }
}

// Capacity factors and uneven routing (scenario.h MoeRouting): the busiest
// rank's experts take expertSlotFactor times the even share of token slots.
void applyExpertSlotFactor(const BuildContext& ctx, std::vector<TensorRow>& rows, std::size_t begin)
{
    const double factor = expertSlotFactor(ctx.scenario.train.moe);
    if (factor == 1.0 || !ctx.model.isMoe())
        return;
    for (std::size_t i = begin; i < rows.size(); ++i) {
        TensorRow& row = rows[i];
        if (!expertSlotRow(ctx.model, row.name))
            continue;
        row.bytes = scaledBytes(row.bytes, factor);
        row.pieceBegin = row.pieceEnd = 0;
    }
}

bool forwardPhase(Phase p) { return p >= Phase::EmbedFwd && p <= Phase::LossFwd; }
bool backwardPhase(Phase p) { return p >= Phase::LossBwd && p <= Phase::EmbedBwd; }

// What one micro-batch keeps from its forward to its backward on this rank
// (saved activations, checkpoint boundaries, the loss's saved log-softmax).
bool keptToBackward(const TensorRow& row)
{
    return (row.category == Category::Activations || row.category == Category::Logits) && forwardPhase(row.allocAt) &&
           backwardPhase(row.freeAt);
}

// With vpp > 1, what one micro-batch of each of the rank's chunks keeps to
// its backward: the layers' rows in proportion to the chunk's layers (the
// rank's rows are one block of all its layers), the embedding side's global
// rows on chunk 0 and the head's and loss's on the last chunk (Megatron-LM
// GPTModel pre_process / post_process on the first and last virtual stage;
// torchtitan pipeline_llama_manual_split is_first / is_last).
std::vector<Bytes> chunkActivationBytes(const BuildContext& ctx, const std::vector<TensorRow>& rows)
{
    const ParallelLayout& l = *ctx.rank->layout;
    Bytes layerRows = 0, embedSide = 0, headSide = 0;
    for (const TensorRow& row : rows) {
        if (!keptToBackward(row))
            continue;
        const Bytes bytes =
            satMul(row.bytes, instanceCount(row, ctx.model.layers, ctx.checkpointEvery, ctx.model.slidingPeriod));
        if (row.layers != LayerSet::Global)
            layerRows = satAdd(layerRows, bytes);
        else if (row.allocAt >= Phase::HeadFwd)
            headSide = satAdd(headSide, bytes);
        else
            embedSide = satAdd(embedSide, bytes);
    }
    std::vector<Bytes> chunks(l.vpp, 0);
    const std::uint64_t layers = std::max<std::uint64_t>(ctx.model.layers, 1);
    for (std::uint64_t c = 0; c < l.vpp; ++c)
        chunks[c] = static_cast<Bytes>(static_cast<UInt128>(layerRows) * l.layersOfChunk(ctx.rank->stage, c) / layers);
    chunks.front() = satAdd(chunks.front(), embedSide);
    chunks.back() = satAdd(chunks.back(), headSide);
    return chunks;
}

// The stages to plan: all of them, or those that can be the worst. A stage
// between the first and the last holds the rows of the first stage less the
// embedding's, with no more micro-batches in flight (1F1B: pp - stage, GPipe:
// all) and, with the same layer count, no more layers' rows: the first stage
// (which takes the smaller count of an uneven split) bounds every middle stage
// with that count. Middle stages with one layer more are bounded by the first
// of them, which holds the most micro-batches. The last stage (LM head, loss)
// is planned on its own.
std::vector<std::uint64_t> plannedStages(const ParallelLayout& l, bool worstOnly)
{
    std::vector<std::uint64_t> stages;
    // Interleaved FSDP2 stages hold their gradients by the moment their own
    // schedule peaks (parallel.h interleavedPeak): plan them all.
    if (!worstOnly || (l.fsdp2 && l.interleaved())) {
        for (std::uint64_t s = 0; s < l.pp; ++s)
            stages.push_back(s);
        return stages;
    }
    // Under FSDP2 a stage's rows depend on its stage only through its layer
    // count, whether it is the first (embedding, no input receive buffers) or
    // the last (head, loss, no gradient receive buffers), whether its
    // accumulated gradients live from its forward (fewer micro-batches in
    // flight than the step: fsdp2rows.cpp), and how many micro-batches it
    // holds, which falls with the stage (parallel.h inFlightMicroBatches).
    // Of the stages alike in the first four, the earliest holds the most:
    // plan that one of each kind (test_layoutsearch checks it against every
    // stage).
    if (l.fsdp2) {
        struct Kind {
            std::uint64_t layers;
            bool first, last, gradientsWhole;
            bool operator==(const Kind&) const = default;
        };
        std::vector<Kind> seen;
        for (std::uint64_t s = 0; s < l.pp; ++s) {
            const Kind k{l.stageLayers[s], l.firstStage(s), l.lastStage(s), l.microBatches > l.inFlightMicroBatches(s)};
            if (std::find(seen.begin(), seen.end(), k) == seen.end()) {
                seen.push_back(k);
                stages.push_back(s);
            }
        }
        return stages;
    }
    stages.push_back(0);
    for (std::uint64_t s = 1; s + 1 < l.pp; ++s)
        if (l.stageLayers[s] > l.stageLayers[0]) { // the first middle stage with more layers
            stages.push_back(s);
            break;
        }
    if (l.pp > 1)
        stages.push_back(l.pp - 1);
    return stages;
}

// The rank's activation rows: the row builders' over the rank's model, what
// sequence parallelism divides, torchtitan's tensor- and context-parallel
// rows under FSDP2, and the pipeline placement of the global rows from
// `placedFrom` on.
void addRankActivationRows(const BuildContext& ctx, std::vector<TensorRow>& rows, std::size_t placedFrom)
{
    const RankShape& rank = *ctx.rank;
    const ParallelLayout& l = *rank.layout;
    addSharedRows(ctx, rows, SharedRows::RankActivations, [](const BuildContext& c, std::vector<TensorRow>& built) {
        const std::size_t begin = built.size();
        addActivationRows(c, built);
        if (c.rank->layout->sp && c.rank->layout->tp > 1)
            applySequenceParallel(c, built, begin);
        applyExpertSlotFactor(c, built, begin);
    });
    if (l.fsdp2)
        addTorchtitanRankRows(ctx, rows);

    // Pipeline stage assignment (Megatron-LM GPTModel pre_process /
    // post_process): the embedding's rows on the first stage, the final
    // norm's, the LM head's and the loss's on the last. Their parameters are
    // already placed by rankParameterTable; these are the rows made in those
    // events (activations, temporaries, the embedding's backward gradient).
    // FSDP2's model-state rows are the stage's own already (its root unit is
    // the stage's globals, reduced at the end of the stage's backward), so
    // only the activation rows are placed.
    const bool first = l.firstStage(rank.stage), last = l.lastStage(rank.stage);
    const auto offStage = [&](const TensorRow& row) {
        if (row.layers != LayerSet::Global)
            return false;
        const bool embedSide = row.allocAt == Phase::EmbedFwd || row.allocAt == Phase::EmbedBwd;
        const bool headSide = row.allocAt >= Phase::HeadFwd && row.allocAt <= Phase::HeadBwd;
        return (embedSide && !first) || (headSide && !last);
    };
    rows.erase(std::remove_if(rows.begin() + static_cast<std::ptrdiff_t>(placedFrom), rows.end(), offStage),
               rows.end());
}

} // namespace

// The token dispatcher's exchanges (Megatron-LM's MoEAlltoAllTokenDispatcher,
// megatron/core/transformer/moe/token_dispatcher.py token_dispatch and
// token_combine). A GPU's own token slots are its sequence shard's, tokens /
// tp x top-k. Expert parallelism: the layer permutes them by expert, sends
// them to the ranks that hold those experts (all_to_all) and receives as many
// for its own; each exchange holds the slots sent and the slots received at
// once, the one buffer more than one GPU's dispatch (the saved rows are the
// layer saves' already). Expert tensor parallelism: the received slots are
// then all-gathered over the etp ranks and sorted by local expert, the
// gathered buffer alive beside its sorted copy; the combine reduce-scatters
// the expert outputs back. The same runs in the layer's backward. The
// received side takes the busiest rank's share (expertSlotFactor: 1 under
// balanced routing).
void addExpertDispatchRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ParallelLayout& l = *ctx.rank->layout;
    const double factor = expertSlotFactor(ctx.scenario.train.moe);
    const Bytes localTokens = l.sp ? ceilDiv(ctx.tokens, l.tp) : ctx.tokens;
    const Bytes slotBytes = satMul(satMul(localTokens, ctx.model.expertsPerToken), satMul(ctx.model.hidden, ctx.act));
    if (l.ep > 1) {
        const Bytes received = scaledBytes(slotBytes, factor);
        rows.push_back({"moe.all_to_all",
                        "expert parallelism: the token-slot rows received from the other expert-parallel ranks while "
                        "the ones sent are alive (all_to_all of Megatron-LM's alltoall token dispatcher)",
                        Category::Temporaries, received, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false});
        rows.push_back({"moe.all_to_all_bwd", "the same exchange of the rows' gradients in the layer's backward",
                        Category::Temporaries, received, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All, false});
    }
    // torchtitan's TensorParallel experts (FSDP2, ep 1) read the MoE block's
    // all-gathered input: no token slots are exchanged or gathered.
    if (l.etp > 1 && !l.fsdp2) {
        const Bytes gathered = scaledBytes(satMul(slotBytes, l.etp), factor);
        rows.push_back({"moe.etp_all_gather",
                        "expert tensor parallelism: the received token slots all-gathered over the etp ranks of each "
                        "expert, alive while they are sorted by local expert (Megatron-LM's alltoall token "
                        "dispatcher, gather_from_sequence_parallel_region)",
                        Category::Temporaries, gathered, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All, false});
        rows.push_back({"moe.etp_all_gather_bwd",
                        "the expert outputs' gradients gathered the same way in the layer's backward",
                        Category::Temporaries, gathered, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All, false});
    }
    if (l.fsdp2 && l.ep == 1) {
        ctx.note("Mixture of experts under tensor parallelism as torchtitan runs it (apply_moe_ep_tp): the MoE "
                 "block's input all-gathered over the " + std::to_string(l.tp) + " tp GPUs, the router replicated, "
                 "the shared experts colwise and rowwise, each routed expert split over the tp GPUs "
                 "(TensorParallel); the router's input and the routing over every token of the sequence.");
        return;
    }
    if (l.fsdp2) {
        ctx.note("Expert parallelism as torchtitan runs it under FSDP2: each GPU holds " +
                 std::to_string(ctx.model.experts / l.ep) + " of each MoE layer's " +
                 std::to_string(ctx.model.experts) + " routed experts (ep " + std::to_string(l.ep) +
                 "), gathered and reduced alone, " +
                 (l.shardDegree() / l.ep > 1 ? "their shards spread over the " + std::to_string(l.shardDegree() / l.ep) +
                                                   " GPUs of the efsdp mesh"
                                             : std::string("whole, the efsdp mesh being one GPU")) +
                 ": the same share of all experts as without ep. Tokens are taken as routed evenly, and an uneven "
                 "step holds more.");
        return;
    }
    std::string note = "Mixture of experts on Megatron-LM's alltoall dispatcher: each GPU holds " +
                       std::to_string(ctx.model.experts / l.ep) + " of each MoE layer's " +
                       std::to_string(ctx.model.experts) + " routed experts (ep " + std::to_string(l.ep) + ")" +
                       (l.etp > 1 ? ", each split over " + std::to_string(l.etp) + " GPUs (etp)" : std::string()) +
                       (l.expertDataParallel() > 1
                            ? ", their gradients reduced and optimizer states sharded over the " +
                                  std::to_string(l.expertDataParallel()) + " GPUs that hold the same expert shards. "
                            : std::string(", no other GPU holding the same expert shards. "));
    if (factor == 1.0)
        note += "Tokens are taken as routed evenly; an uneven step holds more.";
    else
        note += "The busiest GPU's experts take " + shortDecimal(factor) +
                " times the even share of token slots (train.moe: capacity factor, padding, imbalance).";
    ctx.note(note);
}

void addParallelRankRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const RankShape& rank = *ctx.rank;
    const ParallelLayout& l = *rank.layout;
    if (l.interleaved() && !rank.peak) {
        // Interleaved 1F1B: find the rank's peak moment first, from its
        // activation rows (built apart, without notes or pieces) and, under
        // FSDP2, its chunks' accumulated gradients; then make the rows.
        BuildContext apart = ctx;
        apart.notes = nullptr;
        apart.pieces = nullptr;
        std::vector<TensorRow> activations;
        addRankActivationRows(apart, activations, 0);
        const InterleavedPeak peak =
            interleavedPeak(l, rank.stage, chunkActivationBytes(apart, activations), fsdp2ChunkGradientBytes(ctx));
        RankShape withPeak = rank;
        withPeak.peak = &peak;
        BuildContext planned = ctx;
        planned.rank = &withPeak;
        addParallelRankRows(planned, rows);
        return;
    }
    addModelStateRows(ctx, rows);
    const std::size_t activationsBegin = rows.size();
    // Pipeline stage assignment: see addRankActivationRows. FSDP2's
    // model-state rows are the stage's own already, so only the activation
    // rows are placed.
    addRankActivationRows(ctx, rows, l.fsdp2 ? activationsBegin : 0);
    if (l.dispatchesExperts() && ctx.model.isMoe())
        addExpertDispatchRows(ctx, rows);
    // A schedule that returns the outputs (scenario.h ppReturnOutputs): the
    // last stage keeps each micro-batch's logits in stage.output_chunks to
    // the end of the step. The pass's own are its logits row, kept to the
    // optimizer step (activationrows.cpp); the pass is taken as the step's
    // last, so the other micro-batches' are held from its start.
    if (ctx.scenario.hardware.parallel.ppReturnOutputs && l.lastStage(rank.stage) && l.microBatches > 1)
        for (const TensorRow& row : rows)
            if (std::strcmp(row.name, "logits") == 0) {
                rows.push_back({"pipeline.output_chunks",
                                "the logits of the step's other micro-batches, kept by the pipeline schedule to return "
                                "them (torch.distributed.pipelining stage.py output_chunks, step(return_outputs=True))",
                                Category::Logits, satMul(row.bytes, l.microBatches - 1), Phase::EmbedFwd,
                                Phase::OptimizerStep, LayerSet::Global, false});
                break;
            }

    if (l.interleaved()) {
        // The other chunk micro-batches in flight at the rank's peak: what
        // interleavedPeak holds less the one micro-batch of every chunk this
        // pass holds itself, from the first forward to the last backward.
        // Each kept row counts again for the extra layer micro-batches held
        // (sum over chunks of (held - 1) x the chunk's layers, in proportion
        // to the row's instances over the rank's layers), the embedding
        // side's for chunk 0's and the head's for the last chunk's; given to
        // the allocator as those tensors, as for plain 1F1B below.
        const InterleavedPeak& peak = *rank.peak;
        const auto held = [&](std::uint64_t c) -> std::int64_t {
            return c < peak.held.size() ? static_cast<std::int64_t>(peak.held[c]) : 0;
        };
        std::int64_t extraLayers = 0; // layer micro-batches held beyond the pass's own
        for (std::uint64_t c = 0; c < l.vpp; ++c)
            extraLayers += (held(c) - 1) * static_cast<std::int64_t>(l.layersOfChunk(rank.stage, c));
        const std::uint64_t layers = std::max<std::uint64_t>(ctx.model.layers, 1);
        UInt128 extra = 0;
        bool negative = extraLayers < 0;
        const std::size_t piecesBegin = ctx.pieces ? ctx.pieces->size() : 0;
        for (const TensorRow& row : rows) {
            if (!keptToBackward(row))
                continue;
            std::uint64_t copies = 0;
            if (row.layers != LayerSet::Global) {
                if (extraLayers < 0)
                    continue; // negative already
                const UInt128 instances =
                    instanceCount(row, ctx.model.layers, ctx.checkpointEvery, ctx.model.slidingPeriod);
                const UInt128 n = instances * static_cast<std::uint64_t>(extraLayers) / layers;
                copies = n > ~std::uint64_t{0} ? ~std::uint64_t{0} : static_cast<std::uint64_t>(n);
            } else {
                const std::int64_t chunkHeld = row.allocAt >= Phase::HeadFwd ? held(l.vpp - 1) : held(0);
                if (chunkHeld < 1) {
                    negative = true;
                    continue;
                }
                copies = static_cast<std::uint64_t>(chunkHeld - 1);
            }
            extra += static_cast<UInt128>(row.bytes) * copies;
            if (!ctx.pieces || copies == 0)
                continue;
            if (row.pieceEnd > row.pieceBegin) {
                for (std::uint32_t k = row.pieceBegin; k < row.pieceEnd; ++k)
                    ctx.pieces->push_back({(*ctx.pieces)[k].bytes, satMul((*ctx.pieces)[k].count, copies)});
            } else {
                ctx.pieces->push_back({row.bytes, copies});
            }
        }
        if (negative) {
            // A chunk not held at the peak (its last micro-batch's backward
            // ran): the peak's bytes less the pass's, as one block.
            if (ctx.pieces)
                ctx.pieces->resize(piecesBegin);
            const std::vector<Bytes> perChunk = chunkActivationBytes(ctx, rows);
            UInt128 heldBytes = 0, pass = 0;
            for (std::uint64_t c = 0; c < perChunk.size(); ++c) {
                heldBytes += static_cast<UInt128>(perChunk[c]) * static_cast<std::uint64_t>(held(c));
                pass += perChunk[c];
            }
            extra = heldBytes > pass ? heldBytes - pass : 0;
        }
        rows.push_back({"pipeline.in_flight",
                        "saved activations of the other chunk micro-batches in flight at the rank's peak: interleaved "
                        "1F1B holds min(2 (pp - rank - 1) + (vpp - 1) pp + 1, vpp m) chunk micro-batches on rank "
                        "`rank` (Megatron-LM get_pp_rank_microbatches; torch ScheduleInterleaved1F1B), less one "
                        "micro-batch of each chunk",
                        Category::Activations, extra > ~Bytes{0} ? ~Bytes{0} : static_cast<Bytes>(extra),
                        Phase::EmbedFwd, Phase::EmbedBwd, LayerSet::Global, false});
        if (!negative)
            attachPieces(ctx, rows.back(), piecesBegin);
        return;
    }

    // The earlier micro-batches in flight: what one micro-batch keeps from
    // its forward to its backward on this stage (saved activations,
    // checkpoint boundaries, the loss's saved log-softmax), held k - 1 more
    // times from the first forward to the last backward of the step.
    const std::uint64_t inFlight = l.inFlightMicroBatches(rank.stage);
    if (inFlight > 1) {
        // The allocator sees these as the tensors they are (each kept row's
        // instances, per micro-batch), not as one block: one block of many
        // gigabytes, freed at the end of a step, is split by the next step's
        // smaller requests before it is asked for again, which PyTorch's
        // many same-sized saves never cause.
        Bytes perMicroBatch = 0;
        const std::size_t piecesBegin = ctx.pieces ? ctx.pieces->size() : 0;
        for (const TensorRow& row : rows)
            if (keptToBackward(row)) {
                const std::uint64_t instances =
                    instanceCount(row, ctx.model.layers, ctx.checkpointEvery, ctx.model.slidingPeriod);
                perMicroBatch = satAdd(perMicroBatch, satMul(row.bytes, instances));
                if (!ctx.pieces)
                    continue;
                const std::uint64_t copies = instances * (inFlight - 1);
                if (row.pieceEnd > row.pieceBegin) {
                    for (std::uint32_t k = row.pieceBegin; k < row.pieceEnd; ++k)
                        ctx.pieces->push_back({(*ctx.pieces)[k].bytes, (*ctx.pieces)[k].count * copies});
                } else {
                    ctx.pieces->push_back({row.bytes, copies});
                }
            }
        rows.push_back({"pipeline.in_flight",
                        l.schedule == PipelineSchedule::GPipe
                            ? "saved activations of the step's other micro-batches: GPipe runs every forward before "
                              "any backward (Narayanan et al. 2021 §2.2.1)"
                            : "saved activations of the other micro-batches in flight: 1F1B holds pp - stage on stage "
                              "`stage` (Narayanan et al. 2021 §2.2.2)",
                        Category::Activations, satMul(perMicroBatch, inFlight - 1), Phase::EmbedFwd, Phase::EmbedBwd,
                        LayerSet::Global, false});
        attachPieces(ctx, rows.back(), piecesBegin);
    }
}

Result<Plan> makeParallelPlan(const Scenario& sc, const ParameterTable& table, const PlanOptions& options,
                              const ParallelLayout& layout)
{
    std::vector<RankPlan> ranks;
    Plan worst;
    std::size_t worstIndex = 0;
    StageRowMemo memo;
    memo.withNotes = options.withNotes;
    for (std::uint64_t stage : plannedStages(layout, options.worstRankOnly)) {
        const ModelSpec model = rankModelSpec(sc.model, layout, stage);
        const ParameterTable rankTable = rankParameterTable(table, sc.model, layout, stage);
        RankShape shape;
        shape.layout = &layout;
        shape.stage = stage;
        shape.fullModel = &sc.model;
        shape.fullTable = &table;
        shape.memo = options.shareStageRows ? &memo : nullptr;
        auto plan = planOneRank(sc, model, rankTable, options, &shape);
        if (!plan)
            return plan.error();
        RankPlan r;
        r.stage = stage;
        r.layers = model.layers;
        r.inFlightMicroBatches = layout.inFlightMicroBatches(stage);
        if (layout.interleaved())
            for (std::uint64_t c = 0; c < layout.vpp; ++c)
                r.chunkLayers.push_back(layout.layersOfChunk(stage, c));
        r.peakAllocatedBytes = plan->peakAllocatedBytes;
        r.peakReservedBytes = plan->peakReservedBytes;
        r.deviceUsedBytes = plan->deviceUsedBytes;
        r.breakdown = plan->breakdown;
        ranks.push_back(r);
        if (stage == 0 || plan->deviceUsedBytes > worst.deviceUsedBytes) {
            worst = std::move(plan.value());
            worstIndex = ranks.size() - 1; // the index in ranks, which may skip stages (worstRankOnly)
        }
    }
    worst.ranks = std::move(ranks);
    worst.worstRank = worstIndex;
    worst.tensorParallel = layout.tp;
    worst.pipelineParallel = layout.pp;
    worst.dataParallel = layout.dp;
    worst.contextParallel = layout.cp;
    worst.expertParallel = layout.ep;
    worst.expertTensorParallel = sc.model.isMoe() ? layout.etp : 0;
    worst.virtualStages = layout.vpp;
    // The model's own counts, not the rank's.
    worst.totalParameters = table.totalElements();
    worst.activeParameters = table.activeElements(sc.model.expertsPerToken, sc.model.experts);
    worst.trainableParameters = worst.totalParameters;
    if (!options.withNotes)
        return worst;

    std::string layoutNote =
        "Layout: tp " + std::to_string(layout.tp) + (layout.sp && layout.tp > 1 ? " with sequence parallelism" : "") +
        " x pp " + std::to_string(layout.pp) +
        (layout.interleaved() ? " (interleaved 1F1B, vpp " + std::to_string(layout.vpp) + ")"
                              : std::string(" (") + pipelineScheduleName(layout.schedule) + ")") +
        (layout.cp > 1 ? " x cp " + std::to_string(layout.cp) : std::string()) + " x dp " + std::to_string(layout.dp) +
        " over " + std::to_string(sc.hardware.count) + " GPUs; the counters are those of pipeline stage " +
        std::to_string(worst.ranks[worstIndex].stage) + ", the fullest.";
    worst.notes.insert(worst.notes.begin(), layoutNote);
    if (layout.sp && layout.tp == 1)
        worst.notes.push_back("Sequence parallelism has no effect with tp 1.");
    if (layout.paddedVocab != sc.model.vocab)
        worst.notes.push_back("Vocabulary padded from " + std::to_string(sc.model.vocab) + " to " +
                              std::to_string(layout.paddedVocab) +
                              ", a multiple of tp (Megatron-LM _vocab_size_with_padding).");
    const bool weighted = sc.hardware.parallel.ppSplit == PipelineSplit::Weighted;
    if (weighted) {
        std::string list;
        for (std::uint64_t layers : layout.chunkLayers)
            list += (list.empty() ? "" : ", ") + std::to_string(layers);
        // Stage by stage in virtual-stage order (the interleaved note says which rank holds which).
        worst.notes.push_back("Weighted pipeline split (torchtitan generate_llm_fqn_per_model_part): the embedding "
                              "and the output each count as one layer; the stages hold " +
                              list + " decoder layers.");
    }
    if (layout.interleaved()) {
        const std::uint64_t chunks = layout.pp * layout.vpp, extra = sc.model.layers % chunks;
        std::string split = "Interleaved 1F1B: " + std::to_string(layout.vpp) +
                            " model chunks per rank, rank r holding virtual stages r, r + pp, ...; ";
        if (weighted)
            split += "layers by the weighted split";
        else if (extra == 0)
            split += std::to_string(sc.model.layers / chunks) + " layers each";
        else
            split += "virtual stages 1 to " + std::to_string(extra) + " have " +
                     std::to_string(sc.model.layers / chunks + 1) + " layers, the others " +
                     std::to_string(sc.model.layers / chunks) + " (torchtitan generate_split_points)";
        worst.notes.push_back(split + ". Activations in flight are counted in chunk micro-batches (one chunk's of one "
                                      "micro-batch): rank r's warm-up runs min(2 (pp - r - 1) + (vpp - 1) pp, vpp m) "
                                      "forwards.");
    } else if (!weighted && sc.model.layers % layout.pp != 0) {
        const std::uint64_t extra = sc.model.layers % layout.pp;
        const std::string fuller = extra == 1 ? "stage " + std::to_string(layout.pp - 1) + " has "
                                              : "stages " + std::to_string(layout.pp - extra) + " to " +
                                                    std::to_string(layout.pp - 1) + " have ";
        worst.notes.push_back("Uneven pipeline split: " + fuller + std::to_string(layout.stageLayers.back()) +
                              " layers, the others " + std::to_string(layout.stageLayers.front()) + ".");
    }
    if (layout.pp > 1 && layout.microBatches < layout.pp)
        worst.notes.push_back("Fewer micro-batches (grad_accum " + std::to_string(layout.microBatches) +
                              ") than pipeline stages (" + std::to_string(layout.pp) +
                              "): the pipeline is never full.");
    if (layout.fsdp2) {
        worst.notes.push_back(
            std::string("FSDP2 as torchtitan composes it: parameters sharded over ") +
            (layout.dpReplicate > 1 ? "dp_shard x cp = " : "dp x cp = ") + std::to_string(layout.shardDegree()) +
            " ranks" +
            (layout.dpReplicate > 1 ? " (HSDP: " + std::to_string(layout.dpReplicate) +
                                          " replicate groups all-reduce the sharded gradients)"
                                    : std::string()) +
            (layout.tp > 1 ? ", DTensor tensor and sequence parallelism with the colwise linears' all-gathered inputs "
                             "saved, loss parallelism"
                           : "") +
            (layout.cp > 1 ? ", ring attention over " + std::to_string(sc.train.seqLen / layout.cp) + " local tokens"
                           : "") +
            (layout.pp > 1 ? ", each stage unsharded through the step with its gradients accumulated unsharded" : "") +
            ".");
        worst.notes.push_back("Not modelled with torchtitan's layouts: expert parallelism together with tensor "
                              "parallelism; torch.compile and Float8 linears only with full checkpointing, their "
                              "effect under tp, pp and cp read from the source, not measured.");
        return worst;
    }
    worst.notes.push_back(
        "Not modelled with tensor and pipeline parallelism: point-to-point send and receive buffers (NCCL's "
        "communicators are counted in device used), context parallelism, and mixture-of-experts layers' own "
        "activations (their saves are transformers').");
    return worst;
}

} // namespace headroom::detail
