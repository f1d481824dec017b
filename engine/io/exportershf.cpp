// SPDX-License-Identifier: GPL-3.0-or-later
// hf-python: the scenario as a Python script for the Hugging Face stack.
//
// Every key this file writes, and where it is defined:
// - TrainingArguments fields (output_dir, per_device_train_batch_size,
//   gradient_accumulation_steps, bf16, fp16, gradient_checkpointing, optim,
//   optim_args, optim_target_modules, deepspeed, fsdp, fsdp_config,
//   max_grad_norm): transformers src/transformers/training_args.py.
// - optim values: OptimizerNames in the same file: ADAMW_TORCH "adamw_torch",
//   ADAMW_BNB "adamw_bnb_8bit", PAGED_ADAMW_8BIT "paged_adamw_8bit", SGD "sgd",
//   ADAFACTOR "adafactor", LION "lion_32bit", LOMO "lomo", ADALOMO "adalomo",
//   GALORE_ADAMW "galore_adamw", ADAMW_TORCH_FUSED "adamw_torch_fused" (AdamW
//   with OptimizerImpl::Fused). GaLore's rank is read from optim_args
//   ("rank", default 128) and its modules from optim_target_modules
//   (transformers trainer.py get_optimizer_cls_and_kwargs, GaLore branch;
//   trainer_optimizer.py _get_galore_optimizer in newer releases).
// - fsdp option words "full_shard", "offload", "auto_wrap": FSDPOption in
//   src/transformers/trainer_utils.py; fsdp_config "activation_checkpointing"
//   and the rule that it excludes gradient_checkpointing: trainer.py
//   ("can't be set to True simultaneously").
// - BitsAndBytesConfig(load_in_4bit, load_in_8bit, bnb_4bit_quant_type,
//   bnb_4bit_use_double_quant, bnb_4bit_compute_dtype, bnb_4bit_quant_storage):
//   src/transformers/utils/quantization_config.py.
// - from_pretrained(torch_dtype, quantization_config, attn_implementation with
//   "eager" | "sdpa" | "flash_attention_2"): src/transformers/modeling_utils.py
//   and the "Attention interface" docs.
// - LoraConfig(r, lora_alpha, lora_dropout, target_modules, task_type):
//   peft src/peft/tuners/lora/config.py; target_modules="all-linear" and
//   task_type "CAUSAL_LM" (TaskType) are documented there;
//   prepare_model_for_kbit_training: peft src/peft/utils/other.py.
// - enable_input_require_grads: transformers modeling_utils.py (reentrant
//   checkpointing of a frozen base needs an input that requires grad).
#include "io/exportersinternal.h"

#include "io/measurement.h"
#include "io/scenariofile.h"
#include "model/parametertable.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace headroom::exportdetail {

std::string pyString(const std::string& text)
{
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned>(c));
                out += escaped;
            } else {
                out += ch;  // UTF-8 passes through: Python 3 source is UTF-8
            }
        }
    }
    return out + "\"";
}

namespace {

std::string py(const std::string& text) { return pyString(text); }

std::string pyBool(bool value) { return value ? "True" : "False"; }

std::string pyList(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i ? ", " : "") + py(items[i]);
    return out + "]";
}

// The 16-bit (or 32-bit) dtype the matmuls run in.
const char* computeDtype(Precision p)
{
    switch (p) {
    case Precision::Fp32: return "torch.float32";
    case Precision::Fp16Mixed:
    case Precision::Fp16: return "torch.float16";
    case Precision::Bf16Mixed:
    case Precision::Bf16:
    case Precision::Fp8Mixed: return "torch.bfloat16";
    }
    return "torch.bfloat16";
}

const char* hfOptimName(Optimizer o)
{
    switch (o) {
    case Optimizer::Sgd:
    case Optimizer::SgdMomentum: return "sgd";
    case Optimizer::AdamW: return "adamw_torch";
    case Optimizer::AdamW8bit: return "adamw_bnb_8bit";
    case Optimizer::PagedAdamW8bit: return "paged_adamw_8bit";
    case Optimizer::Lion: return "lion_32bit";
    case Optimizer::Adafactor: return "adafactor";
    case Optimizer::Lomo: return "lomo";
    case Optimizer::AdaLomo: return "adalomo";
    case Optimizer::Galore: return "galore_adamw";
    }
    return "adamw_torch";
}

const char* hfAttention(Attention a)
{
    switch (a) {
    case Attention::Eager: return "eager";
    case Attention::Sdpa: return "sdpa";
    case Attention::Flash: return "flash_attention_2";
    }
    return "sdpa";
}

// Comment text in ASCII where the shared summary lines use typography (" · ",
// "×"): the script then reads the same under any Python source encoding.
std::string asciiComment(const std::string& text)
{
    std::string out = oneLine(text);
    for (const auto& [from, to] : {std::pair<std::string, std::string>{" \u00b7 ", ", "}, {"\u00d7", "x"}}) {
        for (std::size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
            out.replace(at, from.size(), to);
    }
    return out;
}

struct Script {
    std::string text;
    void line(const std::string& s = {}) { text += s + "\n"; }
    void comment(const std::string& s) { text += "# " + asciiComment(s) + "\n"; }
    void arg(const std::string& name, const std::string& value, const std::string& note = {})
    {
        text += "    " + name + "=" + value + "," + (note.empty() ? "" : "  # " + oneLine(note)) + "\n";
    }
};

void writeHeader(Script& s, const Scenario& sc, const Plan& plan)
{
    const bool train = sc.mode == Mode::Train;
    s.comment(std::string(train ? "Training" : "Inference") + " script for " + sc.model.id + ", written by Headroom " +
              HEADROOM_VERSION + " (headroom-cli export --format hf-python).");
    s.comment(train ? "Point train_dataset at your tokenized data and run it; the settings below are the scenario's."
                    : "Run it as it is: it generates from random prompts of the planned size and prints the peak.");
    if (train)
        s.comment("First, `python THIS_SCRIPT --smoke-test config.json` runs it for 2 steps on random tokens with random "
                  "weights from a config.json: no download, on the CPU when there is no GPU (--help).");
    s.line("#");
    if (sc.profile == Profile::Pytorch)
        s.comment("Headroom's prediction for the pytorch profile (PyTorch eager with the transformers, PEFT and "
                  "bitsandbytes conventions), per GPU:");
    else
        s.comment(std::string("Headroom's prediction for the ") + profileName(sc.profile) +
                  " profile (not PyTorch eager: this script's own peak follows the pytorch profile), per GPU:");
    s.comment("  peak " + gibText(static_cast<double>(plan.peakBytes)) + " at " + eventLabel(plan.events[plan.peakEvent]));
    s.comment("  peak allocated " + gibText(static_cast<double>(plan.peakAllocatedBytes)) +
              "  (torch.cuda.max_memory_allocated)");
    s.comment("  peak reserved " + gibText(static_cast<double>(plan.peakReservedBytes)) +
              "  (torch.cuda.max_memory_reserved)");
    s.comment("  device used " + gibText(static_cast<double>(plan.deviceUsedBytes)) + "  (nvidia-smi, " +
              gibText(static_cast<double>(plan.contextBytes)) + " CUDA context included)");
    s.comment("  on " + hardwareLine(sc, plan) + ": " + verdictText(plan));
    s.comment("Scenario: " + scenarioLine(sc));
    if (sc.hardware.count > 1) {
        if (isDeepSpeed(sc.hardware.sharding))
            s.comment("Launch: deepspeed --num_gpus " + std::to_string(sc.hardware.count) +
                      " this_script.py  (ds_config.json: headroom-cli export --format deepspeed-json, same options)");
        else if (sc.hardware.sharding == Sharding::Fsdp || sc.hardware.sharding == Sharding::Fsdp2)
            s.comment("Launch: accelerate launch --config_file fsdp.yaml this_script.py  (fsdp.yaml: headroom-cli "
                      "export --format accelerate-fsdp-yaml), or torchrun --nproc_per_node " +
                      std::to_string(sc.hardware.count) + " this_script.py");
        else
            s.comment("Launch: torchrun --nproc_per_node " + std::to_string(sc.hardware.count) + " this_script.py");
    }
    s.line();
}

void writeModelId(Script& s, const ModelSpec& m)
{
    s.line("model_id = " + py(m.id));
    if (m.approximate)
        s.comment("Headroom scaled this model from a size alone (approximate): model_id is not a Hub repository; "
                  "put the one you mean here.");
    else if (m.origin != "catalog" && !m.origin.empty())
        s.comment("Headroom read this model from " + m.origin + ": point model_id at the same weights (a Hub id or "
                  "a local folder).");
}

// fsdp: the 4-bit weights are stored in the compute dtype's width so FSDP can
// shard them (BitsAndBytesConfig.bnb_4bit_quant_storage; PEFT "FSDP + QLoRA").
void writeQuantConfig(Script& s, WeightQuant q, Precision p, bool fsdp)
{
    if (q == WeightQuant::None)
        return;
    s.line("bnb_config = BitsAndBytesConfig(");
    if (q == WeightQuant::Int8) {
        s.arg("load_in_8bit", "True");
    } else {
        s.arg("load_in_4bit", "True");
        s.arg("bnb_4bit_quant_type", py("nf4"));
        s.arg("bnb_4bit_use_double_quant", pyBool(q == WeightQuant::Nf4DoubleQuant));
        s.arg("bnb_4bit_compute_dtype", computeDtype(p));
        if (fsdp)
            s.arg("bnb_4bit_quant_storage", computeDtype(p), "FSDP shards the 4-bit weights in this dtype");
    }
    s.line(")");
    s.line();
}

// The transformers auto class of the planned model and head.
const char* autoClass(const ModelSpec& m)
{
    if (m.classifier())
        return "AutoModelForSequenceClassification";
    return m.encoder ? "AutoModelForMaskedLM" : "AutoModelForCausalLM";
}

void writeFromPretrained(Script& s, const Scenario& sc, const char* dtype, const std::string& dtypeNote, WeightQuant q,
                         Attention a)
{
    // Training scripts run --smoke-test on the CPU too, where flash-attn does not.
    const bool flashVariable = sc.mode == Mode::Train && a == Attention::Flash;
    if (flashVariable)
        s.text += hfFlashOnCpuPython();
    s.line(std::string("model = ") + autoClass(sc.model) + ".from_pretrained(");
    s.line("    model_id,");
    if (sc.model.classifier())
        s.arg("num_labels", std::to_string(sc.model.numLabels));
    s.arg("torch_dtype", dtype, dtypeNote);
    if (q != WeightQuant::None)
        s.arg("quantization_config", "bnb_config");
    s.arg("attn_implementation", flashVariable ? std::string("attn_implementation") : py(hfAttention(a)));
    if (sc.mode == Mode::Inference)
        s.arg("device_map", py("cuda"));
    s.line(")");
}

// The dtype the weights are loaded in, as the planner stores them
// (engine/plan/modelstaterows.cpp sumGroup): LoRA bases in the compute dtype,
// full fine-tunes in fp32 under autocast, in 16-bit when training pure 16-bit.
const char* trainLoadDtype(const Scenario& sc, std::string& note)
{
    const TrainConfig& t = sc.train;
    if (t.peft.method != PeftMethod::None || t.weightQuant != WeightQuant::None)
        return computeDtype(t.precision);
    if (isDeepSpeed(sc.hardware.sharding)) {
        note = "DeepSpeed keeps its own 16-bit weights and fp32 master copy";
        return "torch.float32";
    }
    switch (t.precision) {
    case Precision::Bf16: note = "pure bf16: weights, gradients and optimizer states in bf16"; return "torch.bfloat16";
    case Precision::Fp16: note = "pure fp16 weights (see the note above)"; return "torch.float16";
    case Precision::Fp32: note = "fp32 training"; return "torch.float32";
    default: note = "fp32 weights under autocast"; return "torch.float32";
    }
}

void writeTraining(Script& s, const Scenario& sc)
{
    const TrainConfig& t = sc.train;
    const bool peft = t.peft.method != PeftMethod::None;
    const bool quant = t.weightQuant != WeightQuant::None;
    const bool fsdp = sc.hardware.sharding == Sharding::Fsdp || sc.hardware.sharding == Sharding::Fsdp2;
    const bool checkpoint = t.checkpointing != Checkpointing::None;

    s.comment("max_seq_length = " + std::to_string(t.seqLen) +
              ": truncate or pack every training sequence to this many tokens (TrainingArguments has no such "
              "field; your tokenizer or collator decides it).");
    s.line();
    writeQuantConfig(s, t.weightQuant, t.precision, fsdp);

    // Before the model: with ZeRO-3, TrainingArguments(deepspeed=...) must
    // exist when from_pretrained runs so the weights load partitioned
    // (transformers integrations/deepspeed.py, HfDeepSpeedConfig).
    s.text += hfSmokeTestArgsPython();
    s.line("training_args = TrainingArguments(");
    s.arg("output_dir", py("headroom-output"));
    s.arg("per_device_train_batch_size", std::to_string(t.microBatch));
    s.arg("gradient_accumulation_steps", std::to_string(t.gradAccum));
    s.arg("bf16", pyBool(trainerBf16(t.precision)));
    s.arg("fp16", pyBool(trainerFp16(t.precision)));
    if (fsdp && checkpoint)
        s.arg("gradient_checkpointing", "False",
              "FSDP checkpoints activations itself (fsdp_config); transformers refuses both");
    else
        s.arg("gradient_checkpointing", pyBool(checkpoint));
    s.arg("optim", py(t.optimizer == Optimizer::AdamW && t.optimizerImpl == OptimizerImpl::Fused
                          ? "adamw_torch_fused"
                          : hfOptimName(t.optimizer)));
    if (t.optimizer == Optimizer::Galore) {
        s.arg("optim_args", py("rank=" + std::to_string(t.galoreRank)));
        s.arg("optim_target_modules",
              pyList(resolveLoraTargets(sc.model, buildParameterTable(sc.model), {"all-linear"})));
    }
    if (isDeepSpeed(sc.hardware.sharding)) {
        s.arg("deepspeed", py("ds_config.json"), "headroom-cli export --format deepspeed-json, same scenario options");
        s.arg("max_grad_norm", "1.0", "equal to the DeepSpeed config's gradient_clipping");
    }
    if (fsdp) {
        s.arg("fsdp", py(sc.hardware.cpuOffload ? "full_shard offload auto_wrap" : "full_shard auto_wrap"));
        s.arg("fsdp_config", std::string("{\"activation_checkpointing\": ") + pyBool(checkpoint) + "}");
    }
    s.line("    **smoke_test_args,");
    s.line(")");
    for (const std::string& note : hfTrainingNotes(sc))
        s.comment("Not in TrainingArguments: " + note);
    s.line();

    std::string dtypeNote;
    const char* dtype = trainLoadDtype(sc, dtypeNote);
    writeFromPretrained(s, sc, dtype, dtypeNote, t.weightQuant, t.attention);
    if (!peft) {
        s.line();
        return;
    }
    if (quant)
        s.line(std::string("model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=") +
               pyBool(checkpoint && !fsdp) + ")");
    else if (checkpoint)
        s.line("model.enable_input_require_grads()  # checkpointing a frozen base: the inputs must require grad");
    s.line();
    s.line("lora_config = LoraConfig(");
    s.arg("r", std::to_string(t.peft.rank));
    s.arg("lora_alpha", shortest(t.peft.alpha));
    s.arg("lora_dropout", shortest(t.peft.dropout));
    if (t.peft.targets.size() == 1 && t.peft.targets.front() == "all-linear") {
        s.arg("target_modules", py("all-linear"));
    } else if (t.peft.targets.empty()) {
        s.arg("target_modules", pyList(resolveLoraTargets(sc.model, buildParameterTable(sc.model), {})),
              "PEFT's default for " + sc.model.modelType + ", as Headroom resolved it");
    } else {
        s.arg("target_modules", pyList(t.peft.targets));
    }
    if (sc.model.classifier())
        s.arg("task_type", py("SEQ_CLS"), "also trains the classifier (modules_to_save)");
    else if (sc.model.encoder)
        s.line("    # No task_type: PEFT's TaskType has no masked-LM task; the PeftModel wraps the encoder as it is.");
    else
        s.arg("task_type", py("CAUSAL_LM"));
    s.line(")");
    s.line("model = get_peft_model(model, lora_config)");
    s.line();
}

void writeInference(Script& s, const Scenario& sc, const Plan& plan)
{
    const InferenceConfig& in = sc.inference;
    s.comment("Prompts of " + std::to_string(in.promptTokens) + " tokens, " + std::to_string(in.newTokens) +
              " new tokens each, batch " + std::to_string(in.batch) + ".");
    s.line("batch_size = " + std::to_string(in.batch));
    s.line("prompt_tokens = " + std::to_string(in.promptTokens));
    s.line("new_tokens = " + std::to_string(in.newTokens));
    s.line();
    writeQuantConfig(s, in.weightQuant, in.precision, false);
    const char* dtype = in.precision == Precision::Fp32 ? "torch.float32"
                        : in.precision == Precision::Fp16 || in.precision == Precision::Fp16Mixed ? "torch.float16"
                                                                                                   : "torch.bfloat16";
    writeFromPretrained(s, sc, dtype, {}, in.weightQuant, in.attention);
    const bool cacheInWeightDtype = (in.kvCacheDtype == KvCacheDtype::Fp32 && in.precision == Precision::Fp32) ||
                                    (in.kvCacheDtype == KvCacheDtype::Fp16 && std::string(dtype) == "torch.float16") ||
                                    (in.kvCacheDtype == KvCacheDtype::Bf16 && std::string(dtype) == "torch.bfloat16");
    if (!cacheInWeightDtype)
        s.comment(std::string("Not in generate(): Headroom planned the KV cache in ") + kvCacheDtypeName(in.kvCacheDtype) +
                  "; transformers' DynamicCache stores keys and values in the model's dtype, and its quantized cache "
                  "(cache_implementation=\"quantized\") is another scheme.");
    s.line();
    s.line("input_ids = torch.randint(0, model.config.vocab_size, (batch_size, prompt_tokens), device=model.device)");
    s.line("model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=new_tokens,");
    s.line("               min_new_tokens=new_tokens, do_sample=False)");
    s.line("print(f\"peak allocated {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB (Headroom predicted " +
           gibText(static_cast<double>(plan.peakAllocatedBytes)) + ")\")");
}

} // namespace

std::string exportHfPython(const Scenario& sc, const Plan& plan)
{
    Script s;
    writeHeader(s, sc, plan);
    const bool train = sc.mode == Mode::Train;
    const WeightQuant q = train ? sc.train.weightQuant : sc.inference.weightQuant;
    const bool peft = train && sc.train.peft.method != PeftMethod::None;

    if (train) {
        s.line("import argparse");
        s.line("import json");
    }
    s.line("import torch");
    std::string names = autoClass(sc.model);
    if (q != WeightQuant::None)
        names += ", BitsAndBytesConfig";
    if (train)
        names += ", Trainer, TrainerCallback, TrainingArguments";
    s.line("from transformers import " + names);
    if (peft)
        s.line(std::string("from peft import LoraConfig, get_peft_model") +
               (q != WeightQuant::None ? ", prepare_model_for_kbit_training" : ""));
    s.line();
    if (train)
        s.text += hfCommandLinePython(sc);
    writeModelId(s, sc.model);
    if (train) {
        s.text += hfSmokeTestModelPython(sc, autoClass(sc.model));
        writeTraining(s, sc);
        s.text += hfMeasurementPython(sc);
        s.text += hfTrainerCallPython(sc, plan);
    } else {
        writeInference(s, sc, plan);
    }
    return s.text;
}

} // namespace headroom::exportdetail
