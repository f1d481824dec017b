// SPDX-License-Identifier: GPL-3.0-or-later
// The caching allocator simulation (plan/cachingallocator.h) on streams small
// enough to follow by hand, each with its derivation from the rules of
// c10/cuda/CUDACachingAllocator.cpp; the trace reader; and the planner's use
// of both.
#include "io/allocatortrace.h"
#include "model/catalog.h"
#include "plan/allocatorstream.h"
#include "plan/cachingallocator.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <QtTest>


using namespace headroom;

namespace {

AllocatorEvent alloc(std::uint32_t id, Bytes bytes) { return {AllocatorEvent::Kind::Alloc, id, bytes}; }
AllocatorEvent release(std::uint32_t id) { return {AllocatorEvent::Kind::Free, id, 0}; }

AllocatorStats run(const std::vector<AllocatorEvent>& events, const CachingAllocatorOptions& options = {})
{
    auto r = simulateCachingAllocator(events, options);
    if (!r.ok())
        qFatal("simulation failed: %s", r.error().detail.c_str());
    return r.value();
}

// A stream as text: "a<id>" and "f<id>", with ":<bytes>" when `bytes`, each
// followed by a space.
std::string streamText(const std::vector<AllocatorEvent>& stream, bool bytes = false)
{
    std::string text;
    for (const AllocatorEvent& e : stream) {
        // Appended piece by piece (GCC 12 -Wrestrict false positive on const char* + std::string).
        text += e.kind == AllocatorEvent::Kind::Alloc ? 'a' : 'f';
        text += std::to_string(e.id);
        if (bytes) {
            text += ':';
            text += std::to_string(e.bytes);
        }
        text += ' ';
    }
    return text;
}

} // namespace

class TestCachingAllocator : public QObject {
    Q_OBJECT

private slots:
    void roundSize()
    {
        // round_size: below kMinBlockSize 512; else up to a multiple of 512.
        QCOMPARE(cachingRoundSize(1), Bytes{512});
        QCOMPARE(cachingRoundSize(512), Bytes{512});
        QCOMPARE(cachingRoundSize(513), Bytes{1024});
        QCOMPARE(cachingRoundSize(9000), Bytes{9216}); // 18 x 512
        // roundup_power2_divisions 4: 9000 lies between 8192 and 16384, cut in
        // 4 steps of 2048: up to 10240. 1200 is not above 512 x 4: 512-rounding.
        QCOMPARE(cachingRoundSize(9000, 4), Bytes{10240});
        QCOMPARE(cachingRoundSize(1200, 4), Bytes{1536});
        QCOMPARE(cachingRoundSize(8192, 4), Bytes{8192}); // a power of two stays
    }

    void oneByte()
    {
        // 1 byte -> round_size 512 (small pool, <= 1 MiB); no cached block, so
        // alloc_block gets a kSmallBuffer = 2 MiB segment; 2 MiB - 512 >= 512
        // remain, so it is split: 512 allocated, 2 MiB reserved, one cudaMalloc.
        const AllocatorStats s = run({alloc(0, 1)});
        QCOMPARE(s.peakAllocatedBytes, Bytes{512});
        QCOMPARE(s.peakReservedBytes, 2 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{1});
        QCOMPARE(s.peakRequestedBytes, Bytes{1});
    }

    void segmentSizes()
    {
        // 3 MiB: large pool, below kMinLargeAlloc (10 MiB) -> a kLargeBuffer
        // (20 MiB) segment; 17 MiB remain (> 1 MiB): split, 3 MiB allocated.
        AllocatorStats s = run({alloc(0, 3 * MiB)});
        QCOMPARE(s.peakReservedBytes, 20 * MiB);
        QCOMPARE(s.peakAllocatedBytes, 3 * MiB);
        // 11 MiB: its own segment rounded up to kRoundLarge (2 MiB): 12 MiB.
        // 1 MiB remains, not more than kSmallSize: not split, so the block,
        // and max_memory_allocated, is 12 MiB.
        s = run({alloc(0, 11 * MiB)});
        QCOMPARE(s.peakReservedBytes, 12 * MiB);
        QCOMPARE(s.peakAllocatedBytes, 12 * MiB);
        // 10.5 MiB: 12 MiB segment, 1.5 MiB remain (> 1 MiB): split.
        s = run({alloc(0, 10 * MiB + 512 * KiB)});
        QCOMPARE(s.peakReservedBytes, 12 * MiB);
        QCOMPARE(s.peakAllocatedBytes, 10 * MiB + 512 * KiB);
        // Two 3 MiB requests share one 20 MiB segment (the second takes the
        // 17 MiB remainder, best fit, and splits it again).
        s = run({alloc(0, 3 * MiB), alloc(1, 3 * MiB)});
        QCOMPARE(s.peakReservedBytes, 20 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{1});
        QCOMPARE(s.peakAllocatedBytes, 6 * MiB);
    }

    void reuseAndSplit()
    {
        // 20 MiB -> its own 20 MiB segment, not split (nothing remains).
        // Freed, it is cached; 15 MiB takes it (get_free_block, best fit) and
        // splits off 5 MiB (> 1 MiB). 4 MiB then takes those 5 MiB whole: 1 MiB
        // would remain, not more than kSmallSize, so no split. Allocated
        // 15 + 5 = 20 MiB, reserved still 20 MiB, one cudaMalloc.
        const AllocatorStats s = run({alloc(0, 20 * MiB), release(0), alloc(1, 15 * MiB), alloc(2, 4 * MiB)});
        QCOMPARE(s.peakReservedBytes, 20 * MiB);
        QCOMPARE(s.finalAllocatedBytes, 20 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{1});
    }

    void largeNoSplitRule()
    {
        // A cached 20 MiB block serves 19 MiB whole (1 MiB would remain: not
        // > kSmallSize): 20 MiB allocated. 1.5 MiB then finds no free block
        // and gets a new 20 MiB segment: 40 MiB reserved.
        const AllocatorStats s = run({alloc(0, 20 * MiB), release(0), alloc(1, 19 * MiB), alloc(2, 1536 * KiB)});
        QCOMPARE(s.peakAllocatedBytes, 20 * MiB + 1536 * KiB);
        QCOMPARE(s.peakReservedBytes, 40 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{2});
    }

    void mergeNeighbours()
    {
        // Two 8 MiB requests split one 20 MiB segment: [0,8) [8,16) and a free
        // [16,20). Freeing both merges the three pieces (try_merge_blocks with
        // prev and next) into one free 20 MiB block, which then serves 18 MiB
        // (>= 10 MiB, so without the merge it would get an 18 MiB segment of
        // its own). Reserved stays 20 MiB.
        AllocatorStats s = run({alloc(0, 8 * MiB), alloc(1, 8 * MiB), release(0), release(1), alloc(2, 18 * MiB)});
        QCOMPARE(s.peakReservedBytes, 20 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{1});
        // Free only the first: the free pieces [0,8) and [16,20) are not
        // neighbours, so 18 MiB needs a new 18 MiB segment: 38 MiB.
        s = run({alloc(0, 8 * MiB), alloc(1, 8 * MiB), release(0), alloc(2, 18 * MiB)});
        QCOMPARE(s.peakReservedBytes, 38 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{2});
    }

    void maxSplitSize()
    {
        // max_split_size 40 MiB. 100 MiB gets a 100 MiB segment. Freed, it is
        // an oversize block: a 30 MiB request (below 40 MiB) may not take it
        // (get_free_block), so it gets a 30 MiB segment: 130 MiB reserved.
        CachingAllocatorOptions o;
        o.maxSplitSize = 40 * MiB;
        AllocatorStats s = run({alloc(0, 100 * MiB), release(0), alloc(1, 30 * MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 130 * MiB);
        // Without the option the cached block is split (70 MiB remain): 100 MiB.
        s = run({alloc(0, 100 * MiB), release(0), alloc(1, 30 * MiB)});
        QCOMPARE(s.peakReservedBytes, 100 * MiB);
        QCOMPARE(s.peakAllocatedBytes, 100 * MiB);
        // A request at or above max_split_size takes an oversize block within
        // kLargeBuffer (20 MiB) of its size, whole (should_split: no split at
        // or above max_split_size): 90 MiB -> the 100 MiB block, 100 allocated.
        s = run({alloc(0, 100 * MiB), release(0), alloc(1, 90 * MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 100 * MiB);
        QCOMPARE(s.finalAllocatedBytes, 100 * MiB);
        // 60 MiB is 40 MiB short of it: a new 60 MiB segment.
        s = run({alloc(0, 100 * MiB), release(0), alloc(1, 60 * MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 160 * MiB);
        // PyTorch refuses max_split_size_mb of 20 or less.
        o.maxSplitSize = 20 * MiB;
        QVERIFY(!simulateCachingAllocator({alloc(0, 1)}, o).ok());
    }

    void capacityReleasesCache()
    {
        // Capacity 40 MiB. 30 MiB -> a 30 MiB segment; freed, it stays cached
        // (reserved 30). 32 MiB: no cached block fits, and 30 + 32 > 40, so
        // alloc_block fails; release_cached_blocks frees the whole cached
        // segment (reserved 0) and the retry succeeds: reserved 32 MiB.
        CachingAllocatorOptions o;
        o.capacityBytes = 40 * MiB;
        AllocatorStats s = run({alloc(0, 30 * MiB), release(0), alloc(1, 32 * MiB)}, o);
        QVERIFY(!s.outOfMemory);
        QCOMPARE(s.finalReservedBytes, 32 * MiB);
        QCOMPARE(s.peakReservedBytes, 32 * MiB);
        QCOMPARE(s.deviceFrees, std::uint64_t{1});
        QCOMPARE(s.allocRetries, std::uint64_t{1});
        // Then 10 MiB more: 32 + 10 > 40 and nothing is cached: out of memory
        // at event 3, which stops the simulation.
        s = run({alloc(0, 30 * MiB), release(0), alloc(1, 32 * MiB), alloc(2, 10 * MiB), release(1)}, o);
        QVERIFY(s.outOfMemory);
        QCOMPARE(s.outOfMemoryEvent, std::size_t{3});
        QCOMPARE(s.eventsSimulated, std::size_t{4});
        // A segment that is only partly free (split, one piece live) is not
        // released: 3 MiB live in a 20 MiB segment (17 MiB free in it),
        // capacity 30 MiB; 18 MiB does not fit the 17 and needs an 18 MiB
        // segment (20 + 18 > 30), and releasing frees nothing: out of memory.
        o.capacityBytes = 30 * MiB;
        s = run({alloc(0, 3 * MiB), alloc(1, 18 * MiB)}, o);
        QVERIFY(s.outOfMemory);
    }

    void pastCapacityGrowsLikeAJustLargeEnoughDevice()
    {
        // Capacity 40 MiB, going past it allowed (the planner's mode). 30 MiB
        // cached, then 32 MiB: released and retried as above, reserved 32.
        // 16 MiB: 32 + 16 > 40 and nothing cached: taken anyway, reserved 48,
        // and 48 is the capacity from then on. Freed and cached; 20 MiB does
        // not fit the 16: 48 + 20 > 48, the 16 is released (32), and 32 + 20
        // > 48 still: taken, reserved 52. Three retries. Without a capacity
        // the cached 30 MiB segment stays and serves the 16 and then the 20
        // (best fit, split): 30 + 32 = 62 MiB.
        const std::vector<AllocatorEvent> stream{alloc(0, 30 * MiB), release(0), alloc(1, 32 * MiB),
                                                 alloc(2, 16 * MiB), release(2), alloc(3, 20 * MiB)};
        CachingAllocatorOptions o;
        o.capacityBytes = 40 * MiB;
        o.pastCapacity = true;
        const AllocatorStats s = run(stream, o);
        QVERIFY(!s.outOfMemory);
        QVERIFY(s.overCapacity);
        QCOMPARE(s.peakReservedBytes, 52 * MiB);
        QCOMPARE(s.allocRetries, std::uint64_t{3});
        QCOMPARE(s.eventsSimulated, stream.size());
        QCOMPARE(run(stream).peakReservedBytes, 62 * MiB);
        // Under the capacity nothing changes.
        o.capacityBytes = 200 * MiB;
        QCOMPARE(run(stream, o).peakReservedBytes, 62 * MiB);
        QVERIFY(!run(stream, o).overCapacity);
    }

    void capacityWithMaxSplitReleasesOversize()
    {
        // max_split_size 40 MiB, capacity 150 MiB. 100 MiB and 44 MiB segments,
        // both freed (oversize, cached; reserved 144). 50 MiB: the 100 MiB block
        // is 50 MiB too big (>= kLargeBuffer over) and 44 is too small, so a new
        // 50 MiB segment, and 144 + 50 > 150. release_available_cached_blocks
        // frees the smallest oversize block of at least 50 MiB, the 100 MiB
        // one: 44 + 50 = 94 MiB reserved, no full release (the 44 stays).
        CachingAllocatorOptions o;
        o.maxSplitSize = 40 * MiB;
        o.capacityBytes = 150 * MiB;
        const AllocatorStats s =
            run({alloc(0, 100 * MiB), alloc(1, 44 * MiB), release(0), release(1), alloc(2, 50 * MiB)}, o);
        QVERIFY(!s.outOfMemory);
        QCOMPARE(s.finalReservedBytes, 94 * MiB);
        QCOMPARE(s.deviceFrees, std::uint64_t{1});
        QCOMPARE(s.allocRetries, std::uint64_t{0});
    }

    void expandableSegments()
    {
        // One large segment growing in 20 MiB pages. 3 MiB maps one page and
        // splits (expandable: split when 512 B or more remain). 18 MiB: the
        // free tail holds 17 MiB, so 1 MiB more is needed: one more page, 40
        // MiB reserved (without expandable segments: 20 + an 18 MiB segment).
        CachingAllocatorOptions o;
        o.expandableSegments = true;
        AllocatorStats s = run({alloc(0, 3 * MiB), alloc(1, 18 * MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 40 * MiB);
        QCOMPARE(s.peakAllocatedBytes, 21 * MiB);
        QCOMPARE(run({alloc(0, 3 * MiB), alloc(1, 18 * MiB)}).peakReservedBytes, 38 * MiB);
        // Best fit passes over the tail (it could grow, so it counts as
        // larger): 16 MiB [0,16), 2 MiB takes the 4 MiB tail [16,18), the tail
        // is now [18,20). Free the 16 MiB. A 2 MiB request skips the 2 MiB
        // tail for [0,16) and splits it: [2,16) remains, 14 MiB. 15 MiB fits
        // nowhere: the tail grows by a page, 40 MiB. (Had the 2 MiB request
        // taken the tail, [0,16) would serve 15 MiB within 20 MiB.)
        s = run({alloc(0, 16 * MiB), alloc(1, 2 * MiB), release(0), alloc(2, 2 * MiB), alloc(3, 15 * MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 40 * MiB);
        // The small pool maps 2 MiB pages: 3 x 1 MiB -> 4 MiB.
        s = run({alloc(0, MiB), alloc(1, MiB), alloc(2, MiB)}, o);
        QCOMPARE(s.peakReservedBytes, 4 * MiB);
    }

    void zeroAndErrors()
    {
        // A 0-byte request takes no block (as PyTorch) but is a live id.
        AllocatorStats s = run({alloc(0, 0), release(0)});
        QCOMPARE(s.peakReservedBytes, Bytes{0});
        QVERIFY(!simulateCachingAllocator({release(3)}).ok());
        QVERIFY(!simulateCachingAllocator({alloc(1, 5), alloc(1, 5)}).ok());
        CachingAllocatorOptions o;
        o.roundupPower2Divisions = 3;
        QVERIFY(!simulateCachingAllocator({alloc(0, 1)}, o).ok());
    }

    void streamsKeepTheirBlocks()
    {
        // A block serves only requests of the stream its segment was made on
        // (BlockComparatorSize orders by stream first; get_free_block returns
        // a block of the request's stream only). 20 MiB on stream 1, freed:
        // cached for stream 1; 20 MiB on stream 0 cannot take it and gets a
        // segment of its own (40 MiB reserved); 20 MiB on stream 1 again takes
        // the cached block: still 40 MiB, two cudaMallocs.
        const auto on = [](std::uint32_t id, Bytes bytes, std::uint8_t stream) {
            return AllocatorEvent{AllocatorEvent::Kind::Alloc, id, bytes, stream};
        };
        AllocatorStats s = run({on(0, 20 * MiB, 1), release(0), alloc(1, 20 * MiB), on(2, 20 * MiB, 1)});
        QCOMPARE(s.peakReservedBytes, 40 * MiB);
        QCOMPARE(s.deviceAllocations, std::uint64_t{2});
        // On one stream the same requests share one segment.
        s = run({alloc(0, 20 * MiB), release(0), alloc(1, 20 * MiB)});
        QCOMPARE(s.peakReservedBytes, 20 * MiB);
        // The trace format carries the stream.
        const auto trace = parseAllocatorTrace("a x 20971520 s1\nf x\na y 20971520\n");
        QVERIFY2(trace.ok(), trace.ok() ? "" : trace.error().detail.c_str());
        QCOMPARE(int(trace->events[0].stream), 1);
        QCOMPARE(run(trace->events).peakReservedBytes, 40 * MiB);
    }

    // With expandable segments each stream maps its own segment (PyTorch's
    // find_expandable_block looks for one of the request's stream). 30 MiB on
    // stream 0 maps two 20 MiB pages; 30 MiB on stream 1 cannot grow stream
    // 0's free 10 MiB tail and maps two pages of its own: 80 MiB. Stream 0's
    // block freed, 30 MiB more on stream 1 grows stream 1's tail (10 MiB
    // free) by one page: 100 MiB. (One segment shared by both streams would
    // have mapped 40 + 20 and then 40 more.) An H200 run with
    // expandable_segments:True reserved what this simulation gives for its
    // recorded trace, to the byte (tests/reference/replay_gpu_trace.py).
    void expandableSegmentsPerStream()
    {
        const auto on = [](std::uint32_t id, Bytes bytes, std::uint8_t stream) {
            return AllocatorEvent{AllocatorEvent::Kind::Alloc, id, bytes, stream};
        };
        CachingAllocatorOptions o;
        o.expandableSegments = true;
        AllocatorStats s = run({on(0, 30 * MiB, 0), on(1, 30 * MiB, 1)}, o);
        QCOMPARE(s.peakReservedBytes, 80 * MiB);
        QCOMPARE(s.peakSegments, std::uint64_t{2});
        s = run({on(0, 30 * MiB, 0), on(1, 30 * MiB, 1), release(0), on(2, 30 * MiB, 1)}, o);
        QCOMPARE(s.peakReservedBytes, 100 * MiB);
    }

    void traceReader()
    {
        const auto ok =
            parseAllocatorTrace("# a comment\n\na x 1   # one byte\na y 3145728\nf x\na x 11534336\n  f y\r\n");
        QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().detail.c_str());
        QCOMPARE(ok->events.size(), std::size_t{5});
        QCOMPARE(ok->lines, std::size_t{7});
        const AllocatorStats s = run(ok->events);
        // 512 B (a 2 MiB small segment) + 3 MiB (a 20 MiB large segment); x
        // freed (small pool); 11 MiB is a large request and the 17 MiB left of
        // the 20 MiB segment serves it (split: 6 MiB remain): 22 MiB.
        QCOMPARE(s.peakReservedBytes, 22 * MiB);

        const std::pair<const char*, const char*> bad[] = {
            {"a x\n", "line 1"},
            {"a x 1\na y -5\n", "line 2"},
            {"a x 12abc\n", "whole number"},
            {"a x 99999999999999999999999\n", "64 bits"},
            {"q 1\n", "unknown event"},
            {"f y\n", "not live"},
            {"a x 1\na x 2\n", "already live"},
            {"a x 1\nf x\nf x\n", "line 3"},
            {"f\n", "expected 'f <id>'"},
            {"a x 1 2\n", "is not s1 to s255"},
            {"a x 1 s0\n", "is not s1 to s255"},
            {"a x 1 s256\n", "is not s1 to s255"},
            {"a x 1 s1 2\n", "expected 'a <id> <bytes> [s<stream>]'"},
        };
        for (const auto& [text, expected] : bad) {
            const auto r = parseAllocatorTrace(text);
            QVERIFY2(!r.ok(), text);
            QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
            QVERIFY2(r.error().detail.find(expected) != std::string::npos, r.error().detail.c_str());
        }
        QCOMPARE(readAllocatorTraceFile("/nonexistent/trace.txt").error().code, ErrorCode::FileNotFound);
    }

    void streamOrder()
    {
        // Two layers; weights per layer persist; an activation per layer from
        // its forward to its backward; a temporary in the loss backward.
        Plan plan;
        plan.layers = 2;
        plan.events = buildEvents(Mode::Train, 2);
        plan.tensors = {
            {"w", "", Category::Weights, 1000, Phase::Load, Phase::OptimizerStep, LayerSet::All},
            {"act", "", Category::Activations, 2000, Phase::LayerFwd, Phase::LayerBwd, LayerSet::All},
            {"tmp", "", Category::Temporaries, 3000, Phase::LossBwd, Phase::LossBwd},
            {"paged", "", Category::OptimizerState, 4000, Phase::Load, Phase::OptimizerStep, LayerSet::Global, true},
        };
        const auto stream = allocatorStream(plan, 2);
        // Instances: 0,1 = w (layers 0,1); 2,3 = act (layers 0,1); 4 = tmp;
        // the managed row is outside the allocator.
        // Events: 0 load, 1 embed, 2-3 fwd 0-1, 4 head, 5 loss fwd, 6 loss bwd,
        // 7 head bwd, 8 bwd layer 1, 9 bwd layer 0, 10 embed bwd, 11 step.
        QCOMPARE(streamText(stream), std::string("a0 a1 a2 a3 a4 f4 f3 f2 a2 a3 a4 f4 f3 f2 "));
        QVERIFY(simulateCachingAllocator(stream).ok());

        // The temporary as two tensors (runs of 1000 x 2 and 1000 x 1): ids 4, 5, 6
        // asked for one after the other, freed in the same order.
        plan.pieces = {{1000, 2}, {1000, 1}};
        plan.tensors[2].pieceBegin = 0;
        plan.tensors[2].pieceEnd = 2;
        QCOMPARE(streamText(allocatorStream(plan, 1), true),
                 std::string("a0:1000 a1:1000 a2:2000 a3:2000 a4:1000 a5:1000 a6:1000 f4:0 f5:0 f6:0 f3:0 f2:0 "));
    }

    // A script (TensorRow::pieceBegin with TensorPiece::freeOf): a temporary
    // whose tensors come and go within its event, in the order written; at
    // the row's end only what the script did not release is freed.
    void streamScript()
    {
        Plan plan;
        plan.layers = 1;
        plan.events = buildEvents(Mode::Train, 1);
        plan.tensors = {
            {"w", "", Category::Weights, 1000, Phase::Load, Phase::OptimizerStep, LayerSet::All},
            {"fwd", "", Category::Temporaries, 500, Phase::LayerFwd, Phase::LayerFwd, LayerSet::All},
        };
        // Make 100 and 200, release the first, make 300: holds at most 500.
        plan.pieces = {{100, 1}, {200, 1}, {0, 0, 0}, {300, 1}};
        plan.tensors[1].pieceBegin = 0;
        plan.tensors[1].pieceEnd = 4;
        QCOMPARE(streamText(allocatorStream(plan, 1), true),
                 std::string("a0:1000 a1:100 a2:200 f1:0 a3:300 f2:0 f3:0 "));
        const auto s = simulateCachingAllocator(allocatorStream(plan, 2));
        QVERIFY(s.ok());
        // 1000 + 200 + 300 at once, each rounded to 512.
        QCOMPARE(s->peakAllocatedBytes, Bytes{1024 + 512 + 512});
    }

    void streamMicroBatches()
    {
        // Accumulation: gradients per layer that zero_grad frees after each
        // step and the step's first backward makes again; a tensor held from
        // the head to the step's end; the optimizer step's temporary.
        Plan plan;
        plan.layers = 2;
        plan.events = buildEvents(Mode::Train, 2);
        plan.microBatchesPerStep = 4; // replayed as 2 (kAllocatorMicroBatches)
        TensorRow grads{"g", "", Category::Gradients, 100, Phase::Load, Phase::OptimizerStep, LayerSet::All};
        grads.firstAllocAt = Phase::LayerBwd;
        grads.freedAtZeroGrad = true;
        plan.tensors = {
            {"w", "", Category::Weights, 1000, Phase::Load, Phase::OptimizerStep, LayerSet::All},
            grads,
            {"act", "", Category::Activations, 2000, Phase::LayerFwd, Phase::LayerBwd, LayerSet::All},
            {"out", "", Category::Logits, 300, Phase::HeadFwd, Phase::OptimizerStep},
            {"tmp", "", Category::Temporaries, 400, Phase::OptimizerStep, Phase::OptimizerStep},
        };
        // Ids: 0,1 = w; 2,3 = g (layers 0,1; backward events 9 and 8); 4,5 =
        // act; 6 = out; 7 = tmp. Events: 0 load ... 8 bwd layer 1, 9 bwd
        // layer 0, 10 embed bwd, 11 step.
        // Step 1, first micro-batch (no optimizer step): the weights; act 0,
        // act 1, out in forward; g1 in layer 1's backward, act 1 freed, g0
        // in layer 0's; act 0 freed. Second micro-batch: out, held to the
        // step's end, dies with the first; the gradients are alive; tmp in
        // the optimizer step. Step 2 begins with zero_grad: g0, g1 freed with
        // out and tmp; its first backward makes them again.
        const std::string micro0 = "a4 a5 a6 a3 f5 a2 f4 ";
        const std::string micro1 = "f6 a4 a5 a6 f5 f4 a7 ";
        const std::string stepEnd = "f2 f3 f6 f7 ";
        const auto stream = allocatorStream(plan, 2);
        QCOMPARE(streamText(stream), "a0 a1 " + micro0 + micro1 + stepEnd + micro0 + micro1 + stepEnd);
        QVERIFY(simulateCachingAllocator(stream).ok());

        // One micro-batch a step (a rank of a parallel layout): the gradients
        // are made in the first step's backward and kept, as before.
        plan.microBatchesPerStep = 1;
        QCOMPARE(streamText(allocatorStream(plan, 2)),
                 std::string("a0 a1 a4 a5 a6 a3 f5 a2 f4 a7 f6 f7 a4 a5 a6 f5 f4 a7 f6 f7 "));
    }

    void planner()
    {
        const Scenario scenario = teachingScenario().value();
        auto plan = makePlan(scenario);
        QVERIFY(plan.ok());
        QVERIFY(plan->peakReservedBytes >= plan->peakAllocatedBytes);
        // It accumulates: the stream replays micro-batches, and the
        // gradients kept through them are freed at each step's zero_grad.
        QVERIFY(scenario.train.gradAccum > 1);
        QCOMPARE(plan->microBatchesPerStep, scenario.train.gradAccum);
        int accumulatedGrads = 0;
        for (const TensorRow& row : plan->tensors) {
            if (row.category == Category::Gradients && row.allocAt == Phase::Load) {
                QVERIFY2(row.freedAtZeroGrad, row.name);
                ++accumulatedGrads;
            }
        }
        QVERIFY(accumulatedGrads >= 2); // the layers' and the global ones
        QCOMPARE(plan->allocatorCacheBytes, plan->peakReservedBytes - plan->peakAllocatedBytes);
        const auto stream = allocatorStream(plan.value(), kAllocatorSteps);
        const auto s = simulateCachingAllocator(stream, runtimeProfile(Profile::Pytorch).allocator);
        QVERIFY(s.ok());
        QCOMPARE(plan->peakReservedBytes, std::max(s->peakReservedBytes, plan->peakAllocatedBytes));
        QCOMPARE(plan->allocatorSegments, s->peakSegments);
        // The simulated allocated peak is the table's peak with each block
        // rounded, so not below the tensors' bytes.
        QVERIFY(s->peakAllocatedBytes >= plan->peakAllocatedBytes);
        qInfo("default scenario: %zu allocator events, allocated %.3f GiB, reserved %.3f GiB, %llu segments",
              stream.size(), static_cast<double>(plan->peakAllocatedBytes) / GiB,
              static_cast<double>(plan->peakReservedBytes) / GiB,
              static_cast<unsigned long long>(plan->allocatorSegments));
    }

    void optimizerStateInParameterOrder()
    {
        // Llama 3.2 1B (tied embeddings), full fine-tune, AdamW, bf16-mixed:
        // fp32 parameters, so fp32 state and gradients.
        auto model = presetModel("meta-llama/Llama-3.2-1B");
        QVERIFY(model.ok());
        QVERIFY(model->tieEmbeddings);
        Scenario sc;
        sc.model = model.value();
        sc.train.precision = Precision::Bf16Mixed;
        sc.train.optimizer = Optimizer::AdamW;
        sc.train.gradAccum = 1;
        auto plan = makePlan(sc);
        QVERIFY(plan.ok());
        const Bytes embedding = model->vocab * model->hidden * 4;
        AllocatorStreamLabels labels;
        std::vector<AllocatorEvent> stream;
        appendAllocatorStream(plan.value(), 1, stream, &labels);
        auto requestsAt = [&](Phase phase) {
            std::vector<Bytes> bytes;
            for (std::size_t m = 0; m < labels.marks.size(); ++m) {
                if (plan->events[labels.marks[m].event].phase != phase)
                    continue;
                const std::size_t end = m + 1 < labels.marks.size() ? labels.marks[m + 1].position : stream.size();
                for (std::size_t k = labels.marks[m].position; k < end; ++k)
                    if (stream[k].kind == AllocatorEvent::Kind::Alloc)
                        bytes.push_back(stream[k].bytes);
            }
            return bytes;
        };
        // The first step() makes exp_avg and exp_avg_sq parameter by
        // parameter in model.parameters() order: the embedding's first
        // (torch/optim/adamw.py _init_group; the accountant's trace: two
        // zeros_like of vocab x hidden fp32 open the step).
        const auto step = requestsAt(Phase::OptimizerStep);
        QVERIFY(step.size() >= 2);
        QCOMPARE(step[0], embedding);
        QCOMPARE(step[1], embedding);
        // The tied embedding's backward: embedding_dense_backward's output and
        // its sum with the head's gradient, two tensors of vocab x hidden.
        const auto embedBackward = requestsAt(Phase::EmbedBwd);
        QCOMPARE(std::count(embedBackward.begin(), embedBackward.end(), embedding), 2);
    }

    void largePlanSimulates()
    {
        // docs/benchmarks.md's scenario: Llama-3.1-70B (80 layers), QLoRA,
        // every other layer checkpointed. `headroom-cli bench` times the
        // simulation of this stream ("allocator simulation"); here it must run.
        auto model = presetModel("meta-llama/Llama-3.1-70B");
        QVERIFY(model.ok());
        Scenario sc;
        sc.model = model.value();
        sc.train.precision = Precision::Bf16Mixed;
        sc.train.peft.method = PeftMethod::Qlora;
        sc.train.peft.targets = {"all-linear"};
        sc.train.weightQuant = WeightQuant::Nf4DoubleQuant;
        sc.train.optimizer = Optimizer::PagedAdamW8bit;
        sc.train.checkpointing = Checkpointing::EveryK;
        sc.train.checkpointEvery = 2;
        sc.train.attention = Attention::Flash;
        sc.train.seqLen = 1024;
        sc.hardware.gpu = "h100-sxm-80gb";
        auto plan = makePlan(sc);
        QVERIFY(plan.ok());
        const auto stream = allocatorStream(plan.value(), kAllocatorSteps);
        auto stats = simulateCachingAllocator(stream);
        QVERIFY(stats.ok());
        QVERIFY(stats->peakReservedBytes > 0);
    }
};

QTEST_APPLESS_MAIN(TestCachingAllocator)
#include "test_cachingallocator.moc"
