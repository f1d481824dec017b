// SPDX-License-Identifier: GPL-3.0-or-later
// deepspeed-json and accelerate-fsdp-yaml: the launcher configurations of a
// training scenario.
//
// DeepSpeed keys (https://www.deepspeed.ai/docs/config-json/ and
// deepspeed/runtime/config.py, deepspeed/runtime/zero/config.py):
// train_batch_size, train_micro_batch_size_per_gpu, gradient_accumulation_steps,
// gradient_clipping, "bf16": {"enabled"}, "fp16": {"enabled", "loss_scale"}
// (0 is dynamic loss scaling), "zero_optimization": {"stage",
// "offload_optimizer": {"device", "pin_memory"}, "offload_param": {...}}.
// offload_param is a stage-3 option; offload_optimizer works from stage 1.
// Every value is a number or a boolean, never "auto": "auto" only means
// something inside the transformers integration, and transformers checks the
// numbers it is given against TrainingArguments
// (integrations/deepspeed.py HfTrainerDeepSpeedConfig.fill_match), which is
// why hf-python writes the same batch, accumulation, precision and
// max_grad_norm. DeepSpeed reads the top-level keys it knows and leaves the
// others alone, so "_headroom" rides along.
//
// accelerate keys: what `accelerate config` writes for FSDP
// (accelerate src/accelerate/commands/config/cluster.py) and what
// `accelerate launch` turns into FSDP_* variables
// (src/accelerate/utils/launch.py prepare_multi_gpu_env: fsdp_sharding_strategy,
// fsdp_offload_params, fsdp_auto_wrap_policy, fsdp_backward_prefetch,
// fsdp_state_dict_type, fsdp_forward_prefetch, fsdp_use_orig_params,
// fsdp_cpu_ram_efficient_loading, fsdp_sync_module_states,
// fsdp_activation_checkpointing); mixed_precision is "no" | "fp16" | "bf16" | "fp8".
#include "io/exportersinternal.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace headroom::exportdetail {

namespace {

const char* accelerateMixedPrecision(Precision p)
{
    switch (p) {
    case Precision::Fp32: return "'no'";  // quoted: a bare no is a boolean in YAML 1.1
    case Precision::Fp16Mixed:
    case Precision::Fp16: return "fp16";
    case Precision::Bf16Mixed:
    case Precision::Bf16: return "bf16";
    case Precision::Fp8Mixed: return "fp8";
    }
    return "bf16";
}

std::string predictionLine(const Scenario& sc, const Plan& plan)
{
    return std::string("Headroom's prediction per GPU (") + profileName(sc.profile) + " profile): peak " +
           gibText(static_cast<double>(plan.peakBytes)) + " at " + eventLabel(plan.events[plan.peakEvent]) +
           ", device used " + gibText(static_cast<double>(plan.deviceUsedBytes)) + " on " + hardwareLine(sc, plan) +
           ": " + verdictText(plan);
}

} // namespace

Result<std::string> exportDeepSpeedJson(const Scenario& sc, const Plan& plan)
{
    if (sc.mode != Mode::Train)
        return makeError(ErrorCode::UnsupportedCombination,
                         "deepspeed-json configures training; the scenario is inference");
    const TrainConfig& t = sc.train;
    const Sharding sharding = sc.hardware.sharding;
    const int stage = zeroStage(sharding);
    std::vector<std::string> notes;

    nlohmann::ordered_json j;
    j["train_batch_size"] = satMul(t.microBatch, t.gradAccum, sc.hardware.count);
    j["train_micro_batch_size_per_gpu"] = t.microBatch;
    j["gradient_accumulation_steps"] = t.gradAccum;
    j["gradient_clipping"] = 1.0;  // TrainingArguments.max_grad_norm's default
    j["bf16"] = {{"enabled", trainerBf16(t.precision)}};
    j["fp16"] = {{"enabled", trainerFp16(t.precision)}};
    if (trainerFp16(t.precision))
        j["fp16"]["loss_scale"] = 0;
    nlohmann::ordered_json zero;
    zero["stage"] = stage;
    if (sc.hardware.cpuOffload && stage >= 1)
        zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
    if (sc.hardware.cpuOffload && stage == 3)
        zero["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
    j["zero_optimization"] = zero;

    if (stage == 0)
        notes.push_back(std::string("The scenario's sharding is ") + shardingName(sharding) +
                        ", not DeepSpeed ZeRO: stage 0 is written, and the predicted bytes are for " +
                        shardingName(sharding) + ".");
    if (sc.hardware.cpuOffload && stage == 0)
        notes.push_back("CPU offload needs ZeRO stage 1 to 3; no offload is written.");
    notes.push_back(std::string("No \"optimizer\" block: the training script builds the optimizer (") +
                    optimizerName(t.optimizer) + "; hf-python sets TrainingArguments.optim).");
    if (t.precision == Precision::Fp8Mixed)
        notes.push_back("FP8 matmuls (Transformer Engine) are outside this file; bf16 is the mode around them.");
    if (t.precision == Precision::Fp32)
        notes.push_back("fp32 training: neither bf16 nor fp16 is enabled.");
    for (const std::string& note : plan.notes)
        notes.push_back(note);

    nlohmann::ordered_json h;
    h["about"] = "Headroom's prediction for this scenario, per GPU; DeepSpeed ignores this key";
    h["headroom_version"] = HEADROOM_VERSION;
    h["model"] = sc.model.id;
    h["scenario"] = scenarioLine(sc);
    h["gpu"] = plan.gpu.id;
    h["gpus"] = sc.hardware.count;
    h["sharding"] = shardingName(sharding);
    h["cpu_offload"] = sc.hardware.cpuOffload;
    h["profile"] = profileName(sc.profile);
    h["predicted_peak_bytes_per_gpu"] = plan.peakBytes;
    h["predicted_peak_event"] = eventLabel(plan.events[plan.peakEvent]);
    h["predicted_peak_allocated_bytes_per_gpu"] = plan.peakAllocatedBytes;
    h["predicted_peak_reserved_bytes_per_gpu"] = plan.peakReservedBytes;
    h["predicted_device_used_bytes_per_gpu"] = plan.deviceUsedBytes;
    h["capacity_bytes"] = plan.capacityBytes;
    h["fits"] = plan.fits;
    h["margin_bytes"] = plan.marginBytes;
    h["verdict"] = verdictText(plan);
    h["notes"] = notes;
    j["_headroom"] = h;
    return j.dump(2) + "\n";
}

Result<std::string> exportAccelerateFsdpYaml(const Scenario& sc, const Plan& plan)
{
    if (sc.mode != Mode::Train)
        return makeError(ErrorCode::UnsupportedCombination,
                         "accelerate-fsdp-yaml configures training; the scenario is inference");
    const TrainConfig& t = sc.train;
    const bool checkpoint = t.checkpointing != Checkpointing::None;
    const auto yamlBool = [](bool b) { return b ? std::string("true") : std::string("false"); };
    std::string y;
    const auto comment = [&y](const std::string& text) { y += "# " + oneLine(text) + "\n"; };

    comment(std::string("accelerate config for FSDP, written by Headroom ") + HEADROOM_VERSION +
            " (headroom-cli export --format accelerate-fsdp-yaml).");
    comment("Use: accelerate launch --config_file THIS_FILE your_script.py (hf-python writes one).");
    comment("Keys as `accelerate config` writes them (accelerate commands/config/cluster.py) and `accelerate launch` "
            "reads them (accelerate utils/launch.py).");
    const bool fsdp2 = sc.hardware.sharding == Sharding::Fsdp2;
    if (sc.hardware.sharding != Sharding::Fsdp && !fsdp2)
        comment(std::string("The scenario itself is not sharded with FSDP (sharding ") +
                shardingName(sc.hardware.sharding) + "): this is the FSDP equivalent, and the numbers below are " +
                "Headroom's for " + shardingName(sc.hardware.sharding) +
                ". Export with --sharding fsdp to plan FSDP itself.");
    comment(predictionLine(sc, plan));
    comment("Scenario: " + scenarioLine(sc));
    if (t.checkpointing == Checkpointing::SelectiveOps)
        comment("Headroom planned torchtitan's op-level selective checkpointing; accelerate's "
                "fsdp_activation_checkpointing checkpoints every layer whole, which keeps less.");
    if (fsdp2)
        comment("FSDP2 (fsdp_version 2, accelerate >= 1.6 with torch >= 2.6): per-parameter sharding; "
                "accelerate applies fully_shard to each decoder layer and the root.");
    if (checkpoint && t.checkpointing == Checkpointing::EveryK && t.checkpointEvery > 1)
        comment("Headroom planned checkpointing of one layer in " + std::to_string(t.checkpointEvery) +
                "; FSDP's activation checkpointing wraps every layer.");
    if (checkpoint)
        comment("With fsdp_activation_checkpointing on, keep TrainingArguments.gradient_checkpointing False "
                "(transformers refuses both).");
    if (t.weightQuant == WeightQuant::Nf4 || t.weightQuant == WeightQuant::Nf4DoubleQuant)
        comment("QLoRA under FSDP: BitsAndBytesConfig(bnb_4bit_quant_storage=...) must match the compute dtype so "
                "FSDP can shard the 4-bit weights (PEFT docs, \"FSDP + QLoRA\"); hf-python sets it.");
    y += "compute_environment: LOCAL_MACHINE\n";
    y += "debug: false\n";
    y += "distributed_type: FSDP\n";
    y += "downcast_bf16: 'no'\n";
    y += "fsdp_config:\n";
    y += "  fsdp_activation_checkpointing: " + yamlBool(checkpoint) + "\n";
    y += "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n";
    y += "  # No fsdp_transformer_layer_cls_to_wrap: accelerate then wraps the model's _no_split_modules, its\n";
    y += "  # decoder layer class (accelerate utils/dataclasses.py, FullyShardedDataParallelPlugin).\n";
    // FSDP2 has no prefetch, sharding-strategy or use_orig_params settings
    // (accelerate utils/dataclasses.py FullyShardedDataParallelPlugin
    // __post_init__: forward_prefetch is refused, the others dropped with a
    // warning); reshard_after_forward is its FULL_SHARD.
    if (!fsdp2)
        y += "  fsdp_backward_prefetch: BACKWARD_PRE\n";
    y += "  fsdp_cpu_ram_efficient_loading: true\n";
    if (!fsdp2)
        y += "  fsdp_forward_prefetch: false\n";
    y += "  fsdp_offload_params: " + yamlBool(sc.hardware.cpuOffload) + "\n";
    if (fsdp2)
        y += "  fsdp_reshard_after_forward: true\n";
    else
        y += "  fsdp_sharding_strategy: FULL_SHARD\n";
    y += "  fsdp_state_dict_type: SHARDED_STATE_DICT\n";
    // accelerate launch requires it with cpu_ram_efficient_loading (utils/launch.py).
    y += "  fsdp_sync_module_states: true\n";
    if (!fsdp2)
        y += "  fsdp_use_orig_params: true\n";
    y += std::string("  fsdp_version: ") + (fsdp2 ? "2" : "1") + "\n";
    y += "machine_rank: 0\n";
    y += "main_training_function: main\n";
    y += std::string("mixed_precision: ") + accelerateMixedPrecision(t.precision) + "\n";
    y += "num_machines: 1\n";
    y += "num_processes: " + std::to_string(sc.hardware.count) + "\n";
    // HSDP: accelerate's ParallelismConfig (accelerate 1.15 commands/launch.py
    // parallelism_config_* arguments, FSDP2 only), replicate x shard groups.
    const std::uint64_t replicate = sc.hardware.parallel.dpReplicate;
    if (fsdp2 && replicate > 1 && sc.hardware.count % replicate == 0) {
        y += "parallelism_config:\n";
        y += "  parallelism_config_dp_replicate_size: " + std::to_string(replicate) + "\n";
        y += "  parallelism_config_dp_shard_size: " + std::to_string(sc.hardware.count / replicate) + "\n";
    }
    y += "rdzv_backend: static\n";
    y += "same_network: true\n";
    y += "use_cpu: false\n";
    return y;
}

} // namespace headroom::exportdetail
