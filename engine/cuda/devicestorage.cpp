// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/devicestorage.h"

#include "cuda/memory.h"

#include <algorithm>

namespace headroom::cuda {

namespace {

rt::BlockPoolUpstream cudaUpstream(DeviceAllocator& device, std::string& lastError)
{
    return {[&device, &lastError](Bytes bytes) -> std::byte* {
                auto pointer = device.allocate(bytes);
                if (!pointer.ok()) {
                    lastError = pointer.status().message();
                    return nullptr;
                }
                return static_cast<std::byte*>(pointer.value());
            },
            // release_block: cudaFree of a whole segment. It waits for the
            // device, so no kernel still uses a block inside it.
            [&device](std::byte* segment, Bytes) { (void)device.release(segment); }};
}

} // namespace

DeviceStorage::DeviceStorage(Context& context, rt::DeviceMeasurement* measured)
    : m_context(context), m_measured(measured), m_pool(cudaUpstream(m_device, m_lastError))
{}

std::byte* DeviceStorage::allocate(Bytes bytes)
{
    std::byte* block = m_pool.allocate(bytes);
    if (!block)
        return nullptr; // m_lastError: the cudaMalloc that failed after the cache was released
    if (auto zeroed = fillZero(m_context, block, bytes); !zeroed.ok()) {
        m_pool.free(block);
        m_lastError = zeroed.message();
        return nullptr;
    }
    sample();
    return block;
}

void DeviceStorage::free(std::byte* data, Bytes)
{
    // Back to the pool, no cudaFree. Safe without waiting: every kernel and
    // copy is queued on the context's one stream, so whatever reuses the
    // block runs after the work that used it (PyTorch's one-stream rule; a
    // second stream would need record_stream's events, which we leave out).
    m_pool.free(data);
}

void DeviceStorage::sample()
{
    if (!m_measured)
        return;
    auto info = memInfo();
    if (!info.ok())
        return;
    const Bytes used = info.value().usedBytes();
    m_measured->usedPeakBytes = std::max(m_measured->usedPeakBytes, used);
    if (m_allocator && m_allocator->inEvent() && m_allocator->currentEvent() < m_measured->eventUsedBytes.size()) {
        Bytes& at = m_measured->eventUsedBytes[m_allocator->currentEvent()];
        at = std::max(at, used);
    }
}

} // namespace headroom::cuda
