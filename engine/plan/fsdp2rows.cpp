// SPDX-License-Identifier: GPL-3.0-or-later
// FSDP2's rows (fully_shard, as torchtitan applies it): the unsharded copies
// of the units, the all-gather and reduce-scatter buffers on their own CUDA
// streams, and under pipeline parallelism the stage kept unsharded through
// the step with its gradients accumulated unsharded. The sharded weights,
// gradients and optimizer state are addModelStateRows' (modelstaterows.cpp).
#include "plan/planbuild.h"

#include <algorithm>

namespace headroom::detail {

namespace {

TensorRow row(const char* name, const char* source, Category c, Bytes bytes, Phase from, Phase to,
              LayerSet layers = LayerSet::Global)
{
    return TensorRow{name, source, c, bytes, from, to, layers, false};
}

TensorRow on(TensorRow r, std::uint8_t stream)
{
    r.stream = stream;
    return r;
}

// Elements of the whole vocabulary's embedding table when this rank holds the
// vocabulary-sharded embedding under tensor parallelism: DTensor computes the
// embedding's gradient over all of it (embedding_dense_backward on the
// replicated gradient) before keeping the rank's shard; 0 otherwise.
Bytes replicatedEmbeddingGradElements(const BuildContext& ctx)
{
    const bool sharded = ctx.rank && ctx.rank->layout->tp > 1 && ctx.holdsEmbedding();
    return sharded ? satMul(ctx.scenario.model.vocab, ctx.scenario.model.hidden) : 0;
}

// fp8-mixed: torchao Float8Linear over bf16 parameters (plan/float8linear.h);
// the all-gather stays in bf16.
bool mixedPolicy(const BuildContext& ctx)
{
    const Precision p = ctx.scenario.train.precision;
    return p == Precision::Bf16Mixed || p == Precision::Fp16Mixed || p == Precision::Fp8Mixed;
}

// MixedPrecisionPolicy(param_dtype 16-bit, reduce_dtype fp32) under the
// mixed precisions (torchtitan's defaults); otherwise the parameters' own
// dtype for both (fp32, or pure 16-bit).
Bytes fsdp2ParamBytes(const BuildContext& ctx)
{
    const Precision p = ctx.scenario.train.precision;
    if (mixedPolicy(ctx))
        return 2;
    return (p == Precision::Bf16 || p == Precision::Fp16) ? 2 : 4;
}

Bytes fsdp2ReduceBytes(const BuildContext& ctx) { return mixedPolicy(ctx) ? 4 : fsdp2ParamBytes(ctx); }

// One layer of the rank as FSDP2 gathers it: every parameter in param_dtype,
// or with the float8 all-gather (plan/float8linear.h float8AllGather) the
// Float8Linear weights in 1 byte per element and the rest (norms) in
// param_dtype. Both the all-gather buffer and the unsharded parameters
// (copied out of it) have this size.
// The allocator sees a row of parameters or gradients as the per-parameter
// tensors they are (FSDP2's foreach_all_gather_copy_out makes one unsharded
// tensor per parameter; autograd one gradient per parameter; post_backward
// one accumulated gradient per parameter), not as one block: a lump of a
// layer's or a stage's size, freed and made again, is split by smaller
// requests in between, which same-sized per-parameter tensors are not.
// `layers` copies of every layer tensor, then (with `globals`) every global
// tensor once; a Float8Linear weight at `linearBytes` per element, the rest
// at `bytes`. Returns where the pieces begin, for attachPieces.
std::size_t appendParameterPieces(const BuildContext& ctx, std::uint64_t layers, bool globals, Bytes bytes,
                                  Bytes linearBytes)
{
    const std::size_t begin = ctx.pieces ? ctx.pieces->size() : 0;
    if (!ctx.pieces)
        return begin;
    for (const ParamTensor& t : ctx.table.layer)
        ctx.pieces->push_back({satMul(t.elements(), t.isLinearWeight ? linearBytes : bytes), layers});
    if (globals)
        for (const ParamTensor& t : ctx.table.global)
            if (t.kind != ModuleKind::VisionTower)
                ctx.pieces->push_back({satMul(t.elements(), bytes), 1});
    return begin;
}

TensorRow pieced(const BuildContext& ctx, TensorRow r, std::size_t begin)
{
    attachPieces(ctx, r, begin);
    return r;
}

// torchtitan's expert parallelism under FSDP2 (0.2.2 parallelize.py:
// fully_shard on each layer's moe.experts over the efsdp mesh, dp_shard x cp /
// ep ranks): a rank gathers, and reduces the unsharded gradients of, only the
// experts / ep it holds. Their shards are the same share of all experts as
// without it, so the rank's table keeps every expert (parallel.cpp
// rankParameterTable) and only the unsharded sizes drop here.
Bytes unshardedLayerElements(const BuildContext& ctx, Bytes layerParams)
{
    if (!ctx.rank || ctx.rank->layout->ep <= 1)
        return layerParams;
    Bytes experts = 0;
    for (const ParamTensor& t : ctx.table.layer)
        if (t.isExpert())
            experts = satAdd(experts, t.elements());
    experts = std::min(experts, layerParams);
    return layerParams - experts + experts / ctx.rank->layout->ep;
}

Bytes gatheredLayerBytes(const BuildContext& ctx, Bytes layerParams)
{
    const Bytes paramBytes = fsdp2ParamBytes(ctx);
    if (!ctx.float8AllGather)
        return satMul(layerParams, paramBytes);
    Bytes linear = 0;
    for (const ParamTensor& t : ctx.table.layer)
        if (t.isLinearWeight)
            linear = satAdd(linear, t.elements());
    linear = std::min(linear, layerParams);
    return satAdd(linear, satMul(layerParams - linear, paramBytes));
}

// FSDP2 under pipeline parallelism, as torchtitan@9dec370 runs it with
// torch.distributed.pipelining:
// - parallelize_llama.py apply_fsdp with pp_enabled: every layer and the
//   root (the stage's own module) fully_shard-ed with
//   reshard_after_forward=False ("to avoid per-microbatch all-gathers").
// - torch/distributed/pipelining/stage.py backward_maybe_with_nosync: for an
//   FSDPModule every backward runs with set_reshard_after_backward(False)
//   and set_requires_gradient_sync(False); after the last one it calls each
//   unit's post_backward with both back on. So the stage's units are
//   gathered by the first micro-batch's forward and stay unsharded, in
//   param_dtype, until the step's last backward.
// - torch/distributed/fsdp/_fully_shard/_fsdp_param.py: without gradient
//   sync, post_backward keeps each unsharded gradient, upcast to reduce_dtype
//   (to_accumulated_grad_if_needed: unsharded_accumulated_grad =
//   grad.to(reduce_dtype)) and added to by the next micro-batches
//   (accumulate_unsharded_grad_if_needed); with reduce_dtype equal to the
//   parameter's dtype .grad itself accumulates. The final post_backward
//   reduce-scatters one unit at a time (foreach_reduce), making the sharded
//   gradients then.
// Under 1F1B the stage's steady state (more micro-batches than it holds in
// flight) runs forwards after a first backward, so the accumulated
// gradients are there from the pass's forward on; otherwise they grow layer
// by layer through the backward.
// Interleaved 1F1B (vpp > 1): torchtitan@9dec370 train.py applies
// apply_fsdp to each model part (one per local virtual stage, "each item in
// model_parts is one stage-model-chunk"), and stage.py keeps each stage's
// units unsharded and its gradients unsynchronised until that stage's last
// backward. Every chunk has run a forward by the end of the warm-up
// ((vpp - 1) pp forwards at least), so the rank's peak holds all vpp
// chunks unsharded: the stage rows above cover all of the rank's layers.
// A chunk's accumulated gradients exist from its first backward; the chunks
// whose first backward ran before the rank's peak (parallel.h
// interleavedPeak) are planned alive through the whole pass, as in the
// steady state above; the others (the lower chunks: backwards run the chunks
// from the last down) grow through the pass's backward, spread evenly over
// its layers (the pass runs the rank's layers as one block).
void addFsdp2InterleavedGradRows(const BuildContext& ctx, Bytes layerParams, Bytes globalParams, Bytes reduceBytes,
                                 const char* accumulatedSource, std::vector<TensorRow>& rows)
{
    const ParallelLayout& l = *ctx.rank->layout;
    const std::uint64_t stage = ctx.rank->stage;
    const InterleavedPeak& peak = *ctx.rank->peak;
    const std::uint64_t rootChunk = l.lastStage(stage) ? l.vpp - 1 : 0; // the head's chunk, or the embedding's
    std::uint64_t madeLayers = 0;
    bool rootMade = false;
    for (std::uint64_t c = 0; c < l.vpp && c < peak.gradientsMade.size(); ++c)
        if (peak.gradientsMade[c]) {
            madeLayers += l.layersOfChunk(stage, c);
            rootMade = rootMade || c == rootChunk;
        }
    const std::uint64_t layers = ctx.table.layers, laterLayers = layers - std::min(madeLayers, layers);
    const Bytes made = satAdd(satMul(layerParams, madeLayers), rootMade ? globalParams : 0);
    if (made > 0) {
        const std::size_t begin = appendParameterPieces(ctx, madeLayers, rootMade, reduceBytes, reduceBytes);
        rows.push_back(pieced(ctx,
                              row("fsdp2.accumulated_grads", accumulatedSource, Category::Gradients,
                                  satMul(made, reduceBytes), Phase::EmbedFwd, Phase::EmbedBwd),
                              begin));
    }
    // Per parameter, as plain 1F1B's (appendParameterPieces): with none made
    // each layer's own gradients; otherwise each parameter's share,
    // (its elements x later layers / the rank's layers) rounded up.
    if (laterLayers > 0) {
        const Bytes divisor = std::max<Bytes>(layers, 1);
        Bytes perLayer = satMul(layerParams, reduceBytes);
        std::size_t begin = 0;
        if (laterLayers == layers) {
            begin = appendParameterPieces(ctx, 1, false, reduceBytes, reduceBytes);
        } else {
            perLayer = 0;
            begin = ctx.pieces ? ctx.pieces->size() : 0;
            for (const ParamTensor& t : ctx.table.layer) {
                const Bytes share = ceilDiv(satMul(satMul(t.elements(), reduceBytes), laterLayers), divisor);
                perLayer = satAdd(perLayer, share);
                if (ctx.pieces)
                    ctx.pieces->push_back({share, 1});
            }
        }
        rows.push_back(pieced(ctx,
                              row("fsdp2.accumulated_grads_later",
                                  "the accumulated gradients of the chunks whose first backward comes after the "
                                  "rank's peak (interleaved 1F1B), made through the pass's backward: per layer, each "
                                  "parameter's in reduce_dtype x (their layers / the rank's layers)",
                                  Category::Gradients, perLayer, Phase::LayerBwd, Phase::EmbedBwd, LayerSet::All),
                              begin));
    }
    if (!rootMade && globalParams > 0) {
        const std::size_t begin = appendParameterPieces(ctx, 0, true, reduceBytes, reduceBytes);
        rows.push_back(pieced(ctx,
                              row("fsdp2.accumulated_root_grads",
                                  l.lastStage(stage) ? "the final norm's and the head's unsharded gradients, "
                                                       "accumulated from the head's backward"
                                                     : "the embedding's unsharded gradients, accumulated from its "
                                                       "backward",
                                  Category::Gradients, satMul(globalParams, reduceBytes),
                                  l.lastStage(stage) ? Phase::HeadBwd : Phase::EmbedBwd, Phase::EmbedBwd),
                              begin));
    }
}

// torch.distributed.pipelining's buffers between stages (torch 2.11
// torch/distributed/pipelining/stage.py, as torchtitan's PipelineStage uses
// them; the benchmark's torch 1963fc8 not read): _prepare_forward_infra
// makes, for every micro-batch, a receive buffer of the stage's input on
// every stage but the first (_make_tensor_from_meta, requires_grad), and
// _prepare_backward_infra a receive buffer of the output's gradient on
// every stage but the last. Both are made once and kept across steps. The
// input buffers are autograd leaves: each micro-batch's backward leaves its
// input gradient in buffer.grad (stage_backward), sent to the previous
// stage and cleared only by clear_runtime_states at the next step. A
// boundary tensor is the residual stream of one micro-batch on this rank:
// tokens x hidden in the 16-bit dtype, on the sequence shard under sequence
// parallelism (the layers' RowwiseParallel outputs are local Shard(1)
// tensors). With vpp > 1 each local stage has its own.
void addPipeliningBufferRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const ParallelLayout& l = *ctx.rank->layout;
    const Bytes shard = (l.sp && l.tp > 1) ? l.tp : 1;
    const Bytes boundary = satMul(ceilDiv(ctx.tokens, shard), satMul(ctx.model.hidden, ctx.act));
    const std::uint64_t localStages = std::max<std::uint64_t>(l.vpp, 1);
    const std::uint64_t sending = localStages - (l.lastStage(ctx.rank->stage) ? 1 : 0);
    const std::uint64_t receiving = localStages - (l.firstStage(ctx.rank->stage) ? 1 : 0);
    const Bytes perStage = satMul(boundary, l.microBatches);
    if (sending > 0)
        rows.push_back(row("pipeline.grad_recv_buffers",
                           "a receive buffer of the stage output's gradient per micro-batch, made once and kept "
                           "(torch.distributed.pipelining stage.py _create_grad_recv_info)",
                           Category::Temporaries, satMul(perStage, sending), Phase::Load, Phase::OptimizerStep));
    if (receiving > 0) {
        rows.push_back(row("pipeline.input_recv_buffers",
                           "a receive buffer of the stage input per micro-batch, made once and kept "
                           "(torch.distributed.pipelining stage.py _prepare_forward_infra)",
                           Category::Temporaries, satMul(perStage, receiving), Phase::Load, Phase::OptimizerStep));
        // [flag: estimate] All of the step's input gradients are counted
        // from the pass's backward on; the earliest micro-batches' are made
        // later than that.
        rows.push_back(row("pipeline.input_grads",
                           "each micro-batch's input gradient, left in its receive buffer's .grad until the next "
                           "step's clear_runtime_states [estimate: all counted from the backward on]",
                           Category::Gradients, satMul(perStage, receiving), Phase::LossBwd, Phase::OptimizerStep));
    }
}

void addFsdp2PipelineRows(const BuildContext& ctx, Bytes layerParams, Bytes globalParams, std::vector<TensorRow>& rows)
{
    if (ctx.mode == Mode::Train)
        addPipeliningBufferRows(ctx, rows);
    const Bytes paramBytes = fsdp2ParamBytes(ctx), reduceBytes = fsdp2ReduceBytes(ctx);
    const ParallelLayout& l = *ctx.rank->layout;
    // The stage's layers: DeepSeek-V3's dense first layers have their own
    // size (ParameterTable::denseLayer); the float8 all-gather's split
    // between float8 and param_dtype is the other layers'.
    const std::uint64_t denseLayers = ctx.table.layers - ctx.table.layerRepeats();
    const Bytes layersParams =
        satAdd(satMul(layerParams, ctx.table.layerRepeats()), satMul(ctx.table.denseLayerElements(), denseLayers));
    const Bytes stageParams = satAdd(layersParams, globalParams);
    const Bytes gatheredLayer = gatheredLayerBytes(ctx, layerParams);
    const Bytes gatheredLayers = ctx.float8AllGather ? satMul(gatheredLayer, ctx.table.layers)
                                                     : satMul(layersParams, paramBytes);
    const Bytes linearGathered = ctx.float8AllGather ? 1 : paramBytes;
    std::size_t begin = appendParameterPieces(ctx, ctx.table.layers, true, paramBytes, linearGathered);
    rows.push_back(
        pieced(ctx,
               row("fsdp2.unsharded_stage",
                   "the stage's layers and root (every chunk's, with vpp > 1) kept unsharded in param_dtype "
                   "(Float8Linear weights in float8 with "
                   "the float8 all-gather) from the first forward to the step's last backward (torchtitan "
                   "apply_fsdp with pp: reshard_after_forward=False; pipelining stage.py: "
                   "set_reshard_after_backward(False))",
                   Category::Weights, satAdd(gatheredLayers, satMul(globalParams, paramBytes)),
                   Phase::EmbedFwd, Phase::EmbedBwd),
               begin));
    rows.push_back(
        on(row("fsdp2.all_gather_buffer",
               "each layer's all-gather buffer in the first micro-batch's forward, on the all-gather copy-in stream",
               Category::Weights, gatheredLayer, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All),
           kAllGatherCopyInStream));
    rows.push_back(
        on(row("fsdp2.root_all_gather_buffer", "the stage root's all-gather buffer, on the all-gather copy-in stream",
               Category::Weights, satMul(globalParams, paramBytes), Phase::EmbedFwd, Phase::EmbedFwd),
           kAllGatherCopyInStream));
    if (ctx.mode != Mode::Train || !ctx.fullFinetune)
        return;
    begin = appendParameterPieces(ctx, 1, false, paramBytes, paramBytes);
    rows.push_back(pieced(
        ctx,
        row("fsdp2.unsharded_grad",
            "the layer's gradients in param_dtype as autograd makes them, before post_backward adds them to "
            "the accumulated ones",
            Category::Temporaries, satMul(layerParams, paramBytes), Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
        begin));
    const char* accumulatedSource = "the stage's unsharded gradients accumulated over the step's micro-batches in "
                                    "reduce_dtype (set_requires_gradient_sync(False); _fsdp_param.py "
                                    "to_accumulated_grad_if_needed), reduce-scattered after the last backward";
    if (l.interleaved() && ctx.rank->peak) {
        addFsdp2InterleavedGradRows(ctx, layerParams, globalParams, reduceBytes, accumulatedSource, rows);
    } else if (l.microBatches > l.inFlightMicroBatches(ctx.rank->stage)) {
        begin = appendParameterPieces(ctx, ctx.table.layers, true, reduceBytes, reduceBytes);
        rows.push_back(pieced(ctx,
                              row("fsdp2.accumulated_grads", accumulatedSource, Category::Gradients,
                                  satMul(stageParams, reduceBytes), Phase::EmbedFwd, Phase::EmbedBwd),
                              begin));
    } else {
        begin = appendParameterPieces(ctx, 1, false, reduceBytes, reduceBytes);
        rows.push_back(pieced(ctx,
                              row("fsdp2.accumulated_grads", accumulatedSource, Category::Gradients,
                                  satMul(layerParams, reduceBytes), Phase::LayerBwd, Phase::EmbedBwd, LayerSet::All),
                              begin));
        begin = appendParameterPieces(ctx, 0, true, reduceBytes, reduceBytes);
        rows.push_back(
            pieced(ctx,
                   row("fsdp2.accumulated_root_grads",
                       "the root's unsharded gradients, accumulated likewise from the head's backward",
                       Category::Gradients, satMul(globalParams, reduceBytes), Phase::HeadBwd, Phase::EmbedBwd),
                   begin));
    }
    rows.push_back(row(
        "fsdp2.reduce_scatter_input",
        "the reduce-scatter input in reduce_dtype of one unit at a time, in the post_backward after the last backward",
        Category::Temporaries, satMul(std::max(layerParams, globalParams), reduceBytes), Phase::EmbedBwd,
        Phase::EmbedBwd));
    // Under tensor parallelism DTensor gives the vocabulary-sharded embedding
    // a replicated gradient (embedding_dense_backward over the whole
    // vocabulary), and FSDP2 accumulates it as it is: post_backward's
    // to_accumulated_grad_if_needed casts the DTensor grad to reduce_dtype and
    // accumulate_unsharded_grad_if_needed adds the next one to it (a cast
    // copy), redistributing to the parameter's placement only when it reduces
    // (_fsdp_param.py _get_grad_inner_tensor; torch 2.11). So the stage
    // holding the embedding accumulates the whole vocabulary's gradient in
    // reduce_dtype, not its shard, and each micro-batch's embedding backward
    // adds the replicated gradient and its cast. Measured with
    // tools/reference/tp_study.py (tp 2 x pp 4 x dp 2, stage 0: full-vocabulary
    // accumulated and cast fp32 gradients and the bf16 one alive at the peak).
    if (const Bytes vocabRows = replicatedEmbeddingGradElements(ctx); vocabRows > 0) {
        const Bytes shardRows = satMul(ceilDiv(ctx.scenario.model.vocab, l.tp), ctx.scenario.model.hidden);
        const bool wholeStep =
            !(l.interleaved() && ctx.rank->peak) && l.microBatches > l.inFlightMicroBatches(ctx.rank->stage);
        rows.push_back(row("tp.embedding_grad_accumulated_replicated",
                           "the embedding's accumulated gradient over the whole vocabulary (replicated by DTensor), "
                           "beyond its vocabulary shard, in reduce_dtype until the step's reduce-scatter",
                           Category::Gradients, satMul(vocabRows - std::min(vocabRows, shardRows), reduceBytes),
                           wholeStep ? Phase::EmbedFwd : Phase::EmbedBwd, Phase::EmbedBwd));
        // The last micro-batch's embedding backward and the step's
        // reduce-scatters share the embedding-backward event, whose rows are
        // the reduce-scatters' (one unit's input, every sharded gradient):
        // the replicated gradient and its cast count by what they exceed them by.
        const Bytes transient = satMul(vocabRows, paramBytes + reduceBytes);
        const Bytes reduceMoment = satAdd(satMul(std::max(layerParams, globalParams), reduceBytes),
                                          ceilDiv(satMul(stageParams, reduceBytes), ctx.shards));
        if (transient > reduceMoment)
            rows.push_back(row("tp.embedding_grad_replicated",
                               "a micro-batch's embedding gradient over the whole vocabulary in param_dtype, and its "
                               "reduce_dtype cast added to the accumulated one, beyond the reduce-scatters' buffers",
                               Category::Temporaries, transient - reduceMoment, Phase::EmbedBwd, Phase::EmbedBwd));
    }
}

// FSDP2 with CPUOffloadPolicy (torch 2.11 _fully_shard/_fsdp_param.py and
// _fsdp_collectives.py) [flag: read from the source, not measured]: the
// sharded parameters live in pinned CPU memory, so are the gradients and the
// optimizer state (modelstaterows.cpp gives them no GPU bytes). What the GPU
// gets besides the gathered units: each unit's shard copied in before its
// all-gather (FSDPParam.all_gather_inputs: `.to(device)` in its stored dtype,
// then cast to param_dtype), and each unit's reduce-scatter output, the
// sharded gradient, until foreach_reduce copies it to the CPU and drops it.
void addFsdp2OffloadRows(const BuildContext& ctx, Bytes layerParams, Bytes globalParams, std::vector<TensorRow>& rows)
{
    const Bytes stored = mixedPolicy(ctx) ? 4 : fsdp2ParamBytes(ctx);
    const Bytes paramBytes = fsdp2ParamBytes(ctx);
    const Bytes copyIn = stored + (stored != paramBytes ? paramBytes : 0);
    const Bytes layerShard = ceilDiv(layerParams, ctx.shards), rootShard = ceilDiv(globalParams, ctx.shards);
    rows.push_back(
        on(row("fsdp2.offload_shard_h2d",
               "the next layer's shard copied from the CPU for its all-gather, and its param_dtype cast",
               Category::Weights, satMul(layerShard, copyIn), Phase::LayerFwd, Phase::LayerFwd, LayerSet::All),
           kAllGatherCopyInStream));
    rows.push_back(on(row("fsdp2.offload_shard_h2d_bwd", "the same in backward", Category::Weights,
                          satMul(layerShard, copyIn), Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
                      kAllGatherCopyInStream));
    rows.push_back(
        on(row("fsdp2.offload_root_shard_h2d", "the root unit's shard copied from the CPU for its all-gather",
               Category::Weights, satMul(rootShard, copyIn), Phase::EmbedFwd, Phase::EmbedFwd),
           kAllGatherCopyInStream));
    if (ctx.mode != Mode::Train || !ctx.fullFinetune)
        return;
    const Bytes reduceBytes = fsdp2ReduceBytes(ctx);
    rows.push_back(
        on(row("fsdp2.offload_grad_shard",
               "a layer's sharded gradient (the reduce-scatter output) until its copy to the CPU", Category::Gradients,
               satMul(layerShard, reduceBytes), Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
           kReduceScatterStream));
    rows.push_back(on(row("fsdp2.offload_root_grad_shard", "the root's sharded gradient until its copy to the CPU",
                          Category::Gradients, satMul(rootShard, reduceBytes), Phase::EmbedBwd, Phase::EmbedBwd),
                      kReduceScatterStream));
}

} // namespace

std::vector<Bytes> fsdp2ChunkGradientBytes(const BuildContext& ctx)
{
    const ParallelLayout& l = *ctx.rank->layout;
    std::vector<Bytes> bytes(l.vpp, 0);
    if (ctx.scenario.hardware.sharding != Sharding::Fsdp2 || ctx.mode != Mode::Train || !ctx.fullFinetune)
        return bytes;
    Bytes layerParams = 0, globalParams = 0;
    for (const ParamTensor& t : ctx.table.layer)
        layerParams = satAdd(layerParams, t.elements());
    layerParams = unshardedLayerElements(ctx, layerParams);
    for (const ParamTensor& t : ctx.table.global)
        globalParams = satAdd(globalParams, t.elements());
    const std::uint64_t stage = ctx.rank->stage;
    const std::uint64_t rootChunk = l.lastStage(stage) ? l.vpp - 1 : 0;
    for (std::uint64_t c = 0; c < l.vpp; ++c)
        bytes[c] = satMul(satAdd(satMul(layerParams, l.layersOfChunk(stage, c)), c == rootChunk ? globalParams : 0),
                          fsdp2ReduceBytes(ctx));
    return bytes;
}

// FSDP2 as torchtitan applies it (torchtitan @ 9dec370 parallelize_llama.py
// apply_fsdp: fully_shard on every layer, then on the root; the last layer
// with reshard_after_forward=False; MixedPrecisionPolicy(param_dtype,
// reduce_dtype=fp32)). What torch/distributed/_composable/fsdp does with it
// (torch 2.6, _fsdp_param_group.py and _fsdp_collectives.py):
// - unshard: foreach_all_gather makes the all-gather buffer (the unit's
//   unsharded size in param_dtype) on the all-gather copy-in stream; the
//   compute stream copies it out into per-parameter unsharded tensors
//   (foreach_all_gather_copy_out). The buffer is kept until the next
//   all-gather begins (comm_ctx.all_gather_state, instead of record_stream),
//   and the next unit's all-gather is issued ahead (implicit forward
//   prefetch, explicit backward prefetch of one unit): in a layer's forward
//   and backward one unit is gathered on the compute stream and one buffer
//   is held on the copy-in stream.
// - the root unit (embeddings, final norm, head) is resharded after the
//   model's forward and gathered again when backward reaches the head:
//   torchtitan passes reshard_after_forward=not pp_enabled to the root's
//   fully_shard, and since torch 2.8 an explicit True is respected for the
//   root too (pytorch/pytorch#155319; torch 2.11 _fsdp_state.py _lazy_init
//   keeps the root gathered only when the argument was left None). Measured
//   on an H200 with torchtitan b109f7d71's units (tools/reference/
//   moe_rank_study.py --fsdp-units b109f7d71, DeepSeek-V3 16B, 2026-11-27):
//   at the peak in the loss's backward no gathered root is alive. The last
//   layer is not resharded after forward (torchtitan) and stays gathered
//   into the backward.
// - post_backward (foreach_reduce): the unsharded gradients (param_dtype,
//   made by autograd on the compute stream) are copied into a reduce-scatter
//   input of reduce_dtype on the compute stream, kept until the next
//   reduce-scatter; the output, made on the reduce-scatter stream, becomes
//   the sharded gradient (addModelStateRows gives the gradient rows that
//   stream). The root's gradients wait for the root's post-backward, after
//   the embedding's backward.
// The caching allocator keeps each stream's blocks for that stream
// (plan/cachingallocator.h), so the copy-in and reduce-scatter streams'
// caches are reserved beside the compute stream's.
void addFsdp2Rows(const BuildContext& ctx, Bytes allLayerParams, Bytes globalParams, std::vector<TensorRow>& rows)
{
    const Bytes layerParams = unshardedLayerElements(ctx, allLayerParams);
    if (ctx.rank && ctx.rank->layout->pp > 1) {
        addFsdp2PipelineRows(ctx, layerParams, globalParams, rows);
        return;
    }
    const Bytes paramBytes = fsdp2ParamBytes(ctx), reduceBytes = fsdp2ReduceBytes(ctx);
    const Bytes unit = gatheredLayerBytes(ctx, layerParams);
    const Bytes linearGathered = ctx.float8AllGather ? 1 : paramBytes;
    std::size_t begin = appendParameterPieces(ctx, 1, false, paramBytes, linearGathered);
    rows.push_back(
        pieced(ctx,
               row("fsdp2.unsharded_layer",
                   "the layer's parameters copied out of its all-gather buffer, in param_dtype (FSDP2 unshard)",
                   Category::Weights, unit, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All),
               begin));
    begin = appendParameterPieces(ctx, 1, false, paramBytes, linearGathered);
    rows.push_back(pieced(ctx,
                          row("fsdp2.unsharded_layer_bwd", "the same in backward", Category::Weights, unit,
                              Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
                          begin));
    rows.push_back(on(row("fsdp2.all_gather_buffer",
                          "the next layer's all-gather buffer, on the all-gather copy-in stream (forward prefetch)",
                          Category::Weights, unit, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All),
                      kAllGatherCopyInStream));
    rows.push_back(
        on(row("fsdp2.all_gather_buffer_bwd",
               "the previous layer's all-gather buffer, on the all-gather copy-in stream (backward prefetch)",
               Category::Weights, unit, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
           kAllGatherCopyInStream));
    const Bytes root = satMul(globalParams, paramBytes);
    begin = appendParameterPieces(ctx, 0, true, paramBytes, paramBytes);
    rows.push_back(pieced(ctx,
                          row("fsdp2.gathered_root",
                              "the root unit (embeddings, final norm, head) gathered in param_dtype through the "
                              "forward, resharded when the model's forward ends (reshard_after_forward=True)",
                              Category::Weights, root, Phase::EmbedFwd, Phase::HeadFwd),
                          begin));
    rows.push_back(
        on(row("fsdp2.root_all_gather_buffer",
               "the root unit's all-gather buffer, on the all-gather copy-in stream until the first layer's all-gather",
               Category::Weights, root, Phase::EmbedFwd, Phase::EmbedFwd),
           kAllGatherCopyInStream));
    begin = appendParameterPieces(ctx, 0, true, paramBytes, paramBytes);
    rows.push_back(pieced(ctx,
                          row("fsdp2.gathered_root_bwd",
                              "the root unit gathered again when backward reaches the head, to the end of the "
                              "embedding's backward",
                              Category::Weights, root, Phase::HeadBwd, Phase::EmbedBwd),
                          begin));
    rows.push_back(on(row("fsdp2.root_all_gather_buffer_bwd",
                          "the root unit's all-gather buffer in backward, on the all-gather copy-in stream until the "
                          "last layer's",
                          Category::Weights, root, Phase::HeadBwd, Phase::HeadBwd),
                      kAllGatherCopyInStream));
    begin = appendParameterPieces(ctx, 1, false, paramBytes, linearGathered);
    rows.push_back(pieced(ctx,
                          row("fsdp2.gathered_last_layer",
                              "the last layer kept gathered from its forward to its backward (torchtitan: "
                              "reshard_after_forward=False for it)",
                              Category::Weights, unit, Phase::HeadFwd, Phase::HeadBwd),
                          begin));
    if (ctx.scenario.hardware.cpuOffload)
        addFsdp2OffloadRows(ctx, allLayerParams, globalParams, rows); // shards: of every expert
    if (ctx.mode != Mode::Train || !ctx.fullFinetune)
        return;
    begin = appendParameterPieces(ctx, 1, false, paramBytes, paramBytes);
    rows.push_back(pieced(
        ctx,
        row("fsdp2.unsharded_grad", "the layer's unsharded gradients in param_dtype, before the reduce-scatter",
            Category::Temporaries, satMul(layerParams, paramBytes), Phase::LayerBwd, Phase::LayerBwd, LayerSet::All),
        begin));
    rows.push_back(row("fsdp2.reduce_scatter_input",
                       "the reduce-scatter input in reduce_dtype (fp32 under mixed precision), kept until the next "
                       "layer's reduce-scatter",
                       Category::Temporaries, satMul(layerParams, reduceBytes), Phase::LayerBwd, Phase::LayerBwd,
                       LayerSet::All));
    begin = appendParameterPieces(ctx, 0, true, paramBytes, paramBytes);
    rows.push_back(pieced(
        ctx,
        row("fsdp2.root_unsharded_grad",
            "the root's unsharded gradients in param_dtype, from the head's backward to the root's post-backward",
            Category::Temporaries, satMul(globalParams, paramBytes), Phase::HeadBwd, Phase::EmbedBwd),
        begin));
    rows.push_back(row("fsdp2.root_reduce_scatter_input",
                       "the root's reduce-scatter input in reduce_dtype, after the embedding's backward",
                       Category::Temporaries, satMul(globalParams, reduceBytes), Phase::EmbedBwd, Phase::EmbedBwd));
    // The embedding-backward event holds two moments; the rows above are the
    // root's reduce-scatter (its input and output). Before it, in the
    // embedding's own backward: the last layer's reduce-scatter input is
    // still held (post_backward clears comm_ctx.reduce_scatter_state only when
    // the next unit reduces: torch 2.11 _fsdp_param_group.py), and under
    // tensor parallelism DTensor computes the whole vocabulary's embedding
    // gradient (embedding_dense_backward on the replicated gradient, param
    // dtype) before keeping this rank's vocabulary shard. This row is what
    // that moment exceeds the reduce-scatter's by (tools/reference/
    // tp_study.py, torchtitan's llama3 at 70B widths, tp 8 x dp 4: 2.1 GB
    // embedding gradient at the step's peak).
    const Bytes fullEmbeddingGrad = satMul(replicatedEmbeddingGradElements(ctx), paramBytes);
    const Bytes before = satAdd(fullEmbeddingGrad, satMul(layerParams, reduceBytes));
    const Bytes after =
        satAdd(satMul(globalParams, reduceBytes), ceilDiv(satMul(globalParams, reduceBytes), ctx.shards));
    if (before > after)
        rows.push_back(row("fsdp2.embedding_backward_excess",
                           "in the embedding's backward, before the root's reduce-scatter: the last layer's "
                           "reduce-scatter input still held and, under tensor parallelism, the whole vocabulary's "
                           "embedding gradient (DTensor), beyond the reduce-scatter's buffers",
                           Category::Temporaries, before - after, Phase::EmbedBwd, Phase::EmbedBwd));
}

} // namespace headroom::detail
