// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/expertchecks.h"

#include "core/shortdecimal.h"

#include <algorithm>
#include <string>

namespace headroom {

namespace detail {

namespace {

Error invalid(std::string what) { return makeError(ErrorCode::InvalidArgument, std::move(what)); }
Error unsupported(std::string what) { return makeError(ErrorCode::UnsupportedCombination, std::move(what)); }
std::string n(std::uint64_t v) { return std::to_string(v); }

} // namespace

// Expert parallelism as Megatron-LM runs it (megatron/core/transformer/moe:
// experts split over --expert-model-parallel-size ranks and each over
// --expert-tensor-parallel-size ranks, the alltoall token dispatcher), over
// model states as megatronrows.cpp plans them.
std::optional<Error> expertParallelChecks(const Scenario& sc, const ParallelLayout& l, std::uint64_t ep,
                                          std::uint64_t etp)
{
    const ModelSpec& m = sc.model;
    if (ep == 0)
        return invalid("hardware.parallel.ep: must be at least 1, got 0");
    if (sc.hardware.parallel.etp != 0 && !m.isMoe() && etp != l.tp)
        return invalid(std::string("hardware.parallel.etp: expert tensor parallelism splits the routed experts of a "
                                   "mixture-of-experts model; ") + familyName(m.family) + " has none");
    if (ep == 1 && etp == 1)
        return std::nullopt;
    if (!m.isMoe())
        return ep == 1 ? std::nullopt
                       : std::optional<Error>(invalid(std::string("hardware.parallel.ep: expert parallelism splits the "
                                                                  "routed experts of a mixture-of-experts model; ") +
                                                      familyName(m.family) + " has none"));
    if (m.experts % ep != 0)
        return invalid("hardware.parallel.ep: " + n(m.experts) + " routed experts do not divide by ep " + n(ep));
    // torchtitan's expert parallelism under FSDP2 (0.2.2 parallel_dims.py:
    // the experts' region is dp_shard x cp x tp, efsdp = that / (etp x ep);
    // FSDP2 with a mixture of experts under tp is refused below).
    if (l.fsdp2) {
        if (ep > 1 && (l.shardDegree() * l.tp) % ep != 0)
            return invalid("hardware.parallel.ep: " + n(ep) + " must divide torchtitan's dp_shard x cp x tp = " +
                           n(l.shardDegree() * l.tp) + " under FSDP2 (the experts' region; HSDP's replicate groups "
                           "are not part of it)");
        return std::nullopt;
    }
    if (etp > l.tp * l.dp * l.cp || (l.tp * l.dp * l.cp) % (etp * ep) != 0)
        return invalid("hardware.parallel.ep: etp " + n(etp) + " x ep " + n(ep) +
                       " must divide the GPUs of a pipeline stage, tp x cp x dp = " + n(l.tp * l.dp * l.cp) +
                       " (Megatron-LM lays the experts over the same GPUs as the other layers)");
    if (m.intermediate % etp != 0)
        return invalid("hardware.parallel.etp: the expert width " + n(m.intermediate) + " does not divide by etp " +
                       n(etp));
    const TrainConfig& t = sc.train;
    const Sharding s = sc.hardware.sharding;
    const bool megatron = !l.fsdp2 && (s == Sharding::None || s == Sharding::Ddp || s == Sharding::Zero1) &&
                          (t.precision == Precision::Bf16Mixed || t.precision == Precision::Fp16Mixed ||
                           t.precision == Precision::Fp32) &&
                          (t.optimizer == Optimizer::AdamW || t.optimizer == Optimizer::Sgd ||
                           t.optimizer == Optimizer::SgdMomentum) &&
                          !t.optimizerInBackward && !sc.hardware.cpuOffload;
    if (!megatron)
        return unsupported("hardware.parallel.ep: expert parallelism is planned as Megatron-LM runs it: full "
                           "fine-tuning in bf16 or fp16 mixed precision or fp32, AdamW or SGD, with DDP or the "
                           "distributed optimizer (sharding ddp or zero1) and no CPU offload; or as torchtitan runs it, "
                           "under fsdp2");
    return std::nullopt;
}

namespace {

} // namespace

// Capacity factors and a routing imbalance (scenario.h MoeRouting) act on
// Megatron-LM's token dispatcher: planned where the plan is Megatron-LM's.
std::optional<Error> moeRoutingChecks(const Scenario& sc, const ParallelLayout& l)
{
    const MoeRouting& r = sc.train.moe;
    const ModelSpec& m = sc.model;
    if (r.isDefault() || sc.mode != Mode::Train)
        return std::nullopt;
    if (!m.isMoe())
        return invalid(std::string("train.moe: capacity factors and routing imbalance apply to mixture-of-experts "
                                   "models; ") + familyName(m.family) + " has no experts");
    if (!l.modelParallel() || l.fsdp2)
        return unsupported("train.moe: capacity factors and routing imbalance are planned as Megatron-LM's token "
                           "dispatcher runs them, with tensor, pipeline or expert parallelism (tp, pp or ep above 1) "
                           "and sharding ddp or zero1");
    if (r.padToCapacity && r.capacityFactor == 0.0)
        return invalid("train.moe.pad_to_capacity: padding to capacity needs a capacity factor (Megatron-LM: "
                       "moe_expert_capacity_factor must be set to use moe_pad_expert_input_to_capacity)");
    // The busiest rank receives at most min(top-k, experts / ep) slots of
    // each token of the ep ranks (a token's top-k experts are distinct);
    // balanced routing gives it top-k slots per token of one rank's: a ratio
    // of ep x min(k, E / ep) / k.
    const std::uint64_t k = std::max<std::uint64_t>(m.expertsPerToken, 1);
    const double most = static_cast<double>(l.ep) * static_cast<double>(std::min(k, m.experts / l.ep)) /
                        static_cast<double>(k);
    if (r.imbalance > most)
        return invalid("train.moe.imbalance: " + shortDecimal(r.imbalance) +
                       " is more than the busiest expert-parallel rank can receive, ep x min(top-k, experts / ep) / "
                       "top-k = " + shortDecimal(most));
    return std::nullopt;
}

} // namespace detail

double expertSlotFactor(const MoeRouting& r)
{
    if (r.padToCapacity)
        return r.capacityFactor;
    return r.capacityFactor > 0.0 ? std::min(r.imbalance, r.capacityFactor) : r.imbalance;
}


} // namespace headroom
