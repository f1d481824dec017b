// SPDX-License-Identifier: GPL-3.0-or-later
// The stages of a tensor/pipeline-parallel layout share their activation
// rows (planbuild.h StageRowMemo, PlanOptions::shareStageRows): a plan made
// with the sharing must be the plan made without it, row for row, piece for
// piece, note for note, counter for counter. Layouts where the stages differ
// (uneven splits, the dense first layers on the first stage, the embedding
// and head stages), where a stage's rows are built twice (sequence
// parallelism's undivided build, the interleaved schedule's peak search) and
// where rows carry pieces and scripts (the caching allocator's simulation).
#include "model/catalog.h"
#include "plan/planner.h"
#include "smallmodel.h"

#include <QtTest>

#include <cstring>

using namespace headroom;

namespace {

bool sameRow(const TensorRow& a, const TensorRow& b)
{
    return std::strcmp(a.name, b.name) == 0 && std::strcmp(a.source, b.source) == 0 && a.category == b.category &&
           a.bytes == b.bytes && a.allocAt == b.allocAt && a.freeAt == b.freeAt && a.layers == b.layers &&
           a.managed == b.managed && a.pieceBegin == b.pieceBegin && a.pieceEnd == b.pieceEnd &&
           a.firstAllocAt == b.firstAllocAt && a.freedAtZeroGrad == b.freedAtZeroGrad &&
           a.madeByScript == b.madeByScript && a.stream == b.stream && a.band == b.band &&
           a.madeAtEventEnd == b.madeAtEventEnd;
}

bool samePiece(const TensorPiece& a, const TensorPiece& b)
{
    return a.bytes == b.bytes && a.count == b.count && a.freeOf == b.freeOf && a.ofRow == b.ofRow;
}

// Plans sc with and without the sharing and compares everything.
void compareSharing(const Scenario& sc, bool quick)
{
    const ParameterTable table = buildParameterTable(sc.model);
    PlanOptions shared, apart;
    shared.estimateReserved = apart.estimateReserved = quick;
    shared.worstRankOnly = apart.worstRankOnly = quick;
    apart.shareStageRows = false;
    const Result<Plan> a = makePlan(sc, table, shared);
    const Result<Plan> b = makePlan(sc, table, apart);
    QVERIFY2(bool(a), a ? "" : a.error().detail.c_str());
    QVERIFY(bool(b));
    QVERIFY(a->ranks.size() > 1); // a layout of several planned stages, or the test shows nothing
    QCOMPARE(a->tensors.size(), b->tensors.size());
    for (std::size_t i = 0; i < a->tensors.size(); ++i)
        QVERIFY2(sameRow(a->tensors[i], b->tensors[i]), a->tensors[i].name);
    QCOMPARE(a->pieces.size(), b->pieces.size());
    for (std::size_t i = 0; i < a->pieces.size(); ++i)
        QVERIFY(samePiece(a->pieces[i], b->pieces[i]));
    QCOMPARE(a->notes, b->notes);
    QCOMPARE(a->ranks.size(), b->ranks.size());
    for (std::size_t r = 0; r < a->ranks.size(); ++r) {
        QCOMPARE(a->ranks[r].stage, b->ranks[r].stage);
        QCOMPARE(a->ranks[r].peakAllocatedBytes, b->ranks[r].peakAllocatedBytes);
        QCOMPARE(a->ranks[r].peakReservedBytes, b->ranks[r].peakReservedBytes);
        QCOMPARE(a->ranks[r].deviceUsedBytes, b->ranks[r].deviceUsedBytes);
    }
    QCOMPARE(a->worstRank, b->worstRank);
    QCOMPARE(a->peakAllocatedBytes, b->peakAllocatedBytes);
    QCOMPARE(a->peakReservedBytes, b->peakReservedBytes);
    QCOMPARE(a->deviceUsedBytes, b->deviceUsedBytes);
    QCOMPARE(a->allocatorSegments, b->allocatorSegments);
}

} // namespace

class TestStageRowMemo : public QObject {
    Q_OBJECT

private slots:
    void smallLlamaLayouts_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("sharding"); // 0: dp 1 (Megatron-LM); 1: ZeRO-3 over dp 2; 2: FSDP2 over dp 2
        QTest::addColumn<bool>("sp");
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<bool>("quick");
        for (int layers : {8, 7})
            for (int pp : {2, 4})
                for (int vpp : {1, 2})
                    for (int sharding = 0; sharding < 3; ++sharding)
                        for (bool sp : {false, true})
                            for (int c = 0; c < 3; ++c) {
                                if ((sharding == 2 && !sp) || (vpp == 2 && layers % (pp * vpp) != 0 && sharding != 2) ||
                                    pp * vpp > layers)
                                    continue; // torchtitan's tp has sp; Megatron-LM's chunks are even; a layer a chunk
                                const char* names[] = {"dp1", "zero3", "fsdp2"};
                                QTest::addRow("L%d pp%d vpp%d %s sp%d ckpt%d", layers, pp, vpp, names[sharding],
                                              int(sp), c)
                                    << layers << pp << vpp << sharding << sp << c << (c == 1);
                            }
    }
    void smallLlamaLayouts()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, sharding);
        QFETCH(bool, sp);
        QFETCH(int, checkpointing);
        QFETCH(bool, quick);
        Scenario sc = testing::smallScenario(std::uint64_t(2 * pp * (sharding != 0 ? 2 : 1)));
        const Sharding shardings[] = {Sharding::None, Sharding::Zero3, Sharding::Fsdp2};
        sc.hardware.sharding = shardings[sharding];
        sc.model = testing::smallModel({"llama", 256, Bytes(layers), 8, 2, 704, 1000, false});
        sc.train.precision = sharding == 2 ? Precision::Bf16Mixed : Precision::Bf16;
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = sp;
        sc.hardware.parallel.pp = std::uint64_t(pp);
        sc.hardware.parallel.vpp = std::uint64_t(vpp);
        sc.train.gradAccum = std::uint64_t(2 * pp);
        const Checkpointing c[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::SelectiveOps};
        sc.train.checkpointing = c[checkpointing];
        compareSharing(sc, quick);
    }

    // DeepSeek-V3 over pp 8: the first stage holds the three dense layers,
    // the others none; MoE layers under tp with sp (their dense view is built
    // apart, planner.cpp).
    void deepseekStages_data()
    {
        QTest::addColumn<int>("tp");
        QTest::addColumn<bool>("quick");
        QTest::newRow("tp1") << 1 << false;
        QTest::newRow("tp2 sp") << 2 << false;
        QTest::newRow("tp2 sp quick") << 2 << true;
    }
    void deepseekStages()
    {
        QFETCH(int, tp);
        QFETCH(bool, quick);
        Scenario sc;
        sc.model = presetModel("deepseek-ai/DeepSeek-V3").value();
        sc.train.precision = Precision::Bf16Mixed;
        sc.train.optimizer = Optimizer::AdamW;
        sc.train.microBatch = 1;
        sc.train.seqLen = 1024;
        sc.train.gradAccum = 8;
        sc.train.attention = Attention::Flash;
        sc.train.checkpointing = Checkpointing::Full;
        sc.hardware.gpu = "h200";
        sc.hardware.count = std::uint64_t(8 * tp);
        sc.hardware.sharding = Sharding::Ddp; // Megatron-LM's experts
        sc.hardware.parallel.pp = 8;
        sc.hardware.parallel.tp = std::uint64_t(tp);
        sc.hardware.parallel.sp = tp > 1;
        compareSharing(sc, quick);
    }
};

QTEST_APPLESS_MAIN(TestStageRowMemo)
#include "test_stagerowmemo.moc"
