// SPDX-License-Identifier: GPL-3.0-or-later
// Weights, gradients, optimizer state, adapters, sharding buffers and library
// workspaces: the rows of the tensor table that scale with parameters. The
// optimizer's state and step temporaries are made in optimizerrows.cpp.
// Sources: memory-model.md §3 (optimizers), §4 (mixed precision), §5
// (QLoRA), §6 (workspaces), §7 (ZeRO/FSDP/DDP), §9 (accumulation).
#include "plan/modelstatesums.h"
#include "plan/planbuild.h"
#include "plan/sweep.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace headroom::detail {

bool BuildContext::isLoraTarget(const ParamTensor& t) const
{
    if (loraTargets.empty() || !t.isLinearWeight || t.kind == ModuleKind::LmHead || t.kind == ModuleKind::Router)
        return false;
    // PEFT's target_modules wraps nn.Linear-like modules only: "all-linear"
    // adapts attention alone (accountant: Qwen3-30B-A3B and Mixtral LoRA
    // all-linear, optimizer state of q/k/v/o only).
    if (t.isExpert())
        return false;
    const ParamTensor* first = table.layer.data();
    if (loraTargetMaskValid && &t >= first && &t < first + table.layer.size())
        return (loraTargetMask >> (&t - first)) & 1U;
    return std::find(loraTargets.begin(), loraTargets.end(), t.module) != loraTargets.end();
}

void BuildContext::cacheLoraTargets()
{
    loraTargetMaskValid = false;
    loraTargetMask = 0;
    if (table.layer.size() > 64)
        return;
    for (std::size_t i = 0; i < table.layer.size(); ++i)
        if (isLoraTarget(table.layer[i]))
            loraTargetMask |= std::uint64_t{1} << i;
    loraTargetMaskValid = true;
}

Bytes quantizedWeightBytes(WeightQuant q, Bytes rows, Bytes cols)
{
    const Bytes n = satMul(rows, cols);
    switch (q) {
    case WeightQuant::None: return satMul(n, 2);
    // LLM.int8 (bitsandbytes Int8Params): int8 CB plus one fp32 scale (SCB) per output row.
    case WeightQuant::Int8: return satAdd(n, satMul(rows, 4));
    // NF4: two 4-bit codes per byte, one fp32 absmax per block of 64 (QLoRA §2-3).
    case WeightQuant::Nf4: return satAdd(ceilDiv(n, 2), satMul(ceilDiv(n, 64), 4));
    // Double quantization: absmax stored as 8-bit per block of 64, with one fp32
    // scale per 256 of those blocks (QLoRA §3: 0.127 bits per parameter of overhead).
    case WeightQuant::Nf4DoubleQuant:
        return satAdd(satAdd(ceilDiv(n, 2), ceilDiv(n, 64)), satMul(ceilDiv(ceilDiv(n, 64), 256), 4));
    }
    return n;
}

namespace {

// Bytes of optimizer state for one trainable tensor of `elements` elements
// stored in `stateBytes`-byte floats; for a LoRA adapter (isAdapter), its A
// and B of `rank`; trainerOverrides: Hugging Face Trainer built the optimizer.
Bytes optimizerStateBytes(Optimizer o, const ParamTensor& t, Bytes elements, Bytes stateBytes, Bytes galoreRank,
                          bool isAdapter, Bytes rank, bool trainerOverrides)
{
    switch (o) {
    case Optimizer::Sgd:
    case Optimizer::Lomo:
        return 0;
    case Optimizer::SgdMomentum:
    case Optimizer::Lion:
        return satMul(elements, stateBytes);  // one momentum buffer (torch/optim/sgd.py; Lion paper §2)
    case Optimizer::AdamW:
        return satMul(elements, 2 * stateBytes);  // exp_avg + exp_avg_sq (torch/optim/adamw.py)
    case Optimizer::AdamW8bit:
    case Optimizer::PagedAdamW8bit: {
        // bitsandbytes Optimizer2State.init_state (0.50): a tensor under
        // min_8bit_size = 4096 elements keeps two fp32 states; else two uint8
        // states and two fp32 absmax per block of 256. Hugging Face Trainer
        // registers every nn.Embedding for 32-bit state (trainer.py
        // create_optimizer, GlobalOptimManager.register_module_override); a
        // hand-written loop builds the optimizer without that override.
        // Measured against bitsandbytes itself on the meta device
        // (tools/reference/accountant.py, the adamw-8bit reference cases).
        auto eightBit = [](Bytes each, Bytes count) {
            return each < 4096 ? satMul(satMul(each, count), 8)
                               : satMul(satAdd(satMul(each, 2), satMul(ceilDiv(each, 256), 8)), count);
        };
        const bool embedding = t.kind == ModuleKind::Embedding || t.kind == ModuleKind::PositionEmbedding;
        if (embedding && !isAdapter && trainerOverrides)
            return satMul(elements, 8);
        if (isAdapter) // LoRA A (rank x in) and B (out x rank), each its own tensor
            return satAdd(eightBit(satMul(rank, t.cols), t.copies), eightBit(satMul(t.rows, rank), t.copies));
        return eightBit(satMul(t.rows, t.cols), t.copies);
    }
    case Optimizer::Adafactor:
    case Optimizer::AdaLomo:
        // Factored second moment for matrices: fp32 row and column statistics;
        // vectors keep a full fp32 second moment (transformers optimization.py
        // Adafactor; AdaLomo paper §3).
        if (t.cols > 1 && !isAdapter)
            return satMul(satAdd(t.rows, t.cols), 4 * t.copies);
        return satMul(elements, 4);
    case Optimizer::Galore:
        // GaLore (arXiv:2403.03507 §4): for each 2-D linear weight, a projector of
        // min(m,n) x r and Adam moments in the projected space r x max(m,n), fp32.
        if (t.isLinearWeight && t.kind != ModuleKind::LmHead && !isAdapter) {
            const Bytes r = std::min({galoreRank, t.rows, t.cols});
            const Bytes small = std::min(t.rows, t.cols), large = std::max(t.rows, t.cols);
            return satMul(satAdd(satMul(small, r), satMul(2 * r, large)), 4 * t.copies);
        }
        return satMul(elements, 8);
    }
    return 0;
}

} // namespace

GroupSums sumGroup(const BuildContext& ctx, const std::vector<ParamTensor>& tensors, bool shardedWeights)
{
    const TrainConfig& tc = ctx.scenario.train;
    const bool train = ctx.mode == Mode::Train;
    const WeightQuant wq = train ? tc.weightQuant : ctx.scenario.inference.weightQuant;
    GroupSums g;
    for (const ParamTensor& t : tensors) {
        const Bytes n = t.elements();
        g.params = satAdd(g.params, n);
        if (satMul(t.rows, t.cols) > g.largest)
            g.largestSides = satAdd(t.rows, t.cols);
        g.largest = std::max(g.largest, satMul(t.rows, t.cols));
        // transformers 5.17 quantizes nn.Linear (and Conv1D) modules only
        // (integrations/bitsandbytes.py replace_with_bnb_linear): experts
        // stay in their load dtype, and in training
        // prepare_model_for_kbit_training casts them to fp32 like every other
        // non-4-bit parameter (accountant: Qwen3-30B-A3B QLoRA).
        const bool quantizable =
            t.isLinearWeight && t.kind != ModuleKind::LmHead && t.kind != ModuleKind::Router && !t.isExpert();
        Bytes stored;
        if (quantizable && wq != WeightQuant::None) {
            stored = satMul(quantizedWeightBytes(wq, t.rows, t.cols), t.copies);
            g.largestQuantized = std::max(g.largestQuantized, satMul(t.rows, t.cols));
        } else if (!train) {
            stored = satMul(n, ctx.scenario.inference.precision == Precision::Fp32 ? 4 : 2);
        } else if (ctx.fullFinetune) {
            stored = satMul(n, ctx.deepspeedStyle ? 2 : masterBytes(ctx));
        } else if (wq != WeightQuant::None) {
            // peft prepare_model_for_kbit_training casts every parameter that is
            // not 8/4-bit to fp32 (peft/utils/other.py).
            stored = satMul(n, 4);
        } else {
            // LoRA over a base loaded in 16-bit (fp32 only when training in fp32).
            stored = satMul(n, tc.precision == Precision::Fp32 ? 4 : 2);
        }
        g.unshardedBytes = satAdd(g.unshardedBytes, stored);
        if (shardedWeights)
            stored = ceilDiv(stored, ctx.shards);
        g.weightBytes = satAdd(g.weightBytes, stored);
        g.weightBlocks = satAdd(g.weightBlocks, allocatorBlockBytes(stored));
        // Expert weights go to aten::_grouped_mm, on no autocast list:
        // autocast never casts or caches them (moesaves.h).
        // Llama 4's experts go to torch.bmm (Llama4TextExperts.forward), on
        // autocast's lower-precision list: cast and cached as linears are.
        if ((t.isLinearWeight && !t.isExpert()) || (t.isExpert() && ctx.model.family == Family::Llama4))
            g.linearElements = satAdd(g.linearElements, n);
        if (!train)
            continue;
        // Gemma 3's vision tower takes no part in a text-only step: its
        // parameters get no .grad, and torch.optim skips a parameter whose
        // grad is None (torch/optim/adamw.py _init_group: `if p.grad is None:
        // continue`), so it has neither gradients nor optimizer state.
        if (t.kind == ModuleKind::VisionTower)
            continue;
        if (ctx.fullFinetune) {
            g.trainable = satAdd(g.trainable, n);
            const Bytes stateBytes = ctx.deepspeedStyle ? 4 : masterBytes(ctx);
            g.optimizerBytes = satAdd(g.optimizerBytes, optimizerStateBytes(tc.optimizer, t, n, stateBytes, tc.galoreRank, false, 0,
                                                                                  tc.loop == TrainingLoop::Trainer));
        } else if (ctx.isLoraTarget(t)) {
            // LoRA A (r x in) and B (out x r), fp32 (peft autocast_adapter_dtype=True).
            const Bytes lora = satMul(satMul(tc.peft.rank, satAdd(t.rows, t.cols)), t.copies);
            g.loraElements = satAdd(g.loraElements, lora);
            g.trainable = satAdd(g.trainable, lora);
            ParamTensor adapter = t;
            adapter.kind = ModuleKind::AttnQ;
            g.optimizerBytes = satAdd(g.optimizerBytes, optimizerStateBytes(tc.optimizer, adapter, lora, 4, tc.galoreRank, true,
                                                                                  tc.peft.rank, tc.loop == TrainingLoop::Trainer));
        }
    }
    return g;
}

// One run per trainable tensor of `tensors` (repeated `layers` times) at
// `bytesPerElement`, `perTensor` tensors each (AdamW's exp_avg and
// exp_avg_sq: 2). LoRA: the adapters A (r x in) and B (out x r) of each
// targeted module. Runs group a tensor's layers together where
// model.parameters() interleaves the layers; that changes only which of
// several free blocks of one size a request takes.
void appendTrainablePieces(const BuildContext& ctx, const std::vector<ParamTensor>& tensors, std::uint64_t layers,
                           Bytes bytesPerElement, std::uint64_t perTensor)
{
    if (!ctx.pieces)
        return;
    const Bytes rank = ctx.scenario.train.peft.rank;
    const std::uint64_t count = satMul(layers, perTensor);
    for (const ParamTensor& t : tensors) {
        if (t.kind == ModuleKind::VisionTower)
            continue;  // no gradient, no optimizer state (sumGroup)
        if (ctx.fullFinetune) {
            ctx.pieces->push_back({satMul(t.elements(), bytesPerElement), count});
        } else if (ctx.isLoraTarget(t)) {
            ctx.pieces->push_back({satMul(rank, t.cols, bytesPerElement), satMul(count, t.copies)});
            ctx.pieces->push_back({satMul(t.rows, rank, bytesPerElement), satMul(count, t.copies)});
        }
    }
}

// A global tensor whose module the model registers before its layers, so
// that model.parameters() yields it first: the embeddings (wte, wpe,
// embed_tokens; BERT's bert.embeddings.*, its LayerNorm included).
bool registeredBeforeLayers(const ParamTensor& t)
{
    return t.kind == ModuleKind::Embedding || t.kind == ModuleKind::PositionEmbedding ||
           t.kind == ModuleKind::TokenTypeEmbedding || std::strstr(t.path, ".embeddings.") != nullptr;
}

namespace {

TensorRow row(const char* name, const char* source, Category c, Bytes bytes, Phase from, Phase to,
              LayerSet layers = LayerSet::Global, bool managed = false)
{
    return TensorRow{name, source, c, bytes, from, to, layers, managed};
}

} // namespace

void addModelStateRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    if (ctx.megatron) {
        addMegatronModelStateRows(ctx, rows);
        addWorkspaceRows(ctx, rows);
        return;
    }
    const TrainConfig& tc = ctx.scenario.train;
    const Sharding sharding = ctx.scenario.hardware.sharding;
    const bool multi = ctx.shards > 1;
    const bool zero3 = sharding == Sharding::Zero3 && multi;
    const bool fsdp = sharding == Sharding::Fsdp && multi;
    // FSDP2 shards and gathers even on one GPU (fully_shard over a world of one).
    const bool fsdp2 = sharding == Sharding::Fsdp2;
    const bool zero2plus = (sharding == Sharding::Zero2 || sharding == Sharding::Zero3) && multi;
    const bool shardStates = (multi && (sharding == Sharding::Zero1 || zero2plus || fsdp)) || fsdp2;
    const bool offload = ctx.scenario.hardware.cpuOffload;
    const Phase last = Phase::OptimizerStep;

    const GroupSums layer = sumGroup(ctx, ctx.table.layer, zero3 || fsdp || fsdp2);
    const GroupSums global = sumGroup(ctx, ctx.table.global, zero3 || fsdp || fsdp2);
    // The trainable elements of every layer: DeepSeek-V3's dense first layers
    // (ParameterTable::denseLayer) and the others.
    const Bytes layersTrainable =
        satAdd(satMul(layer.trainable, ctx.table.layerRepeats()),
               satMul(sumGroup(ctx, ctx.table.denseLayer, zero3 || fsdp || fsdp2).trainable,
                      ctx.table.layers - ctx.table.layerRepeats()));

    // ---- Weights -------------------------------------------------------
    TensorRow w = row("weights.layer", "parameters of one layer in their stored dtype (parameter table x bytes per element; memory-model.md §4, §5)",
                      Category::Weights, layer.weightBytes, Phase::Load, last, LayerSet::All);
    rows.push_back(w);
    rows.push_back(row("weights.global", "embeddings, final norm and untied lm_head in their stored dtype",
                       Category::Weights, global.weightBytes, Phase::Load, last));
    // Offloaded parameters: the two rows above hold nothing on the GPU, and a note says where they are.
    const auto parametersOnCpu = [&](std::string note) {
        rows[rows.size() - 2].bytes = 0;
        rows.back().bytes = 0;
        ctx.note(std::move(note));
    };
    if (zero3 && offload)
        parametersOnCpu("ZeRO-3 with CPU offload: parameters live on the CPU; only gathered layers occupy the GPU.");
    // FSDP (v1) has one offload setting, CPUOffload(offload_params=True)
    // (accelerate's fsdp_offload_params): the sharded flat parameters live in
    // CPU memory and are copied to the GPU for each all-gather; each
    // reduce-scattered gradient shard is copied back to the CPU
    // (torch/distributed/fsdp/_runtime_utils.py _post_reduce_grad_callback,
    // _offload_grad), and the optimizer steps there. On the GPU stay the
    // gathered units and the unsharded gradient before its reduce-scatter.
    const bool fsdpOffload = fsdp && offload;
    if (fsdpOffload)
        parametersOnCpu("FSDP with CPU offload (offload_params): the sharded parameters, their gradients and the "
                        "optimizer state live in CPU memory; the GPU holds the gathered units and each unsharded "
                        "gradient until its reduce-scatter (read from PyTorch's source, not measured).");
    // FSDP2's CPUOffloadPolicy keeps the sharded parameters, their gradients
    // and the optimizer state in pinned CPU memory (fsdp2rows.cpp addFsdp2OffloadRows).
    const bool fsdp2Offload = fsdp2 && offload;
    if (fsdp2Offload)
        parametersOnCpu("FSDP2 with CPU offload: the sharded parameters, gradients and optimizer state live in "
                        "pinned CPU memory; the GPU holds the gathered layers, each layer's shard while it is "
                        "gathered and its gradient shard until the copy back (read from PyTorch's source, not "
                        "measured).");
    if (ctx.mode == Mode::Inference)
        return;

    const Bytes lowBytes = tc.precision == Precision::Fp8Mixed ? 1 : 2;
    if (fsdp2) {
        addFsdp2Rows(ctx, layer.params, global.params, rows);
    } else if (zero3 || fsdp) {
        // The current layer is gathered unsharded in 16-bit, and the next is
        // prefetched (FSDP forward/backward prefetch; DeepSpeed stage3 prefetch
        // bucket) [flag: one prefetched unit]. FSDP with PEFT gathers what each
        // rank stores: the frozen base in its storage (the 4-bit packed
        // weights for QLoRA, which bnb_4bit_quant_storage lets FSDP flatten;
        // PEFT's accelerate/fsdp.md) and the adapters.
        const bool peftFsdp = fsdp && !ctx.fullFinetune;
        const Bytes gathered = peftFsdp ? satMul(layer.unshardedBytes, 2) : satMul(layer.params, 2 * 2);
        if (peftFsdp)
            ctx.note("FSDP with LoRA or QLoRA: each gathered layer is planned as its stored weights (4-bit packed for "
                     "QLoRA) and only the adapters get gradients; no run has checked it (PEFT's documented 70B run on "
                     "2 GPUs states neither its counter nor its unit).");
        rows.push_back(row("sharding.gathered_layer", "unsharded 16-bit copy of the current and the prefetched layer (FSDP/ZeRO-3 all-gather; memory-model.md §7)",
                           Category::Weights, gathered, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All));
        rows.push_back(row("sharding.gathered_layer_bwd", "unsharded 16-bit copy of the current and the prefetched layer in backward",
                           Category::Weights, gathered, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All));
        rows.push_back(row("sharding.gathered_root", "unsharded 16-bit embeddings and head (the root unit stays gathered through forward and backward)",
                           Category::Weights, satMul(global.params, 2), Phase::EmbedFwd, Phase::EmbedBwd));
        if (fsdp)
            rows.push_back(row("sharding.unsharded_grad", "unsharded 16-bit gradient of the current unit's trainable parameters before reduce-scatter (FSDP) [flag]",
                               Category::Temporaries, satMul(peftFsdp ? layer.trainable : layer.params, 2), Phase::LayerBwd,
                               Phase::LayerBwd, LayerSet::All));
    } else if (ctx.autocast && ctx.fullFinetune && ctx.profile.autocastWeightCopies && !ctx.deepspeedStyle) {
        // autocast's cached_cast keeps a 16-bit copy of each fp32 weight it casts
        // while grad mode is on; autograd saves it for backward
        // (aten/src/ATen/autocast_mode.cpp; memory-model.md §1 "Autocast").
        const Bytes copy = satMul(layer.linearElements, lowBytes);
        if (ctx.anyPlainLayer())
            rows.push_back(row("autocast.weight_copies", "16-bit copies of the layer's fp32 linear weights cast by autocast, saved for backward",
                               Category::Weights, copy, Phase::LayerFwd, Phase::LayerBwd, LayerSet::Plain));
        if (ctx.anyCheckpointedLayer())
            rows.push_back(row("autocast.weight_copies_recompute", "16-bit weight copies of a checkpointed layer: cast again in forward and in recompute, freed after",
                           Category::Weights, copy, Phase::LayerBwd, Phase::LayerBwd, LayerSet::Checkpointed));
        // transformers checkpoints with use_reentrant=False (modeling_utils.py
        // gradient_checkpointing_enable), whose forward runs with grad enabled:
        // cached_cast keeps each weight's copy in autocast's cache, not saved by
        // autograd but alive until the outermost autocast exits, after the loss
        // (the accountant's tinyllama b8 s2048 checkpointed case peaks there).
        if (ctx.anyCheckpointedLayer())
            rows.push_back(row("autocast.weight_copies_fwd", "16-bit weight copies of a checkpointed layer, held by autocast's cache until the forward (and the loss) ends",
                           Category::Weights, copy, Phase::LayerFwd, Phase::LossFwd, LayerSet::Checkpointed));
        // BertForSequenceClassification casts the pooler's hidden x hidden
        // and the classifier's num_labels x hidden weights instead.
        const ModelSpec& m = ctx.model;
        const Bytes head = m.classifier() ? satMul(satMul(m.hidden, m.hidden + m.numLabels), lowBytes)
                                          : satMul(m.vocab, m.hidden, lowBytes);
        rows.push_back(row("autocast.head_copy", "16-bit copy of the lm_head (or tied embedding; pooler and classifier) weight cast by autocast",
                           Category::Weights, head, Phase::HeadFwd, Phase::HeadBwd));
    }
    if (ctx.quantizedBase && ctx.autocast && !ctx.fullFinetune) {
        // k-bit training keeps the (unquantized) lm_head in fp32 (peft
        // prepare_model_for_kbit_training); autocast casts it to 16-bit for the
        // head's matmul, and the matmul saves the copy for the hidden states'
        // gradient (autocast_mode.cpp: a frozen weight is cast, not cached).
        // Accountant: Llama-3.1-8B QLoRA, 1002 MiB at the loss backward peak.
        rows.push_back(row("autocast.frozen_head_copy", "16-bit copy of the frozen fp32 lm_head cast by autocast, saved by the head's matmul (k-bit training)",
                           Category::Weights, satMul(satMul(ctx.model.classifier() ? ctx.model.numLabels : ctx.model.vocab, ctx.model.hidden), lowBytes),
                           Phase::HeadFwd, Phase::HeadBwd));
    }
    if (ctx.quantizedBase && layer.largestQuantized > 0) {
        // bitsandbytes dequantises each 4-bit weight to the compute dtype for the
        // matmul, in forward and again in backward (bnb MatMul4Bit; memory-model.md §5).
        const Bytes deq = satMul(layer.largestQuantized, 2);
        rows.push_back(row("quant.dequantized_weight", "the layer's largest quantized weight dequantised to 16-bit for its matmul (bitsandbytes MatMul4Bit)",
                           Category::Temporaries, deq, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All));
        rows.push_back(row("quant.dequantized_weight_bwd", "the same dequantised weight in backward",
                           Category::Temporaries, deq, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All));
    }
    if (!ctx.fullFinetune && ctx.autocast && ctx.profile.autocastWeightCopies && !ctx.deepspeedStyle) {
        // The fp32 adapters are leaves that require grad: autocast caches their
        // 16-bit copies (autocast_mode.cpp cached_cast) like a full fine-tune's
        // weights: saved until the layer's backward, or for a checkpointed layer
        // held by the cache until the forward ends and cast again in recompute
        // (accountant: Mistral-7B QLoRA all-linear, 80 MiB at the loss forward).
        const Bytes copies = satMul(layer.loraElements, lowBytes);
        if (ctx.anyPlainLayer())
            rows.push_back(row("autocast.adapter_copies", "16-bit copies of the layer's fp32 LoRA adapters cast by autocast, saved for backward",
                               Category::Weights, copies, Phase::LayerFwd, Phase::LayerBwd, LayerSet::Plain));
        if (ctx.anyCheckpointedLayer()) {
            rows.push_back(row("autocast.adapter_copies_fwd", "16-bit adapter copies of a checkpointed layer, held by autocast's cache until the forward ends",
                               Category::Weights, copies, Phase::LayerFwd, Phase::LossFwd, LayerSet::Checkpointed));
            rows.push_back(row("autocast.adapter_copies_recompute", "16-bit adapter copies cast again in the layer's recompute",
                               Category::Weights, copies, Phase::LayerBwd, Phase::LayerBwd, LayerSet::Checkpointed));
        }
    }
    if (!ctx.fullFinetune) {
        rows.push_back(row("lora.adapters", "LoRA A and B of the targeted linears: rank x (in + out) fp32 per module (PEFT autocast_adapter_dtype)",
                           Category::Weights, fsdpOffload ? 0 : satMul(layer.loraElements, 4), Phase::Load, last,
                           LayerSet::All)); // FSDP's offload_params: in the CPU's flat parameters too
    }

    // ---- Gradients -----------------------------------------------------
    // First micro-batch: AccumulateGrad creates each gradient in backward.
    // From the second one on (set_to_none after the step, not between
    // micro-batches) the gradients are resident through forward (memory-model.md §9).
    const bool accumulating = tc.gradAccum > 1;
    const bool fusedUpdate = tc.optimizer == Optimizer::Lomo || tc.optimizer == Optimizer::AdaLomo || tc.optimizerInBackward;
    Bytes gradBytes = ctx.fullFinetune ? (ctx.deepspeedStyle ? 2 : masterBytes(ctx)) : 4;
    if ((fsdp || fsdp2) && ctx.fullFinetune)
        gradBytes = masterBytes(ctx);
    const Bytes gradShards = (zero2plus || fsdp || fsdp2) ? ctx.shards : 1;
    if (fusedUpdate) {
        // LOMO / optimizer-in-backward: each gradient is applied and freed in its
        // hook, so about one tensor's gradient is alive (LOMO paper §3.2, Table 1).
        const Bytes layerLargest = ctx.fullFinetune ? layer.largest : satMul(ctx.scenario.train.peft.rank, ctx.model.hidden + ctx.model.intermediate);
        rows.push_back(row("grads.fused_live", "the gradient of the tensor being updated inside backward (fused update: grads freed at once)",
                           Category::Gradients, satMul(layerLargest, gradBytes), Phase::LayerBwd, Phase::LayerBwd, LayerSet::All));
        if (ctx.fullFinetune)
            rows.push_back(row("grads.fused_live_head", "the gradient of the largest head/embedding tensor while it is applied",
                               Category::Gradients, satMul(global.largest, gradBytes), Phase::HeadBwd, Phase::HeadBwd));
    } else {
        const Phase layerFrom = accumulating ? Phase::Load : Phase::LayerBwd;
        const Phase headFrom = accumulating ? Phase::Load : Phase::HeadBwd;
        TensorRow layerGrads = row("grads.layer", "gradients of one layer's trainable parameters (param dtype; sharded under ZeRO-2/3, FSDP)",
                                   Category::Gradients, ceilDiv(satMul(layer.trainable, gradBytes), gradShards), layerFrom, last, LayerSet::All);
        // AccumulateGrad makes each parameter's .grad on its own (torch/csrc/autograd/functions/accumulate_grad.h).
        const std::size_t gradPieces = piecesBegin(ctx);
        if (gradShards == 1)
            appendTrainablePieces(ctx, ctx.table.layer, 1, gradBytes);
        attachPieces(ctx, layerGrads, gradPieces);
        // Accumulated gradients are alive through every micro-batch but the
        // first of a step: zero_grad frees them after each optimizer step
        // and the next step's first backward makes them (AccumulateGrad), not
        // at load (plan.h freedAtZeroGrad). DeepSpeed's ZeRO optimizer keeps
        // its gradient partitions (not modelled: kept from load).
        const bool gradsPerStep = accumulating && !ctx.deepspeedStyle;
        const bool gradsInBackward = gradsPerStep && ctx.profile.gradientsMadeInBackward;
        layerGrads.freedAtZeroGrad = gradsPerStep;
        if (gradsInBackward)
            layerGrads.firstAllocAt = Phase::LayerBwd;
        // FSDP2's sharded gradients are its reduce-scatter outputs (addFsdp2Rows).
        if (fsdp2)
            layerGrads.stream = kReduceScatterStream;
        // Under pipeline parallelism FSDP2 reduce-scatters once a step, after
        // the stage's last backward (fsdp2rows.cpp addFsdp2PipelineRows).
        const bool fsdp2Pipeline = fsdp2 && ctx.rank && ctx.rank->layout->pp > 1;
        auto reducedAtStepEnd = [](TensorRow& r) {
            r.allocAt = Phase::EmbedBwd;
            r.firstAllocAt = Phase::Load;
            r.freedAtZeroGrad = false;
        };
        if (fsdp2Pipeline)
            reducedAtStepEnd(layerGrads);
        if (fsdp2Offload || fsdpOffload) { // copied to the CPU as each is reduced
            layerGrads.bytes = 0;
            layerGrads.pieceBegin = layerGrads.pieceEnd = 0;
        }
        // A checkpointed layer's recompute runs before its gradients exist
        // (RuntimeProfile::gradientsAfterRecompute): they are counted from the
        // event after its backward; kept layers make theirs as before.
        if (layerFrom == Phase::LayerBwd && ctx.profile.gradientsAfterRecompute && gradShards == 1 && !fsdp2 &&
            ctx.anyCheckpointedLayer()) {
            if (ctx.anyPlainLayer()) {
                TensorRow kept = layerGrads;
                kept.layers = LayerSet::Plain;
                rows.push_back(kept);
            }
            layerGrads.layers = LayerSet::Checkpointed;
            layerGrads.madeAtEventEnd = true;
        }
        rows.push_back(layerGrads);
        // The word embedding's gradient comes from embedding_dense_backward in
        // the embedding's own backward, the last of the step (aten/src/ATen/
        // native/Embedding.cpp). Untied, it is born there and becomes .grad.
        // Tied to the lm_head, autograd's InputBuffer sums it with the head's
        // gradient out of place (torch/csrc/autograd/input_buffer.cpp
        // accumulate), so three vocab x hidden gradients are alive at once.
        // Checked against the accountant's SGD cases, whose peak this is.
        // A pipeline stage after the first holds no word embedding (parallel.h).
        const bool embedGradSplit = ctx.fullFinetune && gradShards == 1 && ctx.holdsEmbedding() && !fsdp2;
        const Bytes embedGrad = embedGradSplit ? satMul(satMul(ctx.model.vocab, ctx.model.hidden), gradBytes) : 0;
        // A classifier head has no output embedding to tie (BertForSequenceClassification).
        const bool tied = ctx.model.tieEmbeddings && !ctx.model.classifier();
        const Bytes globalGrads = ceilDiv(satMul(global.trainable, gradBytes), gradShards);
        // Tied and accumulated, the word embedding's .grad is made apart from
        // the head's: in a step's first micro-batch by the embedding's
        // backward (the InputBuffer's sum becomes .grad), its own row.
        const bool tiedGradSplit = embedGradSplit && tied && accumulating && gradsInBackward;
        const bool embedGradOwnRow = (embedGradSplit && !tied) || tiedGradSplit;
        TensorRow globalGradRow =
            row("grads.global", "gradients of the embeddings, final norm and head (param dtype)", Category::Gradients,
                embedGradOwnRow && !(accumulating && !tied) ? globalGrads - std::min(globalGrads, embedGrad) : globalGrads,
                headFrom, last);
        globalGradRow.freedAtZeroGrad = gradsPerStep;
        if (gradsInBackward)
            globalGradRow.firstAllocAt = Phase::HeadBwd;
        if (fsdp2) {
            // The root's reduce-scatter, after the embedding's backward.
            globalGradRow.stream = kReduceScatterStream;
            if (!accumulating)
                globalGradRow.allocAt = Phase::EmbedBwd;
            else if (gradsInBackward)
                globalGradRow.firstAllocAt = Phase::EmbedBwd;
            if (fsdp2Pipeline)
                reducedAtStepEnd(globalGradRow);
            if (fsdp2Offload)
                globalGradRow.bytes = 0;
        }
        if (fsdpOffload)
            globalGradRow.bytes = 0;
        rows.push_back(globalGradRow);
        if (embedGradSplit && !tied && !accumulating)
            rows.push_back(row("grads.embedding", "the word embedding's gradient, made by the embedding's backward (embedding_dense_backward)",
                               Category::Gradients, embedGrad, Phase::EmbedBwd, last));
        if (tiedGradSplit) {
            TensorRow tiedGrad = row("grads.embedding", "the tied word embedding's gradient, made in a step's first micro-batch by the embedding's backward (the out-of-place sum with the head's, input_buffer.cpp accumulate)",
                                     Category::Gradients, embedGrad, Phase::Load, last);
            tiedGrad.freedAtZeroGrad = true;
            tiedGrad.firstAllocAt = Phase::EmbedBwd;
            rows.push_back(tiedGrad);
            // From the second micro-batch on .grad exists, and the head's
            // gradient of the tied weight still waits in autograd's
            // InputBuffer for the embedding's, from the head's backward to
            // the embedding's (torch/csrc/autograd/input_buffer.cpp; the
            // accountant: llama-3.2-1b ga4, an fp32 vocab x hidden _to_copy
            // in head_bwd freed in embed_bwd, every micro-batch).
            rows.push_back(row("grads.tied_head_pending", "the head's gradient of the tied embedding, held by autograd's InputBuffer until the embedding's backward adds its own",
                               Category::Gradients, embedGrad, Phase::HeadBwd, Phase::EmbedBwd));
        }
        if (embedGradSplit && (tied || accumulating)) {
            TensorRow embedBackward = row("grads.embedding_backward", tied ? "embedding_dense_backward's gradient and its out-of-place sum with the tied head's (autograd InputBuffer)"
                                                                            : "embedding_dense_backward's gradient before it is added into .grad",
                                          Category::Temporaries, tied ? satMul(embedGrad, 2) : embedGrad, Phase::EmbedBwd, Phase::EmbedBwd);
            // Tied, two tensors asked for one after the other: aten.embedding_dense_backward's
            // output, then aten.add's (accountant: two vocab x hidden requests in embed_bwd).
            if (tied && ctx.pieces) {
                const std::size_t begin = piecesBegin(ctx);
                ctx.pieces->push_back({embedGrad, 2});
                attachPieces(ctx, embedBackward, begin);
            }
            rows.push_back(embedBackward);
        }
        if (ctx.deepspeedStyle && !offload) {
            // DeepSpeed's mixed-precision optimizer converts its gradient partition
            // to fp32 inside step() and frees it after: stage 1/2 the whole
            // partition (stage_1_and_2.py step: single_partition_of_fp32_groups
            // .grad), stage 3 one sub-group at a time, sub_group_size 1e9
            // elements by default (stage3.py _prepare_fp32_grad_for_sub_group).
            const Bytes all = satAdd(layersTrainable, global.trainable);
            Bytes partition = ceilDiv(all, ctx.shards);
            if (sharding == Sharding::Zero3)
                partition = std::min<Bytes>(partition, 1'000'000'000);
            rows.push_back(row("grads.fp32_partition", "fp32 copy of the gradient partition made inside DeepSpeed's optimizer step (stage 3: one sub-group of at most 1e9 elements)",
                               Category::Gradients, satMul(partition, 4), last, last));
        }
        if (sharding == Sharding::Ddp && multi) {
            const Bytes all = satAdd(layersTrainable, global.trainable);
            rows.push_back(row("ddp.buckets", "DDP gradient buckets: a second copy of the gradients (gradient_as_bucket_view=False; memory-model.md §7)",
                               Category::Gradients, satMul(all, gradBytes), Phase::Load, last));
        }
    }
    if (multi && (sharding == Sharding::Zero1 || zero2plus) && !fusedUpdate) {
        // Stages 1 and 2 reduce gradients through an "ipg" bucket of
        // reduce_bucket_size (5e8 elements, 16-bit) kept for the run
        // (stage_1_and_2.py); stage 3 reduces a bucket per layer [flag].
        const Bytes all = satAdd(layersTrainable, global.trainable);
        const bool stage3 = sharding == Sharding::Zero3;
        const Bytes bucket = satMul(std::min<Bytes>(500'000'000, stage3 ? layer.trainable : all), 2);
        rows.push_back(row("zero.reduce_bucket", "ZeRO gradient reduce bucket (reduce_bucket_size 5e8 elements, 16-bit; stage 3: one layer)",
                           Category::Temporaries, bucket, stage3 ? Phase::LayerBwd : Phase::Load, stage3 ? Phase::LayerBwd : last,
                           stage3 ? LayerSet::All : LayerSet::Global));
    }

    // ---- Optimizer state (optimizerrows.cpp) ----------------------------------
    if (!offload)
        addOptimizerRows(ctx, layer, global, layersTrainable, shardStates, zero3 || fsdp, fusedUpdate, rows);
    else if (!fsdpOffload)
        ctx.note("CPU offload: optimizer state and fp32 master weights are held in CPU memory.");

    addWorkspaceRows(ctx, rows);
}

void addWorkspaceRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const Phase last = Phase::OptimizerStep;
    const int handles = ctx.mode == Mode::Train ? ctx.profile.cublasWorkspacesTraining : ctx.profile.cublasWorkspacesInference;
    rows.push_back(row("cublas.workspace", "cuBLAS workspaces allocated through the caching allocator, one per handle and stream (CublasHandlePool.cpp)",
                       Category::Workspace, satMul(ctx.profile.cublasWorkspaceBytes(ctx.gpu.computeMajor), static_cast<Bytes>(handles)),
                       Phase::Load, last));
}

} // namespace headroom::detail
