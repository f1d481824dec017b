// SPDX-License-Identifier: GPL-3.0-or-later
// The caching block pool (runtime/blockpool.h) over a fake upstream that
// records its calls and hands out addresses it never touches: reuse without an
// upstream call, PyTorch's rounding, splitting and merging, the peaks, the
// out-of-memory retry after releasing the cache, a random stream checked
// against the pool's invariants, and the pool's reserved equal to the
// planner's simulation (plan/cachingallocator.h) over the same stream.
#include "plan/allocatorstream.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"
#include "plan/profile.h"
#include "plan/sweep.h"
#include "runtime/blockpool.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

using namespace headroom;
using namespace headroom::rt;

namespace {

// Upstream memory as address ranges only: segments are spaced 1 TiB apart so
// a block that strayed past its segment would land in no segment at all.
class FakeUpstream {
public:
    struct Call {
        bool allocate;
        Bytes bytes;
        bool ok;
    };
    explicit FakeUpstream(Bytes capacity = 0) : m_capacity(capacity) {}

    BlockPoolUpstream functions()
    {
        return {[this](Bytes bytes) -> std::byte* {
                    const bool ok = m_capacity == 0 || held + bytes <= m_capacity;
                    calls.push_back({true, bytes, ok});
                    if (!ok)
                        return nullptr;
                    m_next += Bytes{1} << 40;
                    auto* segment = reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(m_next));
                    segments[segment] = bytes;
                    held += bytes;
                    return segment;
                },
                [this](std::byte* segment, Bytes bytes) {
                    calls.push_back({false, bytes, segments.count(segment) == 1 && segments[segment] == bytes});
                    held -= bytes;
                    segments.erase(segment);
                }};
    }
    std::size_t allocations() const
    {
        return static_cast<std::size_t>(
            std::count_if(calls.begin(), calls.end(), [](const Call& c) { return c.allocate; }));
    }
    std::size_t frees() const { return calls.size() - allocations(); }
    // Whether [block, block + bytes) lies inside one held segment.
    bool inside(const std::byte* block, Bytes bytes) const
    {
        auto it = segments.upper_bound(const_cast<std::byte*>(block));
        if (it == segments.begin())
            return false;
        --it;
        const auto start = reinterpret_cast<std::uintptr_t>(it->first);
        const auto at = reinterpret_cast<std::uintptr_t>(block);
        return at >= start && at + bytes <= start + it->second;
    }

    std::vector<Call> calls;
    std::map<std::byte*, Bytes> segments;
    Bytes held = 0;

private:
    Bytes m_capacity;
    Bytes m_next = 0;
};

std::uintptr_t addressOf(const std::byte* p) { return reinterpret_cast<std::uintptr_t>(p); }

} // namespace

class TestRuntimeBlockPool : public QObject {
    Q_OBJECT

private slots:
    void reuseWithoutUpstream()
    {
        // A freed block serves the next request it fits: one cudaMalloc for
        // the first request, none for the second, and no cudaFree per free.
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::byte* a = pool.allocate(1000);
        QVERIFY(a);
        QCOMPARE(upstream.allocations(), std::size_t{1});
        pool.free(a);
        std::byte* b = pool.allocate(900); // rounds to 1024 too: the same block
        QCOMPARE(b, a);
        QCOMPARE(upstream.calls.size(), std::size_t{1});
        pool.free(b);
        QCOMPARE(upstream.frees(), std::size_t{0});
        QCOMPARE(pool.stats().reservedBytes, 2 * MiB); // cached, still held
        QCOMPARE(pool.stats().allocatedBytes, Bytes{0});
    }

    void rounding()
    {
        // round_size: at least 512 bytes, then multiples of 512; a 0-byte
        // request gets a 512-byte block here (PyTorch hands out none).
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::byte* one = pool.allocate(1);
        std::byte* edge = pool.allocate(513);
        std::byte* zero = pool.allocate(0);
        QCOMPARE(pool.blockBytes(one), Bytes{512});
        QCOMPARE(pool.blockBytes(edge), Bytes{1024});
        QCOMPARE(pool.blockBytes(zero), Bytes{512});
        QCOMPARE(pool.stats().allocatedBytes, Bytes{2048});
        // All three from one 2 MiB small-pool segment, packed front to back
        // (alloc_found_block keeps the remainder after the block it hands out).
        QCOMPARE(upstream.allocations(), std::size_t{1});
        QCOMPARE(upstream.calls[0].bytes, 2 * MiB);
        QCOMPARE(addressOf(edge) - addressOf(one), std::uintptr_t{512});
        QCOMPARE(addressOf(zero) - addressOf(edge), std::uintptr_t{1024});
    }

    void splitting()
    {
        // 3 MiB: large pool, below 10 MiB -> a 20 MiB segment, split (17 MiB
        // remain, more than 1 MiB); a second 3 MiB comes from the remainder.
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::byte* a = pool.allocate(3 * MiB);
        std::byte* b = pool.allocate(3 * MiB);
        QCOMPARE(upstream.allocations(), std::size_t{1});
        QCOMPARE(upstream.calls[0].bytes, 20 * MiB);
        QCOMPARE(addressOf(b) - addressOf(a), std::uintptr_t{3 * MiB});
        // 15 MiB does not fit the 14 MiB left: a segment of its own, rounded
        // to 2 MiB (16 MiB); the 1 MiB left is not more than kSmallSize, so
        // the block is not split and counts 16 MiB allocated.
        std::byte* c = pool.allocate(15 * MiB);
        QCOMPARE(upstream.allocations(), std::size_t{2});
        QCOMPARE(upstream.calls[1].bytes, 16 * MiB);
        QCOMPARE(pool.blockBytes(c), 16 * MiB);
        QCOMPARE(pool.stats().allocatedBytes, 22 * MiB);
        QCOMPARE(pool.stats().reservedBytes, 36 * MiB);
        // free_block merges a and b with the free rest: 20 MiB in one block
        // again, which serves 15 MiB with no new segment.
        pool.free(a);
        pool.free(b);
        std::byte* d = pool.allocate(15 * MiB);
        QCOMPARE(d, a);
        QCOMPARE(upstream.allocations(), std::size_t{2});
    }

    void peaks()
    {
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::byte* a = pool.allocate(4 * MiB);
        std::byte* b = pool.allocate(4 * MiB);
        pool.free(a);
        pool.free(b);
        std::byte* c = pool.allocate(11 * MiB); // from the merged 20 MiB block: no new segment
        QCOMPARE(upstream.allocations(), std::size_t{1});
        pool.free(c);
        std::byte* d = pool.allocate(30 * MiB); // a 30 MiB segment beside the 20 MiB one
        pool.free(d);
        const BlockPoolStats s = pool.stats();
        QCOMPARE(s.peakAllocatedBytes, 30 * MiB);
        QCOMPARE(s.peakReservedBytes, 50 * MiB);
        QCOMPARE(s.allocatedBytes, Bytes{0});
        QCOMPARE(s.reservedBytes, 50 * MiB);
        QCOMPARE(s.segments, std::uint64_t{2});
        pool.emptyCache(); // torch.cuda.empty_cache(): both segments go back
        QCOMPARE(pool.stats().reservedBytes, Bytes{0});
        QCOMPARE(pool.stats().peakReservedBytes, 50 * MiB); // a peak stays
        QCOMPARE(upstream.frees(), std::size_t{2});
        QCOMPARE(upstream.held, Bytes{0});
    }

    void emptyCacheKeepsLiveSegments()
    {
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::byte* live = pool.allocate(100); // small pool segment, stays
        std::byte* cached = pool.allocate(12 * MiB);
        pool.free(cached);
        pool.emptyCache();
        QCOMPARE(upstream.frees(), std::size_t{1});
        QCOMPARE(pool.stats().reservedBytes, 2 * MiB);
        QCOMPARE(pool.blockBytes(live), Bytes{512});
    }

    void outOfMemoryRetriesAfterReleasingTheCache()
    {
        // Upstream holds at most 40 MiB. 15 MiB (a 16 MiB segment) is freed
        // and cached; 30 MiB then needs a new 30 MiB segment, which does not
        // fit beside it: malloc releases the cached segments
        // (release_cached_blocks) and tries once more, which succeeds.
        FakeUpstream upstream(40 * MiB);
        BlockPool pool(upstream.functions());
        pool.free(pool.allocate(15 * MiB));
        std::byte* big = pool.allocate(30 * MiB);
        QVERIFY(big);
        QCOMPARE(upstream.calls.size(), std::size_t{4});
        QVERIFY(upstream.calls[0].allocate && upstream.calls[0].ok && upstream.calls[0].bytes == 16 * MiB);
        QVERIFY(upstream.calls[1].allocate && !upstream.calls[1].ok && upstream.calls[1].bytes == 30 * MiB);
        QVERIFY(!upstream.calls[2].allocate && upstream.calls[2].ok && upstream.calls[2].bytes == 16 * MiB);
        QVERIFY(upstream.calls[3].allocate && upstream.calls[3].ok && upstream.calls[3].bytes == 30 * MiB);
        QCOMPARE(pool.stats().allocRetries, std::uint64_t{1});
        QCOMPARE(pool.stats().reservedBytes, 30 * MiB);
    }

    void outOfMemoryIsReportedCleanly()
    {
        // With the live block still holding its segment nothing can be
        // released: the request fails with nullptr, and the pool goes on.
        FakeUpstream upstream(40 * MiB);
        BlockPool pool(upstream.functions());
        std::byte* held = pool.allocate(30 * MiB);
        QVERIFY(held);
        QCOMPARE(pool.allocate(20 * MiB), nullptr);
        QCOMPARE(pool.stats().allocatedBytes, 30 * MiB);
        QCOMPARE(pool.stats().reservedBytes, 30 * MiB);
        QCOMPARE(pool.liveBlocks(), std::size_t{1});
        pool.free(held);
        QVERIFY(pool.allocate(20 * MiB)); // from the cached 30 MiB segment
        QCOMPARE(upstream.held, 30 * MiB);
    }

    void destructorReturnsEverything()
    {
        FakeUpstream upstream;
        {
            BlockPool pool(upstream.functions());
            pool.allocate(100);
            pool.free(pool.allocate(12 * MiB));
            pool.allocate(50 * MiB); // still live when the pool goes
        }
        QCOMPARE(upstream.held, Bytes{0});
        QVERIFY(upstream.segments.empty());
        for (const FakeUpstream::Call& c : upstream.calls)
            QVERIFY(c.ok); // every free matched a segment, with its size
    }

    void randomStreamKeepsInvariants()
    {
        // Requests from 1 byte to 64 MiB (log-uniform, so both pools and
        // every segment rule are exercised), freed in random order, on an
        // upstream of 1 GiB so the out-of-memory path runs too.
        FakeUpstream upstream(GiB);
        BlockPool pool(upstream.functions());
        std::mt19937_64 rng(14);
        std::uniform_real_distribution<double> logSize(0.0, std::log2(64.0 * MiB));
        std::vector<std::pair<std::byte*, Bytes>> live; // block, request
        std::size_t failures = 0;
        for (int step = 0; step < 4000; ++step) {
            const bool allocate = live.empty() || rng() % 100 < 55;
            if (allocate) {
                const auto request = static_cast<Bytes>(std::exp2(logSize(rng)));
                std::byte* block = pool.allocate(request);
                if (!block) {
                    ++failures;
                    continue;
                }
                QVERIFY(pool.blockBytes(block) >= cachingRoundSize(request));
                live.emplace_back(block, request);
            } else {
                const std::size_t i = rng() % live.size();
                pool.free(live[i].first);
                live[i] = live.back();
                live.pop_back();
            }
            const BlockPoolStats s = pool.stats();
            QVERIFY(s.allocatedBytes <= s.reservedBytes);
            QCOMPARE(s.reservedBytes, upstream.held);
            QVERIFY(s.peakAllocatedBytes >= s.allocatedBytes);
            QVERIFY(s.peakReservedBytes >= s.reservedBytes);
            QCOMPARE(pool.liveBlocks(), live.size());
            // Every live block lies inside a held segment, no two overlap,
            // and allocated is the sum of their sizes.
            std::vector<std::pair<std::uintptr_t, Bytes>> blocks;
            Bytes sum = 0;
            for (const auto& [block, request] : live) {
                const Bytes size = pool.blockBytes(block);
                QVERIFY(upstream.inside(block, size));
                blocks.emplace_back(addressOf(block), size);
                sum += size;
            }
            std::sort(blocks.begin(), blocks.end());
            for (std::size_t i = 1; i < blocks.size(); ++i)
                QVERIFY(blocks[i - 1].first + blocks[i - 1].second <= blocks[i].first);
            QCOMPARE(s.allocatedBytes, sum);
        }
        QVERIFY2(failures > 0, "the stream should reach the upstream's capacity");
        QVERIFY(pool.stats().allocRetries > 0);
        qInfo("4000 operations: %zu refused, %llu retries, %llu upstream allocations, %llu frees", failures,
              static_cast<unsigned long long>(pool.stats().allocRetries),
              static_cast<unsigned long long>(pool.stats().upstreamAllocations),
              static_cast<unsigned long long>(pool.stats().upstreamFrees));
    }

    void reservedEqualsTheSimulation()
    {
        // The default scenario's two-step stream (what the planner simulates
        // for peak reserved) through the pool: the same blocks, so the same
        // peaks and the same number of segments.
        auto plan = makePlan(teachingScenario().value());
        QVERIFY(plan.ok());
        const auto stream = allocatorStream(plan.value(), kAllocatorSteps);
        const auto simulated = simulateCachingAllocator(stream);
        QVERIFY(simulated.ok());
        FakeUpstream upstream;
        BlockPool pool(upstream.functions());
        std::vector<std::byte*> byId;
        for (const AllocatorEvent& e : stream) {
            if (byId.size() <= e.id)
                byId.resize(std::size_t{e.id} + 1, nullptr);
            if (e.kind == AllocatorEvent::Kind::Alloc) {
                QVERIFY(e.bytes > 0); // the stream leaves out empty rows; the pool rounds 0 up
                byId[e.id] = pool.allocate(e.bytes);
                QVERIFY(byId[e.id]);
            } else {
                pool.free(byId[e.id]);
            }
        }
        const BlockPoolStats s = pool.stats();
        QCOMPARE(s.peakReservedBytes, simulated->peakReservedBytes);
        QCOMPARE(s.peakAllocatedBytes, simulated->peakAllocatedBytes);
        QCOMPARE(s.upstreamAllocations, simulated->deviceAllocations);
        QCOMPARE(s.reservedBytes, simulated->finalReservedBytes);
        QCOMPARE(s.upstreamFrees, std::uint64_t{0}); // an unlimited device never frees
    }
};

QTEST_APPLESS_MAIN(TestRuntimeBlockPool)
#include "test_runtime_blockpool.moc"
