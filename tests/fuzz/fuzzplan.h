// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the fuzz targets: whatever a reader accepts is planned, and the
// plan is checked for the invariants no input may break (docs/robustness.md).
// A broken invariant aborts, which libFuzzer reports as a crash.
#include "plan/scenario.h"

namespace headroom::fuzz {

// Plans `scenario` as given, and checks the plan when it is not an error.
void planAndCheck(const Scenario& scenario);

// Plans `model` under a handful of scenarios that reach different row
// builders (full training, LoRA with checkpointing, ZeRO-3, inference).
void planVariants(const ModelSpec& model);

} // namespace headroom::fuzz
