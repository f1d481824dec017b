// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A simulation of PyTorch's CUDA caching allocator (PyTorch 2.x,
// c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator) run over a
// stream of allocations and frees on one stream of one device. It predicts
// what torch.cuda.max_memory_allocated() and max_memory_reserved() read for
// that stream: block rounding, the small and large pools, best-fit reuse,
// splitting, merging of free neighbours and new segments.
//
// Streams: each block belongs to the stream its segment was allocated on and
// serves only requests of that stream (BlockComparatorSize orders the free
// blocks by stream first; get_free_block takes a block of the request's
// stream only), so what a side stream caches (FSDP2's collective buffers) is
// not reused by the compute stream. With expandable segments each stream
// has its own segment in each pool, as PyTorch maps one per stream.
// Not modelled: record_stream and events (a free is immediate), CUDA graph pools,
// garbage_collection_threshold, the free-memory callbacks. Segment addresses
// are handed out in allocation order, which is what breaks ties between free
// blocks of one size; the driver's real addresses may order them otherwise.
#include "core/checkedmath.h"
#include "core/result.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace headroom {

// The allocator's constants (c10/cuda/CUDACachingAllocator.cpp, top of the file).
namespace caching {
inline constexpr Bytes kMinBlockSize = 512;          // all sizes are rounded to at least 512 bytes
inline constexpr Bytes kSmallSize = 1 * MiB;         // largest "small" request
inline constexpr Bytes kSmallBuffer = 2 * MiB;       // small requests are packed in 2 MiB segments
inline constexpr Bytes kLargeBuffer = 20 * MiB;      // requests of 1-10 MiB get 20 MiB segments
inline constexpr Bytes kMinLargeAlloc = 10 * MiB;    // from here a request gets a segment of its own
inline constexpr Bytes kRoundLarge = 2 * MiB;        // such a segment is rounded up to 2 MiB
inline constexpr Bytes kNoMaxSplitSize = kSaturated; // max_split_size default: SIZE_MAX (CUDAAllocatorConfig)
} // namespace caching

// PYTORCH_CUDA_ALLOC_CONF settings the simulation honours
// (c10/cuda/CUDAAllocatorConfig.cpp), plus the device's capacity.
struct CachingAllocatorOptions {
    // max_split_size_mb, in bytes: blocks this large are never split, and only
    // serve requests within kLargeBuffer of their size. PyTorch requires more
    // than 20 MiB (CUDAAllocatorConfig::parseMaxSplitSize).
    Bytes maxSplitSize = caching::kNoMaxSplitSize;
    // expandable_segments:True: one segment per pool and stream that grows by
    // mapping pages (Note [Expandable Segments]).
    bool expandableSegments = false;
    // roundup_power2_divisions: N divisions between powers of two (0 or 1: off).
    // One value for every size, as "roundup_power2_divisions:N" sets it.
    std::uint32_t roundupPower2Divisions = 0;
    // Device bytes the allocator may take; 0: no limit. When a new segment would
    // pass it, cached segments are released and the request retried (malloc:
    // release_available_cached_blocks, then release_cached_blocks); if it still
    // does not fit, the simulation stops with outOfMemory.
    Bytes capacityBytes = 0;
    // With a capacity: when a request still does not fit after the releases,
    // take its segment anyway instead of failing, as a device just large
    // enough would (stats.overCapacity says it happened). The planner runs
    // this way so that a plan over the card's memory still gets the reserved
    // bytes PyTorch would hold under that pressure: caches released and
    // retried, not the cache of an unlimited device.
    bool pastCapacity = false;
};

struct AllocatorEvent {
    enum class Kind : std::uint8_t { Alloc, Free };
    Kind kind;
    std::uint32_t id; // names one live allocation; free after alloc, may be reused after the free
    Bytes bytes = 0;  // the request (Alloc only); 0 is no allocation, as in PyTorch
    std::uint8_t stream = 0; // the CUDA stream current at the request (Alloc only): 0 the compute stream
};

// The counters after the stream, named as torch.cuda.memory_stats() names them.
struct AllocatorStats {
    Bytes peakAllocatedBytes = 0; // allocated_bytes.all.peak: sum of block sizes (rounded, split or not)
    Bytes peakReservedBytes = 0;  // reserved_bytes.all.peak: sum of segment sizes
    Bytes peakRequestedBytes = 0; // requested_bytes.all.peak: sum of the requests as asked
    Bytes finalAllocatedBytes = 0;
    Bytes finalReservedBytes = 0;
    Bytes allocatedAtPeakReserved = 0;   // allocated bytes when reserved last reached its peak
    std::uint64_t deviceAllocations = 0; // num_device_alloc: cudaMalloc calls (or page mappings)
    std::uint64_t deviceFrees = 0;       // num_device_free
    std::uint64_t peakSegments = 0;      // segment.all.peak
    std::uint64_t finalSegments = 0;
    std::uint64_t allocRetries = 0;   // num_alloc_retries: cached segments released to retry
    bool outOfMemory = false;         // a request did not fit the capacity even after releasing
    bool overCapacity = false;        // pastCapacity: a segment was taken beyond the capacity
    std::size_t outOfMemoryEvent = 0; // index of that request in the stream
    std::size_t eventsSimulated = 0;  // up to the end, or up to and including the failed request
};

// Where segments come from when the simulation is the decision-maker of a
// real pool (runtime/blockpool.h): told of every segment the allocator would
// cudaMalloc (alloc_block) or cudaFree (release_block), by the segment's
// simulated address, so that the pool can map it to real memory. acquire
// returning false is a cudaMalloc that failed: the allocator then releases its
// cache and retries once, as DeviceCachingAllocator::malloc does.
class SegmentSource {
public:
    virtual ~SegmentSource() = default;
    virtual bool acquire(Bytes address, Bytes size) = 0;
    virtual void release(Bytes address, Bytes size) = 0;
};

// The allocator's state, fed one request at a time. Not thread-safe; reuse one
// per thread to keep its storage.
class CachingAllocatorSim {
public:
    explicit CachingAllocatorSim(const CachingAllocatorOptions& options = {});
    ~CachingAllocatorSim();
    CachingAllocatorSim(CachingAllocatorSim&&) noexcept;
    CachingAllocatorSim& operator=(CachingAllocatorSim&&) noexcept;

    // Forgets every block and counter; keeps the storage.
    void reset(const CachingAllocatorOptions& options);
    // false on out of memory (only with a capacity). `id` must not be live.
    // `stream`: the stream current at the request (0: the compute stream).
    bool allocate(std::uint32_t id, Bytes bytes, std::uint8_t stream = 0);
    // `id` must be live (or a 0-byte allocation).
    void free(std::uint32_t id);
    // One event of a stream: allocate (on its stream) or free. false only for
    // an allocation out of memory.
    bool apply(const AllocatorEvent& e)
    {
        if (e.kind == AllocatorEvent::Kind::Alloc)
            return allocate(e.id, e.bytes, e.stream);
        free(e.id);
        return true;
    }
    bool isLive(std::uint32_t id) const;
    // A live allocation's block: its simulated address (inside the segment
    // SegmentSource::acquire was given) and size (the rounded request, or
    // more when the rest was too small to split). 0 for a 0-byte request.
    Bytes blockAddress(std::uint32_t id) const;
    Bytes blockBytes(std::uint32_t id) const;
    // Segments are acquired from and released to `source` (nullptr: none, the
    // planner's use). Not with expandable segments: they map pages, not
    // segments. Set it before the first allocation.
    void setSegmentSource(SegmentSource* source);
    // torch.cuda.empty_cache (release_cached_blocks): every cached block that
    // is a whole segment goes back.
    void releaseCachedBlocks();
    const AllocatorStats& stats() const;
    Bytes allocatedBytes() const;
    Bytes reservedBytes() const;

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// round_size: the block size a request is rounded to.
Bytes cachingRoundSize(Bytes request, std::uint32_t roundupPower2Divisions = 0);

// Runs the stream through a fresh allocator. Errors: InvalidArgument for
// options PyTorch refuses (max_split_size of 20 MiB or less, one division),
// an alloc of a live id, or a free of an id that is not live (with the
// event's index).
Result<AllocatorStats> simulateCachingAllocator(const std::vector<AllocatorEvent>& events,
                                                const CachingAllocatorOptions& options = {});

} // namespace headroom
