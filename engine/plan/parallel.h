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
    // HSDP under FSDP2: dp_replicate groups of dp / dp_replicate ranks
    // (ParallelConfig::dpReplicate); 1 otherwise.
    std::uint64_t dpReplicate = 1;
    bool sp = false;      // sequence parallelism (with tp)
    // FSDP2 under model parallelism, as torchtitan composes them (plan/
    // torchtitanrows.cpp): DTensor tensor parallelism with sequence
    // parallelism, loss parallelism, ring attention, FSDP over dp x cp.
    bool fsdp2 = false;
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    // Virtual pipeline stages (model chunks) per rank: vpp > 1 is the
    // interleaved 1F1B schedule (Narayanan et al. 2021 §2.2.2). Rank r holds
    // virtual stages r, r + pp, ..., r + (vpp - 1) pp, as Megatron-LM
    // (transformer_layer.py get_transformer_layer_offset) and torchtitan
    // (pipelining_utils.py stage_ids_this_rank, style "loop") assign them.
    std::uint64_t vpp = 1;
    // Expert parallelism (Megatron-LM's --expert-model-parallel-size and
    // --expert-tensor-parallel-size): each MoE layer's routed experts split
    // over ep ranks, each expert's linears over etp ranks. Megatron-LM lays
    // the experts over the same GPUs as the dense layers, tp x cp x dp of a
    // pipeline stage = etp x ep x expert dp (megatron/core/parallel_state.py
    // initialize_model_parallel, expert_decoder_rank_generator): the experts'
    // own data-parallel group (the ranks holding the same expert shard) is
    // tp x cp x dp / (etp x ep).
    std::uint64_t ep = 1;
    std::uint64_t etp = 1;
    std::uint64_t expertDataParallel() const { return tp * dp * cp / (etp * ep); }
    std::uint64_t microBatches = 1;         // micro-batches per step on one pipeline: grad_accum
    std::uint64_t paddedVocab = 0;          // the vocabulary padded to a multiple of tp
    std::vector<std::uint64_t>
        stageLayers; // decoder layers of each stage (pp entries; with vpp > 1 the sum of its chunks')
    std::vector<std::uint64_t>
        chunkLayers; // decoder layers of each virtual stage (pp x vpp entries, virtual stage order)

    // Any model parallelism: the planner plans each stage (tp = pp = cp = 1
    // is today's plan, byte for byte).
    bool modelParallel() const { return tp > 1 || pp > 1 || cp > 1 || ep > 1; }
    // Megatron-LM's MoE dispatcher exchanges token slots between GPUs: over
    // the expert-parallel ranks (all-to-all) and the expert tensor-parallel
    // ones (all-gather, reduce-scatter).
    bool dispatchesExperts() const { return ep > 1 || etp > 1; }
    // The ranks one parameter is sharded over: FSDP2 shards over torchtitan's
    // dp_shard_cp mesh (parallel_dims.py build_mesh flattens dp_shard and cp;
    // parallelize_llama.py apply_fsdp takes world_mesh["dp_shard_cp"], and
    // under HSDP world_mesh["dp_replicate", "dp_shard_cp"], sharding over the
    // second); the other shardings act over the data-parallel degree.
    std::uint64_t shardDegree() const { return fsdp2 ? dp / dpReplicate * cp : dp; }
    // The embedding is on virtual stage 0 (chunk 0 of rank 0), the final norm,
    // the head and the loss on the last virtual stage (chunk vpp - 1 of the last rank).
    bool firstStage(std::uint64_t stage) const { return stage == 0; }
    bool lastStage(std::uint64_t stage) const { return stage + 1 == pp; }
    bool interleaved() const { return vpp > 1; }
    // Decoder layers of chunk `chunk` (0 .. vpp - 1) of rank `stage`: virtual stage chunk x pp + stage.
    std::uint64_t layersOfChunk(std::uint64_t stage, std::uint64_t chunk) const;
    // Interleaved 1F1B (vpp > 1): the chunk forwards (one chunk, one
    // micro-batch each) that rank `stage` runs before its first backward,
    // min(2 (pp - stage - 1) + (vpp - 1) pp, vpp x m) (Megatron-LM
    // schedules.py get_pp_rank_microbatches; torch.distributed.pipelining
    // schedules.py _get_warmup_ops; parallel.cpp).
    std::uint64_t interleavedWarmup(std::uint64_t stage) const;
    // Micro-batches whose saved activations stage `stage` holds at once.
    // With vpp > 1 the unit is one chunk's activations of one micro-batch
    // (a chunk micro-batch): min(warm-up + 1, vpp x m).
    std::uint64_t inFlightMicroBatches(std::uint64_t stage) const;
};

// The decoder layers of each of `stages` (virtual) stages under
// PipelineSplit::Weighted (plan/scenario.h: torchtitan's split, the embedding
// and the output each one layer), or an InvalidArgument error naming the
// numbers when a stage would hold no layer.
Result<std::vector<std::uint64_t>> weightedSplit(std::uint64_t layers, std::uint64_t stages);

// The moment of rank `stage`'s interleaved 1F1B schedule (vpp > 1) at which
// it holds the most, given what one micro-batch of each of its chunks keeps
// from its forward to its backward (`activations`, vpp entries) and what
// each chunk's accumulated gradients take once its first backward has run
// (`gradients`, vpp entries; zeros where gradients do not depend on the
// schedule). The schedule is Megatron-LM's and torch's: forward k runs chunk
// (k / pp) mod vpp, backward k chunk vpp - 1 - (k / pp) mod vpp; the warm-up
// runs interleavedWarmup(stage) forwards, then each step one forward and one
// backward, then the remaining backwards. Only the moments right after a
// forward are candidates (a backward only frees activations).
struct InterleavedPeak {
    std::vector<std::uint64_t> held; // micro-batches of each chunk whose activations are held then
    std::vector<bool> gradientsMade; // whether each chunk's first backward has run by then
    std::uint64_t heldTotal() const;
};
InterleavedPeak interleavedPeak(const ParallelLayout& layout, std::uint64_t stage,
                                const std::vector<Bytes>& activations, const std::vector<Bytes>& gradients);

// The layout of a scenario, or an InvalidArgument / UnsupportedCombination
// error of one line naming the field and the numbers: tp x pp x cp must
// divide hardware.count; heads, KV heads and the MLP width must divide by
// tp; each stage needs a layer; the sequence must divide by 2 x cp;
// train.global_batch, when given, must equal micro_batch x grad_accum x dp;
// vpp > 1 needs pp > 1, 1F1B, a layer per chunk (and, outside FSDP2, layers
// that divide by pp x vpp) and grad_accum micro-batches that pp divides.
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
// How many times the even share of token slots the busiest rank's experts
// take (scenario.h MoeRouting): the capacity when the input is padded to it,
// else the imbalance, capped by the capacity when tokens are dropped.
double expertSlotFactor(const MoeRouting& routing);

// Dense first layers (ModelSpec::denseLayers) in chunk `chunk` of pipeline
// rank `stage`, and in all of the rank's chunks.
std::uint64_t denseLayersOfChunk(const ParallelLayout& layout, std::uint64_t stage, std::uint64_t chunk,
                                 const ModelSpec& model);
std::uint64_t denseLayersOfStage(const ParallelLayout& layout, std::uint64_t stage, const ModelSpec& model);

ParameterTable rankParameterTable(const ParameterTable& full, const ModelSpec& model, const ParallelLayout& layout,
                                  std::uint64_t stage);

// The model as one rank of stage `stage` sees it in its activations: the
// stage's layers, heads, KV heads and MLP width divided by tp, the padded
// vocabulary divided by tp; embeddings untied across stages when pp > 1.
ModelSpec rankModelSpec(const ModelSpec& model, const ParallelLayout& layout, std::uint64_t stage);

} // namespace headroom
