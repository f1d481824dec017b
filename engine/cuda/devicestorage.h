// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Device memory for the tracking allocator (rt::Storage): blocks from a
// caching pool (runtime/blockpool.h, PyTorch's caching allocator's rules)
// whose segments come from cudaMalloc, zero-filled on the context's stream
// (kernels after it see zeros). A freed block goes back to the pool, not to
// cudaFree (which would wait for the device): segments are freed only when a
// cudaMalloc fails (the pool releases its cache and retries) and when the
// storage goes. The device then holds the pool's reserved bytes, which
// poolStats() reports. When given a DeviceMeasurement, the device's
// used memory (cudaMemGetInfo) is sampled after every allocation, since that
// is when it can reach a new high, overall and per event of the watched
// allocator. Plain C++: includers need no CUDA header.
#include "cuda/context.h"
#include "cuda/device.h"
#include "runtime/backend.h"
#include "runtime/blockpool.h"
#include "runtime/trackingallocator.h"

#include <string>

namespace headroom::cuda {

class DeviceStorage final : public rt::Storage {
public:
    explicit DeviceStorage(Context& context, rt::DeviceMeasurement* measured = nullptr);
    void watch(const rt::TrackingAllocator& allocator) { m_allocator = &allocator; }

    std::byte* allocate(Bytes bytes) override;
    void free(std::byte* data, Bytes bytes) override;
    std::string lastError() const override { return "device out of memory (" + m_lastError + ")"; }
    // The pool's counters: allocated and reserved, their peaks, cudaMalloc/cudaFree calls.
    rt::BlockPoolStats poolStats() const { return m_pool.stats(); }

private:
    void sample();

    Context& m_context;
    rt::DeviceMeasurement* m_measured = nullptr;
    const rt::TrackingAllocator* m_allocator = nullptr;
    DeviceAllocator m_device; // the pool's upstream: cudaMalloc/cudaFree of whole segments
    std::string m_lastError;
    rt::BlockPool m_pool; // declared after m_device: its segments go back before m_device goes
};

} // namespace headroom::cuda
