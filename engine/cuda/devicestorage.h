// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Device memory for the tracking allocator (rt::Storage): cudaMalloc,
// zero-filled on the context's stream (kernels after it see zeros), cudaFree.
// No caching: the device then uses what the tensors take, which is what the
// device-used check compares. When given a DeviceMeasurement, the device's
// used memory (cudaMemGetInfo) is sampled after every allocation, since that
// is when it can reach a new high, overall and per event of the watched
// allocator. Plain C++: includers need no CUDA header.
#include "cuda/context.h"
#include "cuda/device.h"
#include "runtime/backend.h"
#include "runtime/trackingallocator.h"

#include <string>

namespace headroom::cuda {

class DeviceStorage final : public rt::Storage {
public:
    explicit DeviceStorage(Context& context, rt::DeviceMeasurement* measured = nullptr)
        : m_context(context), m_measured(measured)
    {
    }
    void watch(const rt::TrackingAllocator& allocator) { m_allocator = &allocator; }

    std::byte* allocate(Bytes bytes) override;
    void free(std::byte* data, Bytes bytes) override;
    std::string lastError() const override { return "device out of memory (" + m_lastError + ")"; }

private:
    void sample();

    Context& m_context;
    rt::DeviceMeasurement* m_measured = nullptr;
    const rt::TrackingAllocator* m_allocator = nullptr;
    DeviceAllocator m_device;
    std::string m_lastError;
};

} // namespace headroom::cuda
