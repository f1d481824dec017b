// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// NCCL's own device memory: each communicator a multi-GPU run uses holds
// its channels' buffers outside PyTorch's caching allocator (cudaMalloc /
// cuMem), so nvidia-smi shows it and the allocator cannot use it. NCCL's
// maintainers: memory grows with communicators and linearly with channels
// (NVIDIA/nccl#864, #986). The figures are one measurement, on 4 A100s with
// NVLink through PyTorch after a 4 MB all-reduce (NVIDIA/nccl#964): 544 MB
// per communicator of two ranks, 688 MB for more. Other GPUs and
// interconnects use other channel counts: an estimate there [flag].
#include "core/checkedmath.h"
#include "plan/scenario.h"

namespace headroom {

struct NcclBuffers {
    unsigned communicators = 0;
    Bytes bytes = 0;
};

// The communicators one rank of the scenario's layout joins (one per
// parallel dimension over one GPU: data-parallel or sharding, tensor,
// pipeline, context) and their buffers; none on one GPU.
NcclBuffers ncclBuffers(const Scenario& scenario);

} // namespace headroom
