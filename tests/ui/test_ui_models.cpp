// SPDX-License-Identifier: GPL-3.0-or-later
// The item models behind the views' tables (ui/models): each passes
// QAbstractItemModelTester through a fill, a refresh and an empty reset,
// and shows the engine's own numbers: the ladder's steps (buildLadder) and
// make it fit's suggestions (makeItFit), formatted in the current unit, with
// the raw values on Qt::UserRole.
#include "model/catalog.h"
#include "models/comparemodel.h"
#include "models/laddermodel.h"
#include "models/suggestionmodel.h"
#include "plan/defaultscenario.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "plan/planner.h"
#include "text/memoryunits.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace headroom;

class TestUiModels : public QObject {
    Q_OBJECT
private slots:
    void ladderRowsAreTheEnginesSteps()
    {
        LadderModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const auto ladder = buildLadder(teachingScenario().value(), defaultLadder());
        QVERIFY(ladder);
        model.setSteps(ladder.value());
        QCOMPARE(model.rowCount(), static_cast<int>(ladder->size()));
        for (int row = 0; row < model.rowCount(); ++row) {
            const LadderStep& step = (*ladder)[static_cast<std::size_t>(row)];
            QCOMPARE(model.index(row, LadderModel::DeviceUsed).data(Qt::UserRole).toULongLong(),
                     static_cast<qulonglong>(step.plan.deviceUsedBytes));
            QCOMPARE(model.index(row, LadderModel::DeviceUsed).data().toString(),
                     MemoryUnits::format(static_cast<double>(step.plan.deviceUsedBytes)));
            QCOMPARE(model.index(row, LadderModel::Saving).data(Qt::UserRole).toLongLong(),
                     static_cast<qlonglong>(step.savingBytes));
            QCOMPARE(model.index(row, LadderModel::Verdict).data(Qt::UserRole).toBool(), step.plan.fits);
            QCOMPARE(model.index(row, LadderModel::Step).data(Qt::UserRole).toString(),
                     QString::fromLatin1(techniqueName(step.technique)));
            // A step that moves only the allocator's cache says so, in its
            // saving and its tooltip.
            const QString saving = model.index(row, LadderModel::Saving).data().toString();
            QCOMPARE(saving.endsWith(QLatin1String(" (cache)")), step.cacheOnly);
            QCOMPARE(model.index(row, LadderModel::Saving).data(Qt::ToolTipRole).isValid(), step.cacheOnly);
        }
        QVERIFY(model.index(0, LadderModel::Saving).data().toString().isEmpty()); // the first step saves nothing
        model.refresh();
        model.setSteps({});
        QCOMPARE(model.rowCount(), 0);
    }

    void suggestionRowsAreTheEnginesSuggestions()
    {
        SuggestionModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Scenario s;
        s.model = presetModel("meta-llama/Llama-3.1-8B").value();
        s.hardware.gpu = "rtx-4090";
        s.train.microBatch = 4;
        const auto result = makeItFit(s);
        QVERIFY(result);
        QVERIFY(!result->suggestions.empty());
        model.setSuggestions(result->suggestions);
        QCOMPARE(model.rowCount(), static_cast<int>(result->suggestions.size()));
        for (int row = 0; row < model.rowCount(); ++row) {
            const FitSuggestion& expected = result->suggestions[static_cast<std::size_t>(row)];
            QCOMPARE(model.index(row, SuggestionModel::DeviceUsed).data(Qt::UserRole).toULongLong(),
                     static_cast<qulonglong>(expected.deviceUsedBytes));
            QCOMPARE(model.index(row, SuggestionModel::Margin).data(Qt::UserRole).toLongLong(),
                     static_cast<qlonglong>(expected.marginBytes));
            QCOMPARE(model.index(row, SuggestionModel::Cost).data(Qt::UserRole).toDouble(), expected.speedCost);
            // Every change of the suggestion is named in its row.
            const QString text = model.index(row, SuggestionModel::Change).data().toString();
            for (const FitChange& c : expected.changes)
                QVERIFY2(text.contains(SuggestionModel::changeLabel(c)), qPrintable(text));
        }
        model.refresh();
        model.setSuggestions({});
        QCOMPARE(model.rowCount(), 0);
    }

    void compareColumnsAreThePinnedPlans()
    {
        CompareModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Scenario a = teachingScenario().value();
        Scenario b = a;
        b.train.seqLen = a.train.seqLen * 2;
        b.train.gradAccum = a.train.gradAccum + 1;
        model.setPins({{QStringLiteral("a"), a, makePlan(a).value()}, {QStringLiteral("b"), b, makePlan(b).value()}});
        QCOMPARE(model.columnCount(), 2);
        // Name, device used, margin, verdict, then the two settings that differ.
        QCOMPARE(model.rowCount(), int(CompareModel::FixedRowCount) + 2);
        QCOMPARE(model.index(CompareModel::DeviceUsed, 1).data(Qt::UserRole).toULongLong(),
                 static_cast<qulonglong>(makePlan(b).value().deviceUsedBytes));
        QCOMPARE(model.index(CompareModel::Margin, 0).data(Qt::UserRole).toLongLong(),
                 static_cast<qlonglong>(makePlan(a).value().marginBytes));

        // Only the name is editable; an empty name is refused.
        QSignalSpy renamed(&model, &CompareModel::renameRequested);
        QVERIFY(model.flags(model.index(CompareModel::Name, 0)) & Qt::ItemIsEditable);
        QVERIFY(!(model.flags(model.index(CompareModel::DeviceUsed, 0)) & Qt::ItemIsEditable));
        QVERIFY(!model.setData(model.index(CompareModel::Name, 0), QStringLiteral("  ")));
        QVERIFY(!model.setData(model.index(CompareModel::Verdict, 0), QStringLiteral("x")));
        QVERIFY(model.setData(model.index(CompareModel::Name, 1), QStringLiteral(" long ")));
        QCOMPARE(renamed.count(), 1);
        QCOMPARE(renamed.at(0).at(1).toString(), QStringLiteral("long"));
        QCOMPARE(model.index(CompareModel::Name, 1).data().toString(), QStringLiteral("long"));

        model.refresh();
        model.setPins({});
        QCOMPARE(model.columnCount(), 0);
    }
};

QTEST_MAIN(TestUiModels)
#include "test_ui_models.moc"
