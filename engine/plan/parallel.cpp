// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor and pipeline parallel layouts: the checks (the shape of one rank is
// rankshape.cpp's).
// Sources:
// - Tensor parallelism: Shoeybi et al. 2019, "Megatron-LM" (arXiv:1909.08053)
//   §3: the first MLP linear and q/k/v split by columns (output features),
//   the second MLP linear and the attention output split by rows (input
//   features); the vocabulary-parallel embedding and output layer. In code,
//   Megatron-LM megatron/core/tensor_parallel/layers.py ColumnParallelLinear
//   (weight output_size_per_partition x input_size, bias per partition) and
//   RowParallelLinear (weight output_size x input_size_per_partition, bias
//   whole, added after the all-reduce), VocabParallelEmbedding.
// - Vocabulary padding: Megatron-LM megatron/training/tokenizer/tokenizer.py
//   _vocab_size_with_padding pads to a multiple of make_vocab_size_divisible_by
//   x tp (128 x tp by default). We pad to a multiple of tp only
//   (make_vocab_size_divisible_by = 1), the least a vocabulary-parallel split
//   needs, so a vocabulary that already divides keeps the Hugging Face size.
// - Pipeline: Narayanan et al. 2021 (arXiv:2104.04473) §2.2: 1F1B keeps at
//   most pp micro-batches in flight on the first stage, pp - i on stage i;
//   GPipe (Huang et al. 2019) runs every micro-batch's forward before any
//   backward, so a stage holds all of them.
// - Interleaved 1F1B (vpp > 1 virtual stages per rank): Narayanan et al.
//   2021 §2.2.2 (Figure 4). Megatron-LM (NVIDIA/Megatron-LM d98e8a64)
//   megatron/core/pipeline_parallel/schedules.py get_pp_rank_microbatches:
//   num_warmup_microbatches = (pp - rank - 1) x 2 + (vpp - 1) x
//   microbatch_group_size_per_vp_stage (pp by default,
//   model_parallel_config.py), capped by vpp x m; the steady state runs one
//   forward then one backward (forward_backward_pipelining_with_interleaving,
//   max_outstanding_backprops = num_warmup_microbatches + 1); get_schedule_table
//   runs chunk 0 for a group of pp micro-batches, then chunk 1, and backward
//   the chunks in reverse. torch 2.11 torch/distributed/pipelining/schedules.py
//   ScheduleInterleaved1F1B: _get_warmup_ops = (n_local_stages - 1) x
//   microbatches_per_round + 2 x (pp - 1 - rank), capped by n_microbatches x
//   n_local_stages, microbatches_per_round = pp when pp divides the
//   micro-batches; forward_stage_index / backward_stage_index as Megatron's.
//   Both want the micro-batches in whole groups of pp: Megatron-LM raises
//   unless microbatch_group_size_per_vp_stage (pp) <= m and m mod pp is 0 or
//   at least pp, i.e. pp divides m; torch before the flex_pp change (2.5:
//   "Interleaved 1F1B schedule requires the number of microbatches ... to be
//   a multiple of the number of pipeline ranks") too, and torch 2.11 accepts
//   more (m a multiple of max(1, m // pp) rounds), which is not planned.
// - Layers over the pp x vpp chunks: Megatron-LM
//   megatron/core/transformer/transformer_block.py get_num_layers_to_build
//   asserts num_layers % pp == 0 and num_layers_per_pipeline_rank % vpp == 0
//   (every chunk num_layers / (pp x vpp) layers; its uneven first/last stage
//   options are not planned with vpp). torchtitan@9dec370
//   parallelisms/pipelining_utils.py generate_split_points over
//   pp x stages-per-rank virtual stages: base = L // stages, the first
//   virtual stage base layers, virtual stages 1 .. L mod stages one more,
//   the rest base (it raises when stages > L); pipeline_llama.py
//   pipeline_llama_manual_split builds virtual stage i from the layers
//   between split points i - 1 and i, the embedding on stage 0 and the norm
//   and output on the last. At 9dec370 it generates 2 stages per rank for
//   looped schedules; other vpp need pipeline_parallel_split_points, which
//   Headroom takes to follow the same rule.
// - Context parallelism and FSDP2 under model parallelism: as torchtitan
//   composes them (torchtitan@9dec370, the commit of its Llama 3.1 H100
//   benchmarks): parallelisms/parallel_dims.py (world = dp_replicate x
//   dp_shard x cp x tp x pp; FSDP over the flattened dp_shard x cp mesh),
//   parallelize_llama.py (apply_tp with SequenceParallel norms; apply_fsdp);
//   train.py (context_parallel over input_ids, labels and freqs_cis).
//   PyTorch torch/distributed/tensor/experimental/_attention.py
//   _generate_round_robin_indices asserts seq_length % (cp_world_size * 2)
//   == 0: the load-balanced split gives each rank two chunks of
//   seq / (2 cp) tokens.
#include "plan/parallel.h"

#include "plan/expertchecks.h"

#include <algorithm>
#include <optional>
#include <string>

namespace headroom {

namespace {

Error invalid(std::string what) { return makeError(ErrorCode::InvalidArgument, std::move(what)); }
Error unsupported(std::string what) { return makeError(ErrorCode::UnsupportedCombination, std::move(what)); }
std::string n(std::uint64_t v) { return std::to_string(v); }

// Families whose layer saves are itemised by heads x head_dim and the MLP
// width (layersaves.cpp, the Llama branch), so that dividing heads, KV heads
// and the width by tp divides exactly the attention and MLP inner
// activations (Korthikanti et al. 2022 §4.2.1).
// Mixtral and Qwen3-MoE have Llama's attention and routed experts of
// gated MLPs (moesaves.cpp), which expert tensor parallelism splits as a
// dense MLP. DeepSeek-V3's multi-head latent attention (mlasaves.cpp) splits
// its per-head projections and keeps its latent ones whole
// (mlaLatentDownProjection). gpt-oss (biased q/k/v/o, a learned sink per
// head: Megatron-LM's softmax_type "learnable", one softmax_offset per head of
// the partition, dot_product_attention.py) and Llama 4 (a shared expert, dense
// layers interleaved) are Llama's attention with routed experts.
bool tensorParallelFamily(const ModelSpec& m)
{
    switch (m.family) {
    case Family::Llama:
    case Family::Gemma:
    case Family::Gemma2:
    case Family::Gemma3:
    case Family::Phi3: return !m.isMoe();
    case Family::Mixtral:
    case Family::Qwen3Moe:
    case Family::GptOss:
    case Family::Llama4:
    case Family::DeepseekV3: return true;
    default: return false;
    }
}

// What torchtitan's composition needs of a scenario (see the sources above):
// context parallelism only under FSDP2 (torchtitan applies FSDP whenever cp
// > 1), over ring attention's kernels, with causal full attention and a
// sequence that the load-balanced split divides; FSDP2 under tensor
// parallelism only with sequence parallelism (apply_tp makes the norms
// SequenceParallel, there is no plain-TP variant).
std::optional<Error> torchtitanChecks(const Scenario& sc, const ParallelConfig& p)
{
    if (p.cp > 1) {
        if (sc.hardware.sharding != Sharding::Fsdp2)
            return unsupported(
                std::string("hardware.parallel.cp: context parallelism is planned as torchtitan runs it, "
                            "under FSDP2 (parameters sharded over dp x cp); set hardware.sharding to "
                            "fsdp2, got ") +
                shardingName(sc.hardware.sharding));
        if (sc.mode == Mode::Train && sc.train.seqLen % (2 * p.cp) != 0)
            return invalid("train.seq_len: " + n(sc.train.seqLen) + " does not divide by 2 x cp = " + n(2 * p.cp) +
                           " (context parallelism's load-balanced split gives each rank two chunks of seq / (2 x cp) "
                           "tokens)");
        if (sc.mode == Mode::Train && sc.train.attention == Attention::Eager)
            return unsupported("train.attention: context parallelism runs ring attention over the flash and "
                               "memory-efficient SDPA kernels; eager attention has no ring variant, use sdpa or flash");
        if (sc.model.slidingWindow != 0)
            return unsupported("hardware.parallel.cp: ring attention is causal over the whole sequence; models with "
                               "sliding-window layers are not planned with context parallelism");
    }
    if (sc.hardware.sharding == Sharding::Fsdp2 && p.tp > 1 && !p.sp)
        return unsupported("hardware.parallel.sp: FSDP2 with tensor parallelism is planned as torchtitan applies it, "
                           "with sequence parallelism (apply_tp's SequenceParallel norms); set sp");
    // Compiled layers and Float8 linears (plan/compiledlayer.h,
    // float8linear.h) under tp, pp or cp are planned with full checkpointing,
    // as every torchtitan benchmark row that combines them ran (Llama 3.1
    // H100 benchmarks, Tables 2 and 4 to 6): a layer then keeps only its
    // input, and compile and Float8 change what its recompute makes. What
    // the partitioner keeps under op-level checkpointing once DTensor
    // collectives and ring attention are in the layer's graph is not
    // measured.
    const bool modelParallel = p.tp > 1 || p.pp > 1 || p.cp > 1;
    if (sc.hardware.sharding == Sharding::Fsdp2 && modelParallel && sc.mode == Mode::Train &&
        sc.train.checkpointing != Checkpointing::Full) {
        const std::string shape = " (tp " + n(p.tp) + ", pp " + n(p.pp) + ", cp " + n(p.cp) + ")";
        if (sc.train.precision == Precision::Fp8Mixed)
            return unsupported("train.precision: fp8-mixed (torchao Float8Linear) under tensor, pipeline or context "
                               "parallelism is planned with full checkpointing only" +
                               shape);
        if (sc.train.compileLayers)
            return unsupported("train.compile: compiled layers under tensor, pipeline or context parallelism are "
                               "planned with full checkpointing only" +
                               shape);
    }
    // AsyncTP (torchtitan@9dec370 parallelize_llama.py: "Async TP requires
    // --training.compile"; it fuses the TP collectives of the layers' DTensor
    // plan, so it needs tensor parallelism under FSDP2).
    if (p.asyncTp) {
        if (p.tp < 2)
            return invalid("hardware.parallel.async_tp: AsyncTP fuses tensor-parallel collectives; it needs tp > 1, "
                           "got tp " +
                           n(p.tp));
        if (sc.hardware.sharding != Sharding::Fsdp2)
            return unsupported("hardware.parallel.async_tp: AsyncTP is planned as torchtitan runs it, under FSDP2; "
                               "set hardware.sharding to fsdp2, got " +
                               std::string(shardingName(sc.hardware.sharding)));
        if (sc.mode == Mode::Train && !sc.train.compileLayers)
            return unsupported("hardware.parallel.async_tp: AsyncTP is an Inductor pass and needs compiled layers "
                               "(train.compile), as torchtitan requires");
    }
    // torch.distributed.pipelining's schedules (scenario.h ppReturnOutputs):
    // torchtitan's pipelines, under FSDP2 here.
    if (p.ppReturnOutputs && (p.pp < 2 || sc.hardware.sharding != Sharding::Fsdp2))
        return unsupported("hardware.parallel.pp_return_outputs: the outputs a pipeline schedule returns are planned "
                           "for torch.distributed.pipelining's schedules as torchtitan runs them: pp above 1 and "
                           "sharding fsdp2");
    if (sc.hardware.sharding == Sharding::Fsdp2 && p.tp > 1 && sc.mode == Mode::Train && sc.train.chunkedCrossEntropy)
        return unsupported("train.chunked_cross_entropy: under FSDP2 with tensor parallelism the loss is torchtitan's "
                           "loss parallelism over the vocabulary shards, not chunked; turn chunking off");
    return std::nullopt;
}

} // namespace

Result<std::vector<std::uint64_t>> weightedSplit(std::uint64_t layers, std::uint64_t stages)
{
    // torchtitan distributed/pipeline_parallel.py generate_llm_fqn_per_model_part
    // (8a749c618, 0.2.2) with input_weight = output_weight = 1: the layers
    // plus the two weights, divided evenly, the first (effective mod stages)
    // stages one more; the first stage's share less the embedding's weight,
    // the last's less the output's, in layer order. It raises when the
    // stages outnumber the effective layers or a weight exceeds the even
    // share; a stage left with the embedding or the output alone is
    // refused here too (the planner gives every stage a layer).
    const auto n = [](std::uint64_t v) { return std::to_string(v); };
    const std::uint64_t effective = layers + 2, perStage = effective / stages, extra = effective % stages;
    if (perStage < 2)
        return makeError(ErrorCode::InvalidArgument,
                         "hardware.parallel.pp_split: weighted: " + n(layers) + " layers with the embedding and the "
                             "output as one layer each are " + n(effective) + " over " + n(stages) +
                             " stages, fewer than 2 a stage; the first or last stage would hold no layer");
    std::vector<std::uint64_t> split(stages, 0);
    for (std::uint64_t s = 0; s < stages; ++s)
        split[s] = perStage + (s < extra ? 1 : 0) - (s == 0 ? 1 : 0) - (s + 1 == stages ? 1 : 0);
    return split;
}

std::uint64_t ParallelLayout::layersOfChunk(std::uint64_t stage, std::uint64_t chunk) const
{
    const std::uint64_t virtualStage = chunk * pp + stage;
    return virtualStage < chunkLayers.size() ? chunkLayers[virtualStage] : 0;
}

std::uint64_t ParallelLayout::interleavedWarmup(std::uint64_t stage) const
{
    // Megatron-LM get_pp_rank_microbatches, torch _get_warmup_ops (the
    // sources above): (pp - rank - 1) x 2 + (vpp - 1) x pp, at most vpp x m.
    const std::uint64_t total = satMul(microBatches, vpp);
    const std::uint64_t warmup = satAdd(satMul(pp - 1 - std::min(stage, pp - 1), 2), satMul(vpp - 1, pp));
    return std::min(warmup, total);
}

std::uint64_t ParallelLayout::inFlightMicroBatches(std::uint64_t stage) const
{
    if (pp <= 1)
        return 1;
    if (schedule == PipelineSchedule::GPipe)
        return microBatches; // all forwards before any backward
    if (interleaved())       // chunk micro-batches: the warm-up's, and the first steady-state forward's
        return std::min(satAdd(interleavedWarmup(stage), 1), satMul(microBatches, vpp));
    return std::min<std::uint64_t>(pp - std::min(stage, pp - 1), microBatches); // 1F1B warm-up: pp - stage
}

std::uint64_t InterleavedPeak::heldTotal() const
{
    std::uint64_t total = 0;
    for (std::uint64_t k : held)
        total = satAdd(total, k);
    return total;
}

InterleavedPeak interleavedPeak(const ParallelLayout& l, std::uint64_t stage, const std::vector<Bytes>& activations,
                                const std::vector<Bytes>& gradients)
{
    const std::uint64_t v = std::max<std::uint64_t>(l.vpp, 1), p = std::max<std::uint64_t>(l.pp, 1);
    const std::uint64_t total = satMul(l.microBatches, v), warmup = l.interleavedWarmup(stage);
    const auto at = [](const std::vector<Bytes>& bytes, std::uint64_t c) { return c < bytes.size() ? bytes[c] : 0; };
    // Megatron-LM get_schedule_table with groups of pp micro-batches, torch
    // forward_stage_index / backward_stage_index with microbatches_per_round = pp.
    const auto forwardChunk = [&](std::uint64_t k) { return (k / p) % v; };
    const auto backwardChunk = [&](std::uint64_t k) { return v - 1 - (k / p) % v; };
    // Steady state: forward warmup + i, then backward i. Both chunk orders
    // repeat every pp x vpp steps, and every chunk has had a backward after
    // pp x vpp of them, so the moments after step pp x vpp repeat earlier ones.
    const std::uint64_t steady = std::min(total - warmup, satAdd(satMul(p, v), 1));

    // Runs the schedule to the forward numbered `stopAfter` (every forward
    // when it is past the last), calling moment(bytes held, forward) after each forward.
    InterleavedPeak now;
    const auto run = [&](std::uint64_t stopAfter, const auto& moment) {
        now.held.assign(v, 0);
        now.gradientsMade.assign(v, false);
        UInt128 bytes = 0;
        const auto forward = [&](std::uint64_t k) {
            now.held[forwardChunk(k)] += 1;
            bytes += at(activations, forwardChunk(k));
            moment(bytes, k);
            return k == stopAfter;
        };
        for (std::uint64_t k = 0; k < warmup; ++k)
            if (forward(k))
                return;
        for (std::uint64_t i = 0; i < steady; ++i) {
            if (forward(warmup + i))
                return;
            const std::uint64_t c = backwardChunk(i);
            now.held[c] -= 1;
            bytes -= at(activations, c);
            if (!now.gradientsMade[c]) {
                now.gradientsMade[c] = true;
                bytes += at(gradients, c);
            }
        }
    };
    // The latest of equal moments: it has at least the gradients of the earlier ones.
    UInt128 bestBytes = 0;
    std::uint64_t bestForward = 0;
    run(~std::uint64_t{0}, [&](UInt128 bytes, std::uint64_t k) {
        if (bytes >= bestBytes) {
            bestBytes = bytes;
            bestForward = k;
        }
    });
    run(bestForward, [](UInt128, std::uint64_t) {});
    return now;
}

Result<ParallelLayout> parallelLayout(const Scenario& sc)
{
    const ParallelConfig& p = sc.hardware.parallel;
    const ModelSpec& m = sc.model;
    const std::uint64_t count = sc.hardware.count;
    ParallelLayout l;
    l.tp = p.tp;
    l.pp = p.pp;
    l.sp = p.sp;
    l.schedule = p.ppSchedule;
    l.vpp = p.vpp;
    l.cp = p.cp;
    l.fsdp2 = sc.hardware.sharding == Sharding::Fsdp2;
    l.microBatches = sc.train.gradAccum;
    if (p.tp == 0 || p.pp == 0 || p.cp == 0)
        return invalid("hardware.parallel: tp, pp and cp must be at least 1, got tp " + n(p.tp) + ", pp " + n(p.pp) +
                       ", cp " + n(p.cp));
    if (p.vpp == 0)
        return invalid("hardware.parallel.vpp: must be at least 1, got 0");
    if (p.vpp > 1 && p.pp == 1)
        return invalid("hardware.parallel.vpp: " + n(p.vpp) +
                       " virtual stages per rank need pipeline parallelism; pp is 1");
    if (p.vpp > 1 && p.ppSchedule != PipelineSchedule::OneFOneB)
        return unsupported(std::string("hardware.parallel.pp_schedule: virtual stages (vpp ") + n(p.vpp) +
                           ") are planned with interleaved 1F1B; " + pipelineScheduleName(p.ppSchedule) +
                           " over virtual stages is not modelled, set 1f1b");
    const UInt128 perReplica = static_cast<UInt128>(p.tp) * p.pp * p.cp;
    if (perReplica > count || count % static_cast<std::uint64_t>(perReplica) != 0)
        return invalid(
            "hardware.parallel: tp " + n(p.tp) + " x pp " + n(p.pp) + (p.cp > 1 ? " x cp " + n(p.cp) : "") + " = " +
            (perReplica > count ? std::string("more than ") + n(count) : n(static_cast<std::uint64_t>(perReplica))) +
            " GPUs per model replica must divide hardware.count " + n(count));
    l.dp = count / static_cast<std::uint64_t>(perReplica);
    if (p.dpReplicate == 0)
        return invalid("hardware.parallel.dp_replicate: must be at least 1, got 0");
    if (p.dpReplicate > 1) {
        if (!l.fsdp2)
            return unsupported(std::string("hardware.parallel.dp_replicate: HSDP (replicated groups of sharded "
                                           "ranks) is planned under FSDP2, as torchtitan runs it; set "
                                           "hardware.sharding to fsdp2, got ") +
                               shardingName(sc.hardware.sharding));
        if (l.dp % p.dpReplicate != 0)
            return invalid("hardware.parallel.dp_replicate: " + n(p.dpReplicate) +
                           " must divide the data-parallel degree " + n(l.dp) + " (hardware.count " + n(count) +
                           " / (tp x pp x cp))");
        l.dpReplicate = p.dpReplicate;
    }
    l.etp = p.expertTensorParallel();
    if (auto e = detail::expertParallelChecks(sc, l, p.ep, l.etp))
        return *e;
    l.ep = p.ep;
    if (auto e = detail::moeRoutingChecks(sc, l))
        return *e;
    if (auto e = torchtitanChecks(sc, p))
        return *e;

    // These messages say "tensor and pipeline" for context parallelism too:
    // ui/text/errortext.cpp matches them word for word to translate them.
    if (l.modelParallel()) {
        if (sc.mode != Mode::Train)
            return unsupported(
                "hardware.parallel: tensor and pipeline parallelism are planned for training only, not inference");
        if (sc.profile != Profile::Pytorch)
            return unsupported("profile: Headroom's engine runs one GPU; plan tensor and pipeline parallelism with the "
                               "pytorch profile");
        if (m.encoder || m.classifier() || m.hasVision())
            return unsupported(std::string("model: tensor and pipeline parallelism are planned for decoder language "
                                           "models without a vision tower; got ") +
                               familyName(m.family));
        if (sc.train.peft.method != PeftMethod::None || sc.train.weightQuant != WeightQuant::None)
            return unsupported("train.peft: LoRA, QLoRA and quantized weights are not planned with tensor or pipeline "
                               "parallelism yet");
        if (sc.train.loop != TrainingLoop::Trainer)
            return unsupported("train.loop: a custom loop that keeps the outputs is not planned with tensor or "
                               "pipeline parallelism; use trainer");
    }
    if (p.tp > 1) {
        if (!tensorParallelFamily(m))
            return unsupported(
                std::string("hardware.parallel.tp: tensor parallelism is planned for Llama-layout models (Llama, "
                            "Mistral, Qwen, Gemma, Phi-3, Mixtral, Qwen3-MoE, gpt-oss, Llama 4) and DeepSeek-V3; got ") +
                familyName(m.family));
        // megatron/core/transformer/moe/moe_layer.py MoELayer.forward raises
        // in training when attention is tensor-parallel without sequence
        // parallelism; torchtitan's MoE plans are not modelled.
        if (m.isMoe() && !p.sp)
            return unsupported("hardware.parallel.sp: Megatron-LM trains mixture-of-experts layers under tensor "
                               "parallelism with sequence parallelism only (MoELayer raises otherwise); set sp");
        // torchtitan 0.2.2 under FSDP2 (llama4/infra/parallelize.py
        // apply_moe_ep_tp): the MoE block's input all-gathered
        // (PrepareModuleInputOutput Shard(1) -> Replicate), the router
        // replicated (NoParallel), the shared experts colwise / rowwise, and
        // with ep 1 each routed expert split over tp (TensorParallel), so
        // etp = tp. ep with tp (ETP, or tp borrowed for ep) is not planned.
        if (m.isMoe() && l.fsdp2) {
            if (p.ep > 1)
                return unsupported("hardware.parallel.ep: expert parallelism together with tensor parallelism under "
                                   "FSDP2 (torchtitan's expert tensor parallelism, or tp borrowed for ep) is not "
                                   "modelled yet; with ep 1 the experts are split over tp");
            if (p.etp != 0 && p.etp != p.tp)
                return invalid("hardware.parallel.etp: under FSDP2 with ep 1 torchtitan splits each expert over the "
                               "tp GPUs (TensorParallel), so etp must be tp (" + n(p.tp) + "), got " + n(p.etp));
            if (m.family == Family::Llama4)
                return unsupported("hardware.parallel.tp: Llama 4 under tensor parallelism with FSDP2 is not "
                                   "modelled yet (transformers' Llama4TextMoe runs every expert on every token)");
            if (m.intermediate % p.tp != 0)
                return invalid("hardware.parallel.tp: the expert width " + n(m.intermediate) +
                               " does not divide by tp " + n(p.tp));
        }
        if (m.heads % p.tp != 0)
            return invalid("hardware.parallel.tp: " + n(m.heads) + " attention heads do not divide by tp " + n(p.tp));
        if (m.kvHeads % p.tp != 0)
            return invalid("hardware.parallel.tp: " + n(m.kvHeads) + " KV heads do not divide by tp " + n(p.tp) +
                           " (replicating KV heads over tensor-parallel ranks is not modelled)");
        if (!m.isMoe() && m.intermediate % p.tp != 0)
            return invalid("hardware.parallel.tp: the MLP width " + n(m.intermediate) + " does not divide by tp " +
                           n(p.tp));
        // The shared experts and the dense layers' MLP are dense MLPs split
        // over tp (Megatron-LM's SharedExpertMLP and MLP).
        if (m.hasSharedExpert() && m.sharedExpertIntermediate % p.tp != 0)
            return invalid("hardware.parallel.tp: the shared experts' width " + n(m.sharedExpertIntermediate) +
                           " does not divide by tp " + n(p.tp));
        if (m.isMoe() && (m.denseLayers > 0 || !m.denseLayerIds.empty()) && m.denseIntermediate % p.tp != 0)
            return invalid("hardware.parallel.tp: the dense layers' MLP width " + n(m.denseIntermediate) +
                           " does not divide by tp " + n(p.tp));
    }
    if (p.pp > m.layers)
        return invalid("hardware.parallel.pp: " + n(p.pp) + " pipeline stages for " + n(m.layers) +
                       " layers; every stage needs at least one layer");
    l.paddedVocab = ceilDiv(m.vocab, p.tp) * p.tp;
    if (p.vpp > 1) {
        const UInt128 chunks = static_cast<UInt128>(p.pp) * p.vpp;
        const std::string chunkText =
            "pp " + n(p.pp) + " x vpp " + n(p.vpp) + " = " +
            (chunks > ~std::uint64_t{0} ? std::string("more than 2^64") : n(static_cast<std::uint64_t>(chunks))) +
            " model chunks";
        if (chunks > m.layers)
            return invalid("hardware.parallel.vpp: " + chunkText + " for " + n(m.layers) +
                           " layers; every chunk needs at least one layer");
        if (!l.fsdp2 && m.layers % static_cast<std::uint64_t>(chunks) != 0)
            return invalid("hardware.parallel.vpp: " + n(m.layers) + " layers do not divide by " + chunkText +
                           " (Megatron-LM gives every chunk layers / (pp x vpp); torchtitan's uneven split is planned "
                           "under fsdp2)");
        if (sc.mode == Mode::Train && sc.train.gradAccum % p.pp != 0)
            return invalid("train.grad_accum: " + n(sc.train.gradAccum) + " micro-batches do not divide by pp " +
                           n(p.pp) + "; the interleaved schedule (vpp " + n(p.vpp) +
                           ") runs them in groups of pp (Megatron-LM forward_backward_pipelining_with_interleaving, "
                           "torch ScheduleInterleaved1F1B)");
    }
    // Virtual stages: pp x vpp chunks in order, chunk c of rank r being
    // virtual stage c x pp + r (the sources above).
    const std::uint64_t virtualStages = p.pp * p.vpp;
    const std::uint64_t base = m.layers / virtualStages, extra = m.layers % virtualStages;
    l.chunkLayers.assign(virtualStages, base);
    if (p.ppSplit == PipelineSplit::Weighted && virtualStages > 1) {
        if (!l.fsdp2)
            return unsupported("hardware.parallel.pp_split: the weighted split is torchtitan's, planned under "
                               "sharding fsdp2; Megatron-LM's stages are planned with the layers alone (layers)");
        if (auto split = weightedSplit(m.layers, virtualStages); split.ok())
            l.chunkLayers = split.value();
        else
            return split.error();
    } else if (p.vpp == 1) {
        // Uneven splits: the last (layers mod pp) stages take one layer more;
        // the first stage, which holds the most micro-batches under 1F1B, the fewest.
        for (std::uint64_t s = p.pp - extra; s < p.pp; ++s)
            l.chunkLayers[s] += 1;
    } else {
        // torchtitan generate_split_points (only under FSDP2: Megatron's split
        // divides, checked above): virtual stages 1 .. extra take one more.
        for (std::uint64_t s = 1; s <= extra; ++s)
            l.chunkLayers[s] += 1;
    }
    l.stageLayers.assign(p.pp, 0);
    for (std::uint64_t s = 0; s < virtualStages; ++s)
        l.stageLayers[s % p.pp] += l.chunkLayers[s];

    if (sc.mode == Mode::Train && sc.train.globalBatch != 0) {
        const UInt128 perStep = static_cast<UInt128>(sc.train.microBatch) * sc.train.gradAccum * l.dp;
        if (perStep != sc.train.globalBatch)
            return invalid(
                "train.global_batch: " + n(sc.train.globalBatch) + " is not micro_batch " + n(sc.train.microBatch) +
                " x grad_accum " + n(sc.train.gradAccum) + " x data-parallel degree " + n(l.dp) + " = " +
                (perStep > ~std::uint64_t{0} ? std::string("more than 2^64") : n(static_cast<std::uint64_t>(perStep))));
    }
    return l;
}

} // namespace headroom
