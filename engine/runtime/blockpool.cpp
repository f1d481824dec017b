// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/blockpool.h"

#include <utility>

namespace headroom::rt {

bool BlockPool::Segments::acquire(Bytes address, Bytes size)
{
    std::byte* memory = m_upstream.allocate(size);
    if (!memory)
        return false;
    m_bySimulatedAddress.emplace(address, Segment{memory, size});
    ++allocations;
    return true;
}

void BlockPool::Segments::release(Bytes address, Bytes)
{
    // The simulation releases whole segments only (release_block), by the
    // address it acquired them at.
    const auto it = m_bySimulatedAddress.find(address);
    if (it == m_bySimulatedAddress.end())
        return;
    m_upstream.free(it->second.memory, it->second.size);
    m_bySimulatedAddress.erase(it);
    ++frees;
}

void BlockPool::Segments::releaseAll()
{
    for (const auto& [address, segment] : m_bySimulatedAddress) {
        m_upstream.free(segment.memory, segment.size);
        ++frees;
    }
    m_bySimulatedAddress.clear();
}

std::byte* BlockPool::Segments::memoryAt(Bytes address) const
{
    // The segment that starts at or before the address: simulated segments
    // are disjoint ranges, and a block lies inside the segment it was split from.
    auto it = m_bySimulatedAddress.upper_bound(address);
    if (it == m_bySimulatedAddress.begin())
        return nullptr;
    --it;
    return it->second.memory + (address - it->first);
}

namespace {

CachingAllocatorOptions poolOptions(CachingAllocatorOptions options)
{
    options.expandableSegments = false; // needs cuMemMap; not modelled as segments
    options.pastCapacity = false;       // a real pool cannot grow past its device
    return options;
}

} // namespace

BlockPool::BlockPool(BlockPoolUpstream upstream, const CachingAllocatorOptions& options)
    : m_segments(std::move(upstream)), m_sim(poolOptions(options))
{
    m_sim.setSegmentSource(&m_segments);
}

BlockPool::~BlockPool()
{
    m_sim.setSegmentSource(nullptr);
    m_segments.releaseAll();
}

std::byte* BlockPool::allocate(Bytes bytes)
{
    std::uint32_t id = m_nextId;
    if (!m_unusedIds.empty())
        id = m_unusedIds.back();
    // CachingAllocatorSim::allocate runs DeviceCachingAllocator::malloc:
    // best fit from the cache, else a new segment from upstream, else
    // release_cached_blocks and one more try.
    if (!m_sim.allocate(id, bytes == 0 ? 1 : bytes))
        return nullptr;
    if (id == m_nextId)
        ++m_nextId;
    else
        m_unusedIds.pop_back();
    std::byte* block = m_segments.memoryAt(m_sim.blockAddress(id));
    m_ids.emplace(block, id);
    return block;
}

void BlockPool::free(std::byte* block)
{
    const auto it = m_ids.find(block);
    if (it == m_ids.end())
        return;
    // free_block: back to its pool, merged with free neighbours; no upstream call.
    m_sim.free(it->second);
    m_unusedIds.push_back(it->second);
    m_ids.erase(it);
}

void BlockPool::emptyCache() { m_sim.releaseCachedBlocks(); }

Bytes BlockPool::blockBytes(const std::byte* block) const
{
    const auto it = m_ids.find(block);
    return it == m_ids.end() ? 0 : m_sim.blockBytes(it->second);
}

BlockPoolStats BlockPool::stats() const
{
    const AllocatorStats& s = m_sim.stats();
    BlockPoolStats out;
    out.allocatedBytes = m_sim.allocatedBytes();
    out.reservedBytes = m_sim.reservedBytes();
    out.peakAllocatedBytes = s.peakAllocatedBytes;
    out.peakReservedBytes = s.peakReservedBytes;
    out.upstreamAllocations = m_segments.allocations;
    out.upstreamFrees = m_segments.frees;
    out.allocRetries = s.allocRetries;
    out.segments = m_segments.allocations - m_segments.frees;
    return out;
}

} // namespace headroom::rt
