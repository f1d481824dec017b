// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/cudabackend.h"

#include "cuda/context.h"
#include "cuda/devicestorage.h"
#include "cuda/cudaops.h"
#include "cuda/device.h"
#include "cuda/memory.h"
#include "plan/sweep.h"
#include "runtime/ops.h"
#include "runtime/step/trainer.h"

#include <algorithm>

namespace headroom::cuda {

namespace {

class CudaBackend final : public rt::Backend {
public:
    CudaBackend(int device, DeviceInfo info, ContextMeasurement context)
        : m_device(device), m_info(std::move(info)), m_context(context)
    {
    }
    std::string name() const override { return "cuda"; }
    std::string device() const override { return m_info.name + " (CUDA device " + std::to_string(m_device) + ")"; }
    // What the device had free once the context existed, less 512 MiB for
    // the cuBLAS workspace and handles, the kernels' arena, the kernels'
    // code loaded on first use and cudaMalloc's rounding. A larger planned
    // peak is validated on fewer layers and extrapolated.
    Bytes capacityBytes() const override
    {
        constexpr Bytes kReserve = 512ull << 20;
        const Bytes free = m_context.afterInit.freeBytes;
        return free > kReserve ? free - kReserve : 1;
    }
    std::string unsupported(const Scenario& s) const override
    {
        if (auto gap = rt::programUnsupported(s); !gap.empty())
            return gap;
        return cudaOpsUnsupported(s);
    }

    rt::Measurement run(const Scenario& s, const rt::RunOptions& o) override
    {
        rt::DeviceMeasurement measured;
        measured.present = true;
        measured.totalBytes = m_context.afterInit.totalBytes;
        measured.othersBytes = m_context.othersBeforeBytes;
        measured.contextBytes = m_context.contextBytes;
        if (!m_context.nvmlAvailable) {
            // Without NVML the memory in use before the context cannot be told
            // from the context itself: both count as the baseline, and neither
            // side of the device-used check includes the context.
            measured.othersBytes = m_context.afterInit.usedBytes();
            measured.contextBytes = 0;
        }
        measured.eventUsedBytes.assign(buildEvents(Mode::Train, s.model.layers).size(), 0);
        auto failed = [&](const std::string& status, const std::string& message) {
            rt::Measurement m;
            m.status = status;
            m.message = message;
            m.device = device();
            m.deviceLevel = measured;
            return m;
        };
        auto context = Context::create(m_device);
        if (!context.ok())
            return failed(context.status().code() == StatusCode::outOfMemory ? "out_of_memory" : "error",
                          "setting up the device: " + context.status().message());
        Context& ctx = *context.value();
        measured.workspaceBytes = ctx.workspaceBytes();
        measured.handleBytes = ctx.handleBytes();
        std::unique_ptr<rt::Ops> ops;
        try {
            CudaOpsInfo info;
            ops = makeCudaOps(ctx, s, &info);
            measured.scratchBytes = info.scratchBytes;
        } catch (const CudaError& e) {
            return failed(e.outOfMemory() ? "out_of_memory" : "error", std::string("setting up the kernels: ") + e.what());
        }
        // The storage outlives the allocator: buffers still held when a run
        // ends early go back through it in the allocator's destructor.
        DeviceStorage storage(ctx, &measured);
        rt::Measurement m;
        {
            rt::TrackingAllocator allocator(measured.eventUsedBytes.size());
            storage.watch(allocator);
            allocator.setStorage(&storage);
            m = rt::runTrainingSteps(s, o, *ops, allocator, [](const std::exception& e) {
                const auto* cuda = dynamic_cast<const CudaError*>(&e);
                return cuda && cuda->outOfMemory();
            });
        }
        (void)ctx.synchronize();
        const rt::BlockPoolStats pool = storage.poolStats();
        measured.poolAllocatedPeakBytes = pool.peakAllocatedBytes;
        measured.poolReservedPeakBytes = pool.peakReservedBytes;
        measured.poolSegmentAllocations = pool.upstreamAllocations;
        measured.poolSegmentFrees = pool.upstreamFrees;
        measured.poolAllocRetries = pool.allocRetries;
        m.device = device();
        m.deviceLevel = measured;
        if (!m_context.nvmlAvailable)
            m.notes.emplace_back("NVML was not available: the CUDA context is counted with the memory in use before the "
                              "run, and left out of the device-used check on both sides");
        else if (measured.othersBytes > 0)
            m.notes.push_back("other processes used " + std::to_string(measured.othersBytes >> 20) +
                              " MiB of the device before this run; they are left out of the device-used figure");
        return m;
    }

private:
    int m_device;
    DeviceInfo m_info;
    ContextMeasurement m_context;
};

} // namespace

Result<std::unique_ptr<rt::Backend>> makeCudaBackend(int device)
{
    // The context first: measuring it needs a device nothing has touched yet.
    auto context = initialiseAndMeasureContext(device);
    if (!context.ok())
        return context.status();
    auto devices = listDevices();
    if (!devices.ok())
        return devices.status();
    for (const DeviceInfo& info : devices.value())
        if (info.index == device) {
            std::unique_ptr<rt::Backend> backend = std::make_unique<CudaBackend>(device, info, context.value());
            return backend;
        }
    return Status{StatusCode::noDevice, "no CUDA device " + std::to_string(device)};
}

} // namespace headroom::cuda
