// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One table of the techniques that the technique ladder (ladder.h) and
// "make it fit" (makeitfit.h) apply to a scenario: an enum id, the stable
// name files and the CLI use ("checkpointing"), the option it sets (a
// combination takes at most one technique per group), and what it changes.
// Code compares ids, never names; the UI turns ids into translated text.
#include "plan/scenario.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace headroom {

enum class TechniqueId : std::uint8_t {
    NaiveFp16,       // the ladder's start: full fine-tune, fp16 mixed, AdamW, eager, nothing saved
    Fp32,            // precision fp32
    Fp16Mixed,       // precision fp16 mixed
    Bf16Mixed,       // precision bf16 mixed
    Bf16,            // pure bf16 weights, gradients and optimizer states
    Checkpointing,   // every layer
    CheckpointEvery, // one layer in `value`
    Flash,           // FlashAttention
    Sdpa,            // torch scaled_dot_product_attention
    ChunkedCe,       // chunked cross-entropy
    AdamW8bit,
    PagedAdamW8bit,
    Lion,
    Adafactor,
    Lomo,
    Lora,        // r16, alpha 32, all linear layers
    Qlora,       // the same over an NF4 double-quantized base
    MicroBatch1, // micro-batch 1, accumulation keeps the effective batch
    MicroBatch,  // micro-batch `value`, accumulation keeps the effective batch
    Zero2,
    Zero3,
    CpuOffload,        // optimizer (and the step) on the CPU
    ActivationOffload, // saved activations in CPU memory
    Sequence,          // training sequence length `value`
    KvFp8,             // inference: fp8 KV cache
    Int8Weights,       // inference: LLM.int8 weights
    Nf4Weights,        // inference: NF4 weights
    Batch,             // inference batch `value`
    Prompt,            // inference prompt length `value`
};

// The option a technique sets: two techniques of one group do not combine.
enum class TechniqueGroup : std::uint8_t {
    Baseline,
    Precision,
    Checkpointing,
    Attention,
    Loss,
    Optimizer,
    Peft,
    MicroBatch,
    Sharding,
    OptimizerOffload,
    ActivationOffload,
    Sequence,
    KvCache,
    Weights,
    Batch,
};

const char* techniqueName(TechniqueId id); // "checkpointing"
TechniqueGroup techniqueGroup(TechniqueId id);
std::optional<TechniqueId> parseTechnique(std::string_view name);
const std::vector<TechniqueId>& allTechniques(); // in enum order

// `scenario` with technique `id` applied; `value` is its parameter where it
// has one (CheckpointEvery, MicroBatch, Sequence, Batch, Prompt).
void useTechnique(Scenario& scenario, TechniqueId id, std::uint64_t value = 0);

} // namespace headroom
