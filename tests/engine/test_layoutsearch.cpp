// SPDX-License-Identifier: GPL-3.0-or-later
// The layout search (plan/layoutsearch.h): its enumeration of layouts, what
// it reports of each, and its refusals. The step-time model it ranks them
// by: test_steptime.cpp. The model is a 4-layer Llama-like one: hidden 256,
// 8 heads of 32, 2 KV heads, MLP 704, vocabulary 1000, untied.
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "plan/layoutsearch.h"
#include "plan/parallel.h"
#include "plan/planner.h"
#include "plan/steptime.h"
#include "smallmodel.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

ModelSpec smallLlama(std::uint64_t layers = 4)
{
    return testing::smallModel({"llama", 256, layers, 8, 2, 704, 1000, false});
}

using testing::smallScenario;

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

} // namespace

class TestLayoutSearch : public QObject {
    Q_OBJECT

private slots:
    // The search's fast path plans only the stages that can be the worst; its
    // counters must be those of planning every stage.
    void worstRankOnlyMatchesEveryStage_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("accum");
        QTest::addColumn<bool>("gpipe");
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<int>("sharding"); // 0: dp 1; 1: ZeRO-3 over dp 2; 2: FSDP2 over dp 2 (torchtitan's)
        for (int layers : {4, 7})
            for (int pp : {2, 3, 4})
                for (int accum : {1, 2, 3, 8})
                    for (bool gpipe : {false, true})
                        for (int c = 0; c < 3; ++c)
                            for (int sharding = 0; sharding < 3; ++sharding) {
                                if (accum == 3 && sharding != 2) // the FSDP2 rows depend on m against in-flight
                                    continue;
                                const char* names[] = {"dp1", "zero3", "fsdp2"};
                                QTest::addRow("L%d pp%d m%d %s ckpt%d %s", layers, pp, accum, gpipe ? "gpipe" : "1f1b",
                                              c, names[sharding])
                                    << layers << pp << accum << gpipe << c << sharding;
                            }
    }
    void worstRankOnlyMatchesEveryStage()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, accum);
        QFETCH(bool, gpipe);
        QFETCH(int, checkpointing);
        QFETCH(int, sharding);
        Scenario sc = smallScenario(std::uint64_t(2 * pp * (sharding != 0 ? 2 : 1)));
        const Sharding shardings[] = {Sharding::None, Sharding::Zero3, Sharding::Fsdp2};
        sc.hardware.sharding = shardings[sharding];
        sc.model = smallLlama(std::uint64_t(layers));
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = sharding == 2; // torchtitan's tensor parallelism has sequence parallelism
        sc.hardware.parallel.pp = std::uint64_t(pp);
        sc.hardware.parallel.ppSchedule = gpipe ? PipelineSchedule::GPipe : PipelineSchedule::OneFOneB;
        sc.train.gradAccum = std::uint64_t(accum);
        const Checkpointing c[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::SelectiveOps};
        sc.train.checkpointing = c[checkpointing];
        const ParameterTable table = buildParameterTable(sc.model);
        PlanOptions every, worst;
        every.estimateReserved = worst.estimateReserved = true;
        worst.worstRankOnly = true;
        const Plan a = makePlan(sc, table, every).value();
        const Plan b = makePlan(sc, table, worst).value();
        QCOMPARE(b.deviceUsedBytes, a.deviceUsedBytes);
        QCOMPARE(b.peakAllocatedBytes, a.peakAllocatedBytes);
        QCOMPARE(b.peakReservedBytes, a.peakReservedBytes);
        QCOMPARE(b.fits, a.fits);
        QCOMPARE(b.ranks[b.worstRank].stage, a.ranks[a.worstRank].stage);
        // At most the first, a middle stage with more layers and the last;
        // under FSDP2 one stage of each kind (parallelrows.cpp plannedStages).
        QVERIFY(b.ranks.size() <= (sharding == 2 ? 6U : 3U));
    }

    // 16 H100s, global batch 32. The enumeration by hand: tp in {1, 2, 4, 8}
    // (divisors of the node's 8), sp off and on for tp > 1, pp in the
    // divisors of 16 / tp up to the 4 layers, dp = 16 / (tp pp); five
    // shardings with tp = pp = 1, four otherwise, none at dp 1; micro-batches
    // the powers of two up to 32 / dp; three checkpointings.
    //   tp 1: pp 1 (dp 16: 2 mb x 5 x 3 = 30), pp 2 (dp 8: 3 x 4 x 3 = 36), pp 4 (dp 4: 4 x 4 x 3 = 48): 114
    //   tp 2: pp 1 (dp 8: 36), pp 2 (dp 4: 48), pp 4 (dp 2: 5 x 4 x 3 = 60): 144, twice: 288
    // 402 in all with four shardings under tp/pp (FSDP2 under tp/pp and
    // virtual stages are counted below). tp 4 and 8 do not divide the 2 KV heads: their 5 (tp, pp)
    // shapes (tp 4 with pp 1, 2, 4; tp 8 with pp 1, 2) are refused whole.
    void searchSmallModel()
    {
        Scenario sc = smallScenario(16);
        sc.train.globalBatch = 32;
        LayoutSearchOptions options;
        options.keep = 0; // every feasible layout
        auto r = searchLayouts(sc, options);
        QVERIFY2(r, r ? "" : r.error().detail.c_str());
        // The 5 refused (tp, pp) shapes, and their context-parallel
        // variants: tp 4 pp 1 with cp 2 and 4, tp 4 pp 2 with cp 2, tp 8 pp 1
        // with cp 2.
        QCOMPARE(r->refusedShapes, std::size_t(5 + 4));
        // 402 layouts without virtual stages, and 96 interleaved with vpp 2:
        // pp 2 (4 layers in 2 x 2 chunks) at tp 1 (dp 8, micro-batches 1 or
        // 2 so that pp divides the accumulation 4 or 2; 1 sp choice) and tp 2
        // (dp 4, micro-batches 1, 2, 4; sp off and on), each under 4
        // shardings and 3 checkpointings: 1 x 2 x 12 + 2 x 3 x 12 = 96.
        // And 57 with FSDP2 under tp/pp (torchtitan's composition: sp on
        // when tp > 1, no virtual stages), by micro-batch count x 3
        // checkpointings: tp 1 pp 2 (3 mb), tp 1 pp 4 (4), tp 2 pp 1 (3),
        // tp 2 pp 2 (4), tp 2 pp 4 (5): 19 x 3 = 57.
        // And 15 with HSDP, whose replicate groups are tried where the
        // data-parallel ranks span more than a node of 8 (shard within a
        // node): tp 1 pp 1 (dp 16 = 2 x 8; micro-batches 1, 2) and tp 2 pp 1
        // (dp 8 = 2 x 4; micro-batches 1, 2, 4), 5 x 3 checkpointings.
        // And 261 with context parallelism: FSDP2 only (sp on when tp > 1,
        // no virtual stages), cp each divisor of 16 / (tp pp) from 2 (the 128
        // tokens split into 2 x cp chunks for every cp up to 16), dp = 16 /
        // (tp pp cp), micro-batches the powers of two up to 32 / dp, HSDP
        // where dp spans more than the node's 8 / (tp cp) shard group, by 3
        // checkpointings:
        //   tp 1 pp 1: cp 2 (dp 8: 3 mb x 2 replicate choices), cp 4 (dp 4: 4 x 2), cp 8 (5), cp 16 (6): 25
        //   tp 1 pp 2: cp 2 (4), cp 4 (5), cp 8 (6): 15;  tp 1 pp 4: cp 2 (5), cp 4 (6): 11
        //   tp 2 pp 1: cp 2 (dp 4: 4 x 2), cp 4 (5), cp 8 (6): 19;  tp 2 pp 2: cp 2 (5), cp 4 (6): 11
        //   tp 2 pp 4: cp 2 (6): 6
        // (25 + 15 + 11 + 19 + 11 + 6) x 3 = 261.
        QCOMPARE(r->evaluated, std::size_t(402 + 96 + 57 + 15 + 261));
        QCOMPARE(r->refused, std::size_t(0));
        QVERIFY(r->commonRefusal.find("KV heads do not divide by tp") != std::string::npos);
        QVERIFY(r->gpusPerNodeAssumed);
        QCOMPARE(r->links.gpusPerNode, std::uint64_t(8));
        QVERIFY(!r->globalBatchDerived);
        QCOMPARE(r->feasible, r->evaluated); // a 4-layer model fits every layout on 80 GB
        QCOMPARE(r->layouts.size(), r->feasible - r->droppedBySimulation);
        QVERIFY(r->message.empty());
        for (std::size_t k = 0; k < r->layouts.size(); ++k) {
            const LayoutCandidate& c = r->layouts[k];
            QVERIFY(c.fits && c.reservedSimulated);
            QCOMPARE(c.tp * c.pp * c.cp * c.dp, std::uint64_t(16));
            if (c.cp > 1)
                QVERIFY(c.sharding == Sharding::Fsdp2 && c.time.contextParallelSeconds > 0);
            else
                QCOMPARE(c.time.contextParallelSeconds, 0.0);
            QCOMPARE(c.microBatch * c.gradAccum * c.dp, std::uint64_t(32));
            if (k > 0)
                QVERIFY(r->layouts[k - 1].time.stepSeconds <= c.time.stepSeconds);
            // What the search reports is what makePlan says of that layout.
            const Plan p = makePlan(applyLayout(sc, c)).value();
            QCOMPARE(c.deviceUsedBytes, p.deviceUsedBytes);
            QCOMPARE(c.peakAllocatedBytes, p.peakAllocatedBytes);
            QVERIFY(p.fits);
        }
        // The scenario's own layout and batch split do not matter: only its global batch.
        Scenario other = sc;
        other.hardware.parallel.tp = 2;
        other.train.microBatch = 4;
        other.train.gradAccum = 2;
        auto again = searchLayouts(other, options);
        QVERIFY(again);
        QCOMPARE(again->evaluated, r->evaluated);
        QCOMPARE(again->layouts.front().time.stepSeconds, r->layouts.front().time.stepSeconds);
        // Nor does its sharding: an FSDP2 scenario planned without sp (which
        // FSDP2 under tp requires) still has every tp > 1 shape searched.
        Scenario fsdp2 = sc;
        fsdp2.hardware.sharding = Sharding::Fsdp2;
        fsdp2.hardware.parallel.sp = false;
        auto third = searchLayouts(fsdp2, options);
        QVERIFY(third);
        QCOMPARE(third->refusedShapes, r->refusedShapes);
        QCOMPARE(third->evaluated, r->evaluated);
    }

    void globalBatchDerivedWhenAbsent()
    {
        Scenario sc = smallScenario(16);
        sc.train.microBatch = 2;
        sc.train.gradAccum = 1;
        auto r = searchLayouts(sc);
        QVERIFY(r);
        QVERIFY(r->globalBatchDerived);
        QCOMPARE(r->globalBatch, std::uint64_t(2 * 1 * 16));
        QCOMPARE(r->layouts.size(), std::size_t(10)); // the default keep
    }

    void nothingFits()
    {
        Scenario sc;
        sc.model = presetModel("meta-llama/Llama-3.1-70B").value();
        sc.train.precision = Precision::Fp16Mixed; // a T4 has no bf16
        sc.train.optimizer = Optimizer::AdamW;
        sc.train.seqLen = 4096;
        sc.train.globalBatch = 8;
        sc.hardware.gpu = "t4";
        sc.hardware.count = 2;
        auto r = searchLayouts(sc);
        QVERIFY(r);
        QVERIFY(r->layouts.empty());
        QCOMPARE(r->feasible, std::size_t(0));
        QVERIFY(r->evaluated > 0);
        QVERIFY(r->closest.has_value());
        QVERIFY2(r->message.rfind("No layout of 2 t4 GPUs fits", 0) == 0, r->message.c_str());
        QVERIFY(r->message.find("the closest") != std::string::npos);
    }

    void globalBatchThatNoLayoutDivides()
    {
        // 64 GPUs, 4 layers, 2 KV heads: tp 1 or 2 and pp at most 4 leave dp
        // 64, 32, 16 (tp 1) and 32, 16, 8 (tp 2); no cp, as 126 tokens split into 2 x cp
        // chunks for no power of two cp but 1 (126 = 2 x 63).
        Scenario sc = smallScenario(64);
        sc.train.globalBatch = 3;
        sc.train.seqLen = 126;
        auto r = searchLayouts(sc);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
        QCOMPARE(r.error().detail, std::string("train.global_batch: 3 sequences do not divide by the data-parallel "
                                               "degree of any layout of 64 GPUs (8, 16, 32, 64) that the planner "
                                               "accepts"));
    }

    void refusesWhatItCannotTime()
    {
        Scenario sc = smallScenario(8);
        sc.mode = Mode::Inference;
        auto inference = searchLayouts(sc);
        QVERIFY(!inference);
        QCOMPARE(inference.error().code, ErrorCode::InvalidArgument);
        sc.mode = Mode::Train;
        sc.hardware.gpu = "a10g"; // no published tensor peak
        auto noPeak = searchLayouts(sc);
        QVERIFY(!noPeak);
        QCOMPARE(noPeak.error().code, ErrorCode::UnsupportedCombination);
        QVERIFY(noPeak.error().detail.find("a10g") != std::string::npos);
    }

    // compareLayouts: the term in which #1 saves the most over #2, the one in
    // which it pays the most, and a tie broken by device used.
    void comparesTheBestWithTheRunnerUp()
    {
        LayoutCandidate best, next;
        best.time.computeSeconds = 1.0;
        best.time.dataParallelSeconds = 0.3;
        best.time.bubbleSeconds = 0.1;
        best.time.stepSeconds = 1.4;
        next.time.computeSeconds = 1.5;
        next.time.dataParallelSeconds = 0.1;
        next.time.bubbleSeconds = 0.0;
        next.time.stepSeconds = 1.6;
        LayoutComparison c = compareLayouts(best, next);
        QVERIFY(!c.tie);
        QVERIFY(close(c.gapSeconds, 0.2));
        QVERIFY(close(c.gapFraction, 0.2 / 1.6));
        QCOMPARE(c.savedTerm, StepTerm::Compute);
        QVERIFY(close(c.savedSeconds, 0.5));
        QCOMPARE(c.bestSavedTermSeconds, 1.0);
        QCOMPARE(c.runnerUpSavedTermSeconds, 1.5);
        QVERIFY(c.paidTerm.has_value());
        QCOMPARE(*c.paidTerm, StepTerm::DataParallel); // +0.2 s, more than the bubble's +0.1 s
        QVERIFY(close(c.paidSeconds, 0.2));

        // Better or equal in every term: nothing paid.
        next.time.dataParallelSeconds = 0.4;
        next.time.bubbleSeconds = 0.1;
        next.time.stepSeconds = 2.0;
        c = compareLayouts(best, next);
        QVERIFY(!c.paidTerm.has_value());
        QCOMPARE(c.paidSeconds, 0.0);

        // The same step: first by less device used, and said so.
        next.time = best.time;
        best.deviceUsedBytes = 10;
        next.deviceUsedBytes = 20;
        c = compareLayouts(best, next);
        QVERIFY(c.tie);
        QCOMPARE(c.gapSeconds, 0.0);
        QCOMPARE(c.bestDeviceUsedBytes, Bytes(10));
        QCOMPARE(c.runnerUpDeviceUsedBytes, Bytes(20));

        // On a real search the explanation adds up. The step is the sum of
        // its five terms, so the gap is the sum of their differences: the
        // largest saving is at least a fifth of it, and all of it at most
        // when nothing is paid.
        Scenario sc = smallScenario(16);
        sc.train.globalBatch = 32;
        auto r = searchLayouts(sc);
        QVERIFY(r && r->layouts.size() >= 2);
        const LayoutCandidate& first = r->layouts[0];
        const LayoutCandidate& second = r->layouts[1];
        c = compareLayouts(first, second);
        QCOMPARE(c.tie, !(second.time.stepSeconds > first.time.stepSeconds));
        if (!c.tie) {
            QVERIFY(close(c.gapSeconds, second.time.stepSeconds - first.time.stepSeconds));
            QVERIFY(c.savedSeconds * 5 >= c.gapSeconds * (1 - 1e-9));
            if (!c.paidTerm)
                QVERIFY(c.savedSeconds <= c.gapSeconds * (1 + 1e-9));
            QVERIFY(close(c.savedSeconds, c.runnerUpSavedTermSeconds - c.bestSavedTermSeconds));
        }
    }

    // A scenario with torchtitan's pipeline settings (the weighted split, the
    // schedule's kept outputs) searches the same layouts: the FSDP2 pipeline
    // layouts plan with them, the others without (where the planner would
    // refuse them). On 4 layers the weighted split leaves pp 4 a stage
    // without a layer: those FSDP2 layouts are refused, naming the split.
    void torchtitanPipelineSettingsFollowTheLayout()
    {
        Scenario sc = smallScenario(16);
        sc.train.globalBatch = 32;
        LayoutSearchOptions options;
        options.keep = 0;
        const auto plain = searchLayouts(sc, options);
        QVERIFY(plain);
        sc.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        sc.hardware.parallel.ppReturnOutputs = true;
        const auto r = searchLayouts(sc, options);
        QVERIFY2(r, r ? "" : r.error().detail.c_str());
        QCOMPARE(r->evaluated, plain->evaluated);
        QVERIFY(r->refused > 0);
        QVERIFY2(r->commonRefusal.find("pp_split") != std::string::npos, r->commonRefusal.c_str());
        bool sawTorchtitanPipeline = false;
        for (const LayoutCandidate& c : r->layouts) {
            const Scenario applied = applyLayout(sc, c);
            const bool torchtitanPipeline = c.sharding == Sharding::Fsdp2 && c.pp > 1;
            sawTorchtitanPipeline = sawTorchtitanPipeline || torchtitanPipeline;
            QCOMPARE(applied.hardware.parallel.ppReturnOutputs, torchtitanPipeline);
            QCOMPARE(int(applied.hardware.parallel.ppSplit),
                     int(torchtitanPipeline ? PipelineSplit::Weighted : PipelineSplit::Layers));
            QVERIFY(makePlan(applied)); // each layout as the app applies it plans
        }
        QVERIFY(sawTorchtitanPipeline); // pp 2: 4 + 2 = 6 over 2 stages, 2 layers each
    }

    void cancels()
    {
        Scenario sc = smallScenario(16);
        LayoutSearchOptions options;
        options.progress = [](std::size_t done, std::size_t) { return done < 2; };
        auto r = searchLayouts(sc, options);
        QVERIFY(r);
        QVERIFY(r->cancelled);
        QVERIFY(r->evaluated < 402);
    }
};

QTEST_APPLESS_MAIN(TestLayoutSearch)
#include "test_layoutsearch.moc"
