// SPDX-License-Identifier: GPL-3.0-or-later
// The Stages tab (issue 15): for a pipeline-parallel plan (pp 4, then
// interleaved with vpp 2) the table has a row per RankPlan with the engine's
// numbers and the worst row is Plan::worstRank; the chart draws a bar per
// stage with the stage's breakdown and device used, and outlines the worst.
// A plan without stages shows the sentence that says so; no plan, nothing.
#include "charts/stageschart.h"
#include "model/catalog.h"
#include "models/stagesmodel.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "text/memoryunits.h"
#include "views/stagesview.h"

#include <QAbstractItemModelTester>
#include <QTabWidget>
#include <QTableView>
#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

// Llama 3.1 8B over 8 GPUs: tp 2 with sequence parallelism, 4 pipeline
// stages of 8 layers, FSDP2 over the remaining dp 1, 1F1B over 8 micro-batches.
Scenario pipelined()
{
    Scenario s;
    s.model = presetModel("meta-llama/Llama-3.1-8B").value();
    s.train.precision = Precision::Bf16Mixed;
    s.train.optimizer = Optimizer::AdamW;
    s.train.microBatch = 1;
    s.train.seqLen = 4096;
    s.train.gradAccum = 8;
    s.train.checkpointing = Checkpointing::Full;
    s.hardware.gpu = "h100-sxm-80gb";
    s.hardware.count = 8;
    s.hardware.sharding = Sharding::Fsdp2;
    s.hardware.parallel.tp = 2;
    s.hardware.parallel.sp = true;
    s.hardware.parallel.pp = 4;
    return s;
}

// The same with 2 virtual stages per rank (interleaved 1F1B): 8 chunks of 4 layers.
Scenario interleaved()
{
    Scenario s = pipelined();
    s.hardware.parallel.vpp = 2;
    return s;
}

// DeepSeek-V3 over 32 H200s: 4 pipeline stages, dp 8, the routed experts
// split over ep 8; Megatron-LM's distributed optimizer.
Scenario expertParallel()
{
    Scenario s = pipelined();
    s.model = presetModel("deepseek-ai/DeepSeek-V3").value();
    s.hardware.gpu = "h200";
    s.hardware.count = 32;
    s.hardware.sharding = Sharding::Zero1;
    s.hardware.parallel.tp = 1;
    s.hardware.parallel.sp = false;
    s.hardware.parallel.ep = 8;
    s.train.gradAccum = 4;
    return s;
}

Plan planOf(const Scenario& s)
{
    auto plan = makePlan(s);
    if (!plan)
        qFatal("plan failed: %s", plan.error().detail.c_str());
    return plan.value();
}

// Bytes drawn in the current unit and read back: equal up to the double's rounding.
bool sameBytes(double drawn, Bytes expected)
{
    return std::abs(drawn - static_cast<double>(expected)) <= 1e-9 * std::max(1.0, static_cast<double>(expected));
}

QString chunksText(const RankPlan& rank)
{
    QStringList chunks;
    for (std::uint64_t layers : rank.chunkLayers)
        chunks << QString::number(layers);
    return chunks.join(QStringLiteral(" + "));
}

} // namespace

class TestUiStages : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_stages"));
        MemoryUnits::setCurrent(MemoryUnit::GiB);
    }

    void rowsAreTheEnginesStages_data()
    {
        QTest::addColumn<bool>("withVirtualStages");
        QTest::newRow("pp 4") << false;
        QTest::newRow("pp 4, vpp 2") << true;
    }

    void rowsAreTheEnginesStages()
    {
        QFETCH(bool, withVirtualStages);
        const Plan plan = planOf(withVirtualStages ? interleaved() : pipelined());
        QCOMPARE(plan.ranks.size(), std::size_t{4});
        StagesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPlan(plan);
        QCOMPARE(model.rowCount(), static_cast<int>(plan.ranks.size()));
        QCOMPARE(model.worstRow(), static_cast<int>(plan.worstRank));
        Bytes mostUsed = 0;
        for (int row = 0; row < model.rowCount(); ++row) {
            const RankPlan& rank = plan.ranks[static_cast<std::size_t>(row)];
            const bool worst = static_cast<std::size_t>(row) == plan.worstRank;
            const auto raw = [&](int column) { return model.index(row, column).data(Qt::UserRole); };
            QCOMPARE(raw(StagesModel::Stage).toULongLong(), static_cast<qulonglong>(rank.stage));
            QCOMPARE(raw(StagesModel::Layers).toULongLong(), static_cast<qulonglong>(rank.layers));
            QCOMPARE(raw(StagesModel::InFlight).toULongLong(), static_cast<qulonglong>(rank.inFlightMicroBatches));
            QCOMPARE(raw(StagesModel::PeakAllocated).toULongLong(), static_cast<qulonglong>(rank.peakAllocatedBytes));
            QCOMPARE(raw(StagesModel::PeakReserved).toULongLong(), static_cast<qulonglong>(rank.peakReservedBytes));
            QCOMPARE(raw(StagesModel::DeviceUsed).toULongLong(), static_cast<qulonglong>(rank.deviceUsedBytes));
            QCOMPARE(raw(StagesModel::Headroom).toLongLong(),
                     static_cast<qlonglong>(plan.capacityBytes) - static_cast<qlonglong>(rank.deviceUsedBytes));
            QCOMPARE(model.index(row, StagesModel::DeviceUsed).data().toString(),
                     MemoryUnits::format(static_cast<double>(rank.deviceUsedBytes)));
            QCOMPARE(model.index(row, StagesModel::Layers).data().toString(),
                     withVirtualStages ? chunksText(rank) : QString::number(rank.layers));
            // The worst row: flagged, bold, named; the others none of it.
            QCOMPARE(model.index(row, StagesModel::DeviceUsed).data(StagesModel::WorstRole).toBool(), worst);
            QCOMPARE(model.index(row, StagesModel::Headroom).data(Qt::FontRole).value<QFont>().bold(), worst);
            QCOMPARE(model.index(row, StagesModel::Stage).data().toString().contains(QLatin1String("worst")), worst);
            mostUsed = std::max(mostUsed, rank.deviceUsedBytes);
        }
        // The worst row is the plan the rest of the app shows, with the engine's own margin.
        const RankPlan& worst = plan.ranks[plan.worstRank];
        QCOMPARE(worst.deviceUsedBytes, mostUsed);
        QCOMPARE(worst.deviceUsedBytes, plan.deviceUsedBytes);
        QCOMPARE(model.index(model.worstRow(), StagesModel::Headroom).data(Qt::UserRole).toLongLong(),
                 static_cast<qlonglong>(plan.marginBytes));
        if (withVirtualStages) {
            QCOMPARE(worst.chunkLayers.size(), std::size_t{2});
            QVERIFY(
                model.headerData(StagesModel::InFlight, Qt::Horizontal).toString().contains(QLatin1String("Chunk")));
        } else {
            QVERIFY(worst.chunkLayers.empty());
            QVERIFY(
                !model.headerData(StagesModel::InFlight, Qt::Horizontal).toString().contains(QLatin1String("Chunk")));
        }
        model.refresh();
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QCOMPARE(model.worstRow(), -1);
    }

    void chartDrawsABarPerStage_data() { rowsAreTheEnginesStages_data(); }

    void chartDrawsABarPerStage()
    {
        QFETCH(bool, withVirtualStages);
        const Plan plan = planOf(withVirtualStages ? interleaved() : pipelined());
        StagesView view;
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setPlan(plan);
        QVERIFY(view.showsStages());
        const StagesChart* chart = view.chart();
        QCOMPARE(chart->stageCount(), static_cast<int>(plan.ranks.size()));
        for (int i = 0; i < chart->stageCount(); ++i) {
            const RankPlan& rank = plan.ranks[static_cast<std::size_t>(i)];
            for (std::size_t c = 0; c < kCategoryCount; ++c)
                QVERIFY2(sameBytes(chart->drawnBytes(i, static_cast<Category>(c)), rank.breakdown[c]),
                         qPrintable(QStringLiteral("stage %1, category %2").arg(i).arg(c)));
            QVERIFY(sameBytes(chart->drawnDeviceUsed(i), rank.deviceUsedBytes));
        }
        QCOMPARE(chart->markedWorst(), static_cast<int>(plan.worstRank));
        QCOMPARE(view.model()->rowCount(), static_cast<int>(plan.ranks.size()));
        QVERIFY(view.table()->isVisible());
        QVERIFY2(view.summary().contains(QStringLiteral("pp %1").arg(plan.pipelineParallel)),
                 qPrintable(view.summary()));
        QVERIFY2(view.summary().contains(QStringLiteral("stage %1").arg(plan.ranks[plan.worstRank].stage)),
                 qPrintable(view.summary()));
        // Another unit redraws the same bytes.
        MemoryUnits::setCurrent(MemoryUnit::GB);
        view.refresh();
        QVERIFY(sameBytes(chart->drawnDeviceUsed(0), plan.ranks[0].deviceUsedBytes));
        MemoryUnits::setCurrent(MemoryUnit::GiB);
    }

    // The layout line names expert parallelism, from the plan's own degrees.
    void summaryNamesExpertParallelism()
    {
        const Plan plan = planOf(expertParallel());
        QCOMPARE(plan.expertParallel, std::uint64_t{8});
        StagesView view;
        view.setPlan(plan);
        QVERIFY(view.showsStages());
        QVERIFY2(view.summary().contains(QStringLiteral("tp 1 · pp 4 · dp 8 · ep 8")), qPrintable(view.summary()));
        QVERIFY2(!view.summary().contains(QLatin1String("etp")), qPrintable(view.summary())); // etp is tp
        // A model without experts: neither.
        view.setPlan(planOf(pipelined()));
        QVERIFY2(!view.summary().contains(QStringLiteral("· ep")), qPrintable(view.summary()));
    }

    void aPlanWithoutStagesSaysSo()
    {
        const Plan plan = planOf(teachingScenario().value());
        QVERIFY(plan.ranks.empty());
        StagesView view;
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setPlan(planOf(pipelined()));
        view.setPlan(plan); // stages, then none: nothing of the first left
        QVERIFY(!view.showsStages());
        QCOMPARE(view.model()->rowCount(), 0);
        QCOMPARE(view.chart()->stageCount(), 0);
        QCOMPARE(view.chart()->markedWorst(), -1);
        QVERIFY(!view.table()->isVisible());
        bool shown = false;
        for (const QLabel* label : view.findChildren<QLabel*>())
            shown = shown || (label->isVisible() && label->text() == StagesView::singleGpuMessage());
        QVERIFY(shown);
        QVERIFY(StagesView::singleGpuMessage().contains(QLatin1String("Pipeline stages")));
    }

    void noPlanClearsTheView()
    {
        StagesView view;
        view.resize(1000, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setPlan(planOf(pipelined()));
        view.clearPlan();
        QCOMPARE(view.model()->rowCount(), 0);
        QCOMPARE(view.chart()->stageCount(), 0);
        QCOMPARE(view.chart()->markedWorst(), -1);
        QVERIFY(view.summary().isEmpty());
        // The "No plan" message has the chart's width, not a column squeezed by an empty legend.
        view.chart()->replot();
        QVERIFY2(view.chart()->axisRect()->width() > view.chart()->width() / 2,
                 qPrintable(QString::number(view.chart()->axisRect()->width())));
    }

    void theWindowShowsTheStagesTab()
    {
        QCOMPARE(MainWindow::viewFromName(QStringLiteral("stages")), MainWindow::View::Stages);
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setScenario(pipelined());
        window.replanNow();
        window.showView(MainWindow::View::Stages);
        const auto* tabs = window.findChild<QTabWidget*>();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(window.stagesView()));
        QCOMPARE(tabs->tabText(static_cast<int>(MainWindow::View::Stages)), QStringLiteral("Stages"));
        const Plan& plan = *window.plan();
        QCOMPARE(window.stagesView()->model()->rowCount(), static_cast<int>(plan.ranks.size()));
        QCOMPARE(window.stagesView()->model()->worstRow(), static_cast<int>(plan.worstRank));
        QCOMPARE(window.currentChart(), static_cast<QCustomPlot*>(window.stagesView()->chart()));

        // An edit the tab is showing is followed: pp 2 gives two stages.
        Scenario two = pipelined();
        two.hardware.parallel.pp = 2;
        two.hardware.count = 4;
        window.setScenario(two);
        window.replanNow();
        QCOMPARE(window.stagesView()->model()->rowCount(), 2);

        // Korean: the tab and the headers are translated.
        window.languages()->setLanguage(QStringLiteral("ko"));
        QCoreApplication::processEvents();
        QVERIFY(tabs->tabText(static_cast<int>(MainWindow::View::Stages)) != QLatin1String("Stages"));
        QVERIFY(window.stagesView()->model()->headerData(StagesModel::Headroom, Qt::Horizontal).toString() !=
                QLatin1String("Headroom"));
        window.languages()->setLanguage(QStringLiteral("en"));
        window.setWindowModified(false);
    }
};

QTEST_MAIN(TestUiStages)
#include "test_ui_stages.moc"
