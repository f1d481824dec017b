// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Internal to the model-state rows (modelstaterows.cpp) and the optimizer's
// rows (optimizerrows.cpp): what a group of tensors adds up to, and the
// pieces of its trainable tensors.
#include "plan/planbuild.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace headroom::detail {

// What one group of tensors (the layer template, or the global tensors) adds
// up to in each role. Summed once per plan, so rows stay per layer.
struct GroupSums {
    Bytes params = 0;            // all parameters of the group
    Bytes weightBytes = 0;       // stored weights on one GPU
    Bytes unshardedBytes = 0;    // stored weights before any sharding (what an all-gather of the group makes)
    Bytes weightBlocks = 0;      // the same, rounded per tensor as the allocator hands blocks out
    Bytes trainable = 0;         // trainable elements (adapters when PEFT)
    Bytes linearElements = 0;    // elements of linear weights (autocast copies)
    Bytes largest = 0;           // largest single tensor (LOMO's live gradient, dequantised weight)
    Bytes largestSides = 0;      // rows + cols of that tensor (Adafactor's factor vectors)
    Bytes largestQuantized = 0;  // largest quantized linear (dequantisation temporary)
    Bytes optimizerBytes = 0;    // optimizer state on one GPU, unsharded
    Bytes loraElements = 0;
};

inline Bytes masterBytes(const BuildContext& ctx)
{
    const Precision p = ctx.scenario.train.precision;
    return (p == Precision::Bf16 || p == Precision::Fp16) ? 2 : 4;
}

// What `tensors` add up to (modelstaterows.cpp); shardedWeights: their stored
// weights are divided over ctx.shards.
GroupSums sumGroup(const BuildContext& ctx, const std::vector<ParamTensor>& tensors, bool shardedWeights);
// One run of *ctx.pieces per trainable tensor of `tensors` (modelstaterows.cpp).
void appendTrainablePieces(const BuildContext& ctx, const std::vector<ParamTensor>& tensors, std::uint64_t layers,
                           Bytes bytesPerElement, std::uint64_t perTensor = 1);
// Whether model.parameters() yields a global tensor before the layers (modelstaterows.cpp).
bool registeredBeforeLayers(const ParamTensor& t);

inline std::size_t piecesBegin(const BuildContext& ctx) { return ctx.pieces ? ctx.pieces->size() : 0; }

// The optimizer's rows on the GPU (optimizerrows.cpp): its state (by
// model.parameters() order: embeddings, layers, the tensors after them),
// DeepSpeed's fp32 master weights, and the step's temporaries (the for-loop,
// foreach and Adafactor implementations). layer, global: the sums of the
// layer template and the global tensors; layersTrainable: the trainable
// elements of every layer; shardStates: the state is divided over
// ctx.shards; shardedWeights: the stored weights are (ZeRO-3, FSDP);
// fusedUpdate: the update runs inside backward (LOMO, optimizer in backward).
void addOptimizerRows(const BuildContext& ctx, const GroupSums& layer, const GroupSums& global, Bytes layersTrainable,
                      bool shardStates, bool shardedWeights, bool fusedUpdate, std::vector<TensorRow>& rows);

} // namespace headroom::detail
