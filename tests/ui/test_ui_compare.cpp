// SPDX-License-Identifier: GPL-3.0-or-later
// The Compare tab and the Pin action: four pins, a fifth refused; the bars
// are the engine plans' numbers; names are editable; unpinning; only the
// settings that differ are listed.
#include "charts/devicestack.h"
#include "plan/defaultscenario.h"
#include "plan/ladder.h"
#include "plan/planner.h"
#include "shell/mainwindow.h"
#include "text/memoryunits.h"
#include "views/compareview.h"

#include <QTableView>
#include <QtTest>

using namespace headroom;

class TestUiCompare : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_compare"));
    }

    void pinsFourAndRefusesTheFifth()
    {
        MainWindow window;
        for (int i = 0; i < CompareView::kMaxPins; ++i) {
            Scenario s = window.scenario();
            s.train.microBatch = static_cast<std::uint64_t>(i + 1);
            window.setScenario(s);
            QCOMPARE(window.pinScenario(), QString());
        }
        QCOMPARE(static_cast<int>(window.compareView()->pins().size()), 4);
        const QString refusal = window.pinScenario();
        QVERIFY(refusal.contains(QLatin1String("Four")));
        QCOMPARE(static_cast<int>(window.compareView()->pins().size()), 4);
        // The menu action tells the same in the status bar and pins nothing.
        window.compareView()->unpin(0);
        QCOMPARE(static_cast<int>(window.compareView()->pins().size()), 3);
        QCOMPARE(window.compareView()->pins().front().scenario.train.microBatch, std::uint64_t{2});
        QCOMPARE(window.pinScenario(), QString());
        window.setWindowModified(false);
    }

    void barsAreTheEnginePlans()
    {
        MemoryUnits::setCurrent(MemoryUnit::GiB);
        CompareView view;
        auto ladder = buildLadder(teachingScenario().value(), defaultLadder());
        QVERIFY(ladder);
        for (std::size_t i = 0; i < 3; ++i)
            QCOMPARE(view.pin((*ladder)[i].scenario), QString());
        for (int p = 0; p < 3; ++p) {
            // Planned independently here, compared with what the chart draws.
            const Plan plan = makePlan((*ladder)[static_cast<std::size_t>(p)].scenario).value();
            const QVector<DeviceSegment> segments = DeviceStack::segments(plan);
            double drawnTotal = 0;
            for (int s = 0; s < segments.size(); ++s) {
                QVERIFY(std::abs(view.drawnBytes(p, s) - segments[s].bytes) <= 1.0);
                drawnTotal += view.drawnBytes(p, s);
            }
            QVERIFY(std::abs(drawnTotal - static_cast<double>(plan.deviceUsedBytes)) <= 8.0);
            QCOMPARE(view.table()->model()->index(1, p).data().toString(),
                     MemoryUnits::format(static_cast<double>(plan.deviceUsedBytes)));
        }
    }

    void namesAreEditableAndDifferencesListed()
    {
        CompareView view;
        Scenario a = teachingScenario().value();
        Scenario b = a;
        b.train.seqLen = 4096;
        QCOMPARE(view.pin(a), QString());
        QCOMPARE(view.pin(b, QStringLiteral("long context")), QString());
        QCOMPARE(view.pins()[1].name, QStringLiteral("long context"));
        QVERIFY(view.pins()[0].name.contains(QLatin1String("Llama-3.1-8B")));
        QVERIFY(view.table()->model()->setData(view.table()->model()->index(0, 0), QStringLiteral("short")));
        QCOMPARE(view.pins()[0].name, QStringLiteral("short"));
        // Name, device used, margin, verdict, then exactly the one setting that differs.
        QCOMPARE(view.table()->model()->rowCount(), 5);
        QCOMPARE(view.table()->model()->index(4, 1).data().toString(), QStringLiteral("2 × 4096"));
    }

    // Two layouts of the same GPUs differ in the "Parallel layout" row only.
    void layoutsCompared()
    {
        CompareView view;
        Scenario a = teachingScenario().value();
        a.train.peft = {};
        a.train.weightQuant = WeightQuant::None;
        a.train.optimizer = Optimizer::AdamW;
        a.hardware.gpu = "h100-sxm-80gb";
        a.hardware.count = 8;
        a.hardware.sharding = Sharding::Fsdp2;
        Scenario b = a;
        b.hardware.parallel.tp = 2;
        b.hardware.parallel.sp = true;
        b.hardware.parallel.dpReplicate = 2;
        QCOMPARE(view.pin(a), QString());
        QCOMPARE(view.pin(b), QString());
        const QAbstractItemModel* m = view.table()->model();
        QCOMPARE(m->rowCount(), 5);
        QCOMPARE(m->index(4, 0).data().toString(), QStringLiteral("none"));
        QCOMPARE(m->index(4, 1).data().toString(), QStringLiteral("tp 2 + sp × HSDP 2"));
    }

    void unplannableScenarioIsNotPinned()
    {
        CompareView view;
        Scenario s = teachingScenario().value();
        s.train.seqLen = 0;
        QVERIFY(!view.pin(s).isEmpty());
        QVERIFY(view.pins().empty());
    }

    void viewNames()
    {
        QCOMPARE(MainWindow::viewFromName(QStringLiteral("compare")), MainWindow::View::Compare);
        QCOMPARE(MainWindow::viewFromName(QStringLiteral("fit")), MainWindow::View::MakeItFit);
    }
};

QTEST_MAIN(TestUiCompare)
#include "test_ui_compare.moc"
