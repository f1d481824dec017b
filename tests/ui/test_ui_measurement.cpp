// SPDX-License-Identifier: GPL-3.0-or-later
// "Measured on your stack" in the Validate tab (issue 16 §3): a
// headroom.measurement/1 file beside the plan. The rows must be the engine's
// own comparison (compareWithPlan, what `headroom-cli compare` prints) of the
// plan of the scenario in the file; a file without a scenario follows the
// current one; a bad file says why and keeps what was shown; the run's
// scenario can be opened. The model passes QAbstractItemModelTester.
#include "document/plandocument.h"
#include "models/measurementmodel.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"
#include "shell/mainwindow.h"
#include "text/memoryunits.h"
#include "validate/measurementpanel.h"
#include "validate/validateview.h"

#include <QAbstractItemModelTester>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace headroom;

namespace {

const QString kWithScenario = QStringLiteral(HEADROOM_TEST_DATA "/measurement/size-qlora.json");

Measurement readBack(const QString& path)
{
    auto m = readMeasurementFile(path.toStdString());
    return m ? m.value() : Measurement{};
}

// The same measurement without its scenario, written to `dir`.
QString withoutScenario(const QTemporaryDir& dir)
{
    Measurement m = readBack(kWithScenario);
    m.scenario.reset();
    const QString path = dir.filePath(QStringLiteral("no-scenario.json"));
    std::ofstream(path.toStdString()) << measurementToText(m);
    return path;
}

} // namespace

class TestUiMeasurement : public QObject {
    Q_OBJECT
private slots:
    void modelIsAWellBehavedTable()
    {
        MeasurementModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const Measurement m = readBack(kWithScenario);
        QVERIFY(m.scenario);
        auto plan = makePlan(*m.scenario);
        QVERIFY(plan);
        model.setRows(compareWithPlan(plan.value(), m));
        QCOMPARE(model.rowCount(), 3);  // allocated, reserved, device used
        QCOMPARE(model.columnCount(), int(MeasurementModel::ColumnCount));
        model.refresh();
        model.setRows({});
        QCOMPARE(model.rowCount(), 0);
    }

    void aFileIsComparedWithThePlanOfItsOwnScenario()
    {
        PlanDocument document;
        document.reset(teachingScenario().value());
        MeasurementPanel panel;
        panel.setDocument(&document);
        QCOMPARE(panel.importFile(kWithScenario), QString());

        const Measurement m = readBack(kWithScenario);
        const auto expected = compareWithPlan(makePlan(*m.scenario).value(), m);
        QCOMPARE(panel.model()->rows().size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            const int row = static_cast<int>(i);
            QCOMPARE(panel.model()->rows()[i].planned, expected[i].planned);
            QCOMPARE(panel.model()->rows()[i].measured, expected[i].measured);
            QCOMPARE(panel.model()->index(row, MeasurementModel::Planned).data().toString(),
                     MemoryUnits::format(static_cast<double>(expected[i].planned)));
            QCOMPARE(panel.model()->index(row, MeasurementModel::Error).data(Qt::UserRole).toDouble(),
                     expected[i].errorPercent);
        }
        QVERIFY(panel.sourceText().contains(QString::fromStdString(m.gpuName)));
        QVERIFY(panel.sourceText().contains(QStringLiteral("in the file")));
        QVERIFY(panel.openScenarioButton()->isEnabled());
        QVERIFY(panel.table()->isVisibleTo(&panel));

        // Editing the current scenario does not move a file's own comparison.
        Scenario edited = document.scenario();
        edited.train.microBatch += 4;
        document.edit(edited);
        document.planNow();
        QCOMPARE(panel.model()->rows()[0].planned, expected[0].planned);
    }

    void aFileWithoutAScenarioFollowsTheCurrentOne()
    {
        QTemporaryDir dir;
        PlanDocument document;
        document.reset(teachingScenario().value());
        MeasurementPanel panel;
        panel.setDocument(&document);
        QCOMPARE(panel.importFile(withoutScenario(dir)), QString());
        QCOMPARE(panel.model()->rows()[0].planned, document.plan()->peakAllocatedBytes);
        QVERIFY(!panel.openScenarioButton()->isEnabled());
        QVERIFY(panel.sourceText().contains(QStringLiteral("current one")));

        Scenario edited = document.scenario();
        edited.train.microBatch += 4;
        document.edit(edited);
        document.planNow();
        QCOMPARE(panel.model()->rows()[0].planned, makePlan(edited).value().peakAllocatedBytes);
    }

    void aCpuRunHasNothingToCompare()
    {
        MeasurementPanel panel;
        const QString cpu = QStringLiteral(HEADROOM_TEST_DATA "/measurement/cpu-smoke-test.json");
        QVERIFY(measuredOnCpu(readBack(cpu)));
        QCOMPARE(panel.importFile(cpu), QString());
        QCOMPARE(panel.model()->rowCount(), 0);
        QVERIFY(!panel.table()->isVisibleTo(&panel));
        QVERIFY2(panel.sourceText().contains(QStringLiteral("CPU")), qPrintable(panel.sourceText()));
    }

    void aBadFileSaysWhyAndKeepsWhatWasShown()
    {
        QTemporaryDir dir;
        MeasurementPanel panel;
        QCOMPARE(panel.importFile(kWithScenario), QString());
        const auto shown = panel.model()->rows().size();

        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        std::ofstream(broken.toStdString()) << R"({"schema": "headroom.measurement/1", "max_memory_allocated_bytes": -4})";
        const QString error = panel.importFile(broken);
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(QStringLiteral("broken.json")), qPrintable(error));
        QCOMPARE(panel.problemText(), error);
        QCOMPARE(panel.model()->rows().size(), shown);

        QVERIFY(!panel.importFile(dir.filePath(QStringLiteral("missing.json"))).isEmpty());
        QCOMPARE(panel.model()->rows().size(), shown);
    }

    void theRunsScenarioOpensInTheWindow()
    {
        MainWindow window;
        MeasurementPanel* panel = window.validateView()->measurementPanel();
        QCOMPARE(panel->importFile(kWithScenario), QString());
        panel->openScenarioButton()->click();
        const Measurement m = readBack(kWithScenario);
        QCOMPARE(window.scenario().hardware.gpu, m.scenario->hardware.gpu);
        QCOMPARE(window.scenario().train.microBatch, m.scenario->train.microBatch);
        QCOMPARE(window.plan()->peakAllocatedBytes, makePlan(*m.scenario).value().peakAllocatedBytes);
        QVERIFY(!window.isWindowModified());
    }
};

QTEST_MAIN(TestUiMeasurement)
#include "test_ui_measurement.moc"
