// SPDX-License-Identifier: GPL-3.0-or-later
// The item models behind the views' tables (ui/models): each passes
// QAbstractItemModelTester through a fill, a refresh and an empty reset,
// and shows the engine's own numbers: the ladder's steps (buildLadder) and
// make it fit's suggestions (makeItFit), formatted in the current unit, with
// the raw values on Qt::UserRole.
#include "model/catalog.h"
#include "models/laddermodel.h"
#include "models/suggestionmodel.h"
#include "plan/defaultscenario.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "text/memoryunits.h"

#include <QAbstractItemModelTester>
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
};

QTEST_MAIN(TestUiModels)
#include "test_ui_models.moc"
