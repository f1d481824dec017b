// SPDX-License-Identifier: GPL-3.0-or-later
// Every rule below names the function of c10/cuda/CUDACachingAllocator.cpp
// (PyTorch 2.x, DeviceCachingAllocator) it follows. Our own code: the data
// structures differ (blocks in one array, linked by index; free blocks in a
// std::set per pool ordered by (size, address) as BlockComparatorSize orders
// them for one stream).
#include "plan/cachingallocator.h"

#include <bit>
#include <cstddef>
#include <memory>
#include <set>
#include <string>

namespace headroom {

using namespace caching;

Bytes cachingRoundSize(Bytes size, std::uint32_t divisions)
{
    // round_size: below 512 bytes, 512; with roundup_power2_divisions N (and
    // a request above 512 * N), up to the next of N equal steps between two
    // powers of two (roundup_power2_next_division); else up to 512.
    if (size < kMinBlockSize)
        return kMinBlockSize;
    if (divisions > 1 && size > kMinBlockSize * divisions) {
        if (std::has_single_bit(size))
            return size;
        const Bytes floor = std::bit_floor(size);
        const Bytes step = floor >> (std::bit_width(divisions) - 1); // floor >> log2(divisions)
        if (step == 0)
            return floor << 1;
        const Bytes down = size & ~(step - 1);
        return down == size ? size : down + step;
    }
    return roundUp(size, kMinBlockSize);
}

namespace {

// get_allocation_size: the segment cudaMalloc'd for a request no cached block serves.
Bytes allocationSize(Bytes size)
{
    if (size <= kSmallSize)
        return kSmallBuffer;
    if (size < kMinLargeAlloc)
        return kLargeBuffer;
    return roundUp(size, kRoundLarge);
}

constexpr std::int32_t kNone = -1;
constexpr std::int32_t kZeroSized = -2; // a live 0-byte request: PyTorch hands out no block

// BlockComparatorSize: stream, then size, then address.
struct FreeKey {
    std::uint8_t stream;
    Bytes size;
    Bytes address;
    std::int32_t block;
    bool operator<(const FreeKey& o) const
    {
        if (stream != o.stream)
            return stream < o.stream;
        return size != o.size ? size < o.size : address < o.address;
    }
};
// The free sets' nodes come from a free list of their own: a set's nodes
// are all one size, and the simulation inserts and erases several per request.
class NodeArena {
public:
    void* take(std::size_t bytes)
    {
        if (m_free) {
            void* p = m_free;
            m_free = *static_cast<void**>(p);
            return p;
        }
        if (m_chunks.empty() || m_used + bytes > kChunk) {
            m_chunks.push_back(std::make_unique<std::byte[]>(kChunk));
            m_used = 0;
        }
        void* p = m_chunks.back().get() + m_used;
        m_used += (bytes + alignof(std::max_align_t) - 1) / alignof(std::max_align_t) * alignof(std::max_align_t);
        return p;
    }
    void give(void* p)
    {
        *static_cast<void**>(p) = m_free;
        m_free = p;
    }

private:
    static constexpr std::size_t kChunk = 64 * 1024;
    std::vector<std::unique_ptr<std::byte[]>> m_chunks;
    std::size_t m_used = 0;
    void* m_free = nullptr;
};

template <class T>
struct ArenaAllocator {
    using value_type = T;
    NodeArena* arena;
    explicit ArenaAllocator(NodeArena* a) : arena(a) {}
    template <class U>
    ArenaAllocator(const ArenaAllocator<U>& o) : arena(o.arena)
    {} // NOLINT(google-explicit-constructor)
    T* allocate(std::size_t n)
    {
        if (n != 1)
            return static_cast<T*>(::operator new(n * sizeof(T)));
        return static_cast<T*>(arena->take(sizeof(T)));
    }
    void deallocate(T* p, std::size_t n)
    {
        if (n != 1)
            ::operator delete(p);
        else
            arena->give(p);
    }
    template <class U>
    bool operator==(const ArenaAllocator<U>& o) const
    {
        return arena == o.arena;
    }
};

using FreeSet = std::set<FreeKey, std::less<FreeKey>, ArenaAllocator<FreeKey>>;

struct Block {
    Bytes address = 0;
    Bytes size = 0;
    Bytes requested = 0;
    std::int32_t prev = kNone, next = kNone; // neighbours in the same segment (Block::prev/next)
    bool allocated = false;
    bool small = false;
    std::uint8_t stream = 0; // the stream its segment was allocated on
    FreeSet::iterator inFree; // its entry in the pool's free set while cached
    std::int32_t wholeAt = kNone; // its index in the pool's wholeFree while cached as a whole segment
};

} // namespace

struct CachingAllocatorSim::State {
    // One pool per size class (BlockPool small_blocks / large_blocks).
    struct Pool {
        explicit Pool(NodeArena* arena) : free(ArenaAllocator<FreeKey>(arena)) {}
        FreeSet free;
        bool small = false;
        // expandable_segments: one segment per stream (PyTorch keeps an
        // ExpandableSegment per stream: find_expandable_block looks for one
        // of the request's stream and makes one otherwise), mapped from
        // `base` up to base + mapped; `tail` is its last mapped block (kNone:
        // none yet).
        struct Expandable {
            std::uint8_t stream = 0;
            Bytes base = 0, mapped = 0;
            std::int32_t tail = kNone;
        };
        std::vector<Expandable> expandable;
        Expandable* segmentOf(std::uint8_t stream)
        {
            for (Expandable& e : expandable)
                if (e.stream == stream)
                    return &e;
            return nullptr;
        }
        // The cached blocks that are whole segments: what release_cached_blocks
        // frees. Kept so that a release costs what it frees, not the size of
        // the free set (a plan past the card's capacity releases often).
        std::vector<std::int32_t> wholeFree;
    };

    CachingAllocatorOptions options;
    SegmentSource* source = nullptr;
    NodeArena nodes;                           // declared before the pools: outlives their sets
    Pool pools[2]{Pool(&nodes), Pool(&nodes)}; // [0] small, [1] large
    std::vector<Block> blocks;
    std::vector<std::int32_t> unusedBlocks;
    std::vector<std::int32_t> live; // id -> block
    Bytes nextAddress = 0;
    Bytes allocated = 0, reserved = 0, requested = 0;
    std::uint64_t segments = 0;
    AllocatorStats stats;

    void clear(const CachingAllocatorOptions& o)
    {
        options = o;
        for (int p = 0; p < 2; ++p) {
            pools[p].free.clear();
            pools[p].wholeFree.clear();
            pools[p].small = p == 0;
            pools[p].expandable.clear();
        }
        blocks.clear();
        unusedBlocks.clear();
        live.clear();
        nextAddress = kSmallBuffer; // any nonzero start: addresses only order blocks
        allocated = reserved = requested = 0;
        segments = 0;
        stats = {};
    }

    std::int32_t newBlock(const Block& b)
    {
        if (!unusedBlocks.empty()) {
            const std::int32_t i = unusedBlocks.back();
            unusedBlocks.pop_back();
            blocks[static_cast<std::size_t>(i)] = b;
            return i;
        }
        blocks.push_back(b);
        return static_cast<std::int32_t>(blocks.size() - 1);
    }
    Block& at(std::int32_t i) { return blocks[static_cast<std::size_t>(i)]; }
    // A block's links to its neighbours change only while it is out of the
    // free set (merge and split take it out first), so whether it is a whole
    // segment is settled when it goes in.
    void insertFree(Pool& pool, std::int32_t i)
    {
        Block& b = at(i);
        b.inFree = pool.free.insert({b.stream, b.size, b.address, i}).first;
        b.wholeAt = kNone;
        if (b.prev == kNone && b.next == kNone) {
            b.wholeAt = static_cast<std::int32_t>(pool.wholeFree.size());
            pool.wholeFree.push_back(i);
        }
    }
    void eraseFree(Pool& pool, std::int32_t i)
    {
        Block& b = at(i);
        pool.free.erase(b.inFree);
        if (b.wholeAt != kNone) {
            const std::int32_t last = pool.wholeFree.back();
            pool.wholeFree[static_cast<std::size_t>(b.wholeAt)] = last;
            at(last).wholeAt = b.wholeAt;
            pool.wholeFree.pop_back();
            b.wholeAt = kNone;
        }
    }

    // get_free_block: the smallest cached block of at least `size` (ties:
    // lowest address), with the max_split_size rules.
    std::int32_t getFreeBlock(Pool& pool, Bytes size, std::uint8_t stream)
    {
        auto it = pool.free.lower_bound({stream, size, 0, 0});
        if (it == pool.free.end() || it->stream != stream)
            return kNone;
        // With expandable segments a block that borders the unmapped rest of
        // its segment counts as large as it could grow, so any other fitting
        // block comes first. One segment per pool and stream: only its tail
        // borders it.
        if (options.expandableSegments) {
            const Pool::Expandable* segment = pool.segmentOf(stream);
            if (segment && it->block == segment->tail && std::next(it) != pool.free.end() &&
                std::next(it)->stream == stream)
                ++it;
        }
        const Bytes maxSplit = options.maxSplitSize;
        // "Do not return an oversized block for a large request", and an
        // oversized block serves only requests within kLargeBuffer of its
        // size (the default max_non_split_rounding_size).
        if (size < maxSplit && it->size >= maxSplit)
            return kNone;
        if (size >= maxSplit && it->size >= size + kLargeBuffer)
            return kNone;
        const std::int32_t found = it->block;
        eraseFree(pool, found);
        return found;
    }

    void noteReserved() { stats.peakSegments = std::max(stats.peakSegments, segments); }

    // alloc_block: cudaMalloc a new segment (or, with expandable segments,
    // map more pages of the pool's segment: try_allocate_expandable_block).
    // kNone when the capacity does not allow it.
    std::int32_t allocBlock(Pool& pool, Bytes size, Bytes allocSize, std::uint8_t stream)
    {
        const Bytes capacity = options.capacityBytes;
        if (!options.expandableSegments) {
            if (capacity != 0 && reserved + allocSize > capacity)
                return kNone;
            if (source && !source->acquire(nextAddress, allocSize)) // cudaMalloc failed
                return kNone;
            Block b;
            b.address = nextAddress;
            b.size = allocSize;
            b.small = pool.small;
            b.stream = stream;
            nextAddress += allocSize;
            reserved += allocSize;
            ++segments;
            ++stats.deviceAllocations;
            noteReserved();
            return newBlock(b);
        }
        // find_expandable_block + map_block: start from the free block at the
        // end of the mapped range, if any, and map just enough pages after it
        // (ExpandableSegment: 2 MiB pages for the small pool, 20 MiB for the
        // large one).
        const Bytes page = pool.small ? kSmallBuffer : kLargeBuffer;
        Pool::Expandable* segment = pool.segmentOf(stream);
        if (!segment) {
            // The segment reserves address space for the whole device (1 1/8
            // of its memory); nothing else lives in that range.
            pool.expandable.push_back({stream, nextAddress, 0, kNone});
            segment = &pool.expandable.back();
            nextAddress += Bytes{1} << 50;
            ++segments;
            noteReserved();
        }
        const bool tailFree = segment->tail != kNone && !at(segment->tail).allocated;
        const Bytes have = tailFree ? at(segment->tail).size : 0;
        if (have >= size) { // the free tail fits (get_free_block passed it over)
            eraseFree(pool, segment->tail);
            return segment->tail;
        }
        const Bytes grow = roundUp(size - have, page);
        if (capacity != 0 && reserved + grow > capacity)
            return kNone;
        reserved += grow;
        ++stats.deviceAllocations;
        noteReserved();
        const Bytes start = segment->base + segment->mapped;
        segment->mapped += grow;
        if (tailFree) { // map_block merges the new pages into the free block before them
            eraseFree(pool, segment->tail);
            at(segment->tail).size += grow;
            return segment->tail;
        }
        Block b;
        b.address = start;
        b.size = grow;
        b.small = pool.small;
        b.stream = stream;
        b.prev = segment->tail;
        const std::int32_t i = newBlock(b); // may move blocks, not pool.expandable
        if (b.prev != kNone)
            at(b.prev).next = i;
        segment->tail = i;
        return i;
    }

    // release_block: cudaFree one whole cached segment.
    void releaseSegment(Pool& pool, std::int32_t i)
    {
        eraseFree(pool, i);
        if (source)
            source->release(at(i).address, at(i).size);
        reserved -= at(i).size;
        --segments;
        ++stats.deviceFrees;
        unusedBlocks.push_back(i);
    }

    // release_available_cached_blocks: with a max_split_size, free oversize
    // cached segments, the smallest one that covers the request or else the
    // largest ones until they add up to it.
    bool releaseAvailable(Pool& pool, Bytes size, std::uint8_t stream)
    {
        const Bytes maxSplit = options.maxSplitSize;
        if (maxSplit == kNoMaxSplitSize || options.expandableSegments)
            return false;
        const Bytes target = std::max(size, maxSplit);
        auto it = pool.free.lower_bound({stream, target, 0, 0});
        if (it != pool.free.end() && it->stream == stream) {
            releaseSegment(pool, it->block);
            return true;
        }
        if (it == pool.free.begin())
            return false;
        --it;
        Bytes released = 0;
        while (released < target && it->size >= maxSplit && it->stream == stream) {
            const std::int32_t current = it->block;
            released += it->size;
            const bool first = it == pool.free.begin();
            if (!first)
                --it;
            releaseSegment(pool, current);
            if (first)
                break;
        }
        return released >= target;
    }

    // release_cached_blocks -> release_blocks, large pool then small: cudaFree
    // every cached block that is a whole segment. Expandable segments unmap
    // the free pages at the end of the mapped range (unmap_block; free pages
    // inside the range, which PyTorch also unmaps, are kept here).
    void releaseCached()
    {
        for (int p : {1, 0}) {
            Pool& pool = pools[p];
            if (options.expandableSegments) {
                for (Pool::Expandable& segment : pool.expandable) {
                    if (segment.tail == kNone || at(segment.tail).allocated)
                        continue;
                    const std::int32_t t = segment.tail;
                    const Bytes page = pool.small ? kSmallBuffer : kLargeBuffer;
                    // The first whole page inside the tail.
                    const Bytes keep = roundUp(at(t).address - segment.base, page);
                    const Bytes end = segment.base + segment.mapped;
                    if (segment.base + keep >= end)
                        continue;
                    const Bytes unmapped = end - (segment.base + keep);
                    eraseFree(pool, t);
                    at(t).size -= unmapped;
                    segment.mapped -= unmapped;
                    reserved -= unmapped;
                    ++stats.deviceFrees;
                    if (at(t).size == 0) {
                        segment.tail = at(t).prev;
                        if (segment.tail != kNone)
                            at(segment.tail).next = kNone;
                        unusedBlocks.push_back(t);
                    } else {
                        insertFree(pool, t);
                    }
                }
                continue;
            }
            while (!pool.wholeFree.empty())
                releaseSegment(pool, pool.wholeFree.back());
        }
    }

    // should_split: the small pool (and any expandable segment) splits when
    // 512 bytes or more remain; the large pool when more than 1 MiB remains
    // and the request is below max_split_size.
    bool shouldSplit(const Block& b, Bytes size) const
    {
        const Bytes remaining = b.size - size;
        if (b.small || options.expandableSegments)
            return remaining >= kMinBlockSize;
        return size < options.maxSplitSize && remaining > kSmallSize;
    }

    // malloc + alloc_found_block.
    bool allocate(std::uint32_t id, Bytes request, std::uint8_t stream)
    {
        if (live.size() <= id)
            live.resize(std::size_t{id} + 1, kNone);
        if (request == 0) { // CUDACachingAllocator::allocate: a 0-byte request gets no block
            live[id] = kZeroSized;
            return true;
        }
        const Bytes size = cachingRoundSize(request, options.roundupPower2Divisions);
        Pool& pool = pools[size <= kSmallSize ? 0 : 1]; // get_pool
        std::int32_t b = getFreeBlock(pool, size, stream);
        if (b == kNone) {
            const Bytes allocSize = allocationSize(size);
            b = allocBlock(pool, size, allocSize, stream);
            if (b == kNone && releaseAvailable(pool, size, stream))
                b = allocBlock(pool, size, allocSize, stream);
            if (b == kNone) {
                releaseCached();
                ++stats.allocRetries;
                b = allocBlock(pool, size, allocSize, stream);
            }
            if (b == kNone && options.pastCapacity) {
                // A device just large enough: it grows to take this segment,
                // and from here its capacity is what it has grown to.
                options.capacityBytes = 0;
                b = allocBlock(pool, size, allocSize, stream);
                options.capacityBytes = reserved;
                stats.overCapacity = true;
            }
            if (b == kNone)
                return false;
        }
        if (shouldSplit(at(b), size)) {
            // The request takes the front; the original block keeps the rest
            // and goes back to the pool (alloc_found_block).
            Block front;
            front.address = at(b).address;
            front.size = size;
            front.small = pool.small;
            front.stream = at(b).stream;
            front.prev = at(b).prev;
            front.next = b;
            const std::int32_t f = newBlock(front);
            if (front.prev != kNone)
                at(front.prev).next = f;
            Block& rest = at(b);
            rest.prev = f;
            rest.address += size;
            rest.size -= size;
            insertFree(pool, b);
            b = f;
        }
        Block& block = at(b);
        block.allocated = true;
        block.requested = request;
        live[id] = b;
        allocated += block.size;
        requested += request;
        stats.peakAllocatedBytes = std::max(stats.peakAllocatedBytes, allocated);
        stats.peakRequestedBytes = std::max(stats.peakRequestedBytes, requested);
        if (reserved > stats.peakReservedBytes) {
            stats.peakReservedBytes = reserved;
            stats.allocatedAtPeakReserved = allocated;
        } else if (reserved == stats.peakReservedBytes) {
            stats.allocatedAtPeakReserved = std::max(stats.allocatedAtPeakReserved, allocated);
        }
        return true;
    }

    // try_merge_blocks: absorb a free neighbour of the same segment.
    void merge(Pool& pool, std::int32_t dst, std::int32_t src)
    {
        if (src == kNone || at(src).allocated)
            return;
        eraseFree(pool, src);
        Block& d = at(dst);
        const Block& s = at(src);
        if (d.prev == src) { // [src dst]
            d.address = s.address;
            d.prev = s.prev;
            if (d.prev != kNone)
                at(d.prev).next = dst;
        } else { // [dst src]
            d.next = s.next;
            if (d.next != kNone)
                at(d.next).prev = dst;
        }
        d.size += s.size;
        if (Pool::Expandable* segment = pool.segmentOf(s.stream); segment && segment->tail == src)
            segment->tail = dst;
        unusedBlocks.push_back(src);
    }

    // free + free_block.
    void free(std::uint32_t id)
    {
        const std::int32_t b = live[id];
        live[id] = kNone;
        if (b == kZeroSized)
            return;
        Block& block = at(b);
        block.allocated = false;
        allocated -= block.size;
        requested -= block.requested;
        block.requested = 0;
        Pool& pool = pools[block.small ? 0 : 1];
        merge(pool, b, at(b).prev);
        merge(pool, b, at(b).next);
        insertFree(pool, b);
    }
};

CachingAllocatorSim::CachingAllocatorSim(const CachingAllocatorOptions& options) : m_state(std::make_unique<State>())
{
    m_state->clear(options);
}
CachingAllocatorSim::~CachingAllocatorSim() = default;
CachingAllocatorSim::CachingAllocatorSim(CachingAllocatorSim&&) noexcept = default;
CachingAllocatorSim& CachingAllocatorSim::operator=(CachingAllocatorSim&&) noexcept = default;

void CachingAllocatorSim::reset(const CachingAllocatorOptions& options) { m_state->clear(options); }

bool CachingAllocatorSim::allocate(std::uint32_t id, Bytes bytes, std::uint8_t stream)
{
    const bool ok = m_state->allocate(id, bytes, stream);
    AllocatorStats& s = m_state->stats;
    s.finalAllocatedBytes = m_state->allocated;
    s.finalReservedBytes = m_state->reserved;
    s.finalSegments = m_state->segments;
    return ok;
}

void CachingAllocatorSim::free(std::uint32_t id)
{
    m_state->free(id);
    m_state->stats.finalAllocatedBytes = m_state->allocated;
}

bool CachingAllocatorSim::isLive(std::uint32_t id) const
{
    return id < m_state->live.size() && m_state->live[id] != kNone;
}

Bytes CachingAllocatorSim::blockAddress(std::uint32_t id) const
{
    const std::int32_t b = m_state->live[id];
    return b < 0 ? 0 : m_state->blocks[static_cast<std::size_t>(b)].address;
}

Bytes CachingAllocatorSim::blockBytes(std::uint32_t id) const
{
    const std::int32_t b = m_state->live[id];
    return b < 0 ? 0 : m_state->blocks[static_cast<std::size_t>(b)].size;
}

void CachingAllocatorSim::setSegmentSource(SegmentSource* source) { m_state->source = source; }

void CachingAllocatorSim::releaseCachedBlocks()
{
    m_state->releaseCached();
    m_state->stats.finalReservedBytes = m_state->reserved;
    m_state->stats.finalSegments = m_state->segments;
}

const AllocatorStats& CachingAllocatorSim::stats() const { return m_state->stats; }
Bytes CachingAllocatorSim::allocatedBytes() const { return m_state->allocated; }
Bytes CachingAllocatorSim::reservedBytes() const { return m_state->reserved; }

Result<AllocatorStats> simulateCachingAllocator(const std::vector<AllocatorEvent>& events,
                                                const CachingAllocatorOptions& options)
{
    if (options.maxSplitSize <= kLargeBuffer)
        return makeError(ErrorCode::InvalidArgument, "max_split_size must be more than 20 MiB (PyTorch refuses less)");
    const std::uint32_t divisions = options.roundupPower2Divisions;
    if (divisions > 1 && !std::has_single_bit(divisions))
        return makeError(ErrorCode::InvalidArgument, "roundup_power2_divisions must be a power of two");
    thread_local CachingAllocatorSim sim;
    sim.reset(options);
    std::size_t index = 0;
    for (const AllocatorEvent& e : events) {
        const bool alloc = e.kind == AllocatorEvent::Kind::Alloc;
        if (alloc && sim.isLive(e.id))
            return makeError(ErrorCode::InvalidArgument, "event " + std::to_string(index) + ": allocation " +
                                                             std::to_string(e.id) + " is already live");
        if (!alloc && !sim.isLive(e.id))
            return makeError(ErrorCode::InvalidArgument, "event " + std::to_string(index) + ": free of " +
                                                             std::to_string(e.id) + ", which is not live");
        if (!sim.apply(e)) {
            AllocatorStats s = sim.stats();
            s.outOfMemory = true;
            s.outOfMemoryEvent = index;
            s.eventsSimulated = index + 1;
            return s;
        }
        ++index;
    }
    AllocatorStats s = sim.stats();
    s.eventsSimulated = index;
    return s;
}

} // namespace headroom
