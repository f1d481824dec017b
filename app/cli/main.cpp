// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli: the planner from the command line.
#include "commands.h"

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

const char* kUsage = R"(usage: headroom-cli COMMAND [options]

Commands:
  plan     predict GPU memory for one training (or inference) step
  fit      largest micro-batch and longest sequence that fit; --models: largest model per technique
  suggest  make it fit: the cheapest changes (by estimated speed cost) that fit the GPU
  ladder   the same scenario with techniques applied one after another (--steps a,b,c)
  models   the preset catalog
  gpus     the GPU catalog
  bench    planner speed on an 80-layer model
  validate run the training step on a backend (cuda when a device answers, else cpu) and compare with the plan
           [--backend cpu|cuda] [--device N] [--steps N] [--max-layers N] [--json] [--progress] [--trace FILE] [--timeout-s N]
           [--inject-fault crash|hang|oom]
  devices  CUDA devices of this build's engine (--json, --measure-context); exit 3 if none
  replay   TRACE: run an allocation trace ('a <id> <bytes>' / 'f <id>') through the caching allocator simulation
           [--json] [--expandable-segments] [--max-split-size-mb N] [--gpu ID: at that card's capacity, as plans are]
  teach    seed-book: the book's polyglot-ko-1.3b memory experiment beside Headroom's plan, with the error
           and why (--json; --scenario ID prints one experiment's scenario file)
  export   --format hf-python|deepspeed-json|accelerate-fsdp-yaml|markdown|csv|plan-json|scenario-json [--output FILE]

Scenario options (default: Llama 3.1 8B QLoRA on an RTX 4090):
  --scenario FILE        a headroom.scenario/1 JSON file; options below override it
  --model ID | --config config.json | --model-dir DIR | --size 13B
  --head language-model|sequence-classification --num-labels N   (BERT: BertForMaskedLM or BertForSequenceClassification)
  --mode train|inference --profile pytorch|headroom
  --precision fp32|fp16-mixed|bf16-mixed|bf16|fp16|fp8-mixed  --weight-quant none|int8|nf4|nf4-dq
  --optimizer sgd|sgd-momentum|adamw|adamw-8bit|paged-adamw-8bit|lion|adafactor|lomo|adalomo|galore
  --peft none|lora|qlora --lora-rank N --lora-alpha X --lora-dropout X --lora-targets q_proj,v_proj|all-linear
  --micro-batch N --seq-len N --grad-accum N --checkpointing none|full|every-k --checkpoint-every K
  --attention eager|sdpa|flash --chunked-ce --loss-chunks N --optimizer-in-backward --activation-offload
  --loop trainer|custom (custom: outputs/logits kept until the next step) --use-cache config|on|off
  --gpu ID --gpus N --sharding none|ddp|zero1|zero2|zero3|fsdp --cpu-offload
  --batch N --prompt-tokens N --new-tokens N --kv-cache-dtype fp32|fp16|bf16|fp8|int8   (inference)
Output: --json (machine-readable); plan: --tensors, --timeline

Exit status: 0 done, 2 bad input (one line on stderr).
)";

} // namespace

int main(int argc, char** argv)
{
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            std::cout << kUsage;
            return args.empty() ? 2 : 0;
        }
        if (args[0] == "--version") {
            std::cout << "headroom-cli " << HEADROOM_VERSION << "\n";
            return 0;
        }
        const std::string command = args[0];
        args.erase(args.begin());
        using namespace headroom::cli;
        if (command == "plan") return runPlan(args);
        if (command == "fit") return runFit(args);
        if (command == "ladder") return runLadder(args);
        if (command == "models") return runModels(args);
        if (command == "gpus") return runGpus(args);
        if (command == "bench") return runBench(args);
        if (command == "export") return runExport(args);
        if (command == "validate") return runValidate(args);
        if (command == "suggest") return runSuggest(args);
        if (command == "devices") return runDevices(args);
        if (command == "replay") return runReplay(args);
        if (command == "teach") return runTeach(args);
        std::cerr << "headroom-cli: invalid-argument: unknown command '" << command << "' (see --help)\n";
        return 2;
    } catch (const std::exception& e) {
        // Not expected: every input error is a Result. Still never a crash.
        std::cerr << "headroom-cli: internal-error: " << e.what() << "\n";
        return 3;
    }
}
