// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The open scenario and everything derived from it, in one place (LAYOUT.md,
// after KDE heaptrack's model: one object runs the engine and emits typed
// results; views only listen). It owns the scenario, the file it came from,
// whether it changed since (the undo stack's clean state, so undoing back to
// the saved scenario is unmodified again), the plan or the reason there is
// none, and a revision number that views compare to know they are stale.
//
// Inputs write edits into it (edit()); each edit is one undo step, and the
// edits of one user action (a model change that moves several fields)
// coalesce into one plan and one step. Planning runs on the next turn of the
// event loop, or at once with planNow().
#include "core/result.h"
#include "document/fitmapworker.h"
#include "document/layoutsearchworker.h"
#include "plan/fitsearch.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <QObject>
#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

class QTimer;
class QUndoStack;

class PlanDocument : public QObject {
    Q_OBJECT

public:
    explicit PlanDocument(QObject* parent = nullptr);
    ~PlanDocument() override;

    const headroom::Scenario& scenario() const { return m_scenario; }
    // The plan of scenario(), once planned; empty when it does not plan (problem() says why).
    const std::optional<headroom::Plan>& plan() const { return m_plan; }
    const std::optional<headroom::Error>& problem() const { return m_problem; }
    // Increases with every plan; a view that showed an older revision is stale.
    std::uint64_t revision() const { return m_revision; }

    QString path() const { return m_path; }
    bool isModified() const;
    QUndoStack* undoStack() const { return m_undo; }

    // A user's edit: one undo step (merged with the other edits of the same
    // turn of the event loop), the document modified, a plan scheduled.
    void edit(const headroom::Scenario& scenario);
    // A new scenario (File > New, Open, a teaching row): no undo history,
    // unmodified, planned at once. `path` is the file it came from, or empty.
    void reset(const headroom::Scenario& scenario, const QString& path = QString());
    // The scenario was written to `path`: unmodified from here.
    void markSaved(const QString& path);

    // Plans now if an edit is pending (tests, screenshots, before reading plan()).
    void planNow();

    // Analyses of scenario() that plan dozens of variants, computed on first
    // use after each plan and kept until the next (the tabs that show them
    // ask when they are shown).
    using Ladder = headroom::Result<std::vector<headroom::LadderStep>>;
    using Suggestions = headroom::Result<headroom::MakeItFitResult>;
    const Ladder& ladder();
    const Suggestions& suggestions();

    // The sweeps and the fit map plan hundreds of variants: they run on a
    // worker thread (FitMapWorker). requestSweep() starts them for the
    // current plan unless they are done or running; sweepProgress() reports,
    // and sweepReady() says sweep() holds them. A new plan drops them, and a
    // run for an older plan never delivers.
    void requestSweep();
    const std::optional<SweepBundle>& sweep() const { return m_sweep; }
    bool sweepRunning() const;
    // Blocks, processing events, until the requested sweep is ready (tests,
    // screenshots). False after `timeoutMs`.
    bool waitForSweep(int timeoutMs = 60000);

    // The layout search (issue 15, the Search tab) runs on its own worker
    // thread (LayoutSearchWorker) the same way: requestSearch() starts it for
    // the current plan unless it is done or running (`again`: start over,
    // after a Cancel), cancelSearch() stops it early with what it found so
    // far, searchReady() says search() holds the outcome. A new plan drops it.
    void requestSearch(bool again = false);
    void cancelSearch();
    const std::optional<LayoutSearchOutcome>& search() const { return m_search; }
    bool searchRunning() const;
    bool waitForSearch(int timeoutMs = 60000);

    // The same for another scenario (a measurement's own, a pinned one, a
    // report's). The UI reaches the planner through this class only
    // (tests/ui/test_ui_layering.cpp checks it).
    static headroom::Result<headroom::Plan> planFor(const headroom::Scenario& scenario);
    static Ladder ladderFor(const headroom::Scenario& scenario);
    static Suggestions suggestionsFor(const headroom::Scenario& scenario);
    static headroom::Result<headroom::FitResult> largestMicroBatchFor(const headroom::Scenario& scenario);
    static headroom::Result<headroom::FitResult> longestSequenceFor(const headroom::Scenario& scenario);
    static headroom::Result<std::vector<headroom::ModelFitRow>> largestModelsFor(const headroom::Scenario& scenario);
    static LayoutSearchOutcome searchFor(const headroom::Scenario& scenario);

signals:
    // The scenario changed under the inputs (undo, redo, reset): they show it.
    void scenarioReplaced(const headroom::Scenario& scenario);
    // A new plan (or problem) for scenario(), revision() increased.
    void planChanged();
    void pathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void sweepProgress(int done, int total);
    void sweepReady();
    void searchProgress(int done, int total);
    void searchReady();

private:
    class EditCommand;
    void apply(const headroom::Scenario& scenario); // from the undo stack
    void schedulePlan();

    headroom::Scenario m_scenario;
    std::optional<headroom::Plan> m_plan;
    std::optional<headroom::Error> m_problem;
    std::uint64_t m_revision = 0;
    std::optional<Ladder> m_ladder;           // of m_revision, once asked for
    std::optional<Suggestions> m_suggestions; // of m_revision, once asked for
    std::optional<SweepBundle> m_sweep;       // of m_revision, once computed
    std::optional<std::uint64_t> m_sweepRequested; // the revision the running (or done) sweep is for
    FitMapWorker* m_sweeper;
    std::optional<LayoutSearchOutcome> m_search;    // of m_revision, once computed
    std::optional<std::uint64_t> m_searchRequested; // the revision the running (or done) search is for
    LayoutSearchWorker* m_searcher;
    QString m_path;
    QUndoStack* m_undo;
    QTimer* m_planTimer;
    bool m_editOpen = false;  // the current turn's edits merge into one undo step
    bool m_fromInput = false; // applying an edit the inputs made
};
