// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor and pipeline parallel layouts: the checks and the shape of one rank.
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
bool tensorParallelFamily(const ModelSpec& m)
{
    switch (m.family) {
    case Family::Llama:
    case Family::Gemma:
    case Family::Gemma2:
    case Family::Gemma3:
    case Family::Phi3: return !m.isMoe();
    default: return false;
    }
}

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
    if (l.tp == 1)
        return t;
    if (columnParallel(t.kind)) {
        t.rows = ceilDiv(t.rows, l.tp); // ColumnParallelLinear: weight and bias per partition
    } else if (rowParallel(t.kind)) {
        if (!t.isBias)
            t.cols = ceilDiv(t.cols, l.tp); // RowParallelLinear: input features split, bias whole
    } else if ((t.kind == ModuleKind::Embedding || t.kind == ModuleKind::LmHead) && t.rows == m.vocab) {
        t.rows =
            l.paddedVocab / l.tp; // VocabParallelEmbedding; the output layer is column-parallel over the vocabulary
    }
    return t;
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
                               "parallelism is planned with full checkpointing only" + shape);
        if (sc.train.compileLayers)
            return unsupported("train.compile: compiled layers under tensor, pipeline or context parallelism are "
                               "planned with full checkpointing only" + shape);
    }
    // AsyncTP (torchtitan@9dec370 parallelize_llama.py: "Async TP requires
    // --training.compile"; it fuses the TP collectives of the layers' DTensor
    // plan, so it needs tensor parallelism under FSDP2).
    if (p.asyncTp) {
        if (p.tp < 2)
            return invalid("hardware.parallel.async_tp: AsyncTP fuses tensor-parallel collectives; it needs tp > 1, "
                           "got tp " + n(p.tp));
        if (sc.hardware.sharding != Sharding::Fsdp2)
            return unsupported("hardware.parallel.async_tp: AsyncTP is planned as torchtitan runs it, under FSDP2; "
                               "set hardware.sharding to fsdp2, got " + std::string(shardingName(sc.hardware.sharding)));
        if (sc.mode == Mode::Train && !sc.train.compileLayers)
            return unsupported("hardware.parallel.async_tp: AsyncTP is an Inductor pass and needs compiled layers "
                               "(train.compile), as torchtitan requires");
    }
    if (sc.hardware.sharding == Sharding::Fsdp2 && p.tp > 1 && sc.mode == Mode::Train && sc.train.chunkedCrossEntropy)
        return unsupported("train.chunked_cross_entropy: under FSDP2 with tensor parallelism the loss is torchtitan's "
                           "loss parallelism over the vocabulary shards, not chunked; turn chunking off");
    return std::nullopt;
}

} // namespace

std::uint64_t ParallelLayout::inFlightMicroBatches(std::uint64_t stage) const
{
    if (pp <= 1)
        return 1;
    if (schedule == PipelineSchedule::GPipe)
        return microBatches;                                                    // all forwards before any backward
    return std::min<std::uint64_t>(pp - std::min(stage, pp - 1), microBatches); // 1F1B warm-up: pp - stage
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
    l.cp = p.cp;
    l.fsdp2 = sc.hardware.sharding == Sharding::Fsdp2;
    l.microBatches = sc.train.gradAccum;
    if (p.tp == 0 || p.pp == 0 || p.cp == 0)
        return invalid("hardware.parallel: tp, pp and cp must be at least 1, got tp " + n(p.tp) + ", pp " + n(p.pp) +
                       ", cp " + n(p.cp));
    if (p.vpp != 1)
        return unsupported(
            "hardware.parallel.vpp: interleaved pipeline schedules are not modelled yet; vpp must be 1, got " +
            n(p.vpp));
    const UInt128 perReplica = static_cast<UInt128>(p.tp) * p.pp * p.cp;
    if (perReplica > count || count % static_cast<std::uint64_t>(perReplica) != 0)
        return invalid(
            "hardware.parallel: tp " + n(p.tp) + " x pp " + n(p.pp) + (p.cp > 1 ? " x cp " + n(p.cp) : "") + " = " +
            (perReplica > count ? std::string("more than ") + n(count) : n(static_cast<std::uint64_t>(perReplica))) +
            " GPUs per model replica must divide hardware.count " + n(count));
    l.dp = count / static_cast<std::uint64_t>(perReplica);
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
                std::string(
                    "hardware.parallel.tp: tensor parallelism is planned for Llama-layout models without experts "
                    "(Llama, Mistral, Qwen, Gemma, Phi-3); got ") +
                familyName(m.family) + (m.isMoe() ? " with experts" : ""));
        if (m.heads % p.tp != 0)
            return invalid("hardware.parallel.tp: " + n(m.heads) + " attention heads do not divide by tp " + n(p.tp));
        if (m.kvHeads % p.tp != 0)
            return invalid("hardware.parallel.tp: " + n(m.kvHeads) + " KV heads do not divide by tp " + n(p.tp) +
                           " (replicating KV heads over tensor-parallel ranks is not modelled)");
        if (m.intermediate % p.tp != 0)
            return invalid("hardware.parallel.tp: the MLP width " + n(m.intermediate) + " does not divide by tp " +
                           n(p.tp));
    }
    if (p.pp > m.layers)
        return invalid("hardware.parallel.pp: " + n(p.pp) + " pipeline stages for " + n(m.layers) +
                       " layers; every stage needs at least one layer");
    l.paddedVocab = ceilDiv(m.vocab, p.tp) * p.tp;
    // Uneven splits: the last (layers mod pp) stages take one layer more; the
    // first stage, which holds the most micro-batches under 1F1B, the fewest.
    const std::uint64_t base = m.layers / p.pp, extra = m.layers % p.pp;
    l.stageLayers.assign(p.pp, base);
    for (std::uint64_t s = p.pp - extra; s < p.pp; ++s)
        l.stageLayers[s] += 1;

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

ParameterTable rankParameterTable(const ParameterTable& full, const ModelSpec& m, const ParallelLayout& l,
                                  std::uint64_t stage)
{
    ParameterTable r;
    r.layers = stage < l.stageLayers.size() ? l.stageLayers[stage] : full.layers;
    r.layer.reserve(full.layer.size());
    for (const ParamTensor& t : full.layer)
        r.layer.push_back(splitTensor(t, m, l));
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
    m.heads = model.heads / l.tp;
    m.kvHeads = model.kvHeads / l.tp;
    m.intermediate = model.intermediate / l.tp;
    m.vocab = l.paddedVocab / l.tp;
    if (l.pp > 1)
        m.tieEmbeddings = false; // each stage's copy is its own tensor (synchronised by an all-reduce)
    return m;
}

} // namespace headroom
