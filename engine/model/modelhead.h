// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Choosing a model's task head (ModelSpec::head): which families have which
// heads, and the transformers class each one is counted as.
#include "core/result.h"
#include "model/modelspec.h"

#include <optional>

namespace headroom {

// Far above any classification task's label count, far below overflow.
inline constexpr std::uint64_t kMaxLabels = std::uint64_t{1} << 24;

// Sets spec.head, spec.numLabels and spec.hfClass. The sequence-classification
// head exists for BERT only (BertForSequenceClassification) and needs
// 1 <= numLabels <= kMaxLabels (1: transformers regresses with MSELoss); the
// language-model head takes numLabels 0. On error the spec is unchanged and the
// Error names what is wrong (UnsupportedCombination, InvalidArgument).
std::optional<Error> setModelHead(ModelSpec& spec, ModelHead head, std::uint64_t numLabels);

} // namespace headroom
