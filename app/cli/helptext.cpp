// SPDX-License-Identifier: GPL-3.0-or-later
#include "helptext.h"

#include "core/shortdecimal.h"
#include "io/exporters.h"
#include "plan/defaultscenario.h"
#include "plan/ladder.h"

#include <algorithm>
#include <sstream>

namespace headroom::cli {

namespace {

std::string count(std::uint64_t n) { return std::to_string(n); }

std::string real(double x) { return shortDecimal(x); }

std::string onOff(bool on) { return on ? "on" : "off"; }

bool train(const Scenario& s) { return s.mode == Mode::Train; }
bool peft(const Scenario& s) { return train(s) && s.train.peft.method != PeftMethod::None; }

std::string joined(const std::vector<std::string>& items, const char* separator)
{
    std::string out;
    for (const std::string& item : items)
        out += (out.empty() ? "" : separator) + item;
    return out;
}

std::string joined(const std::vector<TechniqueId>& ids, const char* separator)
{
    std::vector<std::string> names;
    for (TechniqueId id : ids)
        names.emplace_back(techniqueName(id));
    return joined(names, separator);
}

// Getters of the scenario settings: "" where the setting does not apply.
std::string getModel(const Scenario& s) { return s.model.id; }
std::string getHead(const Scenario& s) { return modelHeadName(s.model.head); }
std::string getNumLabels(const Scenario& s) { return s.model.classifier() ? count(s.model.numLabels) : ""; }
std::string getMode(const Scenario& s) { return modeName(s.mode); }
std::string getProfile(const Scenario& s) { return profileName(s.profile); }
std::string getPrecision(const Scenario& s)
{
    return precisionName(train(s) ? s.train.precision : s.inference.precision);
}
std::string getWeightQuant(const Scenario& s)
{
    return weightQuantName(train(s) ? s.train.weightQuant : s.inference.weightQuant);
}
std::string getOptimizer(const Scenario& s) { return train(s) ? optimizerName(s.train.optimizer) : ""; }
std::string getOptimizerImpl(const Scenario& s) { return train(s) ? optimizerImplName(s.train.optimizerImpl) : ""; }
std::string getGaloreRank(const Scenario& s)
{
    return train(s) && s.train.optimizer == Optimizer::Galore ? count(s.train.galoreRank) : "";
}
std::string getOptimizerInBackward(const Scenario& s) { return train(s) ? onOff(s.train.optimizerInBackward) : ""; }
std::string getPeft(const Scenario& s) { return train(s) ? peftMethodName(s.train.peft.method) : ""; }
std::string getLoraRank(const Scenario& s) { return peft(s) ? count(s.train.peft.rank) : ""; }
std::string getLoraAlpha(const Scenario& s) { return peft(s) ? real(s.train.peft.alpha) : ""; }
std::string getLoraDropout(const Scenario& s) { return peft(s) ? real(s.train.peft.dropout) : ""; }
std::string getLoraTargets(const Scenario& s)
{
    if (!peft(s))
        return "";
    return s.train.peft.targets.empty() ? "PEFT's default" : joined(s.train.peft.targets, ",");
}
std::string getMicroBatch(const Scenario& s) { return train(s) ? count(s.train.microBatch) : ""; }
std::string getSeqLen(const Scenario& s) { return train(s) ? count(s.train.seqLen) : ""; }
std::string getGradAccum(const Scenario& s) { return train(s) ? count(s.train.gradAccum) : ""; }
std::string getCheckpointing(const Scenario& s) { return train(s) ? checkpointingName(s.train.checkpointing) : ""; }
std::string getCheckpointEvery(const Scenario& s)
{
    return train(s) && s.train.checkpointing == Checkpointing::EveryK ? count(s.train.checkpointEvery) : "";
}
std::string getAttention(const Scenario& s) { return attentionName(train(s) ? s.train.attention : s.inference.attention); }
std::string getChunkedCe(const Scenario& s) { return train(s) ? onOff(s.train.chunkedCrossEntropy) : ""; }
std::string getLossChunks(const Scenario& s)
{
    return train(s) && s.train.chunkedCrossEntropy ? count(s.train.lossChunks) : "";
}
std::string getActivationOffload(const Scenario& s) { return train(s) ? onOff(s.train.activationOffload) : ""; }
std::string getCompile(const Scenario& s) { return train(s) ? onOff(s.train.compileLayers) : ""; }
std::string getLoop(const Scenario& s) { return train(s) ? trainingLoopName(s.train.loop) : ""; }
std::string getUseCache(const Scenario& s) { return train(s) ? useCacheName(s.train.useCache) : ""; }
std::string getGpu(const Scenario& s) { return s.hardware.gpu; }
std::string getGpus(const Scenario& s) { return count(s.hardware.count); }
std::string getSharding(const Scenario& s) { return shardingName(s.hardware.sharding); }
std::string getCpuOffload(const Scenario& s) { return onOff(s.hardware.cpuOffload); }
std::string getTp(const Scenario& s) { return count(s.hardware.parallel.tp); }
std::string getPp(const Scenario& s) { return count(s.hardware.parallel.pp); }
std::string getSp(const Scenario& s) { return onOff(s.hardware.parallel.sp); }
std::string getVpp(const Scenario& s) { return count(s.hardware.parallel.vpp); }
std::string getPpSchedule(const Scenario& s) { return pipelineScheduleName(s.hardware.parallel.ppSchedule); }
std::string getPpSplit(const Scenario& s) { return pipelineSplitName(s.hardware.parallel.ppSplit); }
std::string getCp(const Scenario& s) { return count(s.hardware.parallel.cp); }
std::string getEp(const Scenario& s) { return count(s.hardware.parallel.ep); }
std::string getEtp(const Scenario& s) { return count(s.hardware.parallel.expertTensorParallel()); }
std::string getMoeCapacityFactor(const Scenario& s)
{
    return train(s) && s.train.moe.capacityFactor > 0.0 ? real(s.train.moe.capacityFactor) : "";
}
std::string getMoePadToCapacity(const Scenario& s) { return train(s) ? onOff(s.train.moe.padToCapacity) : ""; }
std::string getMoeImbalance(const Scenario& s) { return train(s) ? real(s.train.moe.imbalance) : ""; }
std::string getDpReplicate(const Scenario& s) { return count(s.hardware.parallel.dpReplicate); }
std::string getCompileLoss(const Scenario& s) { return train(s) ? onOff(s.train.compileLoss) : ""; }
std::string getFloat8AllGather(const Scenario& s) { return onOff(s.train.float8AllGather); }
std::string getAsyncTp(const Scenario& s) { return onOff(s.hardware.parallel.asyncTp); }
std::string getPpReturnOutputs(const Scenario& s) { return onOff(s.hardware.parallel.ppReturnOutputs); }
std::string getGlobalBatch(const Scenario& s)
{
    return train(s) && s.train.globalBatch != 0 ? count(s.train.globalBatch) : "";
}
std::string getBatch(const Scenario& s) { return train(s) ? "" : count(s.inference.batch); }
std::string getPromptTokens(const Scenario& s) { return train(s) ? "" : count(s.inference.promptTokens); }
std::string getNewTokens(const Scenario& s) { return train(s) ? "" : count(s.inference.newTokens); }
std::string getKvCacheDtype(const Scenario& s) { return train(s) ? "" : kvCacheDtypeName(s.inference.kvCacheDtype); }

// Inference getters read the inference settings whatever the mode: for the
// defaults in the help (the built-in scenario trains).
std::string defaultOf(const ScenarioOptionHelp& o, const Scenario& builtIn)
{
    if (!o.fixedDefault.empty())
        return o.fixedDefault;
    if (!o.get)
        return "";
    std::string value = o.get(builtIn);
    if (value.empty()) {
        // Not in use by the built-in scenario (an inference option, GaLore's
        // rank...): the value it keeps for when it is.
        Scenario s = builtIn;
        s.mode = o.group.rfind("Inference", 0) == 0 ? Mode::Inference : Mode::Train;
        s.train.optimizer = o.setting == "galore-rank" ? Optimizer::Galore : s.train.optimizer;
        s.train.checkpointing = o.setting == "checkpoint-every" ? Checkpointing::EveryK : s.train.checkpointing;
        s.train.chunkedCrossEntropy = s.train.chunkedCrossEntropy || o.setting == "loss-chunks";
        value = o.get(s);
    }
    if (o.setting == "precision" || o.setting == "attention") {
        // Two settings under one option: the training one and the inference one.
        Scenario s = builtIn;
        s.mode = Mode::Inference;
        value += ", inference " + o.get(s);
    }
    return value;
}

// Wraps `text` to `width` columns, continuation lines indented by `indent`.
std::string wrap(const std::string& text, std::size_t indent, std::size_t first, std::size_t width = 79)
{
    std::istringstream words(text);
    std::string out, word;
    std::size_t column = first;
    bool lineStart = true;
    while (words >> word) {
        if (!lineStart && column + 1 + word.size() > width) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
            lineStart = true;
        }
        if (!lineStart) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        lineStart = false;
    }
    return out;
}

constexpr std::size_t kOptionColumn = 28;

std::string optionLine(const OptionHelp& o, const std::string& text)
{
    std::string head = "  --" + o.name + (o.value.empty() ? "" : " " + o.value);
    if (head.size() + 2 > kOptionColumn)
        head += "\n" + std::string(kOptionColumn, ' ');
    else
        head.append(kOptionColumn - head.size(), ' ');
    return head + wrap(text, kOptionColumn, kOptionColumn) + "\n";
}

const char* kExitStatus = "Exit status:\n"
                          "  0  done\n"
                          "  2  bad input or usage: one line on stderr, \"headroom-cli: CODE: DETAIL\"\n"
                          "  3  validate, devices: no CUDA engine in this build, or no CUDA device\n"
                          "  4  internal error (a bug): one line on stderr\n";

} // namespace

const std::vector<ScenarioOptionHelp>& scenarioOptionTable()
{
    static const std::vector<ScenarioOptionHelp> table = [] {
        std::vector<ScenarioOptionHelp> t;
        std::string group;
        const auto add = [&](std::string name, std::string value, std::string text, std::string setting,
                             std::string (*get)(const Scenario&), std::string fixedDefault = "") {
            t.push_back({{std::move(name), std::move(value), std::move(text)}, group, std::move(setting), get,
                         std::move(fixedDefault)});
        };
        group = "Scenario";
        add("scenario", "FILE",
            "start from a headroom.scenario/1 JSON file (as export and the app write) instead of the built-in "
            "scenario; the options below override it",
            "", nullptr);
        group = "Model (one of --model, --config, --model-dir, --size)";
        add("model", "ID",
            "a preset by Hugging Face id (see headroom-cli models); any other ORG/NAME[@REVISION] is read from the "
            "Hugging Face Hub: config.json and the safetensors headers, never the weights (HF_ENDPOINT, HF_TOKEN, "
            "HF_HOME, HF_HUB_OFFLINE; man headroom-cli)",
            "model", getModel);
        add("config", "FILE", "a Hugging Face config.json", "model", nullptr, "-");
        add("model-dir", "DIR", "a local model folder: its config.json and safetensors headers", "model", nullptr, "-");
        add("size", "SIZE", "a generic Llama-like model of that size, e.g. 350M, 13B (approximate)", "model", nullptr,
            "-");
        add("head", "HEAD", "language-model or sequence-classification (BERT only)", "head", getHead,
            "the model's own");
        add("num-labels", "N", "classifier outputs, with --head sequence-classification", "num-labels", getNumLabels,
            "2");
        group = "Mode and profile";
        add("mode", "MODE", "train or inference", "mode", getMode);
        add("profile", "NAME", "the runtime predicted: pytorch (eager, caching allocator) or headroom (its own engine)",
            "profile", getProfile);
        group = "Precision and optimizer";
        add("precision", "NAME",
            "fp32, fp16-mixed, bf16-mixed, bf16, fp16 or fp8-mixed (torchao Float8Linear under fsdp2); inference: the weight dtype, fp32, fp16 or bf16",
            "precision", getPrecision);
        add("weight-quant", "NAME", "frozen base weights: none, int8, nf4 or nf4-dq (NF4, double quantization)",
            "weight-quant", getWeightQuant);
        add("optimizer", "NAME",
            "sgd, sgd-momentum, adamw, adamw-8bit, paged-adamw-8bit, lion, adafactor, lomo, adalomo or galore",
            "optimizer", getOptimizer);
        add("optimizer-impl", "NAME",
            "torch.optim's step for adamw and sgd: foreach (PyTorch's default), fused (optim=\"adamw_torch_fused\"; "
            "torchtitan's default) or for-loop",
            "optimizer-impl", getOptimizerImpl);
        add("galore-rank", "N", "GaLore's projection rank", "galore-rank", getGaloreRank);
        add("optimizer-in-backward", "", "step each parameter in backward and free its gradient at once",
            "optimizer-in-backward", getOptimizerInBackward);
        group = "LoRA and QLoRA";
        add("peft", "METHOD",
            "none, lora or qlora; qlora sets --weight-quant nf4 (unless one is set), lora and none set it to none "
            "(unless given)",
            "peft", getPeft);
        add("lora-rank", "N", "adapter rank", "lora-rank", getLoraRank);
        add("lora-alpha", "X", "adapter scaling (no effect on memory)", "lora-alpha", getLoraAlpha);
        add("lora-dropout", "X", "in [0, 1); above 0 saves a dropout mask per adapter", "lora-dropout", getLoraDropout);
        add("lora-targets", "NAMES", "comma-separated module names (q_proj,v_proj) or all-linear", "lora-targets",
            getLoraTargets);
        group = "Batch, sequence and activations";
        add("micro-batch", "N", "sequences per forward pass", "micro-batch", getMicroBatch);
        add("seq-len", "N", "tokens per sequence", "seq-len", getSeqLen);
        add("grad-accum", "N", "gradient accumulation steps", "grad-accum", getGradAccum);
        add("checkpointing", "MODE", "gradient checkpointing: none, full, every-k or selective-op (torchtitan's op-level policy)", "checkpointing",
            getCheckpointing);
        add("checkpoint-every", "K", "checkpoint one layer in K (implies --checkpointing every-k)", "checkpoint-every",
            getCheckpointEvery);
        add("attention", "NAME", "eager, sdpa or flash", "attention", getAttention);
        add("chunked-ce", "", "compute the loss over chunks of the logits", "chunked-ce", getChunkedCe);
        add("loss-chunks", "N", "number of loss chunks, with --chunked-ce", "loss-chunks", getLossChunks);
        add("activation-offload", "", "move saved activations to CPU memory", "activation-offload",
            getActivationOffload);
        add("compile", "", "torch.compile each decoder layer, as torchtitan does (Llama layout, full or selective-op checkpointing)",
            "compile", getCompile);
        add("compile-loss", "",
            "torch.compile the loss function, as torchtitan does since mid-2025 (compile components \"loss\")",
            "compile-loss", getCompileLoss);
        add("float8-all-gather", "",
            "with --precision fp8-mixed and --sharding fsdp2: FSDP2 all-gathers the "
            "Float8Linear weights in float8 (torchtitan's float8.enable_fsdp_float8_all_gather)",
            "float8-all-gather", getFloat8AllGather);
        add("loop", "NAME", "trainer or custom (custom keeps outputs and logits until the next step)", "loop", getLoop);
        add("use-cache", "WHEN", "transformers' use_cache in training: config, on or off", "use-cache", getUseCache);
        group = "Hardware";
        add("gpu", "ID", "a GPU by catalog id (see headroom-cli gpus)", "gpu", getGpu);
        add("gpus", "N", "number of GPUs", "gpus", getGpus);
        add("sharding", "NAME", "none, ddp, zero1, zero2, zero3, fsdp or fsdp2", "sharding", getSharding);
        add("cpu-offload", "", "optimizer state and fp32 master weights (zero3: parameters too) in CPU memory",
            "cpu-offload", getCpuOffload);
        add("tp", "N",
            "tensor-parallel degree (Megatron-style splits; GPUs / (tp x pp x cp) is the data-parallel degree)", "tp",
            getTp);
        add("sp", "", "sequence parallelism over the tensor-parallel ranks", "sp", getSp);
        add("pp", "N", "pipeline stages", "pp", getPp);
        add("pp-schedule", "NAME", "pipeline schedule: 1f1b or gpipe", "pp-schedule", getPpSchedule);
        add("pp-split", "NAME",
            "layers over the stages: layers (the layers alone) or weighted (the embedding and the output each count "
            "as a layer, torchtitan since 2025; needs --sharding fsdp2)",
            "pp-split", getPpSplit);
        add("vpp", "N",
            "model chunks per pipeline rank; above 1, interleaved 1F1B (grad-accum micro-batches must divide by pp)",
            "vpp", getVpp);
        add("cp", "N",
            "context-parallel degree (torchtitan's ring attention, seq / cp tokens per GPU; needs --sharding fsdp2)",
            "cp", getCp);
        add("ep", "N",
            "expert-parallel degree: each MoE layer's routed experts split over N data-parallel GPUs "
            "(Megatron-LM's expert parallelism with --sharding ddp or zero1; torchtitan's with fsdp2)",
            "ep", getEp);
        add("etp", "N",
            "expert tensor-parallel degree: each routed expert's linears split over N GPUs (Megatron-LM's "
            "expert_tensor_parallel_size; default: the --tp degree)",
            "etp", getEtp);
        add("dp-replicate", "N",
            "HSDP: the data-parallel GPUs form N replicate groups, FSDP2 sharding within each (needs --sharding fsdp2)",
            "dp-replicate", getDpReplicate);
        add("async-tp", "",
            "torchtitan's AsyncTP: all-gathers and reduce-scatters fused with their matmuls over a "
            "symmetric-memory workspace (needs --tp, --sharding fsdp2 and --compile)",
            "async-tp", getAsyncTp);
        add("pp-return-outputs", "",
            "the pipeline schedule returns the last stage's outputs: it keeps every micro-batch's logits to the end of "
            "the step (torch's step() default; torchtitan before October 2025; needs --pp and --sharding fsdp2)",
            "pp-return-outputs", getPpReturnOutputs);
        add("global-batch", "N", "sequences per step; must equal micro-batch x grad-accum x data-parallel degree",
            "global-batch", getGlobalBatch);
        add("moe-capacity-factor", "X",
            "mixture of experts: each expert takes at most X times its even share of token slots and drops the rest "
            "(Megatron-LM's moe_expert_capacity_factor; needs --tp, --pp or --ep above 1)",
            "moe-capacity-factor", getMoeCapacityFactor);
        add("moe-pad-to-capacity", "", "pad every expert's input to its capacity (moe_pad_expert_input_to_capacity)",
            "moe-pad-to-capacity", getMoePadToCapacity);
        add("moe-imbalance", "X",
            "plan for uneven routing: the busiest expert-parallel GPU receives X times the even share of token slots "
            "(default 1)",
            "moe-imbalance", getMoeImbalance);
        group = "Inference (with --mode inference)";
        add("batch", "N", "sequences generated together", "batch", getBatch);
        add("prompt-tokens", "N", "prompt length", "prompt-tokens", getPromptTokens);
        add("new-tokens", "N", "tokens generated per sequence", "new-tokens", getNewTokens);
        add("kv-cache-dtype", "NAME", "KV cache storage: fp32, fp16, bf16, fp8 or int8", "kv-cache-dtype",
            getKvCacheDtype);
        return t;
    }();
    return table;
}

const std::vector<CommandHelp>& commandTable()
{
    static const std::vector<CommandHelp> table = [] {
        std::vector<std::string> formats;
        for (ExportFormat f : allExportFormats())
            formats.push_back(exportFormatName(f));
        const OptionHelp json{"json", "", "print JSON instead of text"};
        return std::vector<CommandHelp>{
            {"plan",
             "[scenario options] [--tensors] [--json [--timeline]] [--allocator-trace FILE]",
             "predict GPU memory for one training (or inference) step",
             "Predicts the peak GPU memory of one step: the event it occurs at, the breakdown by category, peak "
             "allocated, peak reserved, device used (as nvidia-smi shows it) and whether it fits. Names the "
             "settings your options changed and those that still come from the scenario.",
             true,
             {{"tensors", "", "also list every tensor: size, lifetime and the source of its formula"},
              json,
              {"timeline", "", "with --json: memory at every event"},
              {"allocator-trace", "FILE",
               "also write the allocations and frees the reserved figure is simulated on (two steps), in "
               "headroom-cli replay's format, each event and row named in a comment"}},
             "headroom-cli plan --model Qwen/Qwen2.5-7B --peft lora --micro-batch 4 --gpu a100-80gb"},
            {"fit",
             "[scenario options] [--models] [--json]",
             "largest micro-batch and longest sequence that fit; --models: largest model per technique",
             "Searches the largest micro-batch (inference: batch) and the longest sequence (inference: prompt) that "
             "fit on the GPU, the other settings unchanged.",
             true,
             {{"models", "", "also the largest preset and generic model that fit under each technique"}, json},
             "headroom-cli fit --model meta-llama/Llama-3.1-8B --peft lora --gpu rtx-4090"},
            {"suggest",
             "[scenario options] [--json]",
             "make it fit: the cheapest changes (by estimated speed cost) that fit the GPU",
             "Tries changes and combinations of up to three (checkpointing, quantization, optimizer, batch...) and "
             "lists those that make the scenario fit, cheapest in estimated step time first.",
             true,
             {json},
             "headroom-cli suggest --peft none --optimizer adamw --gpu rtx-4090"},
            {"search",
             "[scenario options] [--gpus-per-node N] [--top N] [--json]",
             "the best tensor, pipeline and data-parallel layouts of the scenario's GPUs",
             "Enumerates the layouts of the scenario's GPUs for its model, sequence and global batch (tp within a "
             "node, with and without sequence parallelism; pp; dp the rest; ddp, zero1, zero2, zero3, fsdp2; "
             "micro-batches in powers of two, grad-accum the rest; checkpointing none, full or selective-op), plans "
             "each, drops those that do not fit and ranks the rest by an estimated step time: the matrix products "
             "at 60% of the GPU's dense bf16 peak (an assumption), tensor-parallel, pipeline and data-parallel "
             "communication over NVLink inside a node and InfiniBand between nodes, not overlapped, and the 1F1B "
             "bubble. Prints the best with memory, step time, tokens/s per GPU, MFU and bubble, and why the best "
             "beats the runner-up. The global batch is --global-batch, or micro-batch x grad-accum x GPUs when "
             "none is given; the scenario's own tp, pp, sharding, micro-batch, grad-accum and checkpointing are "
             "replaced. Assumptions and sources: docs/planner.md, \"Layout search\".",
             true,
             {{"gpus-per-node", "N", "GPUs per node (default 8, and the output says it was assumed)"},
              {"top", "N", "how many of the best to show, each re-planned with the allocator simulation (default 5; "
                           "with --json 20; 0: every layout that fits)"},
              json},
             "headroom-cli search --model meta-llama/Llama-3.1-70B --peft none --precision bf16-mixed --optimizer "
             "adamw --seq-len 4096 --gpu h100-sxm-80gb --gpus 64 --global-batch 256"},
            {"ladder",
             "[scenario options] [--steps IDS] [--json]",
             "the same scenario with techniques applied one after another",
             "Applies techniques to the scenario one after another; each row shows device memory, whether it fits "
             "and the saving against the row before.",
             true,
             {{"steps", "IDS",
               "comma-separated, applied in order (default " + joined(defaultLadder(), ",") +
                   "); steps: " + joined(ladderSteps(), ", ")},
              json},
             "headroom-cli ladder --model meta-llama/Llama-3.1-8B --peft none --steps bf16-mixed,checkpointing,lora"},
            {"models",
             "[--json]",
             "the preset model catalog",
             "Lists the preset models: id, model type, parameters and layers.",
             false,
             {json},
             "headroom-cli models --json"},
            {"gpus",
             "[--json]",
             "the GPU catalog",
             "Lists the GPUs: id, name, memory CUDA can allocate, compute capability, bf16 and fp8 support.",
             false,
             {json},
             "headroom-cli gpus"},
            {"bench",
             "[--model ID] [--json]",
             "planner speed on an 80-layer model",
             "Times the planner on one thread: a full plan, a plan reusing the parameter table, the allocator "
             "simulation and both fit searches, for QLoRA of the model on one 80 GB H100. The scenario options do "
             "not apply.",
             false,
             {{"model", "ID", "the preset to time (default meta-llama/Llama-3.1-70B)"}, json},
             "headroom-cli bench --json"},
            {"validate",
             "[scenario options] [--backend cpu|cuda] [--device N] [--steps N] [--max-layers N] [--json] "
             "[--progress] [--trace FILE] [--timeout-s N] [--inject-fault crash|hang|oom]",
             "run the training step on a backend and compare with the plan",
             "Runs the scenario's training step on Headroom's own engine and puts the memory it measures beside the "
             "plan (the headroom profile). Exit 3 when --backend cuda cannot run here.",
             true,
             {{"backend", "NAME", "cpu or cuda (default: cuda when this build has it and a device answers, else cpu)"},
              {"device", "N", "CUDA device index (default 0)"},
              {"steps", "N", "training steps, 1 to 1000 (default 3)"},
              {"max-layers", "N", "run at most N layers and extrapolate per layer (default: as needed)"},
              json,
              {"progress", "", "progress lines on stderr, as JSON (the desktop app reads them)"},
              {"trace", "FILE", "also write a Chrome trace of the run"},
              {"timeout-s", "N", "give up after N seconds (default: none)"},
              {"inject-fault", "KIND", "crash, hang or oom: for testing the desktop app"}},
             "headroom-cli validate --scenario small.headroom.json --backend cpu --steps 2"},
            {"devices",
             "[--json] [--measure-context]",
             "the CUDA devices of this build's engine; exit 3 if none",
             "Lists the CUDA devices this build's engine can use, with driver and runtime versions. Exit 3, with one "
             "line on stderr, when the build has no CUDA engine or no device answers.",
             false,
             {json, {"measure-context", "", "also measure the CUDA context on device 0 (needs NVML)"}},
             "headroom-cli devices --json"},
            {"replay",
             "TRACE [--json] [--expandable-segments] [--max-split-size-mb N] [--gpu ID]",
             "an allocation trace through the caching allocator simulation",
             "Runs an allocation trace (lines 'a <id> <bytes>' and 'f <id>') through the simulation of PyTorch's "
             "caching allocator that the planner uses, and prints peak allocated and peak reserved.",
             false,
             {json,
              {"expandable-segments", "", "simulate expandable_segments:True"},
              {"max-split-size-mb", "N", "simulate max_split_size_mb (default: no limit)"},
              {"gpu", "ID", "at that card's capacity less the CUDA context, as plans are (default: no limit)"}},
             "headroom-cli replay step.trace --gpu rtx-4090"},
            {"teach",
             "[SET] [--json] [--scenario ID]",
             "a book's memory experiments beside Headroom's plan, with the error and why",
             "Prints each experiment of the teaching set SET (default seed-book: polyglot-ko-1.3b on a T4) with the "
             "book's measured value, Headroom's on the same counter, the error and why they differ.",
             false,
             {json, {"scenario", "ID", "print that experiment's scenario file instead (for plan --scenario)"}},
             "headroom-cli teach seed-book"},
            {"compare",
             "MEASUREMENT [scenario options] [--json]",
             "a measured run (headroom.measurement/1) beside the plan, per counter with the error",
             "Reads a measurement file, as the hf-python export's script writes after training on your GPU, and "
             "puts peak allocated, peak reserved and device used beside the plan of the scenario it ran (the one "
             "the file holds, or --scenario FILE), with the error: (planned - measured) / measured. A run on the CPU "
             "(the script's smoke test without a GPU) has no CUDA counters: the plan's are shown alone.",
             true,
             {json},
             "headroom-cli compare headroom_measurement.json"},
            {"export",
             "--format NAME [scenario options] [--output FILE]",
             "the scenario and its plan as a training script, config or report",
             "Writes the scenario and its plan in another format, to stdout or atomically to a file.",
             true,
             {{"format", "NAME", "required: " + joined(formats, ", ")},
              {"output", "FILE", "write to FILE instead of stdout"}},
             "headroom-cli export --model meta-llama/Llama-3.1-8B --format deepspeed-json --output ds.json"},
        };
    }();
    return table;
}

const CommandHelp* findCommand(const std::string& name)
{
    for (const CommandHelp& c : commandTable())
        if (c.name == name)
            return &c;
    return nullptr;
}

namespace {

// The command's option names that take a value (takesValue) or are flags.
std::vector<std::string> commandOptions(const std::string& command, bool takesValue)
{
    std::vector<std::string> names;
    const CommandHelp* c = findCommand(command);
    if (!c)
        return names;
    if (c->scenario)
        for (const ScenarioOptionHelp& o : scenarioOptionTable())
            if (o.option.value.empty() != takesValue)
                names.push_back(o.option.name);
    for (const OptionHelp& o : c->options)
        if (o.value.empty() != takesValue)
            names.push_back(o.name);
    return names;
}

} // namespace

std::vector<std::string> commandValueOptions(const std::string& command) { return commandOptions(command, true); }
std::vector<std::string> commandFlagOptions(const std::string& command) { return commandOptions(command, false); }

std::string overviewHelp()
{
    std::ostringstream out;
    out << "usage: headroom-cli COMMAND [options]\n"
           "       headroom-cli COMMAND --help      (or: headroom-cli help COMMAND)\n"
           "       headroom-cli --version\n\nCommands:\n";
    for (const CommandHelp& c : commandTable()) {
        std::string name = "  " + c.name;
        name.append(12 - name.size(), ' ');
        out << name << wrap(c.summary, 12, 12) << "\n";
    }
    std::vector<std::string> names;
    for (const ScenarioOptionHelp& o : scenarioOptionTable())
        names.push_back("--" + o.option.name);
    out << "\nScenario options (plan, fit, suggest, search, ladder, validate, export,\n"
           "compare): the built-in scenario (Llama 3.1 8B QLoRA on an RTX 4090) or\n"
           "--scenario FILE, these on top:\n  "
        << wrap(joined(names, " "), 2, 2) << "\n"
        << "Options and defaults per command: headroom-cli COMMAND --help; man headroom-cli\n\n"
        << kExitStatus;
    return out.str();
}

std::string commandHelp(const CommandHelp& c)
{
    std::ostringstream out;
    out << "usage: headroom-cli " << c.name << " " << wrap(c.synopsis, 8, 21 + c.name.size()) << "\n\n"
        << wrap(c.description, 0, 0) << "\n";
    if (!c.options.empty()) {
        out << "\nOptions:\n";
        for (const OptionHelp& o : c.options)
            out << optionLine(o, o.text);
    }
    if (c.scenario) {
        auto builtIn = teachingScenario();
        out << "\nScenario options (shared by plan, fit, suggest, search, ladder, validate,\n"
               "export, compare): the defaults are the built-in scenario's, or with\n"
               "--scenario FILE the file's.\n";
        std::string group;
        for (const ScenarioOptionHelp& o : scenarioOptionTable()) {
            if (o.group != group) {
                group = o.group;
                out << group << ":\n";
            }
            const std::string value = builtIn ? defaultOf(o, builtIn.value()) : std::string();
            out << optionLine(o.option, o.option.text + (value.empty() || value == "-" ? "" : "; default " + value));
        }
    }
    out << "\nExample:\n  " << c.example << "\n\nExit status: 0 done, 2 bad input";
    if (c.name == "validate" || c.name == "devices")
        out << ", 3 no CUDA engine or device";
    out << ", 4 internal error.\n";
    return out.str();
}

bool asksForHelp(const std::vector<std::string>& args)
{
    return std::any_of(args.begin(), args.end(), [](const std::string& a) { return a == "--help" || a == "-h"; });
}

} // namespace headroom::cli
