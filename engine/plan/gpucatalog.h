// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// GPUs users plan for (resources/catalog/gpus.json, compiled in).
#include "core/checkedmath.h"
#include "core/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct GpuSpec {
    std::string id;              // "rtx-4090", "h100-sxm-80gb"
    std::string name;            // "NVIDIA GeForce RTX 4090"
    Bytes memoryBytes = 0;       // total memory as nvidia-smi reports it (memory.total)
    std::string memorySource;    // where that figure comes from
    // What CUDA reports (cudaMemGetInfo total): the nvidia-smi total less the
    // driver's reserved framebuffer. 0 where no device query was found.
    Bytes cudaTotalBytes = 0;
    // What a process can allocate at most: the CUDA total where known, else
    // the nvidia-smi total (then slightly optimistic, by the driver's reserve).
    Bytes usableBytes() const { return cudaTotalBytes != 0 ? cudaTotalBytes : memoryBytes; }
    int computeMajor = 0;        // compute capability, e.g. 8.9 -> 8, 9
    int computeMinor = 0;
    bool bf16 = false;           // native bf16 arithmetic (sm_80+)
    bool fp8 = false;            // fp8 tensor cores (sm_89+)
    double memoryBandwidthGBs = 0;
    double denseBf16Tflops = 0;  // dense (no sparsity) tensor-core peak, datasheet
};

const std::vector<GpuSpec>& gpuCatalog();
// Exact id, case-insensitive. Error UnknownGpu names the id.
Result<GpuSpec> findGpu(std::string_view id);
// The same lookup without copying: nullptr when unknown (the planner's hot path).
const GpuSpec* lookupGpu(std::string_view id);

} // namespace headroom
