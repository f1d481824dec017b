// SPDX-License-Identifier: GPL-3.0-or-later
#include "plan/float8linear.h"

#include "plan/planbuild.h"

#include <algorithm>
#include <cstring>

namespace headroom {

bool float8Linears(const Scenario& sc)
{
    return sc.mode == Mode::Train && sc.train.precision == Precision::Fp8Mixed &&
           sc.hardware.sharding == Sharding::Fsdp2;
}

bool float8AllGather(const Scenario& sc) { return float8Linears(sc) && sc.train.float8AllGather; }

std::optional<Error> checkFloat8Linears(const Scenario& sc)
{
    if (sc.mode == Mode::Train && sc.train.float8AllGather && !float8Linears(sc))
        return makeError(ErrorCode::UnsupportedCombination,
                         "train.float8_all_gather: FSDP2's float8 all-gather is for torchao's Float8Linear weights; "
                         "it needs precision fp8-mixed and sharding fsdp2");
    if (!float8Linears(sc))
        return std::nullopt;
    const auto unsupported = [](const char* what) { return makeError(ErrorCode::UnsupportedCombination, what); };
    if (sc.train.checkpointing != Checkpointing::Full && sc.train.checkpointing != Checkpointing::SelectiveOps)
        return unsupported("fp8-mixed under FSDP2 (torchao Float8Linear) is planned with full or selective-op "
                           "checkpointing; what the fp8 linears keep without checkpointing is not modelled yet");
    if (sc.train.checkpointing == Checkpointing::SelectiveOps && !sc.train.compileLayers)
        return unsupported("fp8-mixed under FSDP2 with selective-op checkpointing is planned with compiled layers "
                           "(train.compile): eager, the policy keeps every aten.abs output of the fp8 scaling, "
                           "which is not modelled");
    if (sc.model.family != Family::Llama || sc.model.isMoe())
        return unsupported("fp8-mixed under FSDP2 (torchao Float8Linear) is planned for the Llama layout without "
                           "experts, as torchtitan converts it");
    if (sc.train.peft.method != PeftMethod::None)
        return unsupported("fp8-mixed under FSDP2 is planned for full fine-tuning only");
    return std::nullopt;
}

bool replacedByFloat8Copy(const char* key)
{
    // The Llama layer's linear inputs: q/k/v read norm1's output, gate/up
    // norm2's, down the gated product (plan/layersaves.cpp). Nothing else in
    // the backward reads them: the norms' backward reads their inputs and
    // normalised tensors, the product's backward its two factors.
    static const char* const inputs[] = {"norm1.out", "norm2.out", "mlp.down_in"};
    for (const char* k : inputs)
        if (std::strcmp(k, key) == 0)
            return true;
    return false;
}

namespace detail {

// Every bytes count here is 1 byte per element (float8_e4m3fn / e5m2). The
// weights are the unsharded 16-bit parameters FSDP2 gathered, cast per call
// (torchtitan 9dec370 does not enable precompute_float8_dynamic_scale_for_fsdp
// or fp8 all-gather by default; the all-gather stays in bf16 here).
void addFloat8Rows(const BuildContext& ctx, Bytes tokens, std::vector<TensorRow>& rows)
{
    // Under torchtitan's tensor parallelism (parallelize_llama.py apply_tp
    // with enable_float8) the attention's and the feed-forward's input goes
    // through PrepareFloat8ModuleInput (torchao eab345c
    // float8_tensor_parallel.py): cast to fp8 once on the sequence shard and
    // all-gathered in fp8. wq, wk, wv (and w1, w3) are Float8ColwiseParallel
    // and receive that Float8Tensor, which hp_tensor_to_float8_dynamic and
    // Float8Linear's cast_input_to_float8 pass through uncast: the colwise
    // linears of one module share one fp8 copy of the whole-sequence input.
    // wo and w2 (Float8RowwiseParallel) cast their own local inputs.
    const bool sharedInputs = ctx.rank && ctx.rank->layout->tp > 1;
    const auto inputGroup = [&](ModuleKind k) {
        if (!sharedInputs)
            return -1;
        if (k == ModuleKind::AttnQ || k == ModuleKind::AttnK || k == ModuleKind::AttnV || k == ModuleKind::AttnQkv)
            return 0;
        if (k == ModuleKind::MlpGate || k == ModuleKind::MlpUp || k == ModuleKind::MlpGateUp)
            return 1;
        return -1;
    };
    bool groupCounted[2] = {false, false};
    Bytes saved = 0, widestCall = 0, widestGrad = 0;
    for (const ParamTensor& t : ctx.table.layer) {
        if (!t.isLinearWeight)
            continue;
        const Bytes input = satMul(satMul(tokens, t.cols), t.copies);
        // With the float8 all-gather the weight arrives as a Float8Tensor: the
        // unsharded parameter itself (fsdp2rows.cpp), no cast of its own.
        const Bytes weight = ctx.float8AllGather ? 0 : satMul(satMul(t.rows, t.cols), t.copies);
        const int group = inputGroup(t.kind);
        const bool inputCounted = group >= 0 && groupCounted[group];
        if (group >= 0)
            groupCounted[group] = true;
        saved = satAdd(saved, inputCounted ? weight : satAdd(input, weight));
        widestCall = std::max(widestCall, satAdd(input, weight));
        widestGrad = std::max(widestGrad, satMul(satMul(tokens, t.rows), t.copies));
    }
    // In the forward of a checkpointed layer the autograd function's saves are
    // dropped by the checkpoint: one linear's casts live at a time.
    // A measured TP layer script that holds them (torchtitanrows.cpp) takes
    // their place in checkpointed layers.
    rows.push_back({"float8.forward_casts", "fp8 copies of one linear's input and weight (torchao Float8Linear: cast_input_to_float8, cast_weight_to_float8_t), the widest linear's, freed after its matmul under checkpointing",
                    Category::Temporaries, widestCall, Phase::LayerFwd, Phase::LayerFwd,
                    float8CastsInLayerScript(ctx) ? LayerSet::Plain : LayerSet::All, false});
    // The recompute makes them again, and manual_float8_matmul_with_args_in_float8
    // keeps every linear's pair until that linear's backward.
    rows.push_back({"float8.saved_casts", "fp8 copies of every linear's input and weight, made by the recompute and saved by manual_float8_matmul_with_args_in_float8 until each linear's backward",
                    Category::Activations, saved, Phase::LayerBwd, Phase::LayerBwd, LayerSet::Checkpointed, false});
    // [flag: estimate] One e5m2 cast of the output gradient at a time
    // (cast_output_to_float8_in_bw); the layout copies _scaled_mm may need
    // for the weight gradient are not counted.
    rows.push_back({"float8.grad_output_cast", "the output gradient of one linear cast to float8_e5m2 for its backward matmuls, the widest linear's [estimate]",
                    Category::Temporaries, widestGrad, Phase::LayerBwd, Phase::LayerBwd, LayerSet::All, false});
}

} // namespace detail

} // namespace headroom
