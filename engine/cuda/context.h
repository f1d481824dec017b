// SPDX-License-Identifier: GPL-3.0-or-later
// One device, one stream, one cuBLASLt handle and the workspace its GEMMs
// share. Every kernel launcher takes a Context and runs on its stream.
#pragma once

#include "cuda/dtype.h"
#include "cuda/status.h"

#include <cstdint>
#include <memory>

namespace headroom::cuda {

class Context {
public:
    // 0: cuBLAS's recommendation for the device (cublasSetWorkspace docs,
    // "recommended workspace size": 32 MiB on Hopper and later, 4 MiB before).
    static Result<std::unique_ptr<Context>> create(int device = 0, std::uint64_t workspaceBytes = 0);
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    int device() const;
    Stream stream() const;
    Status synchronize();

    std::uint64_t workspaceBytes() const;
    // Device memory the cuBLAS/cuBLASLt handles took when created, measured as
    // the drop of cudaMemGetInfo's free bytes (0 when it did not move).
    std::uint64_t handleBytes() const;

    struct Impl;
    Impl& impl() const { return *m_impl; }

private:
    explicit Context(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace headroom::cuda
