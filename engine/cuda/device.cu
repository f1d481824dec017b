// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/check.cuh"
#include "cuda/device.h"

#include <dlfcn.h>

#include <sstream>
#include <utility>

namespace headroom::cuda {

namespace {

__global__ void probeKernel(int* out)
{
    if (out)
        *out = 1;
}

// The few NVML entry points we need, looked up at run time (nvml.h
// signatures; the _v2 names are what nvml.h maps the plain names to).
struct Nvml {
    using Init = int (*)();
    using Shutdown = int (*)();
    using HandleByPci = int (*)(const char*, void**);
    struct Memory {
        unsigned long long total, free, used;
    };
    using MemoryInfo = int (*)(void*, Memory*);

    void* library = nullptr;
    Init init = nullptr;
    Shutdown shutdown = nullptr;
    HandleByPci handleByPci = nullptr;
    MemoryInfo memoryInfo = nullptr;

    bool load()
    {
        library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library)
            return false;
        init = reinterpret_cast<Init>(dlsym(library, "nvmlInit_v2"));
        shutdown = reinterpret_cast<Shutdown>(dlsym(library, "nvmlShutdown"));
        handleByPci = reinterpret_cast<HandleByPci>(dlsym(library, "nvmlDeviceGetHandleByPciBusId_v2"));
        memoryInfo = reinterpret_cast<MemoryInfo>(dlsym(library, "nvmlDeviceGetMemoryInfo"));
        if (!init || !shutdown || !handleByPci || !memoryInfo || init() != 0) {
            dlclose(library);
            library = nullptr;
            return false;
        }
        return true;
    }
    bool usedBytes(const std::string& pciBusId, std::uint64_t& used, std::uint64_t* total = nullptr) const
    {
        void* handle = nullptr;
        Memory memory{};
        if (handleByPci(pciBusId.c_str(), &handle) != 0 || memoryInfo(handle, &memory) != 0)
            return false;
        used = memory.used;
        if (total)
            *total = memory.total;
        return true;
    }
    ~Nvml()
    {
        if (library) {
            shutdown();
            dlclose(library);
        }
    }
};

Status deviceCount(int& count)
{
    count = 0;
    HR_CUDA(cudaGetDeviceCount(&count));
    if (count == 0)
        return {StatusCode::noDevice, "no CUDA device found"};
    return {};
}

std::vector<int> parseArchitectures(const char* list)
{
    std::vector<int> out;
    std::istringstream in(list);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty() && item.find_first_not_of("0123456789") == std::string::npos)
            out.push_back(std::stoi(item));
    return out;
}

} // namespace

RuntimeVersions runtimeVersions()
{
    RuntimeVersions v;
    if (cudaDriverGetVersion(&v.driver) != cudaSuccess)
        v.driver = 0;
    if (cudaRuntimeGetVersion(&v.runtime) != cudaSuccess)
        v.runtime = 0;
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        v.cublas = major * 10000 + minor * 100 + patch;
    (void)cudaGetLastError();
    return v;
}

std::string versionString(int cudaVersion)
{
    if (cudaVersion <= 0)
        return "none";
    return std::to_string(cudaVersion / 1000) + "." + std::to_string(cudaVersion % 1000 / 10);
}

const std::vector<int>& builtArchitectures()
{
    static const std::vector<int> list = parseArchitectures(HEADROOM_CUDA_ARCH_LIST);
    return list;
}

Result<std::vector<DeviceInfo>> listDevices()
{
    int count = 0;
    HR_TRY(deviceCount(count));
    std::vector<DeviceInfo> devices;
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        HR_CUDA(cudaGetDeviceProperties(&prop, i));
        DeviceInfo d;
        d.index = i;
        d.name = prop.name;
        d.computeMajor = prop.major;
        d.computeMinor = prop.minor;
        d.multiprocessors = prop.multiProcessorCount;
        char bus[32] = {};
        HR_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
        d.pciBusId = bus;
        HR_CUDA(cudaSetDevice(i));
        std::size_t freeBytes = 0, totalBytes = 0;
        HR_CUDA(cudaMemGetInfo(&freeBytes, &totalBytes));
        d.freeBytes = freeBytes;
        d.totalBytes = totalBytes;
        cudaFuncAttributes attributes{};
        d.engineSupports = cudaFuncGetAttributes(&attributes, probeKernel) == cudaSuccess;
        (void)cudaGetLastError();
        devices.push_back(std::move(d));
    }
    return devices;
}

Result<MemInfo> memInfo()
{
    std::size_t freeBytes = 0, totalBytes = 0;
    HR_CUDA(cudaMemGetInfo(&freeBytes, &totalBytes));
    return MemInfo{freeBytes, totalBytes};
}

Result<ContextMeasurement> initialiseAndMeasureContext(int device)
{
    int count = 0;
    HR_TRY(deviceCount(count));
    if (device < 0 || device >= count)
        return Status{StatusCode::invalidArgument,
                      "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)"};
    ContextMeasurement m;
    char bus[32] = {};
    HR_CUDA(cudaDeviceGetPCIBusId(bus, sizeof bus, device));
    Nvml nvml;
    std::uint64_t nvmlTotal = 0;
    m.nvmlAvailable = nvml.load() && nvml.usedBytes(bus, m.usedBeforeBytes, &nvmlTotal);
    HR_CUDA(cudaSetDevice(device));
    HR_CUDA(cudaFree(nullptr)); // creates the primary context (CUDA C Programming Guide, "Initialization")
    HR_CUDA(cudaDeviceSynchronize());
    if (m.nvmlAvailable && nvml.usedBytes(bus, m.usedAfterBytes))
        m.contextBytes = m.usedAfterBytes > m.usedBeforeBytes ? m.usedAfterBytes - m.usedBeforeBytes : 0;
    else
        m.nvmlAvailable = false;
    Result<MemInfo> info = memInfo();
    if (!info.ok())
        return info.status();
    m.afterInit = info.value();
    // NVML counts the driver's reserved framebuffer as used and in its total;
    // cudaMemGetInfo leaves it out of both (H200, driver 580: NVML total
    // 143771 MiB, CUDA total 150109880320 bytes, 615 MiB apart, and 618 MiB
    // "used" with no process on the device; docs/validation/gpu-h200-2026-11-25.md).
    // The memory others held before this run, in cudaMemGetInfo's terms, is
    // NVML's used less that reserve.
    if (m.nvmlAvailable) {
        const std::uint64_t reserve = nvmlTotal > m.afterInit.totalBytes ? nvmlTotal - m.afterInit.totalBytes : 0;
        m.othersBeforeBytes = m.usedBeforeBytes > reserve ? m.usedBeforeBytes - reserve : 0;
    }
    return m;
}

// --- DeviceAllocator ---------------------------------------------------------

DeviceAllocator::~DeviceAllocator() { (void)releaseAll(); }

std::uint64_t DeviceAllocator::roundedSize(std::uint64_t bytes)
{
    return (bytes + kRounding - 1) / kRounding * kRounding;
}

Result<void*> DeviceAllocator::allocate(std::uint64_t bytes)
{
    const std::uint64_t size = roundedSize(bytes == 0 ? 1 : bytes);
    if (m_limit != 0 && m_live + size > m_limit)
        return Status{StatusCode::outOfMemory, "allocation of " + std::to_string(size) +
                                                   " bytes refused: limit " + std::to_string(m_limit) +
                                                   " bytes, " + std::to_string(m_live) + " live"};
    void* pointer = nullptr;
    HR_CUDA(cudaMalloc(&pointer, size));
    m_sizes.emplace(pointer, size);
    m_live += size;
    if (m_live > m_peak)
        m_peak = m_live;
    return pointer;
}

Status DeviceAllocator::release(void* pointer)
{
    if (!pointer)
        return {};
    const auto it = m_sizes.find(pointer);
    if (it == m_sizes.end())
        return detail::invalid("release of a pointer this allocator did not allocate");
    m_live -= it->second;
    m_sizes.erase(it);
    HR_CUDA(cudaFree(pointer));
    return {};
}

Status DeviceAllocator::releaseAll()
{
    cudaError_t firstError = cudaSuccess;
    for (const auto& [pointer, size] : m_sizes) {
        const cudaError_t error = cudaFree(pointer);
        if (firstError == cudaSuccess)
            firstError = error;
    }
    m_sizes.clear();
    m_live = 0;
    HR_CUDA(firstError);
    return {};
}

// --- DeviceBuffer -------------------------------------------------------------

DeviceBuffer::~DeviceBuffer()
{
    if (m_data)
        (void)cudaFree(m_data);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept : m_data(other.m_data), m_bytes(other.m_bytes)
{
    other.m_data = nullptr;
    other.m_bytes = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept
{
    if (this != &other) {
        if (m_data)
            (void)cudaFree(m_data);
        m_data = other.m_data;
        m_bytes = other.m_bytes;
        other.m_data = nullptr;
        other.m_bytes = 0;
    }
    return *this;
}

Result<DeviceBuffer> DeviceBuffer::create(std::size_t bytes)
{
    DeviceBuffer buffer;
    HR_CUDA(cudaMalloc(&buffer.m_data, bytes == 0 ? 1 : bytes));
    buffer.m_bytes = bytes;
    return Result<DeviceBuffer>(std::move(buffer));
}

Result<DeviceBuffer> DeviceBuffer::zeros(std::size_t bytes)
{
    Result<DeviceBuffer> buffer = create(bytes);
    if (buffer.ok()) {
        const Status s = buffer.value().zero();
        if (!s.ok())
            return s;
    }
    return buffer;
}

Result<DeviceBuffer> DeviceBuffer::fromHost(const void* host, std::size_t bytes)
{
    Result<DeviceBuffer> buffer = create(bytes);
    if (buffer.ok()) {
        const Status s = buffer.value().upload(host, bytes);
        if (!s.ok())
            return s;
    }
    return buffer;
}

Status DeviceBuffer::upload(const void* host, std::size_t bytes)
{
    if (bytes > m_bytes)
        return detail::invalid("upload larger than the buffer");
    // A pageable host-to-device cudaMemcpy may return before its DMA is done
    // and does not wait for other streams (CUDA Runtime API, "API
    // synchronization behavior"); the kernels run on a context's non-blocking
    // stream. So: wait for readers of the old contents, copy, wait again.
    HR_CUDA(cudaDeviceSynchronize());
    HR_CUDA(cudaMemcpy(m_data, host, bytes, cudaMemcpyHostToDevice));
    HR_CUDA(cudaDeviceSynchronize());
    return {};
}

Status DeviceBuffer::download(void* host, std::size_t bytes) const
{
    if (bytes > m_bytes)
        return detail::invalid("download larger than the buffer");
    HR_CUDA(cudaDeviceSynchronize()); // kernels on any stream finish first
    HR_CUDA(cudaMemcpy(host, m_data, bytes, cudaMemcpyDeviceToHost));
    return {};
}

Status DeviceBuffer::zero()
{
    HR_CUDA(cudaDeviceSynchronize());
    HR_CUDA(cudaMemset(m_data, 0, m_bytes));
    HR_CUDA(cudaDeviceSynchronize());
    return {};
}

} // namespace headroom::cuda
