// SPDX-License-Identifier: GPL-3.0-or-later
// Dynamic loss scaling on the device, as runtime/cpu/gradscaler.h (torch.amp.
// GradScaler; aten/src/ATen/native/cuda/AmpKernels.cu): the scale, the growth
// tracker and found-inf live in device memory so a step needs no host sync.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>

namespace headroom::cuda {

// grads (n, fp32) *= float(1/double(*scale)); *foundInf = 1 if any gradient was
// inf or NaN before unscaling (_amp_foreach_non_finite_check_and_unscale_).
// foundInf is only ever set, so one flag serves every gradient array of a step.
Status unscaleAndCheck(Context& context, float* grads, std::size_t n, const float* scale, float* foundInf);

// _amp_update_scale_: on overflow scale ·= backoff and the tracker resets;
// else after growthInterval clean steps scale ·= growth (if finite).
Status updateLossScale(Context& context, float* scale, int* growthTracker, const float* foundInf,
                       float growthFactor = 2.0f, float backoffFactor = 0.5f, int growthInterval = 2000);

} // namespace headroom::cuda
