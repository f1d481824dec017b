// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The plan: one tensor table with lifetimes, and everything derived from it
// by one sweep over the step's events (ARCHITECTURE.md, "The one idea").
#include "core/checkedmath.h"
#include "plan/gpucatalog.h"
#include "plan/scenario.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

enum class Category : std::uint8_t {
    Weights,
    Gradients,
    OptimizerState,
    Activations,
    Logits,      // logits, their fp32 upcast, the loss and its gradients
    Temporaries, // live within one event only: backward temporaries, dequantised weights, foreach buffers
    KvCache,
    Workspace,   // library workspaces allocated through the framework allocator (cuBLAS)
};
inline constexpr std::size_t kCategoryCount = 8;
const char* categoryName(Category c);  // "weights", "gradients", "optimizer-state", ...

using CategoryBytes = std::array<Bytes, kCategoryCount>;

// The step's timeline. Per-layer phases take the layer of the row they belong to.
enum class Phase : std::uint8_t {
    Load,          // before the step: what persists between steps
    EmbedFwd,
    LayerFwd,      // forward of one decoder/encoder layer (prefill in inference)
    HeadFwd,       // final norm + lm_head
    LossFwd,
    LossBwd,       // cross-entropy backward: often the global peak
    HeadBwd,
    LayerBwd,      // backward of one layer (recompute included when checkpointed)
    EmbedBwd,
    OptimizerStep,
    Decode,        // inference: generating with the full KV cache
};
const char* phaseName(Phase p);

// Which layers a per-layer row is instantiated for.
enum class LayerSet : std::uint8_t {
    Global,        // not a per-layer row: one instance
    All,
    Checkpointed,  // layers whose activations are recomputed in backward
    Plain,         // layers whose activations are kept
    SlidingPlain,  // kept layers that are sliding-window layers (Plan::slidingPeriod)
};

// Which of a model's layers a per-layer row is for, when its first layers
// differ from the rest (DeepSeek-V3's first_k_dense_replace dense layers:
// Plan::denseLayers). Every: the row is the same on every layer.
enum class LayerBand : std::uint8_t {
    Every,
    Dense,  // layers [0, Plan::denseLayers)
    Sparse, // layers [Plan::denseLayers, layers): the mixture-of-experts ones
};

struct TensorRow {
    const char* name;        // stable id, e.g. "layer.mlp.act_in"
    const char* source;      // why this number: formula and its citation
    Category category;
    Bytes bytes;             // per instance
    Phase allocAt;           // alive from this event...
    Phase freeAt;            // ...through this event, inclusive
    LayerSet layers = LayerSet::Global;
    bool managed = false;    // cudaMallocManaged (paged optimizers): outside the allocator's counters
    // The tensors one instance is made of, as PyTorch asks the allocator for
    // them one by one: the runs Plan::pieces[pieceBegin, pieceEnd), in order,
    // whose bytes x count add up to `bytes`. An empty range: one tensor of
    // `bytes`. A temporary of one event may instead hold a script, whose
    // pieces also release earlier tensors (TensorPiece::freeOf): then `bytes`
    // is the most the script holds at once. Only the allocator stream reads
    // them (allocatorstream.h); every other use of the table sees the row's
    // total.
    std::uint32_t pieceBegin = 0, pieceEnd = 0;
    // A row alive from Load that the first step makes later, at this event
    // (and keeps from then on, as from load): torch.optim makes its state in
    // the first optimizer.step(), not when the optimizer is built
    // (RuntimeProfile::lazyOptimizerState); a freedAtZeroGrad row is made at
    // this event in the first micro-batch of every step
    // (RuntimeProfile::gradientsMadeInBackward). Load: made at load. Only the
    // allocator stream reads it (allocatorstream.h): the steps the table
    // describes, from the second on, are the same either way, but the first
    // step's cache is not.
    Phase firstAllocAt = Phase::Load;
    // A row alive from Load through the last event (accumulated gradients)
    // that is freed at the end of every step and made again at firstAllocAt
    // in each step's first micro-batch: torch.optim's
    // Optimizer.zero_grad(set_to_none=True), the default, sets each .grad to
    // None after optimizer.step() (torch/optim/optimizer.py zero_grad), and
    // AccumulateGrad makes it anew in the next backward (torch/csrc/autograd/
    // functions/accumulate_grad.h); Headroom's engine releases each gradient
    // after its update (runtime/step/optimizerstep.cpp optimizerStep). Only
    // the allocator stream reads it (allocatorstream.h); the table's events
    // are a micro-batch with the gradients resident, the second or a later
    // one of its step.
    bool freedAtZeroGrad = false;
    // Its tensors are made by another row's script (TensorPiece::ofRow), in
    // the same layer and event, between that script's own tensors: autocast's
    // weight casts in a checkpointed layer's forward (checkpointedforward.h).
    // Only the allocator stream reads it; the row is made and freed as before.
    bool madeByScript = false;
    // The CUDA stream the row's tensors are allocated on (a caching allocator
    // block serves only its own stream: plan/cachingallocator.h). 0: the
    // compute stream. Only the allocator stream reads it.
    std::uint8_t stream = 0;
    // For a per-layer row of a model whose first layers differ: the layers
    // it is made for (LayerBand); planner.cpp splits the table so.
    LayerBand band = LayerBand::Every;
    // Made when its allocAt event ends: alive from the next event (a
    // checkpointed layer's gradients, which its backward makes after the
    // recompute: RuntimeProfile::gradientsAfterRecompute). Never on a row
    // freed in the event it is made in.
    bool madeAtEventEnd = false;
};

// Streams other than the compute stream that rows are allocated on.
inline constexpr std::uint8_t kAllGatherCopyInStream = 1; // FSDP2's all-gather copy-in stream
inline constexpr std::uint8_t kReduceScatterStream = 2;   // FSDP2's reduce-scatter stream

// `count` tensors of `bytes` each, allocated one after the other; or, in a
// row's script (a temporary whose tensors come and go within its one event,
// attachScript in planbuild.h), the release of the instance's tensor number
// `freeOf` (counted from 0 in the order its pieces made them).
struct TensorPiece {
    static constexpr std::uint32_t kAllocation = ~std::uint32_t{0};
    static constexpr std::uint32_t kOwnRow = ~std::uint32_t{0};
    Bytes bytes;
    std::uint64_t count;
    std::uint32_t freeOf = kAllocation;
    // In a script: the next `count` tensors of another row (its index in
    // Plan::tensors, a TensorRow::madeByScript row), made here for it in the
    // same layer; not the script's own, so not in its bytes or its freeOf numbers.
    std::uint32_t ofRow = kOwnRow;
    bool isFree() const { return freeOf != kAllocation; }
    bool isForeign() const { return ofRow != kOwnRow; }
};

struct Event {
    Phase phase;
    std::int32_t layer;      // -1 when the phase has no layer
};
std::string eventLabel(const Event& e);  // "forward layer 12", "loss backward"

// One distinct kind of rank of a tensor/pipeline-parallel layout (plan/
// parallel.h): a pipeline stage (tensor-parallel ranks of a stage are
// symmetric), with the counters of its own plan.
struct RankPlan {
    std::uint64_t stage = 0;
    std::uint64_t layers = 0;                // decoder layers on this stage
    std::uint64_t inFlightMicroBatches = 1;  // micro-batches whose activations the stage holds at once;
                                             // with vpp > 1 chunk micro-batches (one chunk's activations of one)
    std::vector<std::uint64_t> chunkLayers;  // with vpp > 1: the layers of each of its chunks (empty otherwise)
    Bytes peakAllocatedBytes = 0;
    Bytes peakReservedBytes = 0;
    Bytes deviceUsedBytes = 0;
    CategoryBytes breakdown{};               // bytes per category at the stage's peak
};

// What one GPU holds at its peak, and the three counters the pytorch profile
// predicts (memory-model.md §6): peak allocated (torch.cuda.max_memory_allocated),
// peak reserved (max_memory_reserved), and device used as nvidia-smi shows it.
struct Plan {
    std::vector<TensorRow> tensors;
    std::vector<TensorPiece> pieces;     // the tensors of rows made of several (TensorRow::pieceBegin)
    std::uint64_t layers = 0;
    std::uint64_t checkpointEvery = 0;   // 0: no layer checkpointed; 1: every layer; k: layers l % k == 0
    std::uint64_t slidingPeriod = 0;     // ModelSpec::slidingPeriod: 0 every layer slides; P: l % P == P - 1 does not
    std::uint64_t denseLayers = 0;       // ParameterTable::denseLayers: the layers of LayerBand::Dense rows,
    std::vector<std::uint64_t> denseLayerIds; // which ones (ModelSpec::denseLayerIds); empty: the first denseLayers
    bool isDenseLayer(std::uint64_t layer) const
    {
        return denseLayerIds.empty() ? layer < denseLayers
                                     : std::binary_search(denseLayerIds.begin(), denseLayerIds.end(), layer);
    }
    // Micro-batches per optimizer step (train.grad_accum) the allocator stream
    // replays the events for (allocatorstream.h); 1 for inference and for the
    // ranks of a tensor/pipeline-parallel layout, whose table is one pass.
    std::uint64_t microBatchesPerStep = 1;
    std::vector<Event> events;
    std::vector<CategoryBytes> timeline; // bytes per category at each event (everything on the device)

    std::size_t peakEvent = 0;
    Bytes peakBytes = 0;                 // max over events of the timeline total
    CategoryBytes breakdown{};           // timeline at the peak event

    Bytes peakAllocatedBytes = 0;        // excludes managed memory
    Bytes peakReservedBytes = 0;         // allocator segments over two steps (simulated caching allocator)
    Bytes allocatorCacheBytes = 0;       // peak reserved - peak allocated: rounding and cached free blocks
    std::uint64_t allocatorSegments = 0; // segments (cudaMalloc'd) the allocator holds at most
    // false: peak reserved is the quick estimate (rounded peak + 5 % of the
    // churn, PlanOptions::estimateReserved), never shown to users; searches
    // use it for their inner loop and re-plan their answer with the simulation.
    bool reservedSimulated = true;
    Bytes contextBytes = 0;              // CUDA context + library modules (+ ncclBytes), outside the allocator
    Bytes ncclBytes = 0;                 // of contextBytes, NCCL's communicator buffers (plan/ncclbuffers.h)
    Bytes deviceUsedBytes = 0;           // reserved + managed + context

    GpuSpec gpu;
    Bytes capacityBytes = 0;
    bool fits = false;
    std::int64_t marginBytes = 0;        // capacity - device used; negative when it does not fit

    Bytes totalParameters = 0;
    Bytes activeParameters = 0;          // MoE: touched by one token (shared + top-k experts); dense: total
    Bytes trainableParameters = 0;
    Bytes tokensPerMicroBatch = 0;
    std::vector<std::string> notes;      // assumptions that shaped this plan, in plain words

    // Tensor/pipeline/context parallelism (empty when tp = pp = cp = 1): one entry per
    // stage; everything above is the plan of ranks[worstRank], the stage with
    // the most device memory used.
    std::vector<RankPlan> ranks;
    std::size_t worstRank = 0;
    std::uint64_t tensorParallel = 1, pipelineParallel = 1, dataParallel = 1, contextParallel = 1;
    std::uint64_t expertParallel = 1; // routed experts split over this many data-parallel ranks
    std::uint64_t expertTensorParallel = 0; // each routed expert split over this many GPUs; 0: no experts
    std::uint64_t virtualStages = 1; // model chunks per pipeline rank (vpp; interleaved 1F1B when above 1)
};

} // namespace headroom
