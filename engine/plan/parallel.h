// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Tensor and pipeline parallelism (issue 15, first slice): the layout a
// scenario asks for, checked against its GPUs and its model, and the shape of
// one rank: its parameters (Megatron-LM's tensor-parallel splits, the
// pipeline stage's layers and globals) and its model dimensions for the
// activation rows. docs/planner.md "Tensor and pipeline parallelism".
#include "core/result.h"
#include "model/parametertable.h"
#include "plan/scenario.h"

#include <cstdint>
#include <vector>

namespace headroom {

struct ParallelLayout {
    std::uint64_t tp = 1; // tensor-parallel degree
    std::uint64_t pp = 1; // pipeline stages
    std::uint64_t cp = 1; // context-parallel degree: each rank holds seq / cp tokens
    std::uint64_t dp = 1; // data-parallel degree: count / (tp x pp x cp)
    bool sp = false;      // sequence parallelism (with tp)
    // FSDP2 under model parallelism, as torchtitan composes them (plan/
    // torchtitanrows.cpp): DTensor tensor parallelism with sequence
    // parallelism, loss parallelism, ring attention, FSDP over dp x cp.
    bool fsdp2 = false;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::uint64_t microBatches = 1;         // micro-batches per step on one pipeline: grad_accum
    std::uint64_t paddedVocab = 0;          // the vocabulary padded to a multiple of tp
    std::vector<std::uint64_t> stageLayers; // decoder layers of each stage (pp entries)

    // Any model parallelism: the planner plans each stage (tp = pp = cp = 1
    // is today's plan, byte for byte).
    bool modelParallel() const { return tp > 1 || pp > 1 || cp > 1; }
    // The ranks one parameter is sharded over: FSDP2 shards over torchtitan's
    // dp_shard_cp mesh (parallel_dims.py build_mesh flattens dp_shard and cp;
    // parallelize_llama.py apply_fsdp takes world_mesh["dp_shard_cp"]); the
    // other shardings act over the data-parallel degree.
    std::uint64_t shardDegree() const { return fsdp2 ? dp * cp : dp; }
    bool firstStage(std::uint64_t stage) const { return stage == 0; }
    bool lastStage(std::uint64_t stage) const { return stage + 1 == pp; }
    // Micro-batches whose saved activations stage `stage` holds at once.
    std::uint64_t inFlightMicroBatches(std::uint64_t stage) const;
};

// The layout of a scenario, or an InvalidArgument / UnsupportedCombination
// error of one line naming the field and the numbers: tp x pp x cp must
// divide hardware.count; heads, KV heads and the MLP width must divide by
// tp; each stage needs a layer; the sequence must divide by 2 x cp;
// train.global_batch, when given, must equal micro_batch x grad_accum x dp.
// Never rounds a number down.
Result<ParallelLayout> parallelLayout(const Scenario& scenario);

// The parameters one rank of stage `stage` holds, before data-parallel
// sharding: the full model's table with Megatron's splits (column-parallel
// q/k/v, fused qkv, gate/up and the plain MLP input, their biases too;
// row-parallel o and down, their biases replicated; norms replicated; the
// vocabulary-parallel embedding and LM head over the padded vocabulary),
// the stage's layers, the embeddings on the first stage and the final norm
// and LM head on the last. A tied LM head on a last stage that is not the
// first gets its own copy of the embedding (Megatron-LM
// LanguageModule.setup_embeddings_and_output_layer).
ParameterTable rankParameterTable(const ParameterTable& full, const ModelSpec& model, const ParallelLayout& layout,
                                  std::uint64_t stage);

// The model as one rank of stage `stage` sees it in its activations: the
// stage's layers, heads, KV heads and MLP width divided by tp, the padded
// vocabulary divided by tp; embeddings untied across stages when pp > 1.
ModelSpec rankModelSpec(const ModelSpec& model, const ParallelLayout& layout, std::uint64_t stage);

} // namespace headroom
