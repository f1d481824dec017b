// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Llama 4's mixture-of-experts block in training: transformers 5.17
// modeling_llama4.py Llama4TextMoe runs every routed expert on every token
// (hidden_states.repeat(E, 1) scaled by the router's sigmoid scores, then
// torch.bmm over the stacked Llama4TextExperts), not the grouped_mm dispatch
// of moesaves.h, and adds the shared expert (a dense gated MLP, planned by
// layersaves.cpp as any dense MLP). Checked against the reference accountant
// (tests/data/reference/pytorch_reference.json: llama4-text-tiny cases).
#include "plan/layersaves.h"

namespace headroom::detail {

// The routed part's saved tensors: router, the repeated input and its
// scores, the gate/up bmm output, the activation and the down bmm's input.
void saveLlama4MoeBlock(SavedSet& s, const BuildContext& ctx, const Dims& d);

// Its largest forward transient: the scaled repeat (autocast: kept by
// forward's local until it returns) beside the experts' outputs (E x tokens x
// hidden) and their sum.
Bytes llama4MoeForwardTemporaryBytes(const BuildContext& ctx, const Dims& d);

// Its backward working set: the gated product's gradients (E x tokens x
// expert width), as the allocator sees them (one size, how many).
TensorPiece llama4MoeBackwardTemporaries(const BuildContext& ctx, const Dims& d);

} // namespace headroom::detail
