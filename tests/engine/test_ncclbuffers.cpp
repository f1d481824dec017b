// SPDX-License-Identifier: GPL-3.0-or-later
// NCCL's communicator buffers (plan/ncclbuffers.h): one communicator per
// parallel dimension over one GPU, 544 MB for two ranks and 688 MB for more
// (NVIDIA/nccl#964), counted outside the caching allocator with the context.
#include "plan/defaultscenario.h"
#include "plan/ncclbuffers.h"
#include "plan/planner.h"
#include "planrows.h"

#include <QtTest>

using namespace headroom;

namespace {

Scenario layout(std::uint64_t gpus, std::uint64_t tp = 1, std::uint64_t pp = 1)
{
    Scenario sc;
    sc.model.id = "test";
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;
    sc.hardware.sharding = gpus > 1 ? Sharding::Ddp : Sharding::None;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.pp = pp;
    return sc;
}

} // namespace

class TestNcclBuffers : public QObject {
    Q_OBJECT

private slots:
    void oneCommunicatorPerDimension()
    {
        QCOMPARE(ncclBuffers(layout(1)).communicators, 0u);
        QCOMPARE(ncclBuffers(layout(1)).bytes, Bytes{0});
        QCOMPARE(ncclBuffers(layout(2)).bytes, Bytes{544'000'000});
        QCOMPARE(ncclBuffers(layout(8)).bytes, Bytes{688'000'000});
        // tp 2 x pp 2 x dp 2: three communicators of two ranks.
        QCOMPARE(ncclBuffers(layout(8, 2, 2)).communicators, 3u);
        QCOMPARE(ncclBuffers(layout(8, 2, 2)).bytes, Bytes{3 * 544'000'000ull});
        // tp 8 over 8 GPUs: no data parallelism, one communicator.
        QCOMPARE(ncclBuffers(layout(8, 8)).communicators, 1u);
        QCOMPARE(ncclBuffers(layout(16, 8)).bytes, Bytes{544'000'000ull + 688'000'000ull});
    }

    // The plan counts them beside the CUDA context: the context of one GPU
    // plus the buffers, and device used includes them.
    void countedWithTheContext()
    {
        auto built = teachingScenario();
        QVERIFY(built);
        Scenario sc = built.value();
        const Plan one = testing::planOrFail(sc);
        sc.hardware.count = 2;
        sc.hardware.sharding = Sharding::Ddp;
        const Plan two = testing::planOrFail(sc);
        QCOMPARE(one.ncclBytes, Bytes{0});
        QCOMPARE(two.ncclBytes, Bytes{544'000'000});
        QCOMPARE(two.contextBytes, one.contextBytes + two.ncclBytes);
        QVERIFY(two.deviceUsedBytes >= two.peakReservedBytes + two.contextBytes);
    }
};

QTEST_APPLESS_MAIN(TestNcclBuffers)
#include "test_ncclbuffers.moc"
