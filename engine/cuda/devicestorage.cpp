// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/devicestorage.h"

#include "cuda/memory.h"

#include <algorithm>

namespace headroom::cuda {

std::byte* DeviceStorage::allocate(Bytes bytes)
{
    auto pointer = m_device.allocate(bytes);
    if (!pointer.ok()) {
        m_lastError = pointer.status().message();
        return nullptr;
    }
    if (auto zeroed = fillZero(m_context, pointer.value(), bytes); !zeroed.ok()) {
        (void)m_device.release(pointer.value());
        m_lastError = zeroed.message();
        return nullptr;
    }
    sample();
    return static_cast<std::byte*>(pointer.value());
}

void DeviceStorage::free(std::byte* data, Bytes)
{
    // cudaFree waits for the device, so no kernel still uses the block.
    (void)m_device.release(data);
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
