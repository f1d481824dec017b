// SPDX-License-Identifier: GPL-3.0-or-later
// The optimizer's rows: its state, DeepSpeed's fp32 master weights, and the
// temporaries of the step (the for-loop, foreach and Adafactor
// implementations). Called from addModelStateRows (modelstaterows.cpp),
// which sums the groups of tensors they are made from.
// Sources: memory-model.md §3 (optimizers), §7 (ZeRO/FSDP/DDP).
#include "plan/modelstatesums.h"
#include "plan/planbuild.h"

#include <algorithm>
#include <vector>

namespace headroom::detail {

namespace {

TensorRow row(const char* name, const char* source, Category c, Bytes bytes, Phase from, Phase to,
              LayerSet layers = LayerSet::Global, bool managed = false)
{
    return TensorRow{name, source, c, bytes, from, to, layers, managed};
}

} // namespace

void addOptimizerRows(const BuildContext& ctx, const GroupSums& layer, const GroupSums& global, Bytes layersTrainable,
                      bool shardStates, bool shardedWeights, bool fusedUpdate, std::vector<TensorRow>& rows)
{
    const TrainConfig& tc = ctx.scenario.train;
    const Phase last = Phase::OptimizerStep;
    const Bytes stateShards = shardStates ? ctx.shards : 1;
    const bool paged = tc.optimizer == Optimizer::PagedAdamW8bit;
    // torch.optim walks its parameters in model.parameters() order
    // (adamw.py _init_group, _multi_tensor_adamw's foreach lists): the
    // embeddings' modules, registered before the layers, come first; the
    // final norm and an untied head after them. The first step's state
    // and every step's foreach temporaries are asked for in that order.
    std::vector<ParamTensor> leadingGlobal, trailingGlobal;
    for (const ParamTensor& t : ctx.table.global)
        (registeredBeforeLayers(t) ? leadingGlobal : trailingGlobal).push_back(t);
    const Bytes leadingStateBytes = sumGroup(ctx, leadingGlobal, shardedWeights).optimizerBytes;
    const Bytes stateElementBytes = ctx.fullFinetune ? masterBytes(ctx) : 4;
    const bool statePieces = stateShards == 1 && tc.optimizer == Optimizer::AdamW;
    TensorRow leadingState = row("optimizer.embeddings", "optimizer state of the embeddings, made before the layers' (model.parameters() order)",
                                 Category::OptimizerState, ceilDiv(leadingStateBytes, stateShards), Phase::Load, last, LayerSet::Global, paged);
    const std::size_t leadingPieces = piecesBegin(ctx);
    if (statePieces)
        appendTrainablePieces(ctx, leadingGlobal, 1, stateElementBytes, 2);
    attachPieces(ctx, leadingState, leadingPieces);
    TensorRow layerState = row("optimizer.layer", "optimizer state of one layer's trainable parameters (bytes per element by optimizer: memory-model.md §3)",
                               Category::OptimizerState, ceilDiv(layer.optimizerBytes, stateShards), Phase::Load, last, LayerSet::All, paged);
    // AdamW's _init_group makes exp_avg and exp_avg_sq per parameter
    // (torch.zeros_like, torch/optim/adamw.py): two tensors each.
    const std::size_t layerPieces = piecesBegin(ctx);
    if (statePieces)
        appendTrainablePieces(ctx, ctx.table.layer, 1, stateElementBytes, 2);
    attachPieces(ctx, layerState, layerPieces);
    TensorRow globalState =
        row("optimizer.global", "optimizer state of the final norm and head (the tensors after the layers)", Category::OptimizerState,
            ceilDiv(global.optimizerBytes - std::min(global.optimizerBytes, leadingStateBytes), stateShards),
            Phase::Load, last, LayerSet::Global, paged);
    const std::size_t globalPieces = piecesBegin(ctx);
    if (statePieces)
        appendTrainablePieces(ctx, trailingGlobal, 1, stateElementBytes, 2);
    attachPieces(ctx, globalState, globalPieces);
    // torch.optim makes the state inside the first step() (profile.h
    // lazyOptimizerState); DeepSpeed's ZeRO optimizers make theirs when
    // they are built (stage_1_and_2.py initialize_optimizer_states).
    if (ctx.profile.lazyOptimizerState && !ctx.deepspeedStyle)
        leadingState.firstAllocAt = layerState.firstAllocAt = globalState.firstAllocAt = last;
    if (leadingState.bytes > 0)
        rows.push_back(leadingState);
    rows.push_back(layerState);
    rows.push_back(globalState);
    if (ctx.deepspeedStyle) {
        const Bytes master = ceilDiv(satMul(satAdd(layersTrainable, global.trainable), 4), stateShards);
        rows.push_back(row("optimizer.fp32_master", "fp32 master weights inside DeepSpeed's mixed-precision optimizer (ZeRO paper §3: K = 12 includes them)",
                           Category::OptimizerState, master, Phase::Load, last));
    }
    if (paged)
        ctx.note("Paged 8-bit AdamW: optimizer state lives in CUDA managed memory, outside torch's allocator counters but on the device while resident.");
    const Bytes trainableTotal = satAdd(layersTrainable, global.trainable);
    const bool foreachOpt = tc.optimizer == Optimizer::AdamW || tc.optimizer == Optimizer::SgdMomentum || tc.optimizer == Optimizer::Lion;
    const bool forLoop = tc.optimizerImpl == OptimizerImpl::ForLoop && ctx.profile.foreachOptimizerTemporary &&
                         !ctx.deepspeedStyle && !fusedUpdate && ctx.fullFinetune;
    if (forLoop) {
        // _single_tensor_adamw, one parameter at a time: `denom =
        // (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)` holds the
        // sqrt and the quotient at once, two tensors of the parameter's
        // size, the largest parameter's the most (torch/optim/adamw.py;
        // SGD's momentum updates in place and holds none).
        Bytes largest = 0;
        for (const auto* group : {&ctx.table.layer, &ctx.table.denseLayer, &ctx.table.global})
            for (const ParamTensor& t : *group)
                largest = std::max(largest, t.elements());
        if (tc.optimizer == Optimizer::AdamW)
            rows.push_back(row("optimizer.for_loop_temporary",
                               "the largest parameter's sqrt and quotient inside the for-loop step() (torch/optim/"
                               "adamw.py _single_tensor_adamw: denom), two at once",
                               Category::Temporaries,
                               satMul(ceilDiv(satMul(largest, masterBytes(ctx)), stateShards), 2), last, last));
    }
    if (foreachOpt && tc.optimizerImpl == OptimizerImpl::Foreach && ctx.profile.foreachOptimizerTemporary &&
        !ctx.deepspeedStyle && !fusedUpdate) {
        const Bytes stateBytes = ctx.fullFinetune ? masterBytes(ctx) : 4;
        // _multi_tensor_adamw's torch._foreach_sqrt makes one output per
        // parameter, all alive until the addcdiv_ that ends the step: a
        // piece per trainable tensor, so the allocator simulation can place
        // each in a cached block, as PyTorch does.
        TensorRow foreachTemp = row("optimizer.foreach_temporary", "one parameter-sized buffer per trainable tensor inside the foreach step() (torch/optim/adamw.py _multi_tensor_adamw: exp_avg_sq_sqrt; memory-model.md §3)",
                                    Category::Temporaries, ceilDiv(satMul(trainableTotal, stateBytes), stateShards), last, last);
        const std::size_t tempPieces = piecesBegin(ctx);
        if (stateShards == 1) {
            appendTrainablePieces(ctx, leadingGlobal, 1, stateBytes);
            // model.parameters() order: the dense first layers, then the others.
            appendTrainablePieces(ctx, ctx.table.denseLayer, ctx.table.layers - ctx.table.layerRepeats(), stateBytes);
            appendTrainablePieces(ctx, ctx.table.layer, ctx.table.layerRepeats(), stateBytes);
            appendTrainablePieces(ctx, trailingGlobal, 1, stateBytes);
        }
        attachPieces(ctx, foreachTemp, tempPieces);
        rows.push_back(foreachTemp);
    }
    if (tc.optimizer == Optimizer::Adafactor) {
        // transformers optimization.py Adafactor.step, one parameter at a
        // time: `update = grad**2 + eps` is alive when _approx_sq_grad makes
        // its row x column product, and `update` again when `add_(-update)`
        // negates it: two fp32 tensors of the parameter's size. A 16-bit
        // parameter adds its fp32 copies of grad and parameter (grad.float(),
        // p.float()). Checked against the accountant (llama-3.2-1b adafactor:
        // the tied embedding, 2 x 1002 MiB at the step's peak).
        // Plus _approx_sq_grad's fp32 row and column factors (rows + cols).
        const bool globalLargest = global.largest >= layer.largest;
        const Bytes largest = ctx.fullFinetune ? std::max(layer.largest, global.largest) : layer.loraElements;
        const Bytes sides = ctx.fullFinetune ? (globalLargest ? global.largestSides : layer.largestSides) : 0;
        const Bytes perElement = (ctx.fullFinetune && masterBytes(ctx) != 4) ? 16 : 8;
        rows.push_back(row("optimizer.adafactor_temporary", "Adafactor's update temporaries: two fp32 tensors of the largest parameter, four for a 16-bit one (transformers optimization.py Adafactor.step)",
                           Category::Temporaries, satAdd(satMul(largest, perElement), satMul(sides, 4)), last, last));
    }
}

} // namespace headroom::detail
