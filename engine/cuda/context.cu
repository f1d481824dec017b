// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/tables.h"

#include <vector>

namespace headroom::cuda {

Context::Impl::~Impl()
{
    if (cublasLt)
        (void)cublasLtDestroy(cublasLt);
    if (cublas)
        (void)cublasDestroy(cublas);
    if (workspace)
        (void)cudaFree(workspace);
    if (tables)
        (void)cudaFree(tables);
    if (scratch)
        (void)cudaFree(scratch);
    if (stream)
        (void)cudaStreamDestroy(stream);
}

Context::Context(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Context::~Context() = default;

Result<std::unique_ptr<Context>> Context::create(int device, std::uint64_t workspaceBytes)
{
    int count = 0;
    HR_CUDA(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return Status{count == 0 ? StatusCode::noDevice : StatusCode::invalidArgument,
                      count == 0 ? std::string("no CUDA device found")
                                 : "device " + std::to_string(device) + " does not exist"};
    auto impl = std::make_unique<Impl>();
    impl->device = device;
    HR_CUDA(cudaSetDevice(device));
    HR_CUDA(cudaFree(nullptr));
    if (workspaceBytes == 0) {
        int major = 0;
        HR_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        workspaceBytes = major >= 9 ? 32ull << 20 : 4ull << 20;
    }
    HR_CUDA(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking));
    std::size_t freeBefore = 0, freeAfter = 0, total = 0;
    HR_CUDA(cudaMemGetInfo(&freeBefore, &total));
    HR_CUBLAS(cublasCreate(&impl->cublas));
    HR_CUBLAS(cublasLtCreate(&impl->cublasLt));
    HR_CUDA(cudaMemGetInfo(&freeAfter, &total));
    impl->handleBytes = freeBefore > freeAfter ? freeBefore - freeAfter : 0;
    HR_CUDA(cudaMalloc(&impl->workspace, workspaceBytes));
    impl->workspaceBytes = workspaceBytes;
    // The cuBLAS handle uses our workspace too, so no hidden allocation
    // appears later (cublasSetWorkspace; both run on the one stream).
    HR_CUBLAS(cublasSetStream(impl->cublas, impl->stream));
    HR_CUBLAS(cublasSetWorkspace(impl->cublas, impl->workspace, workspaceBytes));
    std::vector<float> tables(kTableFloats);
    fillQuantTables(tables.data());
    HR_CUDA(cudaMalloc(&impl->tables, kTableFloats * sizeof(float)));
    HR_CUDA(cudaMemcpy(impl->tables, tables.data(), kTableFloats * sizeof(float), cudaMemcpyHostToDevice));
    HR_CUDA(cudaMalloc(&impl->scratch, Impl::kScratchDoubles * sizeof(double)));
    return std::unique_ptr<Context>(new Context(std::move(impl)));
}

int Context::device() const { return m_impl->device; }
Stream Context::stream() const { return m_impl->stream; }
std::uint64_t Context::workspaceBytes() const { return m_impl->workspaceBytes; }
std::uint64_t Context::handleBytes() const { return m_impl->handleBytes; }

Status Context::synchronize()
{
    HR_CUDA(cudaStreamSynchronize(m_impl->stream));
    return {};
}

} // namespace headroom::cuda
