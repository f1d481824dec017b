// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The CUDA backend: the step program (runtime/step) on the CUDA Ops, its
// buffers in device memory through the tracking allocator, and the device
// itself measured: the context, the cuBLAS workspace, the Ops' arena, and the
// memory the device really used (cudaMemGetInfo after every allocation).
// Plain C++: includers need no CUDA header.
#include "cuda/status.h"
#include "runtime/backend.h"

#include <memory>

namespace headroom::cuda {

// Measures the CUDA context on `device` (so call it before anything else in
// the process touches the device); Status noDevice without a device or driver.
Result<std::unique_ptr<rt::Backend>> makeCudaBackend(int device = 0);

} // namespace headroom::cuda
