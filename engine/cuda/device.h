// SPDX-License-Identifier: GPL-3.0-or-later
// What CUDA devices there are and how much memory they have, the size of the
// CUDA context, and the device-level numbers the validation run samples
// (cudaMemGetInfo at each event). Plain C++: includers need no CUDA header.
#pragma once

#include "cuda/status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom::cuda {

struct DeviceInfo {
    int index = 0;
    std::string name;                 // cudaDeviceProp::name, e.g. "NVIDIA H100 80GB HBM3"
    int computeMajor = 0, computeMinor = 0;
    int multiprocessors = 0;
    std::string pciBusId;             // cudaDeviceGetPCIBusId, e.g. "0000:01:00.0"
    std::uint64_t totalBytes = 0;     // cudaMemGetInfo total (what CUDA can address)
    std::uint64_t freeBytes = 0;      // cudaMemGetInfo free when listed (after our context exists)
    bool engineSupports = false;      // compiled for this compute capability (cubin or PTX)
};

struct RuntimeVersions {
    int driver = 0;  // cudaDriverGetVersion: 1000·major + 10·minor; 0 without a driver
    int runtime = 0; // cudaRuntimeGetVersion, the toolkit we were built with
    int cublas = 0;  // cublasGetProperty major·10000 + minor·100 + patch
};

RuntimeVersions runtimeVersions();
// "12.8" from 12080.
std::string versionString(int cudaVersion);

// Devices the runtime sees. Status noDevice when there is no driver or no
// device (with the runtime's words), never an empty success.
Result<std::vector<DeviceInfo>> listDevices();

// The compute capabilities this library carries code for, e.g. {75, 80, ...}
// (from the build's CUDA architectures; PTX of the newest JIT-compiles later).
const std::vector<int>& builtArchitectures();

struct MemInfo {
    std::uint64_t freeBytes = 0;
    std::uint64_t totalBytes = 0;
    std::uint64_t usedBytes() const { return totalBytes - freeBytes; }
};
// cudaMemGetInfo on the current device (creates the context if none exists).
Result<MemInfo> memInfo();

// The CUDA context's own memory: the device's used memory (NVML,
// nvmlDeviceGetMemoryInfo, which needs no context; loaded with dlopen so a
// machine without the driver still runs us) read before and after
// cudaSetDevice + cudaFree(0) creates the primary context. Other processes on
// the device make usedBefore noisy, not the difference. Without NVML,
// nvmlAvailable is false and contextBytes is 0. Call before anything else
// touches the device in this process, or the context already exists and
// contextBytes is ~0.
struct ContextMeasurement {
    bool nvmlAvailable = false;
    std::uint64_t usedBeforeBytes = 0;
    std::uint64_t usedAfterBytes = 0;
    std::uint64_t contextBytes = 0;
    std::uint64_t othersBeforeBytes = 0; // others' memory before the context, as cudaMemGetInfo counts (no driver reserve)
    MemInfo afterInit;                // cudaMemGetInfo once the context exists
};
Result<ContextMeasurement> initialiseAndMeasureContext(int device);

// cudaMalloc/cudaFree with byte accounting: what a tracking allocator wraps
// (the runtime's tracking allocator adds categories and events on top).
// Sizes are rounded up to 512 bytes first, as PyTorch's caching allocator's
// kMinBlockSize (c10/cuda/CUDACachingAllocator.cpp), so the accounting is
// comparable; cudaMalloc itself aligns to at least 256 bytes (CUDA C
// Programming Guide, "Device Memory"). An optional limit refuses requests that
// would take the live bytes past it (for extrapolation runs and fault tests).
class DeviceAllocator {
public:
    static constexpr std::uint64_t kRounding = 512;

    DeviceAllocator() = default;
    ~DeviceAllocator();
    DeviceAllocator(const DeviceAllocator&) = delete;
    DeviceAllocator& operator=(const DeviceAllocator&) = delete;

    Result<void*> allocate(std::uint64_t bytes);
    Status release(void* pointer);
    Status releaseAll();

    void setLimit(std::uint64_t bytes) { m_limit = bytes; } // 0: none
    std::uint64_t liveBytes() const { return m_live; }
    std::uint64_t peakBytes() const { return m_peak; }
    void resetPeak() { m_peak = m_live; }
    std::size_t liveAllocations() const { return m_sizes.size(); }

    static std::uint64_t roundedSize(std::uint64_t bytes);

private:
    std::unordered_map<void*, std::uint64_t> m_sizes;
    std::uint64_t m_live = 0;
    std::uint64_t m_peak = 0;
    std::uint64_t m_limit = 0;
};

// A device array owned by value (cudaMalloc/cudaFree), with copies and
// zeroing that synchronise the whole device before and after (so they are
// ordered with kernels on any stream): for tests, tables and scratch the step
// program does not account, not for anything on a hot path.
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer();
    DeviceBuffer(DeviceBuffer&& other) noexcept;
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    static Result<DeviceBuffer> create(std::size_t bytes);
    // create + zero-fill / create + upload
    static Result<DeviceBuffer> zeros(std::size_t bytes);
    static Result<DeviceBuffer> fromHost(const void* host, std::size_t bytes);

    Status upload(const void* host, std::size_t bytes);
    Status download(void* host, std::size_t bytes) const;
    Status zero();

    void* data() const { return m_data; }
    template <typename T> T* as() const { return static_cast<T*>(m_data); }
    std::size_t bytes() const { return m_bytes; }

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
};

} // namespace headroom::cuda
