// SPDX-License-Identifier: GPL-3.0-or-later
// The engine's step program run on the CPU with its buffers from the caching
// block pool (runtime/blockpool.h) over host memory, as the CUDA backend takes
// them over cudaMalloc: the pool's peak reserved against the headroom
// profile's planned peak reserved (the caching allocator simulation over the
// plan's allocation stream), and the tracking allocator's peak unchanged by
// the pool.
#include "plan/planner.h"
#include "runtime/blockpool.h"
#include "runtime/ops.h"
#include "runtime/runtime_scenarios.h"
#include "runtime/runtime_testmodels.h"
#include "runtime/validate.h"

#include <QtTest>

#include <cstdlib>
#include <cstring>
#include <random>

using namespace headroom;
using namespace headroom::rt;

namespace {

// What DeviceStorage does, on the host: pool blocks, zero-filled.
class HostPoolStorage final : public Storage {
public:
    HostPoolStorage()
        : m_pool({[](Bytes bytes) { return static_cast<std::byte*>(std::malloc(bytes)); },
                  [](std::byte* segment, Bytes) { std::free(segment); }})
    {}
    std::byte* allocate(Bytes bytes) override
    {
        std::byte* block = m_pool.allocate(bytes);
        if (block)
            std::memset(block, 0, bytes);
        return block;
    }
    void free(std::byte* data, Bytes) override { m_pool.free(data); }
    BlockPoolStats stats() const { return m_pool.stats(); }

private:
    BlockPool m_pool;
};

struct Run {
    Bytes trackedPeak = 0, plannedPeak = 0;
    Bytes reserved = 0, plannedReserved = 0;
};

Run run(Scenario s)
{
    s.profile = Profile::Headroom;
    Run r;
    auto plan = makePlan(s);
    if (!plan.ok())
        qFatal("plan: %s", plan.error().detail.c_str());
    r.plannedPeak = plan->peakBytes;
    r.plannedReserved = plan->peakReservedBytes;
    HostPoolStorage storage;
    {
        TrackingAllocator allocator(plan->events.size());
        allocator.setStorage(&storage);
        auto ops = makeCpuOps();
        RunOptions options;
        options.steps = 2;
        options.syntheticData = true;
        const Measurement m = runTrainingSteps(s, options, *ops, allocator);
        if (m.status != "ok")
            qFatal("run: %s", m.message.c_str());
        r.trackedPeak = m.peakBytes;
    }
    r.reserved = storage.stats().peakReservedBytes;
    return r;
}

} // namespace

class TestRuntimePoolReserved : public QObject {
    Q_OBJECT
private slots:
    void randomScenarios()
    {
        // The agreement suite's small scenarios: every block is in the small
        // pool, and the pool's reserved equals the plan's to the byte.
        std::mt19937_64 rng(14);
        for (std::size_t i = 0; i < 40; ++i) {
            const Scenario s = testing::randomScenario(rng, i);
            const Run r = run(s);
            QCOMPARE(r.trackedPeak, r.plannedPeak); // the pool changes nothing the tracking allocator counts
            QVERIFY2(r.reserved == r.plannedReserved,
                     (testing::describe(s) + ": planned " + std::to_string(r.plannedReserved) + " measured " +
                      std::to_string(r.reserved))
                         .c_str());
        }
    }

    void largerModels()
    {
        // Blocks in the large pool too. One implementation decides both, but
        // over two streams: the plan's (allocatorstream.h: per event, the
        // table's rows in table order, each row's pieces in turn) and the
        // step program's (per event, in the order its code allocates). Within
        // an event the table has no finer order, so best fit may choose other
        // blocks and reserve otherwise. Measured on 2026-11-26: hidden 512
        // agrees to the byte, hidden 256 reserves 70 MiB against 84 MiB
        // planned. The bound here is what holds today, not a tolerance claim.
        for (std::uint64_t hidden : {256, 512}) {
            Scenario s = testing::tinyScenario();
            s.model = testing::tinyLlama(2, hidden, 4, 2, hidden * 3, 4096);
            s.train.seqLen = 64;
            s.train.microBatch = 2;
            const Run r = run(s);
            QCOMPARE(r.trackedPeak, r.plannedPeak);
            QVERIFY(r.reserved >= r.plannedPeak);
            QVERIFY(r.reserved * 5 >= r.plannedReserved * 4 && r.reserved * 4 <= r.plannedReserved * 5);
            qInfo("hidden %llu: reserved planned %llu measured %llu", static_cast<unsigned long long>(hidden),
                  static_cast<unsigned long long>(r.plannedReserved), static_cast<unsigned long long>(r.reserved));
        }
    }
};

QTEST_APPLESS_MAIN(TestRuntimePoolReserved)
#include "test_runtime_poolreserved.moc"
