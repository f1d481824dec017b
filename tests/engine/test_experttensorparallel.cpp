// SPDX-License-Identifier: GPL-3.0-or-later
// Mixtures of experts under tensor parallelism, expert tensor parallelism,
// capacity factors and uneven routing (issue 15: "EP expert sharding (and
// expert-TP)", "capacity factor and dropless"), planned as Megatron-LM runs
// them (plan/parallel.cpp, parallelrows.cpp addExpertDispatchRows and
// applySequenceParallel, megatronrows.cpp). Mixtral 8x7B over 8 GPUs, tp 2
// with sequence parallelism. Every expected figure is derived from the
// model's dimensions in the test.
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "planrows.h"
#include "rankplan.h"

#include <QtTest>

#include <cmath>

using namespace headroom;
using testing::findRow;
using testing::modelStateBytes;
using testing::rowBytes;
using testing::stagePlan;

namespace {

// Mixtral 8x7B (config.json): hidden 4096, 32 heads of 128, 8 KV heads,
// experts 8 x top-2 of width 14336, vocabulary 32000, 32 layers, untied.
constexpr Bytes kHidden = 4096, kKvWidth = 8 * 128, kWidth = 14336, kExperts = 8, kTopK = 2;
constexpr Bytes kVocab = 32000, kLayers = 32, kGpus = 8, kTokens = 1024;

Scenario mixtral(std::uint64_t tp, std::uint64_t ep, std::uint64_t etp, Sharding sharding)
{
    Scenario sc = testing::mixtralFullFinetune(sharding, Checkpointing::None);
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = tp > 1;
    sc.hardware.parallel.ep = ep;
    sc.hardware.parallel.etp = etp;
    return sc;
}

} // namespace

class TestExpertTensorParallel : public QObject {
    Q_OBJECT

private slots:
    // A rank's parameters, by hand: q, k, v and o split over tp (column and
    // row parallel), the two norms and the router whole (TopKRouter is
    // replicated), each routed expert's three linears split over etp and the
    // experts over ep, the embedding and output layer over the vocabulary.
    // Megatron-LM's estimate (theoretical_memory_usage.py: 18 bytes a
    // parameter under --bf16 with DDP; 6 + 12 / dp with the distributed
    // optimizer), its 12 sharded over dp for the dense part and over the
    // expert data-parallel group, tp x dp / (etp x ep), for the experts.
    void modelStatesAsMegatronEstimates_data()
    {
        QTest::addColumn<int>("ep");
        QTest::addColumn<int>("etp");
        QTest::newRow("ep 1, etp 2") << 1 << 2;
        QTest::newRow("ep 2, etp 2") << 2 << 2;
        QTest::newRow("ep 4, etp 2") << 4 << 2;
        QTest::newRow("ep 4, etp 1") << 4 << 1;
        QTest::newRow("ep 8, etp 1") << 8 << 1;
    }
    void modelStatesAsMegatronEstimates()
    {
        QFETCH(int, ep);
        QFETCH(int, etp);
        constexpr Bytes tp = 2, dp = kGpus / tp;
        const Bytes attention = (2 * kHidden * kHidden + 2 * kKvWidth * kHidden) / tp;
        const Bytes whole = 2 * kHidden + kExperts * kHidden; // two norms, the router
        const Bytes experts = kExperts / Bytes(ep) * 3 * kHidden * kWidth / Bytes(etp);
        const Bytes globals = 2 * kVocab * kHidden / tp + kHidden;
        const Bytes others = kLayers * (attention + whole) + globals;
        const Bytes rankExperts = kLayers * experts;
        const Bytes rankParams = others + rankExperts;

        const Plan ddp = stagePlan(mixtral(tp, Bytes(ep), Bytes(etp), Sharding::Ddp), 0);
        QCOMPARE(qulonglong(modelStateBytes(ddp)), qulonglong(18 * rankParams));

        const Bytes expertDp = tp * dp / (Bytes(ep) * Bytes(etp));
        const Plan distributed = stagePlan(mixtral(tp, Bytes(ep), Bytes(etp), Sharding::Zero1), 0);
        const Bytes expected = 6 * rankParams + 12 * others / dp + 12 * rankExperts / expertDp;
        // Sharded per layer and rounded up per row: within a few bytes a layer.
        QVERIFY2(modelStateBytes(distributed) >= expected && modelStateBytes(distributed) <= expected + 64 * kLayers,
                 qPrintable(QString::number(modelStateBytes(distributed)) + QStringLiteral(" vs ") +
                            QString::number(expected)));
    }

    // A GPU holds tokens / tp x top-k x etp token slots on the experts' side
    // (its sequence shard's, gathered over the etp ranks), at width / etp:
    // the gathered expert input doubles from etp 1 to etp 2, the expert
    // projections stay (tokens x top-k x width / tp either way). Against the
    // same rows of the layout without tensor parallelism (ep 2, all tokens,
    // whole experts).
    void expertSlotRows()
    {
        const Plan whole = stagePlan(mixtral(1, 2, 0, Sharding::Zero1), 0);
        const Plan split = stagePlan(mixtral(2, 2, 2, Sharding::Zero1), 0);
        const Plan wholeExperts = stagePlan(mixtral(2, 2, 1, Sharding::Zero1), 0);
        for (const char* name : {"moe.gathered", "mlp.act_out", "mlp.down_in", "moe.expert_out"})
            QVERIFY2(rowBytes(whole, name) > 0, name);
        QCOMPARE(qulonglong(rowBytes(split, "moe.gathered")), qulonglong(rowBytes(whole, "moe.gathered")));
        QCOMPARE(qulonglong(rowBytes(wholeExperts, "moe.gathered")), qulonglong(rowBytes(whole, "moe.gathered") / 2));
        for (const char* name : {"mlp.act_out", "mlp.down_in"}) {
            QCOMPARE(qulonglong(rowBytes(split, name)), qulonglong(rowBytes(whole, name) / 2));
            QCOMPARE(qulonglong(rowBytes(wholeExperts, name)), qulonglong(rowBytes(whole, name) / 2));
        }
        // The router's input follows sequence parallelism alone.
        QCOMPARE(qulonglong(rowBytes(split, "moe.router_in")), qulonglong(rowBytes(whole, "moe.router_in") / 2));
    }

    // The dispatcher's buffers: a GPU's own slots are tokens / tp x top-k
    // rows of hidden (bf16); the all-to-all holds as many received, and with
    // etp > 1 the gather over the etp ranks holds etp times as many.
    void dispatchBuffers()
    {
        const Bytes own = kTokens / 2 * kTopK * kHidden * 2;
        const Plan split = stagePlan(mixtral(2, 4, 2, Sharding::Zero1), 0);
        QCOMPARE(qulonglong(rowBytes(split, "moe.all_to_all")), qulonglong(own));
        QCOMPARE(qulonglong(rowBytes(split, "moe.all_to_all_bwd")), qulonglong(own));
        QCOMPARE(qulonglong(rowBytes(split, "moe.etp_all_gather")), qulonglong(2 * own));
        QCOMPARE(qulonglong(rowBytes(split, "moe.etp_all_gather_bwd")), qulonglong(2 * own));
        const Plan wholeExperts = stagePlan(mixtral(2, 4, 1, Sharding::Zero1), 0);
        QCOMPARE(qulonglong(rowBytes(wholeExperts, "moe.all_to_all")), qulonglong(own));
        QVERIFY(!findRow(wholeExperts, "moe.etp_all_gather"));
        // ep 1 under tp 2: the gather alone.
        const Plan gatherOnly = stagePlan(mixtral(2, 1, 2, Sharding::Zero1), 0);
        QVERIFY(!findRow(gatherOnly, "moe.all_to_all"));
        QCOMPARE(qulonglong(rowBytes(gatherOnly, "moe.etp_all_gather")), qulonglong(2 * own));
    }

    // Sequence parallelism applies under Megatron-LM's model states too
    // (bf16 mixed precision, the distributed optimizer), dense or not: the
    // norms' saved inputs are split along the sequence, and no note says it
    // was skipped.
    void sequenceParallelUnderMegatronModelStates()
    {
        Scenario dense = mixtral(2, 1, 0, Sharding::Zero1);
        dense.model = presetModel("meta-llama/Llama-3.1-8B").value();
        Scenario noSp = dense;
        noSp.hardware.parallel.sp = false;
        for (const Scenario& sc : {dense, mixtral(2, 4, 0, Sharding::Zero1)}) {
            const Plan p = stagePlan(sc, 0);
            for (const std::string& note : p.notes)
                QVERIFY2(note.find("was not applied") == std::string::npos, note.c_str());
        }
        QCOMPARE(qulonglong(rowBytes(stagePlan(dense, 0), "norm1.in")) * 2,
                 qulonglong(rowBytes(stagePlan(noSp, 0), "norm1.in")));
    }

    // The share of token slots the busiest GPU's experts take.
    void slotFactor()
    {
        MoeRouting r;
        QCOMPARE(expertSlotFactor(r), 1.0);
        r.imbalance = 1.5;
        QCOMPARE(expertSlotFactor(r), 1.5);
        r.capacityFactor = 1.25; // tokens past the capacity are dropped
        QCOMPARE(expertSlotFactor(r), 1.25);
        r.padToCapacity = true; // every expert's input padded to its capacity
        r.imbalance = 1.0;
        QCOMPARE(expertSlotFactor(r), 1.25);
        r.padToCapacity = false;
        r.capacityFactor = 0.5; // balanced routing over a capacity of half: half dropped
        QCOMPARE(expertSlotFactor(r), 0.5);
    }

    // The factor scales the experts' side and the received buffers, not the
    // router's rows.
    void capacityAndImbalanceScaleTheExpertsSide()
    {
        const Scenario even = mixtral(2, 4, 2, Sharding::Zero1);
        Scenario padded = even;
        padded.train.moe.capacityFactor = 1.5;
        padded.train.moe.padToCapacity = true;
        Scenario uneven = even;
        uneven.train.moe.imbalance = 2.0;
        const Plan base = stagePlan(even, 0);
        for (const Scenario& sc : {padded, uneven}) {
            const double f = expertSlotFactor(sc.train.moe);
            const Plan p = stagePlan(sc, 0);
            for (const char* name : {"moe.gathered", "mlp.act_out", "mlp.down_in", "moe.expert_out", "moe.all_to_all",
                                     "moe.etp_all_gather"})
                QCOMPARE(qulonglong(rowBytes(p, name)),
                         qulonglong(static_cast<Bytes>(std::ceil(double(rowBytes(base, name)) * f))));
            QCOMPARE(qulonglong(rowBytes(p, "moe.router_in")), qulonglong(rowBytes(base, "moe.router_in")));
            QCOMPARE(qulonglong(rowBytes(p, "moe.routing")), qulonglong(rowBytes(base, "moe.routing")));
            QVERIFY(p.peakAllocatedBytes > base.peakAllocatedBytes);
        }
    }

    // Layouts and settings refused, each naming its field.
    void refusals_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<QString>("field");
        QTest::newRow("tp without sp") << 0 << "hardware.parallel.sp";
        QTest::newRow("etp on a dense model") << 1 << "hardware.parallel.etp";
        QTest::newRow("etp x ep past a stage's GPUs") << 2 << "hardware.parallel.ep: etp";
        QTest::newRow("expert width") << 3 << "hardware.parallel.etp: the expert width";
        QTest::newRow("fsdp2") << 4 << "hardware.parallel";
        QTest::newRow("moe settings on a dense model") << 5 << "train.moe";
        QTest::newRow("moe settings on one GPU") << 6 << "train.moe";
        QTest::newRow("padding without a capacity") << 7 << "train.moe.pad_to_capacity";
        QTest::newRow("more imbalance than possible") << 8 << "train.moe.imbalance";
        QTest::newRow("imbalance without ep") << 9 << "train.moe.imbalance";
    }
    void refusals()
    {
        QFETCH(int, which);
        QFETCH(QString, field);
        Scenario sc = mixtral(2, 4, 0, Sharding::Zero1);
        switch (which) {
        case 0: sc.hardware.parallel.sp = false; break;
        case 1:
            sc.model = presetModel("meta-llama/Llama-3.1-8B").value();
            sc.hardware.parallel.ep = 1;
            sc.hardware.parallel.etp = 1;
            break;
        case 2: sc.hardware.parallel.ep = 8; break; // etp 2 x ep 8 > tp 2 x dp 4
        case 3: sc.model.intermediate = kWidth + 1; break;
        case 4: sc.hardware.sharding = Sharding::Fsdp2; break;
        case 5:
            sc.model = presetModel("meta-llama/Llama-3.1-8B").value();
            sc.hardware.parallel.ep = 1;
            sc.train.moe.capacityFactor = 1.0;
            break;
        case 6:
            sc.hardware.count = 1;
            sc.hardware.parallel = ParallelConfig{};
            sc.train.moe.imbalance = 1.2;
            break;
        case 7: sc.train.moe.padToCapacity = true; break;
        case 8: sc.train.moe.imbalance = 4.5; break; // more than ep 4 x min(top-2, 8 / 4) / 2 = 4
        case 9:
            sc.hardware.parallel.ep = 1;
            sc.train.moe.imbalance = 1.1; // every GPU holds every expert: the slots are the same
            break;
        }
        const Result<Plan> p = makePlan(sc);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().detail.rfind(field.toStdString(), 0) == 0, p.error().detail.c_str());
    }

    // The most a GPU can receive is accepted: ep 4 of 8 experts, top-2: a
    // GPU's two experts take at most two slots of every token, 4 x 2 / 2.
    void mostImbalanceAccepted()
    {
        Scenario sc = mixtral(2, 4, 0, Sharding::Zero1);
        sc.train.moe.imbalance = 4.0;
        const Result<Plan> p = makePlan(sc);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
    }

    // The whole plan, its JSON scenario read back.
    void plansAndRoundTrips()
    {
        Scenario sc = mixtral(2, 4, 1, Sharding::Zero1);
        sc.train.moe.capacityFactor = 1.25;
        sc.train.moe.padToCapacity = true;
        const Result<Plan> p = makePlan(sc);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
        QCOMPARE(qulonglong(p->totalParameters), qulonglong(findCatalogModel(sc.model.id)->parameters));
        bool noted = false;
        for (const std::string& note : p->notes)
            noted = noted || note.find("take 1.25 times the even share") != std::string::npos;
        QVERIFY(noted);
        const Result<Scenario> back = scenarioFromJson(scenarioToJson(sc));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(qulonglong(back->hardware.parallel.etp), 1ull);
        QCOMPARE(back->train.moe.capacityFactor, 1.25);
        QVERIFY(back->train.moe.padToCapacity);
        QCOMPARE(back->train.moe.imbalance, 1.0);
        // The default etp (the tensor-parallel degree) is not written.
        const std::string defaultEtp = scenarioToJson(mixtral(2, 4, 0, Sharding::Zero1)).dump();
        QVERIFY(defaultEtp.find("\"etp\"") == std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestExpertTensorParallel)
#include "test_experttensorparallel.moc"
