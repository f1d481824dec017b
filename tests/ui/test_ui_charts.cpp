// SPDX-License-Identifier: GPL-3.0-or-later
// The charts draw the engine's numbers and nothing else: bar values equal the
// plan's breakdown, the timeline equals plan.timeline, the Explain panel's
// rows add up to the breakdown, the ladder and sweep come from the engine.
#include "charts/breakdownchart.h"
#include "charts/ladderchart.h"
#include "charts/timelineview.h"
#include "document/plandocument.h"
#include "model/catalog.h"
#include "models/tensorrowmodel.h"
#include "plan/defaultscenario.h"
#include "plan/fitsearch.h"
#include "plan/knobsweep.h"
#include "plan/planner.h"
#include "text/memoryunits.h"
#include "views/breakdownview.h"
#include "views/explainpanel.h"
#include "views/ladderview.h"
#include "views/sweepview.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::Scenario)

namespace {

Plan planFor(const Scenario& s)
{
    auto plan = makePlan(s);
    if (!plan)
        qFatal("plan failed: %s", plan.error().detail.c_str());
    return plan.value();
}

Scenario inferenceScenario()
{
    Scenario s;
    s.model = presetModel("meta-llama/Llama-3.2-1B").value();
    s.mode = Mode::Inference;
    s.inference.batch = 8;
    s.inference.promptTokens = 4096;
    return s;
}

// Drawn values go through the unit and back: equal to the byte up to rounding.
bool sameBytes(double drawn, double bytes) { return std::abs(drawn - bytes) <= std::max(1.0, bytes * 1e-12); }

} // namespace

class TestUiCharts : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void breakdownBarsAreThePlansBytes_data()
    {
        QTest::addColumn<int>("unit");
        QTest::addColumn<bool>("inference");
        QTest::newRow("GiB, training") << static_cast<int>(MemoryUnit::GiB) << false;
        QTest::newRow("GB, training") << static_cast<int>(MemoryUnit::GB) << false;
        QTest::newRow("GiB, inference") << static_cast<int>(MemoryUnit::GiB) << true;
    }

    void breakdownBarsAreThePlansBytes()
    {
        QFETCH(int, unit);
        QFETCH(bool, inference);
        MemoryUnits::setCurrent(static_cast<MemoryUnit>(unit));
        const Plan plan = planFor(inference ? inferenceScenario() : teachingScenario().value());
        BreakdownChart chart;
        chart.setPlan(plan);
        double total = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            const DeviceSegment segment{DeviceSegment::Kind::Category, static_cast<Category>(c), 0};
            const double drawn = chart.segmentBytes(segment);
            QVERIFY2(sameBytes(drawn, static_cast<double>(plan.breakdown[c])), categoryName(static_cast<Category>(c)));
            total += drawn;
        }
        QVERIFY(sameBytes(total, static_cast<double>(plan.peakBytes)));
        // The bar ends at device used, where the verdict is decided.
        total += chart.segmentBytes({DeviceSegment::Kind::AllocatorCache, Category::Weights, 0});
        total += chart.segmentBytes({DeviceSegment::Kind::Context, Category::Weights, 0});
        QVERIFY(std::abs(total - static_cast<double>(plan.deviceUsedBytes)) < 2.0);
        MemoryUnits::setCurrent(MemoryUnit::GiB);
    }

    void clickingASegmentExplainsIt()
    {
        const Plan plan = planFor(teachingScenario().value());
        BreakdownView view;
        view.resize(900, 600);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setPlan(plan);
        // Until a click, the largest category is explained.
        QCOMPARE(view.explain()->segment().category, Category::Weights);

        BreakdownChart* chart = view.chart();
        chart->replot();
        QSignalSpy clicked(chart, &BreakdownChart::segmentClicked);
        // The middle of the activations segment, in pixels.
        const double below = static_cast<double>(plan.breakdown[0] + plan.breakdown[1] + plan.breakdown[2]);
        const double middle = MemoryUnits::toUnit(below + static_cast<double>(plan.breakdown[3]) / 2);
        const QPoint at(static_cast<int>(chart->xAxis->coordToPixel(1.0)), static_cast<int>(chart->yAxis->coordToPixel(middle)));
        QTest::mouseClick(chart, Qt::LeftButton, {}, at);
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(view.explain()->segment().category, Category::Activations);
        QCOMPARE(view.explain()->model()->totalAtPeak(), plan.breakdown[static_cast<std::size_t>(Category::Activations)]);
    }

    void aBurstOfEditsKeepsTheCategoryUntilItPauses()
    {
        Scenario small = teachingScenario().value();
        Scenario large = small;
        large.train.microBatch = 16;
        const Plan weightsLargest = planFor(small), activationsLargest = planFor(large);
        auto largest = [](const Plan& p) {
            return static_cast<Category>(std::distance(p.breakdown.begin(),
                                                       std::max_element(p.breakdown.begin(), p.breakdown.end())));
        };
        QCOMPARE(largest(weightsLargest), Category::Weights);
        QVERIFY(largest(activationsLargest) != Category::Weights);
        BreakdownView view;
        view.setPlan(weightsLargest);
        QCOMPARE(view.explain()->segment().category, Category::Weights);
        // The next edit comes at once: the panel keeps its category, with the new plan's numbers.
        view.setPlan(activationsLargest);
        QCOMPARE(view.explain()->segment().category, Category::Weights);
        QCOMPARE(view.explain()->model()->totalAtPeak(),
                 activationsLargest.breakdown[static_cast<std::size_t>(Category::Weights)]);
        // Once the edits pause, it follows the largest category.
        QTRY_COMPARE_WITH_TIMEOUT(view.explain()->segment().category, largest(activationsLargest), 5000);
        // An edit after a pause switches at once.
        QTest::qWait(BreakdownView::kSettleMs + 100);
        view.setPlan(weightsLargest);
        QCOMPARE(view.explain()->segment().category, Category::Weights);
    }

    void explainRowsAddUpToTheBreakdown()
    {
        const Plan plan = planFor(teachingScenario().value());
        TensorRowModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            model.setRows(plan, static_cast<Category>(c));
            QCOMPARE(model.totalAtPeak(), plan.breakdown[c]);
            Bytes sum = 0;
            for (int r = 0; r < model.rowCount(); ++r) {
                sum += model.index(r, TensorRowModel::AtPeak).data(TensorRowModel::BytesRole).toULongLong();
                // Every row carries its source: the formula and where it comes from.
                QVERIFY(!model.index(r, 0).data(TensorRowModel::SourceRole).toString().isEmpty());
            }
            QCOMPARE(sum, plan.breakdown[c]);
        }
    }

    // DeepSeek-V3's dense first layers and its MoE layers each have a row of
    // the same name (LayerBand): the table marks which band a row is for.
    void denseAndMoeRowsAreMarked()
    {
        Scenario s = teachingScenario().value();
        s.model = presetModel("deepseek-ai/DeepSeek-V3").value();
        s.train.peft.method = PeftMethod::None;
        s.train.weightQuant = WeightQuant::None;
        s.train.optimizer = Optimizer::AdamW;
        s.hardware.gpu = "h200";
        const Plan plan = planFor(s);
        const QString dense = QStringLiteral(" [dense layers]");
        const QString moe = QStringLiteral(" [MoE layers]");
        TensorRowModel model;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            const auto category = static_cast<Category>(c);
            model.setRows(plan, category);
            std::size_t denseRows = 0, moeRows = 0;
            for (const TensorRow& row : plan.tensors)
                if (row.category == category && row.bytes != 0) {
                    denseRows += row.band == LayerBand::Dense;
                    moeRows += row.band == LayerBand::Sparse;
                }
            QStringList names;
            for (int r = 0; r < model.rowCount(); ++r)
                names << model.index(r, TensorRowModel::Name).data().toString();
            QCOMPARE(static_cast<std::size_t>(names.filter(dense).size()), denseRows);
            QCOMPARE(static_cast<std::size_t>(names.filter(moe).size()), moeRows);
            if (category == Category::Weights) {
                const QString all = names.join(QStringLiteral(", "));
                QVERIFY2(names.contains(QLatin1String("weights.layer") + dense), qPrintable(all));
                QVERIFY2(names.contains(QLatin1String("weights.layer") + moe), qPrintable(all));
            }
        }
    }

    void timelineIsThePlansTimeline()
    {
        for (const Scenario& s : {teachingScenario().value(), inferenceScenario()}) {
            const Plan plan = planFor(s);
            TimelineView timeline;
            timeline.setPlan(plan);
            for (std::size_t e = 0; e < plan.events.size(); ++e)
                for (std::size_t c = 0; c < kCategoryCount; ++c)
                    QVERIFY(sameBytes(timeline.drawnBytes(static_cast<Category>(c), e), static_cast<double>(plan.timeline[e][c])));
        }
    }

    void ladderIsTheEnginesLadder()
    {
        const Scenario base = teachingScenario().value();
        LadderView view;
        QSignalSpy applied(&view, &LadderView::applyScenario);
        view.setLadder(buildLadder(base, defaultLadder()));
        const auto ladder = buildLadder(base, defaultLadder());
        QVERIFY(ladder.ok());
        QCOMPARE(view.steps().size(), ladder->size());
        for (std::size_t i = 0; i < ladder->size(); ++i) {
            QCOMPARE(view.steps()[i].plan.deviceUsedBytes, (*ladder)[i].plan.deviceUsedBytes);
            QCOMPARE(view.steps()[i].savingBytes, (*ladder)[i].savingBytes);
        }
        view.selectStep(2);
        view.findChild<QPushButton*>()->click();
        QCOMPARE(applied.count(), 1);
    }

    void sweepUsesTheFitSearch()
    {
        const Scenario base = teachingScenario().value();
        PlanDocument document;
        document.reset(base);
        SweepView sweep(&document);
        QElapsedTimer timer;
        timer.start();
        sweep.showCurrent();  // the document computes it off the UI thread
        QVERIFY(sweep.waitForResult());
        qInfo("sweep of two axes and the fit map (plans + fit searches + drawing): %lld ms", static_cast<long long>(timer.elapsed()));
        const SweepResult& batch = sweep.result(SweepAxis::MicroBatch);
        QVERIFY(!batch.error);
        QCOMPARE(batch.current, base.train.microBatch);
        QVERIFY(batch.largestFitting.has_value());
        QCOMPARE(batch.largestFitting->value, largestMicroBatch(base, 4096).value().value);
        bool hasCurrent = false;
        for (const SweepPoint& point : batch.points) {
            const bool fits = point.value <= batch.largestFitting->value;
            QCOMPARE(point.fits, fits);  // memory grows with the batch: fit search and sweep agree
            hasCurrent = hasCurrent || point.value == batch.current;
        }
        QVERIFY(hasCurrent);
        const SweepResult& sequence = sweep.result(SweepAxis::SequenceLength);
        QCOMPARE(sequence.largestFitting->value, longestSequence(base, 1u << 22).value().value);
    }
};

QTEST_MAIN(TestUiCharts)
#include "test_ui_charts.moc"
