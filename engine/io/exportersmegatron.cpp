// SPDX-License-Identifier: GPL-3.0-or-later
// megatron-args: a training scenario as Megatron-LM pretrain_gpt.py arguments,
// a bash array to splice into the launch line.
//
// Every flag and where it is defined (Megatron-LM tag core_v0.16.1, the
// release of the megatron-core 0.16.1 wheel tests/libraries checks against):
// - from megatron-core's TransformerConfig / ModelParallelConfig fields, which
//   megatron/training/arguments.py _add_network_size_args turns into flags
//   with ArgumentGroupFactory (megatron/training/argument_utils.py: field
//   name with "-" for "_", bool fields as store_true, an "arg_names" metadata
//   entry renames): --num-layers, --hidden-size, --ffn-hidden-size,
//   --num-attention-heads, --num-query-groups, --kv-channels, --normalization,
//   --disable-bias-linear (add_bias_linear), --add-qkv-bias, --qk-layernorm,
//   --hidden-dropout, --attention-dropout, --attention-backend (AttnBackend
//   names, megatron/core/transformer/enums.py), --recompute-granularity,
//   --recompute-method, --recompute-num-layers, --tensor-model-parallel-size,
//   --pipeline-model-parallel-size, --context-parallel-size,
//   --sequence-parallel, --bf16, --fp16, --moe-router-topk,
//   --moe-ffn-hidden-size (megatron/core/transformer/transformer_config.py,
//   megatron/core/model_parallel_config.py);
// - declared in megatron/training/arguments.py itself: --group-query-attention,
//   --max-position-embeddings, --position-embedding-type, --swiglu,
//   --untie-embeddings-and-output-weights, --make-vocab-size-divisible-by,
//   --vocab-size, --seq-length, --micro-batch-size, --global-batch-size,
//   --optimizer (adam | sgd), --sgd-momentum, --use-distributed-optimizer,
//   --decoder-first-pipeline-num-layers, --decoder-last-pipeline-num-layers,
//   --num-virtual-stages-per-pipeline-rank (interleaved 1F1B; validate_args
//   sets virtual_pipeline_model_parallel_size from it), --num-experts,
//   --moe-layer-freq (moe_freq_type: an int or a Python list expression),
//   and _add_mla_args' --q-lora-rank, --kv-lora-rank, --qk-head-dim,
//   --qk-pos-emb-head-dim, --v-head-dim (read into MLATransformerConfig when
//   --multi-latent-attention is set, core_transformer_config_from_args);
// - TransformerConfig fields too: --multi-latent-attention,
//   --moe-shared-expert-intermediate-size.
// What the flags mean for memory: Megatron-LM docs and the sources above;
// docs/planner.md "Tensor and pipeline parallelism" for the planner's side.
#include "core/shortdecimal.h"
#include "io/exportersinternal.h"

#include "plan/parallel.h"

#include <algorithm>
#include <string>
#include <vector>

namespace headroom::exportdetail {

namespace {

std::string n(std::uint64_t v) { return std::to_string(v); }

Error refuse(const std::string& why)
{
    return makeError(ErrorCode::UnsupportedCombination, "megatron-args: " + why);
}

// The model families pretrain_gpt.py's GPT layer describes exactly: pre-norm
// blocks, RoPE, a gated SiLU MLP (--swiglu), optional q/k/v bias and per-head
// q/k norms, optional routed experts. Gemma (GeGLU, scaled embeddings,
// sandwich norms, soft-capping), OLMo 2 (post-norm), GPT-2/BigCode/NeoX
// (learned positions, GELU, parallel residual) and BERT are not. DeepSeek-V3
// is Megatron-LM's GPT layer with multi-latent attention (MLASelfAttention)
// and shared experts.
bool gptLayerFamily(Family f)
{
    return f == Family::Llama || f == Family::Phi3 || f == Family::Mixtral || f == Family::Qwen3Moe ||
           f == Family::DeepseekV3;
}

// --moe-layer-freq: 1 for a MoE layer and 0 for a dense one, as a Python
// list expression (arguments.py moe_freq_type evaluates it): the dense
// prefix as ([0]*k+[1]*n), any other pattern written out.
std::string moeLayerPattern(const ModelSpec& m)
{
    if (m.denseLayerIds.empty())
        return "([0]*" + n(m.denseLayers) + "+[1]*" + n(m.layers - m.denseLayers) + ")";
    std::string list = "[";
    for (std::uint64_t l = 0; l < m.layers; ++l)
        list += std::string(l == 0 ? "" : ",") + (m.isDenseLayer(l) ? "0" : "1");
    return list + "]";
}

// Why the scenario's model cannot be written as pretrain_gpt.py arguments,
// or empty.
std::string modelRefusal(const ModelSpec& m, std::uint64_t seqLen)
{
    if (m.encoder || m.classifier())
        return "pretrain_gpt.py trains a causal language model; " + m.id + " is an encoder or a classifier";
    if (m.hasVision())
        return "pretrain_gpt.py has no vision tower; " + m.id + " has one";
    if (!gptLayerFamily(m.family))
        return std::string("writes Llama-layout decoders (Llama, Mistral, Qwen 2 and 3, Phi-3, Mixtral, Qwen3-MoE) "
                           "and DeepSeek-V3; ") +
               familyName(m.family) + " has layer parts pretrain_gpt.py's arguments do not describe";
    if (m.norm != NormKind::RmsNorm || !m.gatedMlp || m.hiddenAct != "silu" || m.learnedPositions ||
        m.parallelResidual || m.rotaryFraction != 1.0)
        return "the model is not RMSNorm + SwiGLU + full RoPE, the layer --normalization RMSNorm --swiglu "
               "--position-embedding-type rope describes";
    // Megatron's add_bias_linear puts a bias on every linear layer or none;
    // --add-qkv-bias adds one on q/k/v alone.
    if (m.attnOutBias != m.mlpBias || (m.mlpBias && !m.qkvBias))
        return "Megatron-LM biases every linear layer or none (with --add-qkv-bias: q/k/v alone); the model "
               "biases another set";
    if (m.slidingWindow != 0 && seqLen > m.slidingWindow)
        return "sliding-window attention over a sequence of " + n(seqLen) + " (window " + n(m.slidingWindow) +
               ") is not written; plan a sequence of at most the window";
    return {};
}

// Why the training setup cannot be written, or empty.
std::string setupRefusal(const Scenario& sc)
{
    const TrainConfig& t = sc.train;
    if (t.peft.method != PeftMethod::None || t.weightQuant != WeightQuant::None)
        return "pretrain_gpt.py trains every weight in 16 or 32 bits; LoRA, QLoRA and quantized base weights have "
               "no arguments there";
    if (t.precision == Precision::Fp8Mixed)
        return "FP8 training (Transformer Engine recipes, --fp8-format) is not exported";
    if (t.optimizer != Optimizer::AdamW && t.optimizer != Optimizer::Sgd && t.optimizer != Optimizer::SgdMomentum)
        return std::string("Megatron-LM's --optimizer is adam or sgd; the scenario uses ") + optimizerName(t.optimizer);
    const Sharding s = sc.hardware.sharding;
    if (s != Sharding::None && s != Sharding::Ddp && s != Sharding::Zero1)
        return std::string("sharding ") + shardingName(s) +
               " is not exported: Megatron-LM's distributed optimizer (--use-distributed-optimizer) is ZeRO-1; plan "
               "with --sharding ddp or zero1";
    if (sc.hardware.cpuOffload)
        return "CPU offload is not exported";
    if (t.checkpointing == Checkpointing::SelectiveOps)
        return "torchtitan's op-level selective checkpointing has no Megatron-LM equivalent "
               "(--recompute-granularity selective recomputes other modules); plan with --checkpointing full or none";
    if (t.chunkedCrossEntropy)
        return "chunked cross-entropy has no pretrain_gpt.py argument";
    if (t.optimizerInBackward)
        return "an optimizer step inside backward has no pretrain_gpt.py argument";
    if (t.activationOffload)
        return "activation offload is not exported";
    if (t.loop != TrainingLoop::Trainer)
        return "pretrain_gpt.py keeps only the loss, as the trainer loop does; the scenario keeps the outputs";
    return {};
}

// Megatron-LM splits layers evenly over the pipeline except that the first
// and the last stage may each be given their own count
// (--decoder-first/last-pipeline-num-layers; arguments.py validate_args).
// Headroom gives the last (L mod pp) stages one layer more: that is one of
// those shapes when the extra layers go to the last stage alone or to every
// stage but the first.
Result<std::vector<std::string>> pipelineSplitArgs(const ParallelLayout& l)
{
    std::vector<std::string> args;
    const std::vector<std::uint64_t>& s = l.stageLayers;
    if (l.pp <= 1 || s.front() == s.back())
        return args;
    const std::uint64_t fewer = s.front(), more = s.back();
    std::uint64_t extra = 0;
    for (std::uint64_t layers : s)
        extra += layers == more ? 1 : 0;
    if (extra == 1)
        args = {"--decoder-last-pipeline-num-layers", n(more)};
    else if (extra == l.pp - 1)
        args = {"--decoder-first-pipeline-num-layers", n(fewer)};
    else
        return refuse("Megatron-LM gives only the first and the last pipeline stage their own layer count; "
                      "Headroom's split gives " + n(extra) + " of " + n(l.pp) + " stages " + n(more) +
                      " layers and the others " + n(fewer) + "; plan a layer count that pp divides");
    return args;
}

// --recompute-num-layers for one layer checkpointed in k: Megatron's "block"
// method recomputes the first N layers of each stage whole; Headroom
// checkpoints layers l % k == 0 of each stage, ceil(layers / k) of them.
Result<std::uint64_t> blockRecomputeLayers(const ParallelLayout& l, std::uint64_t k)
{
    const std::uint64_t first = ceilDiv(l.stageLayers.front(), k);
    for (std::uint64_t layers : l.stageLayers)
        if (ceilDiv(layers, k) != first)
            return refuse("--recompute-num-layers is one count for every stage; checkpointing one layer in " + n(k) +
                          " checkpoints a different count on stages of different sizes");
    return first;
}

} // namespace

Result<std::string> exportMegatronArgs(const Scenario& sc, const Plan& plan)
{
    if (sc.mode != Mode::Train)
        return makeError(ErrorCode::UnsupportedCombination, "megatron-args configures training; the scenario is inference");
    const ModelSpec& m = sc.model;
    const TrainConfig& t = sc.train;
    if (std::string why = modelRefusal(m, t.seqLen); !why.empty())
        return refuse(why);
    if (std::string why = setupRefusal(sc); !why.empty())
        return refuse(why);
    auto layout = parallelLayout(sc);
    if (!layout)
        return layout.error();
    const ParallelLayout& l = layout.value();
    auto split = pipelineSplitArgs(l);
    if (!split)
        return split.error();

    std::vector<std::string> notes;
    std::string a;
    const auto arg = [&a](const std::string& flag, const std::string& value = {}) {
        a += "    " + flag + (value.empty() ? "" : " " + value) + "\n";
    };
    const auto group = [&a](const std::string& title) { a += "    # " + title + "\n"; };

    group("model: " + oneLine(m.id));
    arg("--num-layers", n(m.layers));
    arg("--hidden-size", n(m.hidden));
    // The dense MLP's width: the dense layers' where a mixture of experts has
    // some (its `intermediate` is the experts' width, --moe-ffn-hidden-size).
    const bool denseLayers = m.isMoe() && m.hasDenseLayers();
    arg("--ffn-hidden-size", n(denseLayers ? m.denseIntermediate : m.intermediate));
    arg("--num-attention-heads", n(m.heads));
    if (m.isMla()) {
        // MLASelfAttention; its latent norms are Megatron-LM's q/kv
        // layernorms (linear_q_up_proj / linear_kv_up_proj fuse them under
        // --qk-layernorm, gpt_layer_specs.py). The query/key head is
        // qk_head_dim + qk_pos_emb_head_dim.
        arg("--multi-latent-attention");
        if (m.qLoraRank > 0)
            arg("--q-lora-rank", n(m.qLoraRank));
        arg("--kv-lora-rank", n(m.kvLoraRank));
        arg("--qk-head-dim", n(m.qkNopeHeadDim()));
        arg("--qk-pos-emb-head-dim", n(m.qkRopeHeadDim));
        arg("--v-head-dim", n(m.vHeadDim));
    } else {
        if (m.kvHeads != m.heads) {
            arg("--group-query-attention");
            arg("--num-query-groups", n(m.kvHeads));
        }
        if (m.headDim * m.heads != m.hidden)
            arg("--kv-channels", n(m.headDim));  // head_dim decoupled from hidden / heads (Qwen3)
    }
    if (m.isMoe()) {
        arg("--num-experts", n(m.experts));
        arg("--moe-router-topk", n(m.expertsPerToken));
        arg("--moe-ffn-hidden-size", n(m.intermediate));
        if (m.hasSharedExpert())
            arg("--moe-shared-expert-intermediate-size", n(m.sharedExpertIntermediate));
        if (denseLayers)
            arg("--moe-layer-freq", "\"" + moeLayerPattern(m) + "\"");
    }
    arg("--seq-length", n(t.seqLen));
    // arguments.py validate_args asserts max_position_embeddings >= seq_length.
    arg("--max-position-embeddings", n(std::max(m.maxPositions, t.seqLen)));
    if (m.maxPositions < t.seqLen)
        notes.push_back("The sequence (" + n(t.seqLen) + ") is longer than the model's max_position_embeddings (" +
                        n(m.maxPositions) + "); --max-position-embeddings is raised to it, as Megatron-LM requires.");
    arg("--position-embedding-type", "rope");
    arg("--normalization", "RMSNorm");
    arg("--swiglu");
    if (!m.mlpBias)
        arg("--disable-bias-linear");  // no bias on any linear layer (modelRefusal allows q/k/v alone)
    if (m.qkvBias && !m.mlpBias)
        arg("--add-qkv-bias");
    if (m.qkNorm || m.isMla())
        arg("--qk-layernorm");
    if (!m.tieEmbeddings)
        arg("--untie-embeddings-and-output-weights");
    // Megatron-LM's defaults are 0.1; dropout keeps masks, so it is memory.
    arg("--hidden-dropout", shortest(m.dropout));
    arg("--attention-dropout", shortest(m.dropout));
    // Padded to a multiple of tp only, as planned (plan/parallel.cpp; Megatron's
    // default pads to 128 x tp).
    arg("--vocab-size", n(m.vocab));
    arg("--make-vocab-size-divisible-by", "1");
    switch (t.attention) {
    case Attention::Flash: arg("--attention-backend", "flash"); break;
    case Attention::Sdpa:
        arg("--attention-backend", "fused");
        notes.push_back("torch's sdpa has no Megatron-LM backend: fused (cuDNN through Transformer Engine) is the "
                        "kernel that, like sdpa's, keeps only the output and its statistics.");
        break;
    case Attention::Eager:
        arg("--attention-backend", "unfused");
        notes.push_back("Eager attention is written as the unfused backend, which keeps the score matrix as eager "
                        "attention does.");
        break;
    }

    group("layout: " + n(sc.hardware.count) + " GPUs = tp " + n(l.tp) + " x pp " + n(l.pp) + " x dp " + n(l.dp));
    arg("--tensor-model-parallel-size", n(l.tp));
    if (l.sp)
        arg("--sequence-parallel");
    arg("--pipeline-model-parallel-size", n(l.pp));
    for (std::size_t k = 0; k + 1 < split.value().size(); k += 2)
        arg(split.value()[k], split.value()[k + 1]);
    if (l.interleaved()) // the planner's split divides evenly then (parallel.cpp), as get_num_layers_to_build asserts
        arg("--num-virtual-stages-per-pipeline-rank", n(l.vpp));
    arg("--context-parallel-size", "1");  // Headroom plans no context parallelism
    if (m.isMoe()) {
        // The experts split over ep ranks and each over etp (Megatron-LM's
        // default etp is tp: written either way, so the file says it), tokens
        // exchanged by the alltoall dispatcher, as planned
        // (plan/parallelrows.cpp addExpertDispatchRows).
        if (l.ep > 1)
            arg("--expert-model-parallel-size", n(l.ep));
        arg("--expert-tensor-parallel-size", n(l.etp));
        if (l.dispatchesExperts())
            arg("--moe-token-dispatcher-type", "alltoall");
        if (t.moe.capacityFactor > 0.0)
            arg("--moe-expert-capacity-factor", shortDecimal(t.moe.capacityFactor));
        if (t.moe.padToCapacity)
            arg("--moe-pad-expert-input-to-capacity");
    }
    if (sc.hardware.sharding == Sharding::Zero1)
        arg("--use-distributed-optimizer");

    group("batch: micro-batch " + n(t.microBatch) + " x " + n(t.gradAccum) + " micro-batches x dp " + n(l.dp));
    arg("--micro-batch-size", n(t.microBatch));
    arg("--global-batch-size", n(t.microBatch * t.gradAccum * l.dp));

    group(std::string("precision and optimizer: ") + precisionName(t.precision) + ", " + optimizerName(t.optimizer));
    if (trainerBf16(t.precision))
        arg("--bf16");
    else if (trainerFp16(t.precision))
        arg("--fp16");
    if (t.optimizer == Optimizer::AdamW) {
        arg("--optimizer", "adam");  // decoupled weight decay: Megatron's adam is AdamW
    } else {
        arg("--optimizer", "sgd");
        arg("--sgd-momentum", t.optimizer == Optimizer::SgdMomentum ? "0.9" : "0");
    }

    if (t.checkpointing == Checkpointing::Full) {
        group("recompute: every layer");
        arg("--recompute-granularity", "full");
        arg("--recompute-method", "uniform");
        arg("--recompute-num-layers", "1");
    } else if (t.checkpointing == Checkpointing::EveryK) {
        if (l.interleaved())
            return refuse("--recompute-num-layers counts the layers of each model chunk with virtual stages, and "
                          "Headroom checkpoints one layer in " +
                          n(t.checkpointEvery) +
                          " of each rank's layers as one block; plan vpp 1, or --checkpointing full or none");
        auto count = blockRecomputeLayers(l, t.checkpointEvery);
        if (!count)
            return count.error();
        group("recompute: one layer in " + n(t.checkpointEvery) + ", as many layers of each stage");
        arg("--recompute-granularity", "full");
        arg("--recompute-method", "block");
        arg("--recompute-num-layers", n(count.value()));
    }

    notes.push_back("Not written (they change no memory and Headroom does not read them): --rotary-base "
                    "(rope_theta), --use-rope-scaling and --rope-scaling-factor (rope_scaling), --norm-epsilon, "
                    "--init-method-std; take them from the model's config.json.");
    if (m.family == Family::DeepseekV3)
        notes.push_back("Not written for DeepSeek-V3 (Headroom plans no memory for them): its router's sigmoid "
                        "scores, groups and expert bias (--moe-router-score-function sigmoid, --moe-router-num-groups, "
                        "--moe-router-group-topk, --moe-router-enable-expert-bias, --moe-router-topk-scaling-factor), "
                        "YaRN's --rotary-scaling-factor, --mscale and --mscale-all-dim, and the multi-token prediction "
                        "layer (--mtp-num-layers), which transformers does not build and Headroom does not plan.");
    notes.push_back("--vocab-size is the model's vocab_size; Megatron-LM reads it with --tokenizer-type "
                    "NullTokenizer, and with a real tokenizer pads the tokenizer's own size instead.");
    if (t.precision == Precision::Bf16)
        notes.push_back("Pure bf16 has no Megatron-LM mode (--bf16 keeps fp32 main parameters and gradients): "
                        "Headroom planned 16-bit weights, gradients and optimizer states as PyTorch keeps them, not "
                        "Megatron-LM's buffers; plan with --precision bf16-mixed for Megatron-LM's.");
    notes.push_back("Not planned: NCCL's and the pipeline's send/receive buffers.");
    for (const std::string& note : plan.notes)
        notes.push_back(note);

    std::string out = "# Megatron-LM arguments for pretrain_gpt.py, written by Headroom " HEADROOM_VERSION
                      " (headroom-cli export --format megatron-args).\n";
    out += "# Flags as Megatron-LM core_v0.16.1 megatron/training/arguments.py defines them.\n";
    out += "# Use: source THIS_FILE, then\n";
    // arguments.py validate_args asserts this with tensor parallelism before Blackwell.
    out += std::string("#   ") + (l.tp > 1 ? "CUDA_DEVICE_MAX_CONNECTIONS=1 " : "") +
           "torchrun --nproc-per-node GPUS_PER_NODE --nnodes NODES pretrain_gpt.py \"${MEGATRON_ARGS[@]}\" \\\n";
    out += "#     --tokenizer-type ... --data-path ... --train-iters ... --lr ...\n";
    out += std::string("# Headroom's prediction per GPU") + (l.pp > 1 ? " (the fullest pipeline stage)" : "") + ": peak " +
           gibText(static_cast<double>(plan.peakBytes)) + ", device used " +
           gibText(static_cast<double>(plan.deviceUsedBytes)) + " on " + hardwareLine(sc, plan) + ": " +
           verdictText(plan) + "\n";
    out += "# Scenario: " + oneLine(scenarioLine(sc)) + "\n";
    for (const std::string& note : notes)
        out += "# Note: " + oneLine(note) + "\n";
    return out + "MEGATRON_ARGS=(\n" + a + ")\n";
}

} // namespace headroom::exportdetail
