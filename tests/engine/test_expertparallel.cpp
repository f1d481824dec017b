// SPDX-License-Identifier: GPL-3.0-or-later
// Expert parallelism (issue 15: "EP expert sharding"), planned as Megatron-LM
// runs it (plan/parallel.cpp expertParallelChecks, megatronrows.cpp,
// parallelrows.cpp addExpertParallelRows): the layouts it accepts and refuses,
// the model states of a rank against Megatron-LM's own estimate extended to
// experts split over ep ranks, and the all-to-all buffers. Mixtral 8x7B over
// 8 GPUs, data parallel 8.
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "planrows.h"
#include "rankplan.h"

#include <QtTest>

using namespace headroom;
using testing::findRow;
using testing::modelStateBytes;
using testing::stagePlan;

namespace {

constexpr Bytes kGpus = 8;

Scenario mixtral(std::uint64_t ep, Sharding sharding)
{
    Scenario sc = testing::mixtralFullFinetune(sharding, Checkpointing::Full);
    sc.hardware.parallel.ep = ep;
    return sc;
}

} // namespace

class TestExpertParallel : public QObject {
    Q_OBJECT

private slots:
    // Megatron-LM's estimate (theoretical_memory_usage.py: 18 bytes per
    // parameter under --bf16, 6 + 12 / dp with the distributed optimizer),
    // with a rank's parameters being the non-expert ones and ep-th of the
    // experts, and the distributed optimizer sharding the experts' 12 bytes
    // over the dp / ep ranks that hold the same experts: 12 (E / ep) / (dp /
    // ep) = 12 E / dp.
    void modelStatesAsMegatronEstimates()
    {
        const ParameterTable table = buildParameterTable(presetModel("mistralai/Mixtral-8x7B-v0.1").value());
        Bytes experts = 0;
        for (const ParamTensor& t : table.layer)
            experts += t.isExpert() ? t.elements() : 0;
        experts *= table.layers;
        // 8 experts x (w1, w2, w3 of 4096 x 14336) x 32 layers.
        QCOMPARE(qulonglong(experts), 8ull * 3 * 4096 * 14336 * 32);
        const Bytes others = table.totalElements() - experts;
        for (const Bytes ep : {Bytes{2}, Bytes{4}, Bytes{8}}) {
            const Bytes rankParams = others + experts / ep;
            const Plan ddp = stagePlan(mixtral(ep, Sharding::Ddp), 0);
            QCOMPARE(qulonglong(modelStateBytes(ddp)), qulonglong(18 * rankParams));
            const Plan distributed = stagePlan(mixtral(ep, Sharding::Zero1), 0);
            const Bytes expected = 6 * rankParams + 12 * others / kGpus + 12 * (experts / ep) / (kGpus / ep);
            // Sharded per layer and rounded up per row: within a few bytes a layer.
            QVERIFY2(modelStateBytes(distributed) >= expected && modelStateBytes(distributed) <= expected + 64 * 32,
                     qPrintable(QString::number(modelStateBytes(distributed)) + QStringLiteral(" vs ") + QString::number(expected)));
        }
    }

    // Each MoE layer exchanges tokens x top-k rows of hidden, forward and backward.
    void allToAllBuffers()
    {
        const Plan p = stagePlan(mixtral(4, Sharding::Zero1), 0);
        const TensorRow* forward = findRow(p, "moe.all_to_all");
        const TensorRow* backward = findRow(p, "moe.all_to_all_bwd");
        QVERIFY(forward && backward);
        QCOMPARE(qulonglong(forward->bytes), qulonglong(1024ull * 2 * 4096 * 2));
        QCOMPARE(forward->layers, LayerSet::All);
        QVERIFY(!findRow(stagePlan(mixtral(1, Sharding::Zero1), 0), "moe.all_to_all"));
    }

    // Layouts refused, each naming the field.
    void refusals_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("dense model") << 0;
        QTest::newRow("experts do not divide") << 1;
        QTest::newRow("ep past the data-parallel ranks") << 2;
        QTest::newRow("fsdp2: ep past a replicate group") << 3;
        QTest::newRow("zero3") << 4;
        QTest::newRow("lora") << 5;
    }
    void refusals()
    {
        QFETCH(int, which);
        Scenario sc = mixtral(4, Sharding::Zero1);
        switch (which) {
        case 0: sc.model = presetModel("meta-llama/Llama-3.1-8B").value(); break;
        case 1: sc.hardware.parallel.ep = 3; sc.hardware.count = 6; break;
        case 2: sc.hardware.parallel.ep = 8; sc.hardware.parallel.pp = 2; break;
        case 3: // HSDP 2 x 4: torchtitan's expert region is dp_shard x cp = 4
            sc.hardware.sharding = Sharding::Fsdp2;
            sc.hardware.parallel.dpReplicate = 2;
            sc.hardware.parallel.ep = 8;
            break;
        case 4: sc.hardware.sharding = Sharding::Zero3; break;
        case 5: sc.train.peft.method = PeftMethod::Lora; break;
        }
        const Result<Plan> p = makePlan(sc);
        QVERIFY(!p.ok());
        QVERIFY2(p.error().detail.find(which == 5 ? "train.peft" : "hardware.parallel.ep") != std::string::npos,
                 p.error().detail.c_str());
    }

    // torchtitan's expert parallelism under FSDP2: every shard (weights,
    // gradients, optimizer state kept for the run) as without it, since the
    // ep groups' experts / ep sharded over dp_shard x cp / ep ranks are the
    // same share of all experts; the gathered layer and its unsharded
    // gradient hold the rank's experts / ep only: by hand, q and o 4096 x
    // 4096, k and v 1024 x 4096, two norms and the router (8 x 4096), and
    // 8 / 4 experts of three 4096 x 14336 linears, in bf16 (FSDP2's
    // param_dtype). The all-to-all as under Megatron-LM.
    void fsdp2KeepsTheShards()
    {
        const Plan without = stagePlan(mixtral(1, Sharding::Fsdp2), 0);
        const Plan with = stagePlan(mixtral(4, Sharding::Fsdp2), 0);
        QCOMPARE(qulonglong(modelStateBytes(with)), qulonglong(modelStateBytes(without)));
        const Bytes layer = 2 * 4096 * 4096 + 2 * 1024 * 4096 + 2 * 4096 + 8 * 4096 + 8 / 4 * 3 * 4096ull * 14336;
        const TensorRow* gathered = findRow(with, "fsdp2.unsharded_layer");
        QVERIFY(gathered);
        QCOMPARE(qulonglong(gathered->bytes), qulonglong(2 * layer));
        QVERIFY(findRow(without, "fsdp2.unsharded_layer")->bytes > 3 * gathered->bytes);
        QCOMPARE(qulonglong(findRow(with, "moe.all_to_all")->bytes), qulonglong(1024ull * 2 * 4096 * 2));
        QVERIFY(!findRow(without, "moe.all_to_all"));
    }

    // The whole plan: every rank alike, the experts' share reported.
    void plansAndRoundTrips()
    {
        const Scenario sc = mixtral(8, Sharding::Zero1);
        const Result<Plan> p = makePlan(sc);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
        QCOMPARE(qulonglong(p->totalParameters), qulonglong(findCatalogModel(sc.model.id)->parameters));
        bool noted = false;
        for (const std::string& note : p->notes)
            noted = noted || note.find("holds 1 of each MoE layer's 8 routed experts (ep 8)") != std::string::npos;
        QVERIFY(noted);
        // Far below the same GPUs without expert parallelism (DeepSpeed ZeRO-1 over dp 8).
        const Result<Plan> without = makePlan(mixtral(1, Sharding::Zero1));
        QVERIFY(without.ok());
        QVERIFY(p->peakAllocatedBytes < without->peakAllocatedBytes / 2);

        const Result<Scenario> back = scenarioFromJson(scenarioToJson(sc));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(qulonglong(back->hardware.parallel.ep), 8ull);
    }
};

QTEST_APPLESS_MAIN(TestExpertParallel)
#include "test_expertparallel.moc"
