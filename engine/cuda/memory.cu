// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/contextimpl.cuh"
#include "cuda/memory.h"

namespace headroom::cuda {

Status copyToDevice(Context& context, void* device, const void* host, std::size_t bytes)
{
    if (bytes == 0)
        return {};
    HR_CUDA(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, streamOf(context)));
    HR_CUDA(cudaStreamSynchronize(streamOf(context)));
    return {};
}

Status copyToHost(Context& context, void* host, const void* device, std::size_t bytes)
{
    if (bytes == 0)
        return {};
    HR_CUDA(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, streamOf(context)));
    HR_CUDA(cudaStreamSynchronize(streamOf(context)));
    return {};
}

Status fillZero(Context& context, void* device, std::size_t bytes)
{
    if (bytes == 0)
        return {};
    HR_CUDA(cudaMemsetAsync(device, 0, bytes, streamOf(context)));
    return {};
}

} // namespace headroom::cuda
