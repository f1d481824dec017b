// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/trackingallocator.h"

#include <chrono>
#include <cstdio>

namespace headroom::rt {

namespace {

constexpr std::size_t kAlignment = 64; // a cache line: kernels never share one between buffers

std::int64_t steadyNanos()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string gib(Bytes b)
{
    char text[64];
    if (b >= GiB)
        std::snprintf(text, sizeof text, "%.2f GiB", static_cast<double>(b) / static_cast<double>(GiB));
    else if (b >= MiB)
        std::snprintf(text, sizeof text, "%.2f MiB", static_cast<double>(b) / static_cast<double>(MiB));
    else
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(b));
    return text;
}

} // namespace

Bytes categoryTotal(const CategoryBytes& c)
{
    Bytes total = 0;
    for (Bytes b : c)
        total += b;
    return total;
}

void Buffer::release()
{
    if (m_owner)
        m_owner->release(m_id);
    m_owner = nullptr;
    m_id = 0;
    m_data = nullptr;
    m_bytes = 0;
}

TrackingAllocator::TrackingAllocator(std::size_t eventCount)
    : m_eventBytes(eventCount, CategoryBytes{}), m_eventTensors(eventCount), m_eventSeen(eventCount, false),
      m_startNanos(steadyNanos())
{
}

TrackingAllocator::~TrackingAllocator()
{
    // Buffers normally go back before the allocator; storage blocks still
    // held (an exception unwound past their owner) are returned here.
    for (auto& [id, block] : m_blocks)
        if (block.from)
            block.from->free(block.aligned, block.bytes);
}

double TrackingAllocator::now() const { return static_cast<double>(steadyNanos() - m_startNanos) * 1e-9; }

Bytes TrackingAllocator::liveBytes() const { return categoryTotal(m_live); }

void TrackingAllocator::beginEvent(std::size_t event)
{
    if (m_inEvent)
        throw std::logic_error("tracking allocator: an event began inside another");
    if (event >= m_eventBytes.size())
        throw std::logic_error("tracking allocator: event index out of range");
    m_inEvent = true;
    m_event = event;
}

void TrackingAllocator::endEvent()
{
    if (!m_inEvent)
        throw std::logic_error("tracking allocator: endEvent without beginEvent");
    // What is alive now is everything the event held: nothing was freed during it.
    const Bytes total = liveBytes();
    if (!m_eventSeen[m_event] || total > categoryTotal(m_eventBytes[m_event])) {
        m_eventBytes[m_event] = m_live;
        std::map<std::string, Bytes>& tensors = m_eventTensors[m_event];
        tensors.clear();
        for (const auto& [id, block] : m_blocks)
            tensors[block.name] += block.bytes;
    }
    m_eventSeen[m_event] = true;
    m_inEvent = false;
    for (std::uint64_t id : m_pendingFrees) {
        auto it = m_blocks.find(id);
        if (it == m_blocks.end())
            continue;
        erase(it);
    }
    m_pendingFrees.clear();
}

Buffer TrackingAllocator::allocate(const std::string& name, Category category, Bytes bytes)
{
    if (!m_inEvent)
        throw std::logic_error("tracking allocator: allocation of " + name + " outside an event");
    const std::string where = m_event < m_labels.size() ? m_labels[m_event] : "event " + std::to_string(m_event);
    if (m_failCategory == static_cast<int>(category)) {
        m_failCategory = -1;
        throw OutOfMemory("out of memory (injected fault) at " + gib(liveBytes()) + " in " + where + " allocating " +
                              name + " (" + gib(bytes) + ")",
                          m_event);
    }
    if (m_capacity > 0 && liveBytes() + bytes > m_capacity)
        throw OutOfMemory("out of memory at " + gib(liveBytes()) + " in " + where + ": " + name + " needs " + gib(bytes) +
                              " more, capacity " + gib(m_capacity),
                          m_event);
    Block block;
    // Zero-filled like torch.zeros: gradients accumulate into fresh buffers.
    if (m_storage) {
        block.aligned = m_storage->allocate(bytes);
        if (!block.aligned)
            throw OutOfMemory(m_storage->lastError() + " at " + gib(liveBytes()) + " in " + where + ": " + name +
                                  " needs " + gib(bytes) + " more",
                              m_event);
        block.from = m_storage;
    } else {
        block.storage.reset(new std::byte[bytes + kAlignment]());
        auto address = reinterpret_cast<std::uintptr_t>(block.storage.get());
        block.aligned = block.storage.get() + (kAlignment - address % kAlignment) % kAlignment;
    }
    block.name = name;
    block.category = category;
    block.bytes = bytes;
    m_live[static_cast<std::size_t>(category)] += bytes;
    ++m_allocations;
    const Bytes total = liveBytes();
    if (total > m_peakBytes) {
        m_peakBytes = total;
        m_peakCategories = m_live;
        m_peakEvent = m_event;
    }
    record(true, block);
    Buffer buffer;
    buffer.m_owner = this;
    buffer.m_id = m_nextId++;
    buffer.m_data = block.aligned;
    buffer.m_bytes = bytes;
    m_blocks.emplace(buffer.m_id, std::move(block));
    return buffer;
}

void TrackingAllocator::release(std::uint64_t id)
{
    if (m_inEvent) {
        m_pendingFrees.push_back(id);
        return;
    }
    // Outside an event (tear-down): free at once.
    auto it = m_blocks.find(id);
    if (it == m_blocks.end())
        return;
    erase(it);
}

void TrackingAllocator::erase(std::map<std::uint64_t, Block>::iterator it)
{
    m_live[static_cast<std::size_t>(it->second.category)] -= it->second.bytes;
    record(false, it->second);
    if (it->second.from)
        it->second.from->free(it->second.aligned, it->second.bytes);
    m_blocks.erase(it);
}

void TrackingAllocator::record(bool allocation, const Block& block)
{
    AllocationRecord r;
    r.allocation = allocation;
    r.name = block.name;
    r.category = block.category;
    r.bytes = block.bytes;
    r.event = m_event;
    r.seconds = now();
    r.live = m_live;
    m_records.push_back(std::move(r));
}

} // namespace headroom::rt
