// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A mixture-of-experts block as transformers 5.17 runs it in training: the
// default "grouped_mm" experts (integrations/moe.py grouped_mm_experts_forward,
// chosen by PreTrainedModel.get_correct_experts_implementation) for Mixtral,
// Qwen3-MoE and gpt-oss. Checked against the reference accountant
// (tools/reference, PyTorch 2.11 on the meta device; the Qwen3-30B-A3B, Mixtral
// and gpt-oss cases in
// tests/data/reference/pytorch_reference.json), and on one H200 on CUDA
// (docs/validation/gpu-h200-2026-11-26.md: its six cases within 0.017 %). Llama 4
// runs its own block (every expert on every token, torch.bmm): the functions
// here hand a Llama 4 model to plan/llama4moesaves.h.
#include "plan/layersaves.h"

namespace headroom::detail {

// Bytes of an expert activation element. aten::_grouped_mm is on no autocast
// list, and transformers casts its input to the expert weight's dtype
// (moe.py _grouped_mm: `input.to(weight.dtype)`), so the experts compute in
// the dtype the weights are stored in: fp32 under autocast over fp32 weights
// (the residual stream's dtype there), the compute dtype otherwise.
Bytes expertElementBytes(const BuildContext& ctx, const Dims& d);

// The block's saved tensors: the router's input, the routing softmax and
// top-k, the dispatch indices, and per token-slot the gathered hidden states,
// the up projection, the gate and the down projection's output.
void saveMoeBlock(SavedSet& s, const BuildContext& ctx, const Dims& d);

// The block's largest forward transient: the weighted expert outputs and
// their copy back into token order, both alive at the gather.
Bytes moeForwardTemporaryBytes(const BuildContext& ctx, const Dims& d);

// The block's backward working set over its saved tensors, the wider of two
// moments: the output gradient expanded to token-slots (a copy), the zeros it
// is scattered into and the scatter's result (index backward is out of
// place); or the gated product's backward, three gradients of the expert
// width. As the allocator sees them: tensors of one size, and how many.
TensorPiece moeBackwardTemporaries(const BuildContext& ctx, const Dims& d);

// Whether a saved row of saveMoeBlock holds the token slots on the experts'
// side (the gathered input, the expert projections, the expert output):
// what a GPU holds of them follows how many slots reach its experts, which
// expert tensor parallelism, capacity factors and uneven routing change
// (plan/parallelrows.cpp). Not the router's rows, nor the dispatch indices
// (the tokens' own side), nor Llama 4's block.
bool expertSlotRow(const ModelSpec& model, const char* name);

} // namespace headroom::detail
