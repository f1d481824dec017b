// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Copies and fills on a Context's stream, for the step program's Ops
// (upload, download, zero). Each copy waits for the stream, so host memory
// can be reused at once and a download sees every kernel queued before it.
// Plain C++: includers need no CUDA header.
#include "cuda/context.h"

#include <cstddef>

namespace headroom::cuda {

Status copyToDevice(Context& context, void* device, const void* host, std::size_t bytes);
Status copyToHost(Context& context, void* host, const void* device, std::size_t bytes);
// Queued on the stream (no wait).
Status fillZero(Context& context, void* device, std::size_t bytes);

} // namespace headroom::cuda
