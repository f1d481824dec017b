// SPDX-License-Identifier: GPL-3.0-or-later
// PlanDocument (ui/document): the one owner of the scenario, its file, the
// modified flag and the plan. Edits plan on the next turn of the event loop
// and coalesce into one undo step; undo and redo give the scenario back to
// the inputs and replan; the modified flag is the undo stack's clean state;
// a scenario that does not plan leaves a problem, never a stale plan. The
// expected plans are the planner's own answers for the same scenarios.
#include "document/plandocument.h"
#include "inputs/scenariopanel.h"
#include "plan/defaultscenario.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "plan/planner.h"
#include "shell/mainwindow.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

Bytes plannedPeak(const Scenario& scenario)
{
    auto plan = makePlan(scenario);
    return plan ? plan.value().peakAllocatedBytes : 0;
}

Scenario withMicroBatch(Scenario scenario, std::uint64_t microBatch)
{
    scenario.train.microBatch = microBatch;
    return scenario;
}

} // namespace

class TestUiDocument : public QObject {
    Q_OBJECT
private slots:
    void resetPlansAtOnceUnmodified()
    {
        PlanDocument document;
        QSignalSpy planned(&document, &PlanDocument::planChanged);
        QSignalSpy replaced(&document, &PlanDocument::scenarioReplaced);
        QSignalSpy path(&document, &PlanDocument::pathChanged);
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching, QStringLiteral("/tmp/a.headroom.json"));
        QCOMPARE(planned.count(), 1);
        QCOMPARE(replaced.count(), 1);
        QCOMPARE(path.count(), 1);
        QVERIFY(document.plan());
        QVERIFY(!document.problem());
        QCOMPARE(document.plan()->peakAllocatedBytes, plannedPeak(teaching));
        QCOMPARE(document.revision(), 1u);
        QVERIFY(!document.isModified());
        QCOMPARE(document.undoStack()->count(), 0);
    }

    void editsCoalesceIntoOnePlanAndOneUndoStep()
    {
        PlanDocument document;
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching);
        QSignalSpy planned(&document, &PlanDocument::planChanged);
        QSignalSpy replaced(&document, &PlanDocument::scenarioReplaced);
        QSignalSpy modified(&document, &PlanDocument::modifiedChanged);

        // One user action that moves two fields: two edits in one turn.
        Scenario edited = withMicroBatch(teaching, 2);
        document.edit(edited);
        edited.train.seqLen = 1024;
        document.edit(edited);
        QCOMPARE(planned.count(), 0); // planned on the next turn, once
        QVERIFY(document.isModified());
        QCOMPARE(modified.count(), 1);
        QTRY_COMPARE(planned.count(), 1);
        QCOMPARE(replaced.count(), 0); // the inputs made the edit and already show it
        QCOMPARE(document.scenario().train.seqLen, 1024u);
        QCOMPARE(document.plan()->peakAllocatedBytes, plannedPeak(edited));
        QCOMPARE(document.undoStack()->count(), 1);

        // A later edit is a step of its own.
        document.edit(withMicroBatch(edited, 3));
        document.planNow();
        QCOMPARE(document.undoStack()->count(), 2);
        QCOMPARE(planned.count(), 2);
    }

    void undoAndRedoReplanAndFollowTheCleanState()
    {
        PlanDocument document;
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching);
        const Scenario edited = withMicroBatch(teaching, teaching.train.microBatch + 3);
        document.edit(edited);
        document.planNow();
        QVERIFY(document.plan()->peakAllocatedBytes != plannedPeak(teaching));

        QSignalSpy replaced(&document, &PlanDocument::scenarioReplaced);
        document.undoStack()->undo();
        QCOMPARE(replaced.count(), 1); // the inputs show the scenario again
        QCOMPARE(replaced.at(0).at(0).value<Scenario>().train.microBatch, teaching.train.microBatch);
        document.planNow();
        QCOMPARE(document.scenario().train.microBatch, teaching.train.microBatch);
        QCOMPARE(document.plan()->peakAllocatedBytes, plannedPeak(teaching));
        QVERIFY(!document.isModified()); // back where it was opened

        document.undoStack()->redo();
        document.planNow();
        QCOMPARE(document.scenario().train.microBatch, edited.train.microBatch);
        QCOMPARE(document.plan()->peakAllocatedBytes, plannedPeak(edited));
        QVERIFY(document.isModified());

        // Saved here: unmodified; undoing past the save is a change again.
        document.markSaved(QStringLiteral("/tmp/saved.headroom.json"));
        QVERIFY(!document.isModified());
        QCOMPARE(document.path(), QStringLiteral("/tmp/saved.headroom.json"));
        document.undoStack()->undo();
        QVERIFY(document.isModified());
    }

    void aScenarioThatDoesNotPlanLeavesAProblem()
    {
        PlanDocument document;
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching);
        QVERIFY(document.plan());
        Scenario broken = teaching;
        broken.train.seqLen = 0;
        QVERIFY(!makePlan(broken)); // the planner refuses it
        document.edit(broken);
        document.planNow();
        QVERIFY(!document.plan()); // not the last good plan
        QVERIFY(document.problem());
        QCOMPARE(document.problem()->code, makePlan(broken).error().code);
    }

    void analysesAreTheEnginesAndFollowThePlan()
    {
        PlanDocument document;
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching);
        const auto expected = buildLadder(teaching, defaultLadder());
        QVERIFY(expected);
        const PlanDocument::Ladder* first = &document.ladder();
        QVERIFY(*first);
        QCOMPARE(first->value().size(), expected->size());
        QCOMPARE(first->value().back().plan.deviceUsedBytes, expected->back().plan.deviceUsedBytes);
        QCOMPARE(&document.ladder(), first); // kept, not rebuilt, while the plan stands
        const auto suggestions = makeItFit(teaching);
        QCOMPARE(bool(document.suggestions()), bool(suggestions));
        QCOMPARE(document.suggestions()->alreadyFits, suggestions->alreadyFits);

        // An edit pending: asking for the ladder plans first, and it is the edited scenario's.
        const Scenario edited = withMicroBatch(teaching, teaching.train.microBatch + 2);
        document.edit(edited);
        const auto editedLadder = buildLadder(edited, defaultLadder());
        QCOMPARE(document.ladder()->front().plan.deviceUsedBytes, editedLadder->front().plan.deviceUsedBytes);
        QCOMPARE(document.plan()->peakAllocatedBytes, plannedPeak(edited));
    }

    // The sweeps run on a worker thread, but belong to the document like the
    // ladder: computed once per plan, and a new plan drops a running sweep,
    // whose result never arrives (it would be the old scenario's).
    void theSweepIsTheCurrentPlans()
    {
        PlanDocument document;
        const Scenario teaching = teachingScenario().value();
        document.reset(teaching);
        QSignalSpy ready(&document, &PlanDocument::sweepReady);
        document.requestSweep();
        QVERIFY(document.sweepRunning());
        // Replanned while it runs: the first sweep is dropped.
        const Scenario edited = withMicroBatch(teaching, teaching.train.microBatch + 1);
        document.edit(edited);
        document.planNow();
        QVERIFY(!document.sweepRunning());
        QVERIFY(!document.sweep());
        document.requestSweep();
        QVERIFY(document.waitForSweep());
        QTRY_COMPARE(ready.count(), 1);
        QVERIFY(document.sweep());
        QCOMPARE(document.sweep()->scenario.train.microBatch, edited.train.microBatch);
        const SweepBundle direct = FitMapWorker::compute(edited, 64);
        QCOMPARE(document.sweep()->fitMap.fits, direct.fitMap.fits);
        QCOMPARE(document.sweep()->batch.points.size(), direct.batch.points.size());
        // Asked again for the same plan: nothing new starts, nothing new arrives.
        document.requestSweep();
        QVERIFY(!document.sweepRunning());
        QTest::qWait(50);
        QCOMPARE(ready.count(), 1);
    }

    void theWindowUndoesAPanelEdit()
    {
        MainWindow window;
        auto* microBatch = window.panel()->findChild<QSpinBox*>(QStringLiteral("microBatch"));
        const int before = microBatch->value();
        microBatch->setValue(before + 2);
        window.replanNow();
        QVERIFY(window.isWindowModified());
        QCOMPARE(window.plan()->peakAllocatedBytes, plannedPeak(window.scenario()));
        QCOMPARE(window.scenario().train.microBatch, static_cast<std::uint64_t>(before + 2));

        // Edit > Undo, as the user finds it.
        QAction* undo = nullptr;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction* action : menu->menu()->actions())
                    if (action->shortcut() == QKeySequence(QKeySequence::Undo))
                        undo = action;
        QVERIFY(undo);
        QVERIFY(undo->isEnabled());
        undo->trigger();
        window.replanNow();
        QCOMPARE(microBatch->value(), before); // the panel follows
        QCOMPARE(window.scenario().train.microBatch, static_cast<std::uint64_t>(before));
        QCOMPARE(window.plan()->peakAllocatedBytes, plannedPeak(window.scenario()));
        QVERIFY(!window.isWindowModified());
        QVERIFY(!undo->isEnabled());
    }
};

QTEST_MAIN(TestUiDocument)
#include "test_ui_document.moc"
