// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Multi-head latent attention as transformers 5.17 runs it in training
// (modeling_deepseek_v3.py DeepseekV3Attention.forward and expand_kv;
// DeepSeek-V2, arXiv:2405.04434 §2.1): what it saves for backward. Checked
// against the reference accountant (tools/reference, the deepseek-v3-tiny
// cases of tests/data/reference/pytorch_reference.json), not on a GPU.
#include "plan/layersaves.h"

namespace headroom::detail {

// The attention of one DeepSeek-V3 layer, from the input norm's output to the
// output projection's input: the query path (q_a_proj, q_a_layernorm,
// q_b_proj), the latent path (kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj),
// the decoupled RoPE, the concatenated query and key, and the kernel's saves.
void saveMlaAttention(SavedSet& s, const BuildContext& ctx, const Dims& d, Attention kernel);

// Whether a LoRA adapter wraps the linear named `module` ("q_a_proj"...).
bool loraTargetModule(const BuildContext& ctx, const char* module);

} // namespace headroom::detail
