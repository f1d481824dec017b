// SPDX-License-Identifier: GPL-3.0-or-later
// Model states as Megatron-LM keeps them, for the tensor/pipeline-parallel
// layouts planned the Megatron-LM way (no FSDP2): what its mixed-precision
// module, its DistributedDataParallel and its optimizer allocate.
//
// - Float16Module casts the model to the 16-bit dtype (--bf16 / --fp16):
//   2 bytes per parameter; fp32 training keeps 4.
// - DistributedDataParallel (megatron/core/distributed/
//   param_and_grad_buffer.py) keeps every gradient in one contiguous
//   main-grad buffer for the whole run, whose buckets are reduced in place:
//   fp32 under --bf16 (training/arguments.py turns
//   accumulate_allreduce_grads_in_fp32 on for bf16), the 16-bit dtype under
//   --fp16, fp32 in fp32 training. No second copy (PyTorch DDP's buckets).
// - The optimizer (Float16OptimizerWithFloat16Params, or with
//   --use-distributed-optimizer DistributedOptimizer, ZeRO-1 over the
//   data-parallel ranks) keeps fp32 main parameters in the 16-bit modes and
//   Adam's two fp32 moments (SGD's momentum: one); the distributed optimizer
//   shards both over dp. Its Adam is a fused multi-tensor kernel
//   (Transformer Engine or Apex FusedAdam): no per-parameter temporaries.
//
// Per parameter that is 18 bytes under --bf16 and 6 + 12 / dp with the
// distributed optimizer: Megatron-LM's own estimate
// (megatron/training/theoretical_memory_usage.py num_bytes_per_parameter,
// "bf16 model params, fp32 main gradients, fp32 main params, and fp32 Adam
// states"), which test_megatron checks against.
#include "plan/planbuild.h"

namespace headroom::detail {

bool megatronModelStates(const Scenario& sc, const BuildContext& ctx)
{
    if (!ctx.rank || ctx.rank->layout->fsdp2 || sc.mode != Mode::Train || !ctx.fullFinetune)
        return false;
    const TrainConfig& t = sc.train;
    const Sharding s = sc.hardware.sharding;
    const bool megatronPrecision =
        t.precision == Precision::Bf16Mixed || t.precision == Precision::Fp16Mixed || t.precision == Precision::Fp32;
    const bool megatronSharding = s == Sharding::None || s == Sharding::Ddp || s == Sharding::Zero1;
    const bool megatronOptimizer =
        t.optimizer == Optimizer::AdamW || t.optimizer == Optimizer::Sgd || t.optimizer == Optimizer::SgdMomentum;
    return megatronPrecision && megatronSharding && megatronOptimizer && !t.optimizerInBackward &&
           sc.hardware.cpuOffload == false;
}

namespace {

TensorRow stateRow(const char* name, const char* source, Category c, Bytes bytes, LayerSet layers)
{
    return {name, source, c, bytes, Phase::Load, Phase::OptimizerStep, layers, false};
}

} // namespace

void addMegatronModelStateRows(const BuildContext& ctx, std::vector<TensorRow>& rows)
{
    const TrainConfig& t = ctx.scenario.train;
    const bool mixed = t.precision != Precision::Fp32;
    const Bytes paramBytes = mixed ? 2 : 4;
    const Bytes gradBytes = t.precision == Precision::Fp16Mixed ? 2 : 4;
    const Bytes mainParamBytes = mixed ? 4 : 0;
    const Bytes momentBytes = t.optimizer == Optimizer::AdamW ? 8 : t.optimizer == Optimizer::SgdMomentum ? 4 : 0;
    // The distributed optimizer (--sharding zero1) shards the fp32 main
    // parameters and the moments over the data-parallel ranks.
    const Bytes shards = ctx.scenario.hardware.sharding == Sharding::Zero1 ? ctx.shards : 1;

    const Bytes layerParams = ctx.table.layerElements();
    Bytes globalParams = 0;
    for (const ParamTensor& p : ctx.table.global)
        globalParams = satAdd(globalParams, p.elements());
    const Bytes allParams = satAdd(ctx.table.allLayersElements(), globalParams); // dense first layers included
    // Under expert parallelism the distributed optimizer shards a rank's
    // experts over the ranks that hold the same experts, the expert
    // data-parallel group (dp / ep; distrib_optimizer.py builds one buffer per
    // group, param_and_grad_buffer.py), and the other parameters over dp.
    Bytes layerExperts = 0;
    for (const ParamTensor& p : ctx.table.layer)
        if (p.isExpert())
            layerExperts = satAdd(layerExperts, p.elements());
    const ParallelLayout& layout = *ctx.rank->layout;
    const Bytes expertShards = shards > 1 ? layout.expertDataParallel() : 1;
    const auto shardedLayer = [&](Bytes bytesPerElement) {
        return satAdd(ceilDiv(satMul(layerParams - layerExperts, bytesPerElement), shards),
                      ceilDiv(satMul(layerExperts, bytesPerElement), expertShards));
    };

    rows.push_back(stateRow("weights.layer",
                            "parameters of one layer in the 16-bit dtype Megatron-LM's Float16Module casts the model "
                            "to (fp32 training: 4 bytes)",
                            Category::Weights, satMul(layerParams, paramBytes), LayerSet::All));
    rows.push_back(stateRow("weights.global", "embeddings, final norm and output layer in the model's dtype",
                            Category::Weights, satMul(globalParams, paramBytes), LayerSet::Global));
    rows.push_back(stateRow("megatron.grad_buffer",
                            "Megatron-LM DDP's contiguous main-grad buffer for every parameter, fp32 under --bf16 "
                            "(accumulate_allreduce_grads_in_fp32), 16-bit under --fp16; kept for the run and reduced "
                            "in place (param_and_grad_buffer.py)",
                            Category::Gradients, satMul(allParams, gradBytes), LayerSet::Global));
    if (mainParamBytes > 0) {
        rows.push_back(stateRow("optimizer.main_params_layer",
                                "fp32 main parameters of one layer in Megatron-LM's mixed-precision optimizer (sharded "
                                "over dp by the distributed optimizer)",
                                Category::OptimizerState, shardedLayer(mainParamBytes), LayerSet::All));
        rows.push_back(stateRow(
            "optimizer.main_params_global", "fp32 main parameters of the embeddings, final norm and output layer",
            Category::OptimizerState, ceilDiv(satMul(globalParams, mainParamBytes), shards), LayerSet::Global));
    }
    if (momentBytes > 0) {
        rows.push_back(stateRow("optimizer.layer",
                                "Adam's two fp32 moments (SGD momentum: one) of one layer's parameters, in the fused "
                                "optimizer (sharded over dp by the distributed optimizer)",
                                Category::OptimizerState, shardedLayer(momentBytes), LayerSet::All));
        rows.push_back(
            stateRow("optimizer.global", "the optimizer's moments of the embeddings, final norm and output layer",
                     Category::OptimizerState, ceilDiv(satMul(globalParams, momentBytes), shards), LayerSet::Global));
    }
    ctx.note(
        std::string("Model states as Megatron-LM keeps them: ") +
        (mixed ? "16-bit parameters, " : "fp32 parameters, ") + (gradBytes == 4 ? "an fp32" : "a 16-bit") +
        " main-grad buffer" + (mainParamBytes > 0 ? ", fp32 main parameters" : "") +
        (momentBytes > 0 ? " and the optimizer's fp32 moments" : "") +
        (shards > 1 ? " sharded over " + std::to_string(shards) + " data-parallel ranks (distributed optimizer)" : "") +
        "; a fused optimizer step with no temporaries (megatron/training/theoretical_memory_usage.py: 18 bytes per "
        "parameter under --bf16, 6 + 12 / dp with the distributed optimizer).");
}

// Megatron-LM's loss (megatron/core/tensor_parallel/cross_entropy.py
// _VocabParallelCrossEntropy, the default unfused path): the forward takes
// vocab_parallel_logits.float(), subtracts the max, exponentiates and divides
// in place, so one fp32 copy becomes the softmax that it saves; the backward
// subtracts 1 at the targets and scales in place in that same tensor and
// returns it, and autograd casts it to the 16-bit logits' dtype
// (torch/csrc/autograd/engine.cpp validate_outputs). Per token x vocabulary
// element: 2 + 4 bytes in the forward, 4 kept, 4 + 2 in the backward, where
// PyTorch's cross_entropy takes 10, 4 and 12. In fp32 .float() returns the
// logits themselves, so the loss works in them.
void addMegatronLossRows(Bytes TV, Bytes logitBytes, std::vector<TensorRow>& rows)
{
    if (logitBytes == 4) {
        rows.push_back({"logits",
                        "output-layer logits in fp32, turned into the softmax and then into their own gradient in "
                        "place by Megatron-LM's vocab-parallel cross-entropy",
                        Category::Logits, satMul(TV, 4), Phase::HeadFwd, Phase::HeadBwd, LayerSet::Global, false});
        return;
    }
    rows.push_back(
        {"logits",
         "output-layer logits in the 16-bit dtype (the rank's vocabulary shard), freed when the loss has its fp32 copy",
         Category::Logits, satMul(TV, logitBytes), Phase::HeadFwd, Phase::LossFwd, LayerSet::Global, false});
    rows.push_back({"loss.softmax",
                    "Megatron-LM's vocab-parallel cross-entropy: the logits' fp32 copy, made the softmax in place and "
                    "saved; the backward computes the gradient in it in place (tensor_parallel/cross_entropy.py)",
                    Category::Logits, satMul(TV, 4), Phase::LossFwd, Phase::LossBwd, LayerSet::Global, false});
    rows.push_back(
        {"logits.grad",
         "the loss's fp32 gradient cast to the logits' dtype by autograd, consumed by the output layer's backward",
         Category::Logits, satMul(TV, logitBytes), Phase::LossBwd, Phase::HeadBwd, LayerSet::Global, false});
}

} // namespace headroom::detail
