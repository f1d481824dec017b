// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A caching block pool: memory from an "upstream" allocate/free pair
// (cudaMalloc/cudaFree in the CUDA backend, a fake in the tests) is taken in
// segments and kept; a freed block goes back to the pool and serves a later
// request, so no upstream free happens per tensor free. This is what
// PyTorch's CUDA caching allocator does (c10/cuda/CUDACachingAllocator.cpp,
// DeviceCachingAllocator), and the decisions are the planner's simulation of
// it (plan/cachingallocator.h), not a second copy: every block the pool hands
// out is the block CachingAllocatorSim chose, at the same offset in the same
// segment. So the pool's reserved over a stream of requests is the
// simulation's reserved over that stream, by construction.
//
// Followed from PyTorch (each rule cited where it is, in cachingallocator.cpp):
// round_size (512 bytes), the small pool (<= 1 MiB, 2 MiB segments) and the
// large pool (20 MiB segments below 10 MiB, else rounded to 2 MiB),
// get_free_block's best fit, alloc_found_block's splitting, free_block's
// merging of free neighbours, and malloc's out-of-memory path: when the
// upstream refuses a segment, release_cached_blocks frees every cached
// segment and the request is tried once more before it fails.
//
// Left out: streams and events (one stream: the CUDA backend queues every
// kernel and copy on its context's stream, so a block freed on the host is
// reused by work queued after the work that used it, which is PyTorch's
// one-stream guarantee too), expandable segments (they map pages with the
// driver's virtual memory API, not segments; the constructor turns them
// off, and pastCapacity with them),
// garbage_collection_threshold, CUDA graph pools, the per-process memory
// fraction. A 0-byte request gets a 512-byte block (PyTorch hands out no
// block): callers of a Storage expect a pointer.
//
// Plain host C++, no CUDA; not thread-safe (one backend run at a time).
#include "core/checkedmath.h"
#include "plan/cachingallocator.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <unordered_map>
#include <vector>

namespace headroom::rt {

// Where segments come from. allocate: `bytes` of memory, or nullptr when
// there is none (cudaMalloc's cudaErrorMemoryAllocation). free: gives back
// exactly what allocate returned, with its size.
struct BlockPoolUpstream {
    std::function<std::byte*(Bytes bytes)> allocate;
    std::function<void(std::byte* segment, Bytes bytes)> free;
};

// The counters, named as torch.cuda.memory_stats() names them.
struct BlockPoolStats {
    Bytes allocatedBytes = 0;              // allocated_bytes.all.current: live blocks (rounded)
    Bytes reservedBytes = 0;               // reserved_bytes.all.current: segments held from upstream
    Bytes peakAllocatedBytes = 0;          // allocated_bytes.all.peak
    Bytes peakReservedBytes = 0;           // reserved_bytes.all.peak
    std::uint64_t upstreamAllocations = 0; // num_device_alloc
    std::uint64_t upstreamFrees = 0;       // num_device_free
    std::uint64_t allocRetries = 0;        // num_alloc_retries: the cache was released to retry
    std::uint64_t segments = 0;            // segment.all.current
};

class BlockPool {
public:
    explicit BlockPool(BlockPoolUpstream upstream, const CachingAllocatorOptions& options = {});
    // Every segment goes back upstream, blocks still live included: the
    // pool's owner is done with all of them.
    ~BlockPool();
    BlockPool(const BlockPool&) = delete;
    BlockPool& operator=(const BlockPool&) = delete;

    // A block of at least `bytes`, or nullptr when upstream has no memory even
    // after the cache was released (the caller reports out of memory).
    std::byte* allocate(Bytes bytes);
    // `block` must be live (from allocate, not yet freed); nullptr is ignored.
    void free(std::byte* block);
    // torch.cuda.empty_cache(): every cached segment with no live block goes
    // back upstream.
    void emptyCache();

    // The size of a live block (what it counts in allocatedBytes); 0 if not live.
    Bytes blockBytes(const std::byte* block) const;
    std::size_t liveBlocks() const { return m_ids.size(); }
    BlockPoolStats stats() const;

private:
    // The simulation's segments mapped onto upstream memory.
    class Segments final : public SegmentSource {
    public:
        explicit Segments(BlockPoolUpstream upstream) : m_upstream(std::move(upstream)) {}
        bool acquire(Bytes address, Bytes size) override;
        void release(Bytes address, Bytes size) override;
        void releaseAll();
        // The memory behind a simulated address inside an acquired segment.
        std::byte* memoryAt(Bytes address) const;
        std::uint64_t allocations = 0, frees = 0;

    private:
        struct Segment {
            std::byte* memory;
            Bytes size;
        };
        BlockPoolUpstream m_upstream;
        std::map<Bytes, Segment> m_bySimulatedAddress;
    };

    Segments m_segments;
    CachingAllocatorSim m_sim;
    std::unordered_map<const std::byte*, std::uint32_t> m_ids; // live block -> the simulation's id
    std::vector<std::uint32_t> m_unusedIds;
    std::uint32_t m_nextId = 0;
};

} // namespace headroom::rt
