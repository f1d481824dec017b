// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/techniques.h"

#include <array>

namespace headroom {

namespace {

struct Entry {
    TechniqueId id;
    const char* name;
    TechniqueGroup group;
};

// One row per enum value, in enum order (checked by test_planner).
constexpr std::array<Entry, 29> kTable{{
    {TechniqueId::NaiveFp16, "naive-fp16", TechniqueGroup::Baseline},
    {TechniqueId::Fp32, "fp32", TechniqueGroup::Precision},
    {TechniqueId::Fp16Mixed, "fp16-mixed", TechniqueGroup::Precision},
    {TechniqueId::Bf16Mixed, "bf16-mixed", TechniqueGroup::Precision},
    {TechniqueId::Bf16, "bf16", TechniqueGroup::Precision},
    {TechniqueId::Checkpointing, "checkpointing", TechniqueGroup::Checkpointing},
    {TechniqueId::CheckpointEvery, "checkpoint-every", TechniqueGroup::Checkpointing},
    {TechniqueId::Flash, "flash", TechniqueGroup::Attention},
    {TechniqueId::Sdpa, "sdpa", TechniqueGroup::Attention},
    {TechniqueId::ChunkedCe, "chunked-ce", TechniqueGroup::Loss},
    {TechniqueId::AdamW8bit, "adamw-8bit", TechniqueGroup::Optimizer},
    {TechniqueId::PagedAdamW8bit, "paged-adamw-8bit", TechniqueGroup::Optimizer},
    {TechniqueId::Lion, "lion", TechniqueGroup::Optimizer},
    {TechniqueId::Adafactor, "adafactor", TechniqueGroup::Optimizer},
    {TechniqueId::Lomo, "lomo", TechniqueGroup::Optimizer},
    {TechniqueId::Lora, "lora", TechniqueGroup::Peft},
    {TechniqueId::Qlora, "qlora", TechniqueGroup::Peft},
    {TechniqueId::MicroBatch1, "micro-batch-1", TechniqueGroup::MicroBatch},
    {TechniqueId::MicroBatch, "micro-batch", TechniqueGroup::MicroBatch},
    {TechniqueId::Zero2, "zero2", TechniqueGroup::Sharding},
    {TechniqueId::Zero3, "zero3", TechniqueGroup::Sharding},
    {TechniqueId::CpuOffload, "cpu-offload", TechniqueGroup::OptimizerOffload},
    {TechniqueId::ActivationOffload, "activation-offload", TechniqueGroup::ActivationOffload},
    {TechniqueId::Sequence, "sequence", TechniqueGroup::Sequence},
    {TechniqueId::KvFp8, "kv-fp8", TechniqueGroup::KvCache},
    {TechniqueId::Int8Weights, "int8-weights", TechniqueGroup::Weights},
    {TechniqueId::Nf4Weights, "nf4-weights", TechniqueGroup::Weights},
    {TechniqueId::Batch, "batch", TechniqueGroup::Batch},
    {TechniqueId::Prompt, "prompt", TechniqueGroup::Sequence},
}};

const Entry& entry(TechniqueId id) { return kTable[static_cast<std::size_t>(id)]; }

void useLora(TrainConfig& t, bool quantizedBase)
{
    // PEFT's usual recipe (r16, alpha 32, every linear layer), as the ladder
    // and make-it-fit both offer it; QLoRA over NF4 with double quantization
    // (Dettmers et al. 2023, arXiv:2305.14314 §3).
    t.peft.method = quantizedBase ? PeftMethod::Qlora : PeftMethod::Lora;
    t.peft.rank = 16;
    t.peft.alpha = 32;
    t.peft.targets = {"all-linear"};
    t.weightQuant = quantizedBase ? WeightQuant::Nf4DoubleQuant : WeightQuant::None;
}

} // namespace

const char* techniqueName(TechniqueId id) { return entry(id).name; }

TechniqueGroup techniqueGroup(TechniqueId id) { return entry(id).group; }

std::optional<TechniqueId> parseTechnique(std::string_view name)
{
    for (const Entry& e : kTable)
        if (name == e.name)
            return e.id;
    return std::nullopt;
}

const std::vector<TechniqueId>& allTechniques()
{
    static const std::vector<TechniqueId> all = [] {
        std::vector<TechniqueId> ids;
        for (const Entry& e : kTable)
            ids.push_back(e.id);
        return ids;
    }();
    return all;
}

void useTechnique(Scenario& s, TechniqueId id, std::uint64_t value)
{
    TrainConfig& t = s.train;
    switch (id) {
    case TechniqueId::NaiveFp16:
        s.mode = Mode::Train;
        t.precision = Precision::Fp16Mixed;
        t.optimizer = Optimizer::AdamW;
        t.peft = PeftConfig{};
        t.weightQuant = WeightQuant::None;
        t.attention = Attention::Eager;
        t.checkpointing = Checkpointing::None;
        t.chunkedCrossEntropy = false;
        t.optimizerInBackward = false;
        t.activationOffload = false;
        return;
    case TechniqueId::Fp32: t.precision = Precision::Fp32; return;
    case TechniqueId::Fp16Mixed: t.precision = Precision::Fp16Mixed; return;
    case TechniqueId::Bf16Mixed: t.precision = Precision::Bf16Mixed; return;
    case TechniqueId::Bf16: t.precision = Precision::Bf16; return;
    case TechniqueId::Checkpointing: t.checkpointing = Checkpointing::Full; return;
    case TechniqueId::CheckpointEvery:
        t.checkpointing = Checkpointing::EveryK;
        t.checkpointEvery = value;
        return;
    case TechniqueId::Flash: (s.mode == Mode::Train ? t.attention : s.inference.attention) = Attention::Flash; return;
    case TechniqueId::Sdpa: (s.mode == Mode::Train ? t.attention : s.inference.attention) = Attention::Sdpa; return;
    case TechniqueId::ChunkedCe: t.chunkedCrossEntropy = true; return;
    case TechniqueId::AdamW8bit: t.optimizer = Optimizer::AdamW8bit; return;
    case TechniqueId::PagedAdamW8bit: t.optimizer = Optimizer::PagedAdamW8bit; return;
    case TechniqueId::Lion: t.optimizer = Optimizer::Lion; return;
    case TechniqueId::Adafactor: t.optimizer = Optimizer::Adafactor; return;
    case TechniqueId::Lomo: t.optimizer = Optimizer::Lomo; return;
    case TechniqueId::Lora: useLora(t, false); return;
    case TechniqueId::Qlora: useLora(t, true); return;
    case TechniqueId::MicroBatch1:
        t.gradAccum = t.gradAccum * t.microBatch;
        t.microBatch = 1;
        return;
    case TechniqueId::MicroBatch:
        if (value > 0) {
            t.gradAccum *= t.microBatch / value;
            t.microBatch = value;
        }
        return;
    case TechniqueId::Zero2: s.hardware.sharding = Sharding::Zero2; return;
    case TechniqueId::Zero3: s.hardware.sharding = Sharding::Zero3; return;
    case TechniqueId::CpuOffload: s.hardware.cpuOffload = true; return;
    case TechniqueId::ActivationOffload: t.activationOffload = true; return;
    case TechniqueId::Sequence: t.seqLen = value; return;
    case TechniqueId::KvFp8: s.inference.kvCacheDtype = KvCacheDtype::Fp8; return;
    case TechniqueId::Int8Weights: s.inference.weightQuant = WeightQuant::Int8; return;
    case TechniqueId::Nf4Weights: s.inference.weightQuant = WeightQuant::Nf4; return;
    case TechniqueId::Batch: s.inference.batch = value; return;
    case TechniqueId::Prompt: s.inference.promptTokens = value; return;
    }
}

} // namespace headroom
