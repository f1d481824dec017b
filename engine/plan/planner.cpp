// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/planner.h"

#include "plan/asynctp.h"
#include "plan/compiledlayer.h"
#include "plan/compiledloss.h"
#include "plan/denselayers.h"
#include "plan/float8linear.h"
#include "plan/headroomrows.h"
#include "plan/ncclbuffers.h"
#include "plan/planbuild.h"
#include "plan/sweep.h"

#include <algorithm>
#include <cstdio>
#include <optional>

namespace headroom {

namespace {

// Elements of a model's expert weights, every layer.
Bytes expertElements(const ParameterTable& table)
{
    Bytes n = 0;
    for (const ParamTensor& t : table.layer)
        if (t.isExpert())
            n = satAdd(n, t.elements());
    return satMul(n, table.layerRepeats()); // the dense first layers have none
}

constexpr Bytes kMaxCount = 1'000'000'000;  // batch, sequence, accumulation: beyond this is a typo

Error invalid(std::string what) { return makeError(ErrorCode::InvalidArgument, std::move(what)); }

std::optional<Error> checkRange(const char* name, Bytes value, Bytes low, Bytes high)
{
    if (value < low || value > high)
        return invalid(std::string(name) + ": must be between " + std::to_string(low) + " and " + std::to_string(high) +
                       ", got " + std::to_string(value));
    return std::nullopt;
}

std::optional<Error> validate(const Scenario& sc)
{
    const ModelSpec& m = sc.model;
    if (m.layers == 0 || m.hidden == 0 || m.heads == 0 || m.kvHeads == 0 || m.headDim == 0 || m.vocab == 0 || m.intermediate == 0)
        return invalid("model: layers, hidden size, heads, KV heads, head dim, MLP width and vocabulary must all be positive");
    // model/modelhead.h setModelHead: the classifier exists for BERT, with labels.
    if (m.classifier() && (m.family != Family::Bert || m.numLabels == 0))
        return invalid("model.head: the sequence-classification head needs a BERT model and num_labels of at least 1");
    const HardwareConfig& hw = sc.hardware;
    if (auto e = checkRange("hardware.count", hw.count, 1, 1'000'000))
        return e;
    if (sc.mode == Mode::Inference) {
        const InferenceConfig& ic = sc.inference;
        if (auto e = checkRange("inference.batch", ic.batch, 1, kMaxCount))
            return e;
        if (auto e = checkRange("inference.prompt_tokens", ic.promptTokens, 1, kMaxCount))
            return e;
        if (auto e = checkRange("inference.new_tokens", ic.newTokens, 0, kMaxCount))
            return e;
        if (ic.precision != Precision::Fp32 && ic.precision != Precision::Fp16 && ic.precision != Precision::Bf16)
            return invalid(std::string("inference.precision: must be fp32, fp16 or bf16 for inference weights, got ") +
                           precisionName(ic.precision));
        return std::nullopt;
    }
    const TrainConfig& tc = sc.train;
    if (auto e = checkRange("train.micro_batch", tc.microBatch, 1, kMaxCount))
        return e;
    if (auto e = checkRange("train.seq_len", tc.seqLen, 1, kMaxCount))
        return e;
    if (auto e = checkRange("train.grad_accum", tc.gradAccum, 1, kMaxCount))
        return e;
    if (tc.checkpointing == Checkpointing::EveryK)
        if (auto e = checkRange("train.checkpoint_every", tc.checkpointEvery, 1, 1'000'000))
            return e;
    if (tc.chunkedCrossEntropy)
        if (auto e = checkRange("train.loss_chunks", tc.lossChunks, 1, 1'000'000))
            return e;
    if (tc.peft.method != PeftMethod::None) {
        if (auto e = checkRange("train.peft.rank", tc.peft.rank, 1, 65536))
            return e;
        if (!(tc.peft.alpha > 0 && tc.peft.alpha <= 1e6))
            return invalid("train.peft.alpha: must be above 0 and at most 1e6");
        if (!(tc.peft.dropout >= 0 && tc.peft.dropout < 1))
            return invalid("train.peft.dropout: must be in [0, 1)");
    }
    if (tc.optimizer == Optimizer::Galore)
        if (auto e = checkRange("train.galore_rank", tc.galoreRank, 1, 65536))
            return e;
    if (tc.peft.method == PeftMethod::Qlora && tc.weightQuant == WeightQuant::None)
        return makeError(ErrorCode::UnsupportedCombination,
                         "QLoRA trains adapters over a 4-bit base: set weight_quant to nf4 or nf4-dq");
    if (tc.peft.method == PeftMethod::None && tc.weightQuant != WeightQuant::None)
        return makeError(ErrorCode::UnsupportedCombination,
                         "quantized weights cannot be trained directly: use LoRA or QLoRA with weight_quant");
    if (tc.peft.method != PeftMethod::None && (tc.optimizer == Optimizer::Galore))
        return makeError(ErrorCode::UnsupportedCombination, "GaLore projects full-parameter gradients: it does not combine with LoRA");
    if (tc.peft.method != PeftMethod::None && hw.sharding == Sharding::Zero3 && tc.weightQuant != WeightQuant::None)
        return makeError(ErrorCode::UnsupportedCombination, "bitsandbytes quantized weights are not sharded by ZeRO-3 in this planner");
    if (hw.sharding == Sharding::Fsdp2) {
        // What plan/modelstaterows.cpp addFsdp2GatherRows describes: torchtitan's
        // full fine-tune. The rest is not modelled yet (issue 15), so it is refused.
        if (tc.peft.method != PeftMethod::None)
            return makeError(ErrorCode::UnsupportedCombination, "FSDP2 is planned for full fine-tuning only: LoRA and QLoRA under fully_shard are not modelled yet");
        if (tc.precision == Precision::Fp16)
            return makeError(ErrorCode::UnsupportedCombination, std::string("FSDP2 with ") + precisionName(tc.precision) +
                                                                    " is not modelled yet: use fp32, bf16, bf16-mixed, fp16-mixed or fp8-mixed");
        if (hw.cpuOffload && (hw.parallel.pp > 1 || hw.parallel.tp > 1 || hw.parallel.cp > 1))
            return makeError(ErrorCode::UnsupportedCombination,
                             "FSDP2 with CPU offload (CPUOffloadPolicy) is planned without tensor, pipeline or context "
                             "parallelism only");
        // Under tensor, pipeline and context parallelism FSDP2 is planned as
        // torchtitan composes them (plan/parallel.h checks the layout).
        if (tc.optimizer == Optimizer::Lomo || tc.optimizer == Optimizer::AdaLomo || tc.optimizerInBackward)
            return makeError(ErrorCode::UnsupportedCombination, "FSDP2 with an update inside backward (LOMO, optimizer in backward) is not modelled yet");
    }
    if (auto e = checkCompiledLayers(sc))
        return e;
    if (auto e = checkFloat8Linears(sc))
        return e;
    if (auto e = checkCompiledLoss(sc))
        return e;
    // torch.optim has fused and for-loop steps for AdamW and SGD; the 8-bit,
    // paged, Lion, Adafactor, LOMO and GaLore optimizers have their own.
    if (tc.optimizerImpl != OptimizerImpl::Foreach && tc.optimizer != Optimizer::AdamW &&
        tc.optimizer != Optimizer::Sgd && tc.optimizer != Optimizer::SgdMomentum)
        return makeError(ErrorCode::UnsupportedCombination,
                         std::string("train.optimizer_impl: ") + optimizerImplName(tc.optimizerImpl) +
                             " applies to torch.optim's AdamW and SGD; " + optimizerName(tc.optimizer) +
                             " has its own step");
    if (tc.checkpointing == Checkpointing::SelectiveOps) {
        if (tc.peft.method == PeftMethod::Qlora)
            return makeError(ErrorCode::UnsupportedCombination, "op-level selective checkpointing with QLoRA (bitsandbytes' 4-bit matmuls) is not modelled yet");
        if (tc.activationOffload)
            return makeError(ErrorCode::UnsupportedCombination, "op-level selective checkpointing with activation offload is not modelled yet");
    }
    return std::nullopt;
}

// PEFT's "all-linear" shorthand among the requested target modules.
bool asksAllLinear(const std::vector<std::string>& targets)
{
    return std::find(targets.begin(), targets.end(), "all-linear") != targets.end();
}

} // namespace

std::vector<std::string> resolveLoraTargets(const ModelSpec& model, const ParameterTable& table,
                                            const std::vector<std::string>& requested)
{
    std::vector<std::string> names;
    if (asksAllLinear(requested)) {
        // PEFT "all-linear": every linear layer except the output head; not
        // the experts, 3-D parameters in transformers 5.17 (isLoraTarget).
        for (const ParamTensor& t : table.layer)
            if (t.isLinearWeight && t.kind != ModuleKind::Router && !t.isExpert() &&
                std::find(names.begin(), names.end(), t.module) == names.end())
                names.push_back(t.module);
        return names;
    }
    if (!requested.empty())
        return requested;
    // PEFT's defaults (peft/utils/constants.py TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING).
    switch (model.family) {
    case Family::Phi3: return {"qkv_proj"};
    case Family::Gpt2:
    case Family::GptBigCode: return {"c_attn"};
    case Family::GptNeoX: return {"query_key_value"};
    case Family::Bert: return {"query", "value"};
    default: return {"q_proj", "v_proj"};
    }
}

std::string formatGiB(double bytes)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.2f GiB", bytes / static_cast<double>(GiB));
    return text;
}

Result<Plan> makePlan(const Scenario& scenario) { return makePlan(scenario, buildParameterTable(scenario.model)); }

Result<Plan> makePlan(const Scenario& sc, const ParameterTable& table) { return makePlan(sc, table, PlanOptions{}); }

Result<Plan> makePlan(const Scenario& sc, const ParameterTable& table, const PlanOptions& options)
{
    if (auto e = validate(sc))
        return *e;
    auto layout = parallelLayout(sc);
    if (!layout)
        return layout.error();
    if (layout->modelParallel())
        return detail::makeParallelPlan(sc, table, options, *layout);
    return detail::planOneRank(sc, sc.model, table, options, nullptr);
}

Result<Plan> detail::planOneRank(const Scenario& sc, const ModelSpec& m, const ParameterTable& table,
                                 const PlanOptions& options, const RankShape* rank)
{
    const GpuSpec* gpu = lookupGpu(sc.hardware.gpu);
    if (!gpu)
        return findGpu(sc.hardware.gpu).error();

    Plan plan;
    // The profile with the context of this card's generation (profile.h contextBytesOn).
    RuntimeProfile profile = runtimeProfile(sc.profile);
    profile.contextBytes = profile.contextBytesOn(gpu->computeMajor);
    // NCCL's buffers sit outside the allocator too: counted with the context.
    const NcclBuffers nccl = ncclBuffers(sc);
    profile.contextBytes = satAdd(profile.contextBytes, nccl.bytes);
    plan.ncclBytes = nccl.bytes;
    if (nccl.communicators > 0 && options.withNotes)
        plan.notes.push_back("NCCL: " + std::to_string(nccl.communicators) + " communicator" +
                             (nccl.communicators > 1 ? "s" : "") + " per GPU, about " + formatGiB(static_cast<double>(nccl.bytes)) +
                             " of buffers outside the caching allocator (544 MB for two ranks, 688 MB for more, measured on 4 A100s: "
                             "NVIDIA/nccl#964; an estimate on other GPUs).");
    detail::BuildContext ctx(sc, m, table, profile, *gpu);
    ctx.notes = options.withNotes ? &plan.notes : nullptr;
    ctx.pieces = &plan.pieces;
    ctx.mode = sc.mode;
    ctx.rank = rank;
    // The sharding degree: every GPU, or for a rank of a layout count / (tp x
    // pp x cp), and FSDP2 over that times cp (ParallelLayout::shardDegree);
    // under HSDP the ranks of one replicate group (parallel.cpp checks that
    // dp_replicate divides them).
    ctx.shards = rank ? rank->layout->shardDegree() : sc.hardware.count / sc.hardware.parallel.dpReplicate;
    if (!rank && sc.hardware.parallel.dpReplicate > 1)
        plan.notes.push_back("HSDP: " + std::to_string(sc.hardware.parallel.dpReplicate) + " replicate groups of " +
                             std::to_string(ctx.shards) +
                             " GPUs; parameters, gradients and optimizer states are sharded within a group and the "
                             "groups all-reduce the sharded gradients in place (FSDP2 foreach_reduce).");

    if (sc.mode == Mode::Train) {
        const TrainConfig& tc = sc.train;
        ctx.batch = tc.microBatch;
        // Context parallelism: every activation of a rank is over its own
        // seq / cp tokens (parallel.h checks that 2 x cp divides the sequence).
        ctx.seq = rank ? tc.seqLen / rank->layout->cp : tc.seqLen;
        ctx.tokens = satMul(tc.microBatch, ctx.seq);
        const Precision p = tc.precision;
        ctx.act = p == Precision::Fp32 ? 4 : 2;
        ctx.fullFinetune = tc.peft.method == PeftMethod::None;
        // A rank of a parallel layout: its table is one pass of the stage's
        // schedule. Under FSDP2 without pipeline stages (torchtitan's 2D and
        // context-parallel layouts) a rank runs the step's micro-batches one
        // after the other, as one GPU does, so the allocator replays them alike.
        const bool fsdp2Flat = rank && rank->layout->fsdp2 && rank->layout->pp == 1;
        plan.microBatchesPerStep = rank && !fsdp2Flat ? 1 : tc.gradAccum;
        ctx.quantizedBase = tc.weightQuant != WeightQuant::None;
        const bool zero = ctx.shards > 1 &&
                          (sc.hardware.sharding == Sharding::Zero1 || sc.hardware.sharding == Sharding::Zero2 ||
                           sc.hardware.sharding == Sharding::Zero3);
        // DeepSpeed's mixed precision (16-bit model, fp32 master and states in
        // the optimizer). LOMO/AdaLomo update the 16-bit weights in backward
        // and keep no master copy (LOMO paper §3.3, Table 1).
        const bool fused = tc.optimizer == Optimizer::Lomo || tc.optimizer == Optimizer::AdaLomo || tc.optimizerInBackward;
        ctx.deepspeedStyle = zero && p != Precision::Fp32 && ctx.fullFinetune && !fused;
        const bool mixed = p == Precision::Fp16Mixed || p == Precision::Bf16Mixed || p == Precision::Fp8Mixed;
        // Autocast runs over fp32 weights: full fine-tuning in a mixed mode, or
        // adapters over an fp32-cast quantized base (PEFT k-bit training).
        // FSDP2's MixedPrecisionPolicy casts the gathered parameters to 16-bit
        // instead (torchtitan trains without autocast): the whole forward, the
        // residual stream included, runs in 16-bit over fp32 sharded masters.
        const bool fsdp2Cast = sc.hardware.sharding == Sharding::Fsdp2 && mixed;
        // Megatron-LM (a tensor/pipeline layout without FSDP2) runs the model
        // in its 16-bit dtype (Float16Module), without autocast, over fp32
        // main parameters in the optimizer (megatronrows.cpp).
        ctx.megatron = detail::megatronModelStates(sc, ctx);
        if (ctx.megatron)
            ctx.deepspeedStyle = false;
        ctx.autocast = mixed && !ctx.deepspeedStyle && !fsdp2Cast && !ctx.megatron;
        ctx.residual = (ctx.autocast && (ctx.fullFinetune || ctx.quantizedBase)) ? 4 : ctx.act;
        ctx.dropoutActive = m.dropout > 0;
        // use_cache in training: the config's value unless the user set one;
        // gradient checkpointing turns it off (transformers modeling_layers.py
        // GradientCheckpointingLayer); encoders return no cache.
        const bool cacheAsked = tc.useCache == UseCache::On || (tc.useCache == UseCache::ConfigDefault && m.useCache);
        // Megatron-LM's GPTModel returns no cache in training.
        ctx.trainUseCache = cacheAsked && !m.encoder && tc.checkpointing == Checkpointing::None && !ctx.megatron;
        if (tc.loop == TrainingLoop::Custom)
            ctx.note(ctx.trainUseCache
                         ? "Custom training loop: the model outputs (logits and every layer's keys and values) stay alive through backward and the optimizer step, until the next forward returns."
                         : "Custom training loop: the model outputs (logits) stay alive through backward and the optimizer step, until the next forward returns.");
        if (ctx.trainUseCache)
            ctx.note("use_cache is on in training (the config's default unless set): transformers copies every layer's keys and values into a cache returned with the outputs.");
        // Llama 4 (modeling_llama4.py Llama4TextAttention): the layers the
        // config's no_rope_layers marks skip RoPE and qk_norm and scale their
        // queries (attn_temperature_tuning); layer_types makes the RoPE layers
        // chunked attention (attention_chunk_size). The plan repeats one
        // layer, with the norm and without the scaling or the chunked mask.
        if (m.family == Family::Llama4)
            ctx.note("Llama 4: every layer is planned alike, with RoPE and the q/k L2 norm; the layers without RoPE "
                     "(their query temperature scaling) and chunked attention's mask are not modelled.");
        // DeepSeek-V3 (denselayers.h, mlasaves.h): the reference accountant's
        // deepseek-v3-tiny cases, not a GPU run.
        // A pipeline stage past the dense layers has none.
        if (m.family == Family::DeepseekV3) {
            const std::uint64_t dense = table.layers - table.layerRepeats();
            ctx.note("DeepSeek-V3: its " + (dense > 0 ? std::to_string(dense) + " dense first layers and " : std::string()) +
                     std::to_string(table.layerRepeats()) +
                     " mixture-of-experts layers are planned each as transformers runs them, with multi-head latent "
                     "attention on the memory-efficient kernel; checked against PyTorch on the meta device and on one "
                     "H200 (a small configuration within 0.9 %, torchtitan's 16B ranks within 0.2 % of peak "
                     "allocated; the output copy of cuDNN attention, which sm_90 GPUs run, is not modelled).");
        }
        if (!ctx.fullFinetune && m.classifier())
            ctx.note("LoRA on a sequence classifier: PEFT's SEQ_CLS task also trains the classifier (modules_to_save); "
                     "its num_labels x hidden weights' copy, gradient and optimizer state are left out (a few kilobytes).");
        if (!ctx.fullFinetune) {
            ctx.loraTargets = resolveLoraTargets(m, table, tc.peft.targets);
            ctx.cacheLoraTargets();
            bool any = false;
            for (const ParamTensor& t : table.layer)
                any = any || ctx.isLoraTarget(t);
            if (!any) {
                std::string list;
                for (const std::string& n : ctx.loraTargets)
                    list += (list.empty() ? "" : ", ") + n;
                return makeError(ErrorCode::UnsupportedCombination,
                                 "LoRA targets match no linear layer of this model: " + list);
            }
        }
        switch (tc.checkpointing) {
        case Checkpointing::None: plan.checkpointEvery = 0; break;
        case Checkpointing::Full: plan.checkpointEvery = 1; break;
        case Checkpointing::EveryK: plan.checkpointEvery = tc.checkpointEvery; break;
        case Checkpointing::SelectiveOps: plan.checkpointEvery = 1; break;
        }
        ctx.selectiveOps = tc.checkpointing == Checkpointing::SelectiveOps;
        ctx.compiledLayers = tc.compileLayers;
        ctx.float8Linears = float8Linears(sc);
        ctx.float8AllGather = float8AllGather(sc);
        if ((p == Precision::Bf16 || p == Precision::Bf16Mixed) && !gpu->bf16)
            plan.notes.push_back(gpu->name + " has no native bf16: PyTorch emulates it slowly or refuses; fp16-mixed is the usual choice.");
        if (p == Precision::Fp8Mixed && !gpu->fp8)
            plan.notes.push_back(gpu->name + " has no fp8 tensor cores (needs compute capability 8.9 or newer).");
        if (m.isMoe() && ctx.quantizedBase)
            plan.notes.push_back(
                "Experts are not quantized: transformers quantizes nn.Linear layers only, and keeps the experts "
                "as 3-D parameters, which prepare_model_for_kbit_training then casts to fp32 (" +
                formatGiB(static_cast<double>(satMul(expertElements(table), 4))) + " here).");
        // peft 0.21 resolves "all-linear" on transformers 5 mixture-of-experts
        // models to the fused expert parameters too
        // (transformers_weight_conversion.py _convert_peft_config_moe): a
        // ParamWrapper makes W + BA of a layer's experts in each forward.
        // peft 0.18.1, which the plan and the reference follow, leaves them.
        // Measured on an H200 (2026-11-26, docs/validation/gpu-h200-2026-11-26.md):
        // Mixtral 8x7B LoRA all-linear b4 s4096 checkpointed, +7.3 % peak
        // allocated under peft 0.21.0, -0.000 % under 0.18.1.
        if (m.isMoe() && tc.peft.method != PeftMethod::None && asksAllLinear(tc.peft.targets))
            plan.notes.push_back("LoRA all-linear leaves the experts alone, as peft 0.18.1 does; peft 0.21 adapts them too "
                                 "and holds a copy of each layer's expert weights in its forward (measured: +7.3 % on "
                                 "Mixtral 8x7B).");
        // GptOssPreTrainedModel._supports_sdpa is False (transformers 5.17):
        // asked for sdpa, transformers refuses; left to its default it runs the
        // eager attention with sinks, which is what layersaves.cpp plans.
        if (m.family == Family::GptOss && tc.attention == Attention::Sdpa)
            plan.notes.push_back("gpt-oss has no sdpa attention in transformers (attention sinks): planned with its eager "
                                 "attention, transformers' default for it.");
        if (m.maxPositions > 0 && tc.seqLen > m.maxPositions)
            plan.notes.push_back("Sequence length exceeds the model's max_position_embeddings (" + std::to_string(m.maxPositions) + ").");
    } else {
        const InferenceConfig& ic = sc.inference;
        ctx.batch = ic.batch;
        ctx.seq = satAdd(ic.promptTokens, ic.newTokens);
        ctx.tokens = satMul(ic.batch, ic.promptTokens);
        ctx.act = ic.precision == Precision::Fp32 ? 4 : 2;
        ctx.residual = ctx.act;
        ctx.fullFinetune = false;
    }
    plan.layers = m.layers;
    plan.slidingPeriod = m.slidingPeriod;
    ctx.checkpointEvery = plan.checkpointEvery;
    plan.tokensPerMicroBatch = ctx.tokens;
    plan.totalParameters = table.totalElements();
    plan.activeParameters = table.activeElements(m.expertsPerToken, m.experts);

    plan.tensors.reserve(64);
    const std::string headroomGap = sc.profile == Profile::Headroom ? headroomProgramGap(sc) : std::string("-");
    if (!rank && !headroomGap.empty() && sc.profile == Profile::Headroom)
        plan.notes.push_back("Headroom's engine does not run this scenario yet (" + headroomGap +
                             "): the rows follow the PyTorch model with the headroom allocator's settings.");
    const auto buildRows = [&](const detail::BuildContext& c, std::vector<TensorRow>& rows) {
        if (rank) {
            detail::addParallelRankRows(c, rows);
        } else if (headroomGap.empty()) {
            detail::addHeadroomRows(c, rows);
        } else {
            detail::addModelStateRows(c, rows);
            if (sc.mode == Mode::Train)
                detail::addActivationRows(c, rows);
            else
                detail::addInferenceRows(c, rows);
        }
    };
    buildRows(ctx, plan.tensors);
    // Dense first layers (DeepSeek-V3): the same rows for the dense view of
    // the model, merged so that each per-layer row is for the layers it
    // describes (denselayers.h).
    if (table.denseLayers > 0) {
        const ModelSpec denseModel = detail::denseLayerModel(m);
        const ParameterTable denseTable = detail::denseLayerTable(table);
        detail::BuildContext denseCtx(ctx, denseModel, denseTable);
        std::vector<std::string> sameNotes;
        std::vector<TensorPiece> densePieces;
        denseCtx.notes = &sameNotes;
        denseCtx.pieces = &densePieces;
        if (!denseCtx.fullFinetune)
            denseCtx.cacheLoraTargets();
        std::vector<TensorRow> denseRows;
        buildRows(denseCtx, denseRows);
        detail::mergeDenseLayerRows(plan.tensors, plan.pieces, denseRows, densePieces, table.denseLayers, table.layers);
        plan.denseLayers = table.denseLayers;
        plan.denseLayerIds = m.denseLayerIds;
    }

    if (sc.mode == Mode::Train) {
        if (ctx.fullFinetune) {
            plan.trainableParameters = plan.totalParameters;
        } else {
            const auto adapters = [&](const std::vector<ParamTensor>& tensors) {
                Bytes n = 0;
                for (const ParamTensor& t : tensors)
                    if (ctx.isLoraTarget(t))
                        n += satMul(satMul(sc.train.peft.rank, t.rows + t.cols), t.copies);
                return n;
            };
            plan.trainableParameters = satAdd(satMul(adapters(table.layer), table.layerRepeats()),
                                              satMul(adapters(table.denseLayer), table.layers - table.layerRepeats()));
        }
    }

    // AsyncTP's symmetric-memory workspace, outside the allocator like the
    // context (plan/asynctp.h), over the rank's tokens.
    if (const Bytes workspace = rank ? asyncTpWorkspaceBytes(sc, ctx.tokens, m.hidden) : 0; workspace > 0) {
        profile.contextBytes = satAdd(profile.contextBytes, workspace);
        plan.notes.push_back("AsyncTP: a symmetric-memory workspace of about " +
                             formatGiB(static_cast<double>(workspace)) +
                             " per GPU outside the caching allocator (two reduce-scatter chunks); the tensors in "
                             "the allocator are the 2D plan's, as the fused ops allocate them.");
    }
    auto swept = sweepPlan(plan, sc.mode, profile, options.estimateReserved,
                           allocatorCapacity(gpu->usableBytes(), profile));
    if (!swept)
        return swept.error();
    plan.gpu = *gpu;
    plan.capacityBytes = gpu->usableBytes();
    plan.fits = plan.deviceUsedBytes <= plan.capacityBytes;
    plan.marginBytes = static_cast<std::int64_t>(plan.capacityBytes) - static_cast<std::int64_t>(plan.deviceUsedBytes);
    return plan;
}

} // namespace headroom
