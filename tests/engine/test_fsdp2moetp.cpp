// SPDX-License-Identifier: GPL-3.0-or-later
// A mixture of experts under tensor parallelism with FSDP2, as torchtitan
// 0.2.2 runs it (llama4/infra/parallelize.py apply_moe_ep_tp with ep 1): the
// MoE block's input all-gathered, the router replicated, each routed expert
// split over tp (TensorParallel), everything sharded over dp_shard x cp.
// Mixtral 8x7B over 8 GPUs, tp 2 with sequence parallelism, dp 4; every
// expected figure is derived from config.json's dimensions here.
#include "model/catalog.h"
#include "planrows.h"
#include "rankplan.h"

#include <QtTest>

using namespace headroom;
using testing::rowBytes;
using testing::stagePlan;

namespace {

// Mixtral 8x7B: hidden 4096, 32 heads of 128, 8 KV heads, 8 experts top-2 of
// width 14336.
constexpr Bytes kHidden = 4096, kKvWidth = 8 * 128, kWidth = 14336, kExperts = 8, kTopK = 2;
constexpr Bytes kTokens = 1024, kTp = 2, kDp = 4;

Scenario mixtralFsdp2Tp2()
{
    Scenario sc = testing::mixtralFullFinetune(Sharding::Fsdp2, Checkpointing::None);
    sc.hardware.parallel.tp = kTp;
    sc.hardware.parallel.sp = true;
    return sc;
}

} // namespace

class TestFsdp2MoeTp : public QObject {
    Q_OBJECT

private slots:
    // The rank's layer: q, k, v, o over tp; the router and the norms whole;
    // each expert's three linears over tp. fp32 master shards over dp 4, the
    // gathered unit in bf16.
    void parametersSplitAndSharded()
    {
        const Plan p = stagePlan(mixtralFsdp2Tp2(), 0);
        const Bytes attention = (2 * kHidden * kHidden + 2 * kHidden * kKvWidth) / kTp;
        const Bytes experts = kExperts * 3 * kHidden * kWidth / kTp;
        const Bytes layer = attention + kHidden * kExperts + experts + 2 * kHidden;
        QCOMPARE(rowBytes(p, "weights.layer"), (4 * layer + kDp - 1) / kDp);
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), 2 * layer);
    }

    // The MoE block reads the whole sequence on every tp rank: the router's
    // saved input and the routing over every token, all token slots at the
    // expert's tp share of its width. The norms before it stay sequence
    // sharded. Megatron-LM's layout of the same keeps the tokens sharded.
    void moeBlockOverTheWholeSequence()
    {
        const Plan p = stagePlan(mixtralFsdp2Tp2(), 0);
        const Bytes tokenSlots = kTokens * kTopK;
        QCOMPARE(rowBytes(p, "moe.router_in"), kTokens * kHidden * 2);
        QCOMPARE(rowBytes(p, "moe.gathered"), tokenSlots * kHidden * 2);
        QCOMPARE(rowBytes(p, "moe.up_out"), tokenSlots * 2 * (kWidth / kTp) * 2);
        QCOMPARE(rowBytes(p, "mlp.act_out"), tokenSlots * (kWidth / kTp) * 2);
        QCOMPARE(rowBytes(p, "norm2.in"), kTokens / kTp * kHidden * 4);
        // No token slots exchanged or gathered: no dispatcher rows.
        QCOMPARE(rowBytes(p, "moe.etp_all_gather"), Bytes(0));
        QCOMPARE(rowBytes(p, "moe.all_to_all"), Bytes(0));

        Scenario megatron = mixtralFsdp2Tp2();
        megatron.hardware.sharding = Sharding::Zero1;
        QCOMPARE(rowBytes(stagePlan(megatron, 0), "moe.router_in"), kTokens / kTp * kHidden * 2);
    }

    // What torchtitan cannot run, or the plan does not model, is refused
    // naming the field.
    void refusals_data()
    {
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("etp");
        QTest::addColumn<QString>("field");
        QTest::newRow("ep with tp") << 2 << 0 << "hardware.parallel.ep";
        QTest::newRow("etp other than tp") << 1 << 1 << "hardware.parallel.etp";
    }
    void refusals()
    {
        QFETCH(int, ep);
        QFETCH(int, etp);
        QFETCH(QString, field);
        Scenario sc = mixtralFsdp2Tp2();
        sc.hardware.parallel.ep = static_cast<std::uint64_t>(ep);
        sc.hardware.parallel.etp = static_cast<std::uint64_t>(etp);
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QVERIFY2(QString::fromStdString(plan.error().detail).startsWith(field), plan.error().detail.c_str());
    }
};

QTEST_APPLESS_MAIN(TestFsdp2MoeTp)
#include "test_fsdp2moetp.moc"
