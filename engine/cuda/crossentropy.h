// SPDX-License-Identifier: GPL-3.0-or-later
// Cross-entropy from logits with ignore_index −100, as runtime/cpu/crossentropy.h
// (torch F.cross_entropy, reduction mean). Every output is per row, so the
// chunked loss of torchtune's CEWithChunkedOutputLoss is these calls on row
// ranges (pointer offsets) while only one chunk of logits exists; the mean is
// taken once over all rows by crossEntropyMean.
// logits, dlogits (N,V) in dtype; targets (N) int32; lse, rowLoss (N) fp32.
#pragma once

#include "cuda/context.h"
#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstddef>
#include <cstdint>

namespace headroom::cuda {

// lse[n] = logsumexp(logits[n,:]); rowLoss[n] = lse[n] − logits[n,target]
// (0 for an ignored row). A target outside [0,V) that is not −100 sets
// *badTarget (device int, when not null) and counts as ignored.
Status crossEntropyForward(Context& context, DType dtype, float* lse, float* rowLoss, const void* logits,
                           const std::int32_t* targets, std::size_t N, std::size_t V, int* badTarget = nullptr);

// meanLoss (device fp32) = sum of rowLoss / validCount (NaN when 0, as torch);
// validCount (device int) = rows whose target is not −100. One block sums in
// a fixed order, so the result does not depend on timing.
Status crossEntropyMean(Context& context, float* meanLoss, int* validCount, const float* rowLoss,
                        const std::int32_t* targets, std::size_t N);

// dlogits[n,v] += dloss·(exp(logits − lse) − [v == target]) / validCount.
Status crossEntropyBackward(Context& context, DType dtype, void* dlogits, const void* logits, const float* lse,
                            const std::int32_t* targets, const int* validCount, std::size_t N, std::size_t V,
                            float dloss = 1.0f);

} // namespace headroom::cuda
