// SPDX-License-Identifier: GPL-3.0-or-later
// torchtitan-toml: a training scenario as a torchtitan job file
// (torchrun ... -m torchtitan.train --job.config_file THIS_FILE).
//
// Every key is a field of torchtitan 0.2.2's JobConfig
// (torchtitan/config/job_config.py; the 0.3 releases replaced job files with
// Python config registries): [job] description; [model] name, flavor,
// hf_assets_path; [optimizer] name ("Adam" | "AdamW", implementation
// ("for-loop" | "foreach" | "fused", config/job_config.py),
// components/optimizer.py build_optimizers), early_step_in_backward;
// [training] local_batch_size, global_batch_size, seq_len, dtype,
// mixed_precision_param, mixed_precision_reduce, enable_cpu_offload;
// [parallelism] data_parallel_replicate_degree, data_parallel_shard_degree,
// fsdp_reshard_after_forward, tensor_parallel_degree, expert_parallel_degree,
// pipeline_parallel_degree, pipeline_parallel_schedule ("1F1B", "GPipe",
// "Interleaved1F1B": torch
// distributed/pipelining/schedules.py get_schedule_class names),
// pipeline_parallel_microbatch_size, module_fqns_per_model_part,
// context_parallel_degree; [activation_checkpoint] mode, selective_ac_option
// ("op" or a layer frequency, distributed/activation_checkpoint.py);
// [compile] enable, components ("model": the layers, "loss": the loss
// function, as planned); [model]
// converters "quantize.linear.float8" and [quantize.linear.float8]
// filter_fqns for fp8-mixed under FSDP2 (torchao Float8Linear).
// The batch: torchtitan's train.py takes global_batch_size /
// (local_batch_size x dp) gradient-accumulation steps; with pipeline
// parallelism local_batch_size is split into local_batch_size /
// pipeline_parallel_microbatch_size micro-batches
// (distributed/pipeline_parallel.py build_pipeline_schedule).
#include "io/exportersinternal.h"

#include "plan/parallel.h"

#include <array>
#include <cstdio>
#include <string>
#include <vector>

namespace headroom::exportdetail {

namespace {

std::string n(std::uint64_t v) { return std::to_string(v); }

Error refuse(const std::string& why) { return makeError(ErrorCode::UnsupportedCombination, "torchtitan-toml: " + why); }

// A TOML basic string (TOML 1.0 "String"): quotes, backslashes and control
// characters escaped; UTF-8 passes through.
std::string toml(const std::string& text)
{
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20 || c == 0x7f) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
            out += escaped;
        } else {
            out += ch;
        }
    }
    return out + "\"";
}

// torchtitan's decoder implementations a Headroom model can be: llama3
// (models/llama3: RMSNorm, SwiGLU, RoPE, GQA, no biases, an untied output
// layer), qwen3 (models/qwen3: the same with per-head q/k RMSNorm and
// optional weight tying, or routed experts on every layer: moe_enabled), and
// deepseek_v3 (models/deepseek_v3: multi-head latent attention, dense first
// layers, routed and shared experts).
enum class TitanModel { None, Llama3, Qwen3, DeepseekV3 };

const char* titanModelName(TitanModel model)
{
    switch (model) {
    case TitanModel::Llama3: return "llama3";
    case TitanModel::Qwen3: return "qwen3";
    case TitanModel::DeepseekV3: return "deepseek_v3";
    case TitanModel::None: break;
    }
    return "";
}

TitanModel titanModel(const ModelSpec& m)
{
    if (m.family == Family::DeepseekV3 && !m.tieEmbeddings && !m.qkvBias && m.denseLayerIds.empty())
        return TitanModel::DeepseekV3;
    // Qwen3-MoE with experts on every layer (torchtitan's qwen3 has no dense
    // layers between MoE ones).
    if (m.family == Family::Qwen3Moe && !m.hasDenseLayers() && !m.qkvBias && !m.tieEmbeddings)
        return TitanModel::Qwen3;
    if (m.family != Family::Llama || m.isMoe() || m.norm != NormKind::RmsNorm || !m.gatedMlp ||
        m.hiddenAct != "silu" || m.qkvBias || m.attnOutBias || m.mlpBias || m.learnedPositions)
        return TitanModel::None;
    if (m.qkNorm)
        return TitanModel::Qwen3;
    return m.tieEmbeddings ? TitanModel::None : TitanModel::Llama3;
}

struct Flavor {
    TitanModel model;
    const char* name;
    std::uint64_t layers, hidden, heads, kvHeads, headDim, intermediate, vocab;
    bool tied;
};

// torchtitan 0.2.2 models/llama3/__init__.py llama3_args and
// models/qwen3/__init__.py qwen3_args, the dense flavors; llama3's MLP width
// is what FeedForward computes from multiple_of and ffn_dim_multiplier
// (models/llama3/model/model.py). tests/libraries/test_torchtitan_toml.py
// builds each matched flavor with torchtitan and compares. DeepSeek-V3's
// flavors are in kLatentFlavors.
constexpr std::array<Flavor, 9> kFlavors{{
    {TitanModel::Llama3, "8B", 32, 4096, 32, 8, 128, 14336, 128256, false},
    {TitanModel::Llama3, "70B", 80, 8192, 64, 8, 128, 28672, 128256, false},
    {TitanModel::Llama3, "405B", 126, 16384, 128, 8, 128, 53248, 128256, false},
    {TitanModel::Qwen3, "0.6B", 28, 1024, 16, 8, 128, 3072, 151936, true},
    {TitanModel::Qwen3, "1.7B", 28, 2048, 16, 8, 128, 6144, 151936, true},
    {TitanModel::Qwen3, "4B", 36, 2560, 32, 8, 128, 9728, 151936, true},
    {TitanModel::Qwen3, "8B", 36, 4096, 32, 8, 128, 12288, 151936, false},
    {TitanModel::Qwen3, "14B", 40, 5120, 40, 8, 128, 17408, 151936, false},
    {TitanModel::Qwen3, "32B", 64, 5120, 64, 8, 128, 25600, 151936, false},
}};

// torchtitan 0.2.2 models/deepseek_v3/__init__.py deepseekv3_args: the
// shapes Headroom plans (the router's scoring and groups and the attention
// kernel of each flavor change no memory Headroom plans).
struct LatentFlavor {
    const char* name;
    std::uint64_t layers, hidden, heads, denseLayers, denseIntermediate, expertIntermediate, experts, shared, topK,
        qLoraRank, kvLoraRank, vocab;
};
constexpr std::array<LatentFlavor, 3> kLatentFlavors{{
    {"16B", 27, 2048, 16, 1, 10944, 1408, 64, 2, 6, 0, 512, 102400},
    {"236B", 60, 5120, 128, 1, 12288, 1536, 160, 2, 6, 1536, 512, 102400},
    {"671B", 61, 7168, 128, 3, 18432, 2048, 256, 1, 8, 1536, 512, 129280},
}};

// models/qwen3/__init__.py's mixture-of-experts flavors (moe_enabled, no
// shared expert); hidden_dim, the dense MLP width, builds nothing when every
// layer is a MoE layer.
struct ExpertFlavor {
    const char* name;
    std::uint64_t layers, hidden, heads, kvHeads, headDim, expertIntermediate, experts, topK, vocab;
};
constexpr std::array<ExpertFlavor, 2> kExpertFlavors{{
    {"30B-A3B", 48, 2048, 32, 4, 128, 768, 128, 8, 151936},
    {"235B-A22B", 94, 4096, 64, 4, 128, 1536, 128, 8, 151936},
}};

const char* findExpertFlavor(const ModelSpec& m)
{
    for (const ExpertFlavor& f : kExpertFlavors)
        if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.kvHeads == m.kvHeads &&
            f.headDim == m.headDim && f.expertIntermediate == m.intermediate && f.experts == m.experts &&
            f.topK == m.expertsPerToken && f.vocab == m.vocab && !m.hasSharedExpert())
            return f.name;
    return nullptr;
}

const char* findLatentFlavor(const ModelSpec& m)
{
    for (const LatentFlavor& f : kLatentFlavors)
        if (f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads && f.denseLayers == m.denseLayers &&
            f.denseIntermediate == m.denseIntermediate && f.expertIntermediate == m.intermediate &&
            f.experts == m.experts && f.shared == m.sharedExperts && f.topK == m.expertsPerToken &&
            f.qLoraRank == m.qLoraRank && f.kvLoraRank == m.kvLoraRank && f.vocab == m.vocab &&
            m.qkNopeHeadDim() == 128 && m.qkRopeHeadDim == 64 && m.vHeadDim == 128)
            return f.name;
    return nullptr;
}

const Flavor* findFlavor(TitanModel model, const ModelSpec& m)
{
    for (const Flavor& f : kFlavors)
        if (f.model == model && f.layers == m.layers && f.hidden == m.hidden && f.heads == m.heads &&
            f.kvHeads == m.kvHeads && f.headDim == m.headDim && f.intermediate == m.intermediate &&
            f.vocab == m.vocab && f.tied == m.tieEmbeddings)
            return &f;
    return nullptr;
}

std::string refusal(const Scenario& sc, TitanModel model, const ParallelLayout& l)
{
    const ModelSpec& m = sc.model;
    const TrainConfig& t = sc.train;
    if (model == TitanModel::None)
        return std::string("torchtitan 0.2.2's decoders Headroom writes are llama3 (untied), qwen3 and "
                           "deepseek_v3; ") + m.id + " (" +
               familyName(m.family) + (m.tieEmbeddings ? ", tied embeddings" : "") + (m.qkvBias ? ", q/k/v bias" : "") +
               (m.isMoe() ? ", experts" : "") + ") is none of them";
    // torchtitan's MoE layers under tensor parallelism are not planned
    // (the planner refuses them under FSDP2); Megatron-LM's layouts are the
    // megatron-args export's.
    if (m.isMoe() && sc.hardware.sharding != Sharding::Fsdp2)
        return "torchtitan shards a mixture of experts with FSDP2 (expert_parallel_degree over dp_shard x cp); "
               "plan with --sharding fsdp2, or export Megatron-LM's layout with --format megatron-args";
    if (m.slidingWindow != 0 && t.seqLen > m.slidingWindow)
        return "torchtitan's llama3 and qwen3 have no sliding-window attention; the sequence is longer than the window";
    if (t.peft.method != PeftMethod::None || t.weightQuant != WeightQuant::None)
        return "torchtitan trains every weight; LoRA, QLoRA and quantized base weights have no job-file keys";
    // fp8-mixed under FSDP2 is Headroom's plan of torchao Float8Linear
    // (plan/float8linear.h), torchtitan's float8 converter.
    const bool float8 = t.precision == Precision::Fp8Mixed && sc.hardware.sharding == Sharding::Fsdp2;
    if (t.precision != Precision::Fp32 && t.precision != Precision::Bf16Mixed && t.precision != Precision::Bf16 && !float8)
        return std::string("torchtitan's training.dtype and mixed_precision_param are float32 or bfloat16; the "
                           "scenario is ") + precisionName(t.precision);
    if (t.optimizer != Optimizer::AdamW)
        return std::string("torchtitan 0.2.2 builds Adam and AdamW (components/optimizer.py); the scenario uses ") +
               optimizerName(t.optimizer);
    if (t.attention == Attention::Eager)
        return "torchtitan's models run scaled_dot_product_attention; eager attention is not exported";
    const Sharding s = sc.hardware.sharding;
    const bool replicate = s == Sharding::None || s == Sharding::Ddp;
    if (replicate && l.dp > 1 && l.modelParallel())
        return "torchtitan 0.2.2 runs DDP only without tensor or pipeline parallelism (\"DDP has not supported > 1D "
               "parallelism\", models/llama3/infra/parallelize.py); plan with --sharding fsdp or zero3";
    if (replicate && sc.hardware.cpuOffload)
        return "torchtitan offloads to the CPU through FSDP2 only";
    if (t.precision == Precision::Bf16Mixed && l.modelParallel() && (replicate || l.dp == 1))
        return "torchtitan applies bf16 mixed precision under tensor or pipeline parallelism only through FSDP2 "
               "(distributed/utils.py maybe_enable_amp); plan with a data-parallel degree over 1 sharded by fsdp "
               "or zero3, or with bf16 or fp32";
    if (t.optimizerInBackward && l.pp > 1)
        return "torchtitan refuses an optimizer step in backward with pipeline parallelism";
    if (t.chunkedCrossEntropy)
        return "chunked cross-entropy has no job-file key";
    if (t.activationOffload)
        return "activation offload has no job-file key";
    if (t.loop != TrainingLoop::Trainer)
        return "torchtitan's train loop keeps only the loss; the scenario keeps the outputs";
    // scenario.h ppReturnOutputs: torchtitan 0.2.2 passes return_outputs=False
    // (trainer.py, since e5ef99aab), so the job file would run what the plan is not.
    if (sc.hardware.parallel.ppReturnOutputs)
        return "torchtitan 0.2.2 drops the pipeline schedule's outputs (return_outputs=False, since October 2025); "
               "the scenario keeps them on the last stage, as earlier torchtitan did";
    return {};
}

// One model part per pipeline stage, as Headroom split the layers: the
// embedding on the first, the final norm and the output layer on the last
// (module names of models/llama3/model/model.py and models/qwen3/model/model.py).
// With vpp > 1, one per virtual stage in order: torchtitan 0.2.2
// distributed/pipeline_parallel.py pipeline_module_split gives rank r parts
// r, r + pp, ... ("loop" style) for Interleaved1F1B.
std::string stageModules(const ParallelLayout& l)
{
    std::string out = "module_fqns_per_model_part = [\n";
    std::uint64_t layer = 0;
    const std::uint64_t parts = l.chunkLayers.size();
    for (std::uint64_t s = 0; s < parts; ++s) {
        std::vector<std::string> names;
        if (s == 0)
            names.push_back("tok_embeddings");
        for (std::uint64_t k = 0; k < l.chunkLayers[s]; ++k)
            names.push_back("layers." + n(layer++));
        if (s + 1 == parts) {
            names.push_back("norm");
            names.push_back("output");
        }
        out += "  [";
        for (std::size_t k = 0; k < names.size(); ++k)
            out += (k ? ", " : "") + toml(names[k]);
        out += "],\n";
    }
    return out + "]\n";
}

} // namespace

Result<std::string> exportTorchtitanToml(const Scenario& sc, const Plan& plan)
{
    if (sc.mode != Mode::Train)
        return makeError(ErrorCode::UnsupportedCombination,
                         "torchtitan-toml configures training; the scenario is inference");
    auto layout = parallelLayout(sc);
    if (!layout)
        return layout.error();
    const ParallelLayout& l = layout.value();
    const ModelSpec& m = sc.model;
    const TrainConfig& t = sc.train;
    const TitanModel model = titanModel(m);
    if (std::string why = refusal(sc, model, l); !why.empty())
        return refuse(why);
    const Sharding s = sc.hardware.sharding;
    const bool shard = s != Sharding::None && s != Sharding::Ddp;
    const Flavor* flavor = findFlavor(model, m);
    const char* moeFlavor = model == TitanModel::DeepseekV3 ? findLatentFlavor(m)
                            : m.isMoe()                     ? findExpertFlavor(m)
                                                            : nullptr;
    const char* modelName = titanModelName(model);

    std::vector<std::string> notes;
    if (m.isMoe() && !moeFlavor)
        notes.push_back(std::string("No mixture-of-experts flavor of torchtitan 0.2.2's ") + modelName +
                        " has this model's shape: flavor names the model, and torchtitan refuses it until a flavor of "
                        "that name is added to torchtitan/models/" + modelName + "/__init__.py.");
    if (m.isMoe())
        notes.push_back("Headroom planned transformers' mixture-of-experts modules; torchtitan runs its own (its MoE's "
                        "token permutation and grouped_mm buffers), checked against a published torchtitan run of "
                        "DeepSeek-V3 16B at -5.3 % (docs/validation/parallel.md).");
    if (!flavor && !m.isMoe())
        notes.push_back(std::string("No ") + modelName + " flavor of torchtitan 0.2.2 has this model's shape (layers " +
                        n(m.layers) + ", dim " + n(m.hidden) + ", heads " + n(m.heads) + ", KV heads " + n(m.kvHeads) +
                        ", head_dim " + n(m.headDim) + ", MLP " + n(m.intermediate) + ", vocabulary " + n(m.vocab) +
                        "): flavor names the model, and torchtitan refuses it until a flavor of that name is added "
                        "to torchtitan/models/" + modelName + "/__init__.py.");
    if (shard && s != Sharding::Fsdp2)
        notes.push_back(std::string("The scenario's sharding is ") + shardingName(s) +
                        ": torchtitan shards with FSDP2, written here as its nearest equivalent" +
                        (s == Sharding::Zero1 || s == Sharding::Zero2
                             ? " (parameters kept whole from forward to backward, fsdp_reshard_after_forward never)"
                             : "") +
                        "; the numbers are Headroom's for " + shardingName(s) + ".");
    if (l.tp > 1 && !l.sp)
        notes.push_back("torchtitan's tensor parallelism always shards the norms over the sequence (sequence "
                        "parallelism); Headroom planned tp without it, which holds more.");
    if (t.checkpointing == Checkpointing::EveryK && t.checkpointEvery > 1)
        notes.push_back("torchtitan checkpoints layers k-1, 2k-1, ... of each model part (_apply_layer_sac), "
                        "Headroom planned layers 0, k, 2k, ...: the same count when k divides the layers.");
    if (!t.compileLayers && !t.compileLoss)
        notes.push_back("[compile] is off: Headroom planned eager PyTorch.");
    else if (!t.compileLoss)
        notes.push_back("[compile] compiles the model's layers only: Headroom planned the loss eager, as torchtitan "
                        "9dec370 ran it (components \"loss\" would compile it too).");
    else if (!t.compileLayers)
        notes.push_back("[compile] compiles the loss only: Headroom planned the layers eager.");
    for (const std::string& note : plan.notes)
        notes.push_back(note);

    std::string y;
    const auto comment = [&y](const std::string& text) { y += "# " + oneLine(text) + "\n"; };
    comment(std::string("torchtitan job file, written by Headroom ") + HEADROOM_VERSION +
            " (headroom-cli export --format torchtitan-toml), for torchtitan 0.2.2.");
    comment("Use: torchrun --nproc-per-node GPUS -m torchtitan.train --job.config_file THIS_FILE");
    comment("Keys as torchtitan 0.2.2 torchtitan/config/job_config.py defines them. Only what Headroom planned is "
            "set: add your dataset, steps, learning rate and checkpointing; torchtitan's defaults stand for the rest.");
    comment("Headroom's prediction per GPU (" + std::string(profileName(sc.profile)) + " profile): peak " +
            gibText(static_cast<double>(plan.peakBytes)) + ", device used " +
            gibText(static_cast<double>(plan.deviceUsedBytes)) + " on " + hardwareLine(sc, plan) + ": " +
            verdictText(plan));
    comment("Scenario: " + scenarioLine(sc));
    for (const std::string& note : notes)
        comment("Note: " + note);

    y += "\n[job]\ndescription = " + toml("Headroom: " + m.id + ", " + scenarioLine(sc)) + "\n";

    y += "\n[model]\nname = " + toml(modelName) + "\n";
    y += "flavor = " + toml(flavor ? flavor->name : moeFlavor ? moeFlavor : m.id) + "\n";
    const bool float8 = t.precision == Precision::Fp8Mixed && sc.hardware.sharding == Sharding::Fsdp2;
    if (float8)
        y += "converters = [\"quantize.linear.float8\"]\n"; // components/quantization/float8.py
    // Where torchtitan's scripts/download_hf_assets.py --repo_id ID puts the tokenizer.
    y += "hf_assets_path = " + toml("./assets/hf/" + m.id.substr(m.id.rfind('/') + 1)) + "\n";

    y += "\n[optimizer]\nname = \"AdamW\"\n";
    // Always written: torchtitan's default is "fused" (job_config.py
    // Optimizer.implementation), PyTorch's foreach, and the plan follows the
    // scenario's (scenario.h OptimizerImpl).
    y += "implementation = " + toml(optimizerImplName(t.optimizerImpl)) + "\n";
    if (t.optimizerInBackward)
        y += "early_step_in_backward = true\n";

    // Pipeline micro-batches are the scenario's micro-batches; without a
    // pipeline they are gradient-accumulation steps.
    const std::uint64_t local = l.pp > 1 ? t.microBatch * t.gradAccum : t.microBatch;
    y += "\n[training]\nlocal_batch_size = " + n(local) + "\n";
    y += "global_batch_size = " + n(t.microBatch * t.gradAccum * l.dp) + "\n";
    y += "seq_len = " + n(t.seqLen) + "\n";
    y += std::string("dtype = ") + (t.precision == Precision::Bf16 ? "\"bfloat16\"" : "\"float32\"") + "\n";
    y += std::string("mixed_precision_param = ") + (t.precision == Precision::Fp32 ? "\"float32\"" : "\"bfloat16\"") +
         "\n";
    y += "mixed_precision_reduce = \"float32\"\n";
    y += std::string("enable_cpu_offload = ") + (sc.hardware.cpuOffload ? "true" : "false") + "\n";

    y += "\n[parallelism]\n";
    // HSDP: dp_replicate groups of dp / dp_replicate sharded ranks.
    y += "data_parallel_replicate_degree = " + n(shard ? l.dpReplicate : l.dp) + "\n";
    y += "data_parallel_shard_degree = " + n(shard ? l.dp / l.dpReplicate : 1) + "\n";
    if (shard)
        y += std::string("fsdp_reshard_after_forward = ") +
             (s == Sharding::Zero1 || s == Sharding::Zero2 ? "\"never\"" : "\"default\"") + "\n";
    y += "tensor_parallel_degree = " + n(l.tp) + "\n";
    // The experts over ep of the dp_shard x cp ranks (plan/parallel.h).
    if (m.isMoe())
        y += "expert_parallel_degree = " + n(l.ep) + "\n";
    if (sc.hardware.parallel.asyncTp)
        y += "enable_async_tensor_parallel = true\n";
    y += "pipeline_parallel_degree = " + n(l.pp) + "\n";
    if (l.pp > 1) {
        y += std::string("pipeline_parallel_schedule = ") +
             (l.interleaved()                         ? "\"Interleaved1F1B\""
              : l.schedule == PipelineSchedule::GPipe ? "\"GPipe\""
                                                      : "\"1F1B\"") +
             "\n";
        y += "pipeline_parallel_microbatch_size = " + n(t.microBatch) + "\n";
        y += stageModules(l);
    }
    // Headroom's context parallelism is torchtitan's (plan/parallel.h): the
    // shard degree above excludes it, as data_parallel_shard_degree does.
    y += "context_parallel_degree = " + n(l.cp) + "\n";

    y += "\n[activation_checkpoint]\n";
    switch (t.checkpointing) {
    case Checkpointing::None: y += "mode = \"none\"\n"; break;
    case Checkpointing::Full: y += "mode = \"full\"\n"; break;
    case Checkpointing::EveryK:
        y += "mode = \"selective\"\nselective_ac_option = " + toml(n(t.checkpointEvery)) + "\n";
        break;
    case Checkpointing::SelectiveOps: y += "mode = \"selective\"\nselective_ac_option = \"op\"\n"; break;
    }

    if (t.compileLayers || t.compileLoss)
        y += std::string("\n[compile]\nenable = true\ncomponents = [") +
             (t.compileLayers && t.compileLoss ? "\"model\", \"loss\""
              : t.compileLayers                ? "\"model\""
                                               : "\"loss\"") +
             "]\n";
    else
        y += "\n[compile]\nenable = false\n";
    // Float8Linear with its default (tensorwise) config; the output head stays
    // in bf16, as Headroom planned it (torchtitan 9dec370 float8.py skipped it).
    if (float8) {
        y += "\n[quantize.linear.float8]\nfilter_fqns = [\"output\"]\n";
        if (t.float8AllGather)
            y += "enable_fsdp_float8_all_gather = true\nprecompute_float8_dynamic_scale_for_fsdp = true\n";
    }
    return y;
}

} // namespace headroom::exportdetail
