// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/ladder.h"

#include "plan/planner.h"

#include <algorithm>

namespace headroom {

const std::vector<TechniqueId>& ladderSteps()
{
    using T = TechniqueId;
    static const std::vector<TechniqueId> ids{
        T::NaiveFp16, T::Fp32, T::Fp16Mixed, T::Bf16Mixed, T::Bf16,           T::Checkpointing,
        T::Flash,     T::Sdpa, T::ChunkedCe, T::AdamW8bit, T::PagedAdamW8bit, T::Lion,
        T::Adafactor, T::Lomo, T::Lora,      T::Qlora,     T::MicroBatch1};
    return ids;
}

const std::vector<TechniqueId>& defaultLadder()
{
    // The exercise of the study notes: fp16 -> bf16 -> checkpointing -> flash
    // attention -> QLoRA, then a paged 8-bit optimizer.
    using T = TechniqueId;
    static const std::vector<TechniqueId> steps{T::NaiveFp16, T::Bf16Mixed, T::Checkpointing,
                                                T::Flash,     T::Qlora,     T::PagedAdamW8bit};
    return steps;
}

namespace {

// The step applied, and its label in the CLI's English.
std::string apply(Scenario& s, TechniqueId id)
{
    TrainConfig& t = s.train;
    s.mode = Mode::Train;
    useTechnique(s, id);
    const std::string name = techniqueName(id);
    switch (id) {
    case TechniqueId::NaiveFp16: return "full fine-tune, fp16 mixed, AdamW, eager attention";
    case TechniqueId::Fp32:
    case TechniqueId::Fp16Mixed:
    case TechniqueId::Bf16Mixed:
    case TechniqueId::Bf16: return "precision " + name;
    case TechniqueId::Checkpointing: return "+ gradient checkpointing";
    case TechniqueId::Flash: return "+ flash attention";
    case TechniqueId::Sdpa: return "+ SDPA attention";
    case TechniqueId::ChunkedCe: return "+ chunked cross-entropy";
    case TechniqueId::AdamW8bit:
    case TechniqueId::PagedAdamW8bit:
    case TechniqueId::Lion:
    case TechniqueId::Adafactor:
    case TechniqueId::Lomo: return "optimizer " + name;
    case TechniqueId::Lora:
    case TechniqueId::Qlora:
        // A 16-bit adapter run over fp16 or fp32 is taught as bf16 mixed,
        // where the GPU has it: the ladder's habit, not make-it-fit's.
        if (t.precision == Precision::Fp16Mixed || t.precision == Precision::Fp32)
            t.precision = Precision::Bf16Mixed;
        return id == TechniqueId::Qlora ? "+ QLoRA (NF4 double-quant base, r16 all linear)"
                                        : "+ LoRA (r16, all linear)";
    case TechniqueId::MicroBatch1: return "micro-batch 1 (accumulation keeps the effective batch)";
    default: return name;
    }
}

} // namespace

Result<std::vector<LadderStep>> buildLadder(const Scenario& base, const std::vector<TechniqueId>& steps)
{
    if (steps.empty())
        return makeError(ErrorCode::InvalidArgument, "ladder: no steps");
    const auto& allowed = ladderSteps();
    std::vector<LadderStep> ladder;
    Scenario current = base;
    for (TechniqueId id : steps) {
        if (std::find(allowed.begin(), allowed.end(), id) == allowed.end())
            return makeError(ErrorCode::InvalidArgument,
                             std::string("ladder step: '") + techniqueName(id) + "' needs a value; not a ladder step");
        std::string label = apply(current, id);
        auto plan = makePlan(current);
        if (!plan)
            return plan.error();
        LadderStep step{id, std::move(label), current, std::move(plan.value()), 0};
        if (!ladder.empty()) {
            step.savingBytes = static_cast<std::int64_t>(ladder.back().plan.deviceUsedBytes) -
                               static_cast<std::int64_t>(step.plan.deviceUsedBytes);
            step.cacheOnly =
                step.savingBytes != 0 && step.plan.peakAllocatedBytes == ladder.back().plan.peakAllocatedBytes;
        }
        ladder.push_back(std::move(step));
    }
    return ladder;
}

Result<std::vector<LadderStep>> buildLadder(const Scenario& base, const std::vector<std::string>& stepNames)
{
    std::vector<TechniqueId> steps;
    for (const std::string& name : stepNames) {
        auto id = parseTechnique(name);
        if (!id)
            return makeError(ErrorCode::InvalidArgument, "ladder step: unknown id '" + name + "'");
        steps.push_back(*id);
    }
    return buildLadder(base, steps);
}

} // namespace headroom
