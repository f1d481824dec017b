// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Models whose first layers differ from the rest (DeepSeek-V3: the first
// first_k_dense_replace layers run a dense MLP, the others a mixture of
// experts; ParameterTable::denseLayer). The row builders plan one kind of
// layer at a time: planner.cpp builds the table once for the model and once
// for its dense layers, and merges the two here, each per-layer row that
// differs tagged with the layers it is for (LayerBand).
#include "model/modelspec.h"
#include "model/parametertable.h"
#include "plan/plan.h"

#include <vector>

namespace headroom::detail {

// The model as its dense layers see it: no experts, the dense MLP's width.
ModelSpec denseLayerModel(const ModelSpec& model);

// The table with its two kinds of layer swapped: `layer` the dense layers'
// tensors, `denseLayer` the others', so that every total over the layers
// reads the same from either view.
ParameterTable denseLayerTable(const ParameterTable& table);

// Merges the dense view's rows into `rows`. A per-layer row the same in both
// views (name, events, layers, bytes and tensors) stays one row for every
// layer; one that differs is kept for the other layers (LayerBand::Sparse)
// and the dense view's is added for the dense ones (LayerBand::Dense), with
// its tensors appended to `pieces` (and its references to other rows
// renumbered). A global row the same in both views stays; one that differs
// sums something over the layers as if each were of its view's kind (a
// pipeline stage's micro-batches in flight: parallelrows.cpp), so it takes
// each view's share by layer count, denseLayers of `layers`, as one tensor.
void mergeDenseLayerRows(std::vector<TensorRow>& rows, std::vector<TensorPiece>& pieces,
                         const std::vector<TensorRow>& denseRows, const std::vector<TensorPiece>& densePieces,
                         std::uint64_t denseLayers, std::uint64_t layers);

} // namespace headroom::detail
