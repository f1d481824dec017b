// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/check.cuh"

#include <cstring>

namespace headroom::cuda::detail {

namespace {
std::string place(const char* file, int line)
{
    const char* slash = std::strrchr(file, '/');
    return std::string(slash ? slash + 1 : file) + ":" + std::to_string(line);
}
} // namespace

Status fromCuda(cudaError_t error, const char* call, const char* file, int line)
{
    // Reading the error clears a sticky-free error so later calls are not blamed for it.
    (void)cudaGetLastError();
    StatusCode code = StatusCode::cudaError;
    if (error == cudaErrorMemoryAllocation)
        code = StatusCode::outOfMemory;
    else if (error == cudaErrorNoDevice || error == cudaErrorInsufficientDriver)
        code = StatusCode::noDevice;
    return {code, std::string(call) + ": " + cudaGetErrorString(error) + " (" + cudaGetErrorName(error) + ") at " +
                      place(file, line)};
}

Status fromCublas(cublasStatus_t status, const char* call, const char* file, int line)
{
    const StatusCode code = status == CUBLAS_STATUS_ALLOC_FAILED ? StatusCode::outOfMemory : StatusCode::cublasError;
    return {code, std::string(call) + ": " + cublasGetStatusString(status) + " (" + cublasGetStatusName(status) +
                      ") at " + place(file, line)};
}

Status invalid(const std::string& message) { return {StatusCode::invalidArgument, message}; }

} // namespace headroom::cuda::detail
