// SPDX-License-Identifier: GPL-3.0-or-later
// Teaching > Seed book: TeachingModel under QAbstractItemModelTester, its
// numbers are the engine's comparison (the model computes none), and loading
// a row puts that experiment's scenario into the main window.
#include "inputs/scenariopanel.h"
#include "io/teachingset.h"
#include "models/teachingmodel.h"
#include "shell/mainwindow.h"
#include "views/teachingdialog.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTableView>
#include <QtTest/QtTest>

Q_DECLARE_METATYPE(headroom::Scenario)

using namespace headroom;

class TestUiTeaching : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("headroom-test-teaching")); }

    void modelMatchesEngine()
    {
        TeachingModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto set = builtinTeachingSet("seed-book");
        QVERIFY(set.ok());
        auto rows = compareTeachingSet(*set);
        QVERIFY(rows.ok());
        model.setComparison(*set, *rows);
        QCOMPARE(model.rowCount(), static_cast<int>(rows->size()));
        QCOMPARE(model.columnCount(), static_cast<int>(TeachingModel::ColumnCount));
        for (int r = 0; r < model.rowCount(); ++r) {
            const TeachingComparison& c = (*rows)[static_cast<std::size_t>(r)];
            QCOMPARE(model.index(r, TeachingModel::Book).data(TeachingModel::GiBRole).toDouble(), c.bookGiB);
            QCOMPARE(model.index(r, TeachingModel::Headroom).data(TeachingModel::GiBRole).toDouble(), c.headroomGiB);
            QCOMPARE(model.index(r, TeachingModel::Error).data(TeachingModel::GiBRole).toDouble(), c.errorGiB);
            QVERIFY(!model.index(r, TeachingModel::Book).data(Qt::ToolTipRole).toString().isEmpty());
            QVERIFY(!model.index(r, TeachingModel::Why).data().toString().isEmpty());
            QVERIFY(model.scenarioAt(r) != nullptr);
            qInfo("%s: book %.3f, Headroom %.3f, error %+.3f GiB", c.id.c_str(), c.bookGiB, c.headroomGiB, c.errorGiB);
        }
        // batch 16: 12.164 GB on seed line 258.
        QCOMPARE(model.index(5, TeachingModel::Book).data().toString(), QStringLiteral("12.164 GiB"));
        QVERIFY(model.scenarioAt(-1) == nullptr);
        QVERIFY(model.scenarioAt(model.rowCount()) == nullptr);
        model.refresh();
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void loadRowIntoMainWindow()
    {
        MainWindow window;
        TeachingDialog dialog(&window);
        QSignalSpy spy(&dialog, &TeachingDialog::scenarioRequested);
        QVERIFY(dialog.model()->rowCount() > 0);
        const int lora = 9; // "lora": LoRA r=8 on query_key_value, batch 16
        QVERIFY(dialog.loadRow(lora));
        QCOMPARE(spy.count(), 1);
        const auto s = spy.takeFirst().at(0).value<Scenario>();
        QCOMPARE(s.train.peft.rank, std::uint64_t(8));
        window.setScenario(s);
        window.replanNow();
        QVERIFY(window.plan().has_value());
        QCOMPARE(window.scenario().model.id, std::string("EleutherAI/polyglot-ko-1.3b"));
        QCOMPARE(window.plan()->trainableParameters, std::uint64_t(1572864)); // seed line 423
        QVERIFY(!dialog.loadRow(-1));
    }
};

QTEST_MAIN(TestUiTeaching)
#include "test_ui_teaching.moc"
