// SPDX-License-Identifier: GPL-3.0-or-later
// HSDP under FSDP2 (hardware.parallel.dp_replicate), the scenario's node
// shape (hardware.nodes, gpus_per_node) and its other spellings of the
// sharding (hardware.parallel.zero, distributed_optimizer). HSDP shards within a replicate group
// and all-reduces the sharded gradients in place (torch 2.11
// _fsdp_collectives.py foreach_reduce), so a rank holds exactly what a rank of
// plain FSDP2 over the group's GPUs holds: the expected plans are those plans,
// made independently. The only difference is the replicate group's NCCL
// communicator. A 4-layer Llama-like model (hidden 256, vocabulary 1000),
// bf16-mixed under FSDP2, micro-batch 2 x sequence 128.
#include "io/scenariofile.h"
#include "plan/layoutsearch.h"
#include "plan/ncclbuffers.h"
#include "plan/planner.h"
#include "planrows.h"
#include "smallmodel.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;
using testing::rowBytes;

namespace {

Scenario fsdp2(std::uint64_t gpus, std::uint64_t replicate, std::uint64_t tp = 1)
{
    Scenario sc;
    sc.model = testing::smallModel({"llama", 256, 4, 8, 2, 704, 1000, false});
    sc.train.precision = Precision::Bf16Mixed;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = 2;
    sc.train.seqLen = 128;
    sc.train.attention = Attention::Flash;
    sc.train.checkpointing = Checkpointing::Full;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;
    sc.hardware.sharding = Sharding::Fsdp2;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = tp > 1;
    sc.hardware.parallel.dpReplicate = replicate;
    return sc;
}

// The tensors of two plans, row by row.
void compareTensors(const Plan& got, const Plan& want)
{
    QCOMPARE(got.tensors.size(), want.tensors.size());
    for (std::size_t k = 0; k < want.tensors.size(); ++k) {
        QCOMPARE(got.tensors[k].name, want.tensors[k].name);
        QCOMPARE(got.tensors[k].bytes, want.tensors[k].bytes);
    }
    QCOMPARE(got.peakAllocatedBytes, want.peakAllocatedBytes);
    QCOMPARE(got.peakReservedBytes, want.peakReservedBytes);
}

Result<Scenario> fromHardware(const nlohmann::json& hardware)
{
    const nlohmann::json doc{{"schema", "headroom.scenario/1"},
                             {"model", {{"preset", "meta-llama/Llama-3.1-8B"}}},
                             {"train", {{"precision", "bf16-mixed"}}},
                             {"hardware", hardware}};
    return scenarioFromText(doc.dump());
}

void expectError(const Result<Scenario>& r, const char* field)
{
    QVERIFY(!r);
    QVERIFY2(r.error().detail.find(field) != std::string::npos, r.error().detail.c_str());
}

} // namespace

class TestHsdp : public QObject {
    Q_OBJECT

private slots:
    // 8 GPUs as 2 replicate groups of 4: each rank holds what FSDP2 over 4 holds.
    void rankHoldsWhatItsGroupShards()
    {
        const Plan hsdp = testing::planOrFail(fsdp2(8, 2));
        const Plan four = testing::planOrFail(fsdp2(4, 1));
        compareTensors(hsdp, four);
        QVERIFY(rowBytes(hsdp, "weights.layer") > 0);
        // Against FSDP2 over all 8 the shards are twice as large.
        const Plan eight = testing::planOrFail(fsdp2(8, 1));
        QVERIFY(rowBytes(hsdp, "optimizer.layer") > rowBytes(eight, "optimizer.layer"));
    }

    // Under tensor parallelism the same: tp 2 x (2 x 4) against tp 2 x 4.
    void underTensorParallelism()
    {
        const Plan hsdp = testing::planOrFail(fsdp2(16, 2, 2));
        const Plan plain = testing::planOrFail(fsdp2(8, 1, 2));
        compareTensors(hsdp, plain);
    }

    // One communicator more: the replicate group's (688 MB for more than two
    // ranks, 544 MB for two: ncclbuffers.cpp).
    void replicateGroupCommunicator()
    {
        const NcclBuffers hsdp = ncclBuffers(fsdp2(8, 2));
        const NcclBuffers four = ncclBuffers(fsdp2(4, 1));
        QCOMPARE(hsdp.communicators, four.communicators + 1);
        QCOMPARE(hsdp.bytes, four.bytes + 544'000'000);
        const Plan plan = testing::planOrFail(fsdp2(8, 2));
        QCOMPARE(plan.ncclBytes, hsdp.bytes);
    }

    void refusesWhatIsNotHsdp()
    {
        Scenario zero = fsdp2(8, 2);
        zero.hardware.sharding = Sharding::Zero3;
        auto refused = makePlan(zero);
        QVERIFY(!refused);
        QCOMPARE(int(refused.error().code), int(ErrorCode::UnsupportedCombination));
        QVERIFY2(refused.error().detail.find("hardware.parallel.dp_replicate") != std::string::npos,
                 refused.error().detail.c_str());
        // 3 does not divide the data-parallel degree 8; the message says both.
        auto uneven = makePlan(fsdp2(8, 3));
        QVERIFY(!uneven);
        QCOMPARE(int(uneven.error().code), int(ErrorCode::InvalidArgument));
        const std::string& why = uneven.error().detail;
        QVERIFY2(why.find("dp_replicate: 3") != std::string::npos && why.find("degree 8") != std::string::npos,
                 why.c_str());
    }

    // dp_replicate and the derived dp_shard are written when used and read back.
    void scenarioFileRoundTrip()
    {
        QVERIFY(scenarioToText(fsdp2(8, 1)).find("dp_replicate") == std::string::npos);
        const std::string text = scenarioToText(fsdp2(16, 2, 2));
        auto back = scenarioFromText(text);
        QVERIFY2(back, back ? "" : back.error().detail.c_str());
        QCOMPARE(back->hardware.parallel.dpReplicate, std::uint64_t(2));
        const auto doc = nlohmann::json::parse(text);
        QCOMPARE(doc["hardware"]["parallel"]["dp_shard"].get<std::uint64_t>(), std::uint64_t(4));
        auto wrong = doc;
        wrong["hardware"]["parallel"]["dp_shard"] = 8;
        expectError(scenarioFromText(wrong.dump()), "hardware.parallel.dp_shard");
    }

    // nodes x gpus_per_node is the count, given instead of it or checked against it.
    void nodesAndGpusPerNode()
    {
        auto both = fromHardware({{"gpu", "h100-sxm-80gb"}, {"nodes", 4}, {"gpus_per_node", 8}});
        QVERIFY2(both, both ? "" : both.error().detail.c_str());
        QCOMPARE(both->hardware.count, std::uint64_t(32));
        QCOMPARE(both->hardware.gpusPerNode, std::uint64_t(8));
        auto back = scenarioFromText(scenarioToText(both.value()));
        QVERIFY(back);
        QCOMPARE(back->hardware.gpusPerNode, std::uint64_t(8));
        QCOMPARE(back->hardware.count, std::uint64_t(32));
        QVERIFY(fromHardware({{"count", 32}, {"nodes", 4}, {"gpus_per_node", 8}}));
        expectError(fromHardware({{"count", 16}, {"nodes", 4}, {"gpus_per_node", 8}}), "hardware.count");
        expectError(fromHardware({{"nodes", 4}}), "hardware.nodes");
        expectError(fromHardware({{"count", 12}, {"gpus_per_node", 8}}), "hardware.count");
        QVERIFY(fromHardware({{"count", 4}, {"gpus_per_node", 8}})); // part of one node
    }

    // hardware.parallel.zero and distributed_optimizer say the sharding
    // another way: they set it when "sharding" is absent, must agree with it
    // when present, and are not written back.
    void shardingAliases()
    {
        const auto sharding = [](const nlohmann::json& parallel, const char* given = nullptr) {
            nlohmann::json hw{{"gpu", "h100-sxm-80gb"}, {"count", 8}, {"parallel", parallel}};
            if (given)
                hw["sharding"] = given;
            return fromHardware(hw);
        };
        QCOMPARE(int(sharding({{"zero", 3}})->hardware.sharding), int(Sharding::Zero3));
        QCOMPARE(int(sharding({{"zero", 0}})->hardware.sharding), int(Sharding::Ddp));
        QCOMPARE(int(sharding({{"distributed_optimizer", true}})->hardware.sharding), int(Sharding::Zero1));
        QCOMPARE(int(sharding({{"zero", 3}}, "fsdp2")->hardware.sharding), int(Sharding::Fsdp2));
        QVERIFY(sharding({{"distributed_optimizer", false}}, "ddp"));
        expectError(sharding({{"zero", 2}}, "fsdp2"), "hardware.parallel.zero");
        expectError(sharding({{"distributed_optimizer", true}}, "zero3"), "hardware.parallel.distributed_optimizer");
        expectError(sharding({{"zero", 4}}), "hardware.parallel.zero");
        auto set = sharding({{"zero", 1}});
        QVERIFY(set);
        QVERIFY(scenarioToText(set.value()).find("\"zero\"") == std::string::npos);
    }

    // The layout search takes the scenario's node size when its options give none.
    void searchUsesTheScenariosNodeSize()
    {
        Scenario sc = fsdp2(16, 1);
        sc.hardware.gpusPerNode = 4;
        LayoutSearchOptions options;
        options.keep = 1;
        auto r = searchLayouts(sc, options);
        QVERIFY2(r, r ? "" : r.error().detail.c_str());
        QVERIFY(!r->gpusPerNodeAssumed);
        QCOMPARE(r->links.gpusPerNode, std::uint64_t(4));
        options.gpusPerNode = 8; // the options win
        auto o = searchLayouts(sc, options);
        QVERIFY(o);
        QCOMPARE(o->links.gpusPerNode, std::uint64_t(8));
    }
};

QTEST_APPLESS_MAIN(TestHsdp)
#include "test_hsdp.moc"
