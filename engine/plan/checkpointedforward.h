// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The forward of a checkpointed Llama-family layer, tensor by tensor: under
// non-reentrant activation checkpointing (transformers'
// gradient_checkpointing_enable) nothing of the layer is kept, so its forward
// is a run of temporaries whose sizes and order decide what the caching
// allocator reserves. One 16-bit block of the layer's output stood for them
// before: the accountant's Llama 2 7B LoRA-64 b8 s2048 case reserved 3.3 GiB
// in its first layer's forward where the plan reserved 0.3.
#include "plan/layersaves.h"

namespace headroom::detail {

// Whether a checkpointed layer's forward is planned as the script below: a
// dense Llama-family layer (RMSNorm, RoPE, SwiGLU, no q/k norms) with the
// flash kernel, 16-bit compute, on one GPU or data parallel, fully trained
// or with LoRA or 4-bit QLoRA (no dropout) under autocast. Under autocast over fp32 weights
// the script also makes autocast's weight casts, for their own row
// (TensorRow::madeByScript). Anything else keeps the one block
// (activationrows.cpp).
bool scriptedCheckpointedForward(const BuildContext& ctx, const Dims& d);

// Adds the row "layer.ckpt_forward" on the checkpointed layers: the script's
// tensors, the most alive at once as its bytes.
void addCheckpointedForwardScript(const BuildContext& ctx, const Dims& d, std::vector<TensorRow>& rows);

} // namespace headroom::detail
