// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// torch.compile of each decoder layer (TrainConfig::compileLayers), as
// torchtitan applies it (torchtitan @ 9dec370 parallelize_llama.py
// apply_compile: torch.compile(block, fullgraph=True) per TransformerBlock,
// inside the activation-checkpoint wrapper). The layer's forward and
// backward become Inductor graphs; AOTAutograd's partitioner decides what
// the forward keeps for the backward, and Inductor fuses pointwise chains
// into single kernels. What that changes, measured on the CPU with
// tools/reference/compile_study.py (PyTorch 2.11, a torchtitan-shaped
// Llama block, profiler allocation events, eager against compiled):
//
// - op-level selective checkpointing: the policy's MUST_SAVE outputs that
//   the backward never reads are not kept. In the Llama layer that is the
//   down projection's output, which feeds only the residual add (kept per
//   layer: eager 7.81 units, compiled 6.81, a unit being tokens x hidden in
//   the 16-bit dtype);
// - the recompute inside the layer's backward materialises no fp32 copy of
//   the norm input, no separate normalised tensor and no separate
//   activation output: each norm is one kernel writing its 16-bit output,
//   and the gated product is one kernel reading both projections.
//
// Everything outside the layers (embeddings, final norm, head, loss) stays
// eager, as in torchtitan, whose loss was not compiled at 9dec370 (train.py).
#include "core/checkedmath.h"
#include "core/result.h"
#include "model/modelspec.h"
#include "model/parametertable.h"
#include "plan/scenario.h"

#include <optional>

namespace headroom {

// The compiled plan's limits, or an UnsupportedCombination naming what is
// not modelled: Llama-layout layers without experts, full or selective-op
// checkpointing, full fine-tuning with the pytorch profile, and no autocast
// over fp32 weights (mixed precision only through FSDP2's
// MixedPrecisionPolicy).
std::optional<Error> checkCompiledLayers(const Scenario& scenario);

// Whether a matmul output the op-level policy marks MUST_SAVE is kept once
// the layer is compiled: not when only the residual add reads it.
bool compiledKeepsSelectiveSave(ModuleKind kind);

// The bytes a tensor of eager's layer saves (plan/layersaves.cpp keys,
// `eagerBytes` each) takes in a compiled layer's recompute: 0 where the
// fused kernels never materialise it. `input16` is the norm input in the
// 16-bit residual stream (tokens x hidden x 2) when the norm upcasts it to
// fp32, else 0.
Bytes compiledRecomputeBytes(const char* key, Bytes eagerBytes, Bytes input16);

} // namespace headroom
