// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch.compile of the loss function (TrainConfig::compileLoss), as
// torchtitan compiles it when training.compile is on (torchtitan @ e7c0cae,
// June 2025, components/loss.py build_cross_entropy_loss:
// torch.compile(cross_entropy_loss), which is
// cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)); today's
// compile.components "loss"). Measured on the CPU with
// tools/reference/compile_loss_study.py (PyTorch 2.11, bf16 logits from a
// linear head, profiler allocation events; a unit is tokens x vocab x 2
// bytes; docs/validation/compile.md):
//
//                     forward peak   kept for backward   backward peak
//   eager                5 units         2 units            6 units
//   compiled             1 unit          1 unit             2 units
//
// AOTAutograd's partitioner (TORCH_LOGS=aot_graphs) saves the graph's
// input, the 16-bit logits, and two fp32 numbers per token (the row max
// and the log of the sum of exponentials); the fp32 upcast and the
// log-probabilities are never materialised. The backward is one kernel that
// writes the logits' gradient in their dtype (no dense fp32 nll_loss
// gradient, no fp32 log_softmax gradient).
#include "core/result.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <optional>
#include <vector>

namespace headroom {

// Whether the scenario's loss is compiled (train.compile_loss in training).
bool compiledLoss(const Scenario& scenario);

// The compiled loss's limits, as an UnsupportedCombination naming what is
// not modelled: other runtimes than PyTorch, sequence-classification heads,
// chunked cross-entropy (a different loss function), and loss parallelism
// under tensor parallelism (DTensor's decomposed loss, not measured
// compiled).
std::optional<Error> checkCompiledLoss(const Scenario& scenario);

namespace detail {
struct BuildContext;
// The logits and the compiled cross-entropy's tensors: the logits kept as
// the graph's saved input until the loss backward (or the optimizer step
// when the loop keeps the outputs), the per-token statistics, and the
// logits' gradient from the loss backward to the head's. `TV`: tokens x
// vocabulary; `logitBytes`: bytes per logit element.
void addCompiledLossRows(const BuildContext& ctx, Bytes TV, Bytes logitBytes, bool keepOutputs,
                         std::vector<TensorRow>& rows);
} // namespace detail

} // namespace headroom
