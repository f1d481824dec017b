// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The model FLOPs of one training step, to turn a measured step time into
// achieved TFLOP/s. PaLM's count (Chowdhery et al. 2022, "PaLM", Appendix B,
// model FLOPs utilisation): per token 6·N for the matrix products of the
// forward and backward (N the parameters that multiply activations: every
// linear weight and the output head, not the embedding lookup) plus
// 12·L·H·Q·T for attention (L layers, H heads of dimension Q, T tokens of
// context). Model FLOPs, not hardware FLOPs: a checkpointed layer's
// recompute, and the weight gradients LoRA skips, are not in it, so the same
// run has one number whatever the technique.
#include "plan/scenario.h"

namespace headroom::rt {

// FLOPs of one optimizer step (all micro-batches) of a training scenario.
double modelFlopsPerStep(const Scenario& scenario);

} // namespace headroom::rt
