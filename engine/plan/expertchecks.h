// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The checks of a layout's mixture-of-experts settings (plan/parallel.cpp
// parallelLayout): expert and expert tensor parallelism, Megatron-LM's or
// torchtitan's, and train.moe's capacity and imbalance.
#include "core/result.h"
#include "plan/parallel.h"

#include <optional>

namespace headroom::detail {

// hardware.parallel.ep and etp against the model, the layout (tp, dp, cp and
// FSDP2 already set) and the model states.
std::optional<Error> expertParallelChecks(const Scenario& sc, const ParallelLayout& l, std::uint64_t ep,
                                          std::uint64_t etp);
// train.moe against the model and the layout (ep set).
std::optional<Error> moeRoutingChecks(const Scenario& sc, const ParallelLayout& l);

} // namespace headroom::detail
