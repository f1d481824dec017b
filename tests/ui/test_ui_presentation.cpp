// SPDX-License-Identifier: GPL-3.0-or-later
// Presentation mode shows only the chart and the Explain panel, the arrow
// keys step through the engine's ladder, Esc leaves; and the sweep's work
// off the UI thread gives exactly the synchronous engine result.
#include "charts/breakdownchart.h"
#include "document/fitmapworker.h"
#include "document/plandocument.h"
#include "plan/defaultscenario.h"
#include "plan/fitsearch.h"
#include "plan/ladder.h"
#include "plan/planner.h"
#include "shell/mainwindow.h"
#include "views/breakdownview.h"
#include "views/explainpanel.h"
#include "views/presentationview.h"
#include "views/sweepview.h"

#include <QProgressBar>
#include <QSignalSpy>
#include <QtTest>

using namespace headroom;

class TestUiPresentation : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_presentation"));
    }

    void onlyChartAndExplainFullScreen()
    {
        MainWindow window;
        window.show();
        window.startPresentation();
        PresentationView* p = window.presentation();
        QVERIFY(p && p->isVisible());
        QVERIFY(p->windowState() & Qt::WindowFullScreen);
        QVERIFY(p->font().pointSizeF() > window.font().pointSizeF() * 1.3);
        // The chart's own text is large too, not only the labels around it.
        QVERIFY(p->breakdown()->chart()->yAxis->tickLabelFont().pointSizeF() >
                window.breakdownView()->chart()->yAxis->tickLabelFont().pointSizeF() * 1.3);
        // The breakdown view's chart and Explain panel, and no input, tab or table of the main window.
        QVERIFY(p->breakdown()->chart()->isVisibleTo(p));
        QVERIFY(p->breakdown()->explain()->isVisibleTo(p));
        QVERIFY(p->findChildren<QTabWidget*>().isEmpty());
        QVERIFY(p->findChildren<QAbstractSpinBox*>().isEmpty());
        QCOMPARE(p->shownPlan()->deviceUsedBytes, window.plan()->deviceUsedBytes);
    }

    void arrowKeysStepThroughTheLadder()
    {
        MainWindow window;
        window.show();
        window.startPresentation();
        PresentationView* p = window.presentation();
        const auto ladder = buildLadder(window.scenario(), defaultLadder()).value();
        QCOMPARE(p->stepCount(), static_cast<int>(ladder.size()));
        QCOMPARE(p->position(), -1);
        for (std::size_t i = 0; i < ladder.size(); ++i) {
            QTest::keyClick(p, Qt::Key_Right);
            QCOMPARE(p->position(), static_cast<int>(i));
            QCOMPARE(p->shownPlan()->deviceUsedBytes, ladder[i].plan.deviceUsedBytes);
            // What the chart draws is that step's plan.
            const double drawn = p->breakdown()->chart()->segmentBytes({DeviceSegment::Kind::Category, Category::Weights, 0});
            QVERIFY(std::abs(drawn - static_cast<double>(ladder[i].plan.breakdown[0])) <= 1.0);
        }
        QTest::keyClick(p, Qt::Key_Right);  // past the last step: stays there
        QCOMPARE(p->position(), static_cast<int>(ladder.size()) - 1);
        QTest::keyClick(p, Qt::Key_Left);
        QCOMPARE(p->position(), static_cast<int>(ladder.size()) - 2);
        QCOMPARE(p->shownPlan()->deviceUsedBytes, ladder[ladder.size() - 2].plan.deviceUsedBytes);
        QTest::keyClick(p, Qt::Key_Escape);
        QVERIFY(!p->isVisible());
        // The configuration itself is untouched by presenting.
        QCOMPARE(window.plan()->deviceUsedBytes, makePlan(window.scenario())->deviceUsedBytes);
    }

    void workerResultEqualsTheSynchronousEngineResult()
    {
        const Scenario base = teachingScenario().value();
        FitMapWorker worker;
        QSignalSpy finished(&worker, &FitMapWorker::finished);
        QSignalSpy progress(&worker, &FitMapWorker::progress);
        worker.start(base, 16);
        QVERIFY(worker.waitForResult());
        QCOMPARE(finished.count(), 1);
        QVERIFY(progress.count() >= 1);
        const SweepBundle got = finished.first().first().value<SweepBundle>();
        const FitMap expected = FitMapWorker::compute(base, 16).fitMap;  // the same, on this thread
        QCOMPARE(got.fitMap.batches, expected.batches);
        QCOMPARE(got.fitMap.sequences, expected.sequences);
        QCOMPARE(got.fitMap.fits, expected.fits);
        QCOMPARE(got.fitMap.deviceUsedBytes, expected.deviceUsedBytes);
        // The map reaches past the engine's fit boundary on both axes.
        QVERIFY(expected.batches.back() >= largestMicroBatch(base, 4096)->value);
        QVERIFY(expected.sequences.back() >= longestSequence(base, 1u << 22)->value);
        // And each cell is makePlan's verdict for that micro-batch and sequence length.
        for (std::size_t s = 0; s < expected.sequences.size(); s += 5)
            for (std::size_t b = 0; b < expected.batches.size(); b += 3) {
                Scenario cell = base;
                cell.train.microBatch = expected.batches[b];
                cell.train.seqLen = expected.sequences[s];
                QCOMPARE(got.fitMap.fitsAt(b, s), makePlan(cell)->fits);
            }
        QCOMPARE(got.batch.points.size(), computeSweep(base, SweepAxis::MicroBatch).points.size());
    }

    void staleResultIsDropped()
    {
        // Two scenarios in a row: only the second one's result arrives.
        Scenario first = teachingScenario().value();
        Scenario second = first;
        second.train.seqLen = 1024;
        FitMapWorker worker;
        QSignalSpy finished(&worker, &FitMapWorker::finished);
        worker.start(first, 32);
        worker.start(second, 32);
        QVERIFY(worker.waitForResult());
        QCOMPARE(finished.count(), 1);
        QCOMPARE(finished.first().first().value<SweepBundle>().scenario.train.seqLen, std::uint64_t{1024});
    }

    void cancelledResultIsDropped()
    {
        FitMapWorker worker;
        QSignalSpy finished(&worker, &FitMapWorker::finished);
        worker.start(teachingScenario().value(), 32);
        worker.cancel();
        QVERIFY(worker.waitForResult());
        QCOMPARE(finished.count(), 0);
    }

    void sweepViewShowsProgressThenTheResult()
    {
        PlanDocument document;
        document.reset(teachingScenario().value());
        SweepView view(&document);
        view.resize(1200, 500);
        view.show();
        view.showCurrent();
        QVERIFY(view.progressBar()->isVisible());
        QVERIFY(view.waitForResult());
        QVERIFY(!view.progressBar()->isVisible());
        QVERIFY(!view.fitMap().batches.empty());
        QCOMPARE(view.fitMap().fits, FitMapWorker::compute(teachingScenario().value(), 64).fitMap.fits);
    }
};

QTEST_MAIN(TestUiPresentation)
#include "test_ui_presentation.moc"
