// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Float8 linears as torchtitan trains them: torchao's Float8Linear
// (torchao @ eab345c torchao/float8/float8_linear.py) with tensorwise
// dynamic scaling swapped in for every nn.Linear of the decoder layers
// (torchtitan @ 9dec370 float8.py: the output head is left in bf16), under
// FSDP2 with MixedPrecisionPolicy(bf16 params, fp32 reduce). The scenario
// says it as "precision": "fp8-mixed" with "sharding": "fsdp2".
//
// Forward of one linear: cast_input_to_float8 and cast_weight_to_float8_t
// make 1-byte e4m3 copies of the 16-bit input and weight;
// manual_float8_matmul_with_args_in_float8 saves both for its backward and
// returns the 16-bit product, so the linear keeps fp8 copies where a bf16
// linear keeps its 16-bit input. Backward casts the output gradient to
// e5m2 (1 byte). The op-level checkpoint policy sees the same aten.mm calls
// (on the Float8Tensor subclass), so a checkpointed layer keeps the same
// matmul outputs, plus the amax scalars torchtitan's save list names.
#include "core/checkedmath.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <optional>
#include <vector>

namespace headroom {

// Whether the scenario's linears are torchao Float8Linear (fp8-mixed under FSDP2).
bool float8Linears(const Scenario& scenario);

// Whether FSDP2 all-gathers those linears' weights in float8
// (TrainConfig::float8AllGather; torchao eab345c fsdp_utils.py
// WeightWithDynamicFloat8CastTensor: fsdp_pre_all_gather casts the fp32
// shard to e4m3 and hands FSDP its 1-byte data; fsdp_post_all_gather wraps
// the gathered bytes as the unsharded Float8Tensor weight). The unsharded
// linear weights and their all-gather buffers are then 1 byte per element,
// and Float8Linear casts no weight in forward (cast_weight_to_float8_t
// passes a Float8Tensor through). Norms, embeddings and the head stay in
// param_dtype; gradients are unchanged.
bool float8AllGather(const Scenario& scenario);

// What is not modelled with Float8 linears, as an UnsupportedCombination:
// layers without checkpointing (their fp8 saves), op-level checkpointing
// without compiled layers (torchtitan's policy then keeps every aten.abs
// output of the amax computations, tensor-sized), models outside the Llama
// layout, PEFT.
std::optional<Error> checkFloat8Linears(const Scenario& scenario);

// Whether a tensor of the bf16 layer's saves (plan/layersaves.cpp keys) is
// no longer kept for backward with Float8 linears: a linear's 16-bit input,
// whose place the linear's own fp8 copy takes.
bool replacedByFloat8Copy(const char* key);

namespace detail {
struct BuildContext;
// The fp8 casts of a checkpointed layer's linears: one linear's input and
// weight in the forward, every linear's pair from the recompute to its
// backward, one output-gradient cast at a time. `tokens`: the rank's tokens.
void addFloat8Rows(const BuildContext& ctx, Bytes tokens, std::vector<TensorRow>& rows);
} // namespace detail

} // namespace headroom
