// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/plandocument.h"

#include "plan/fitsearch.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "plan/planner.h"

#include <QCoreApplication>
#include <QTimer>
#include <QUndoCommand>
#include <QUndoStack>

using namespace headroom;

// One edit: the scenario before and after. Edits of one turn of the event
// loop merge (a model change moves the layers, the PEFT targets and the
// sequence length together; one undo takes them all back).
class PlanDocument::EditCommand : public QUndoCommand {
public:
    EditCommand(PlanDocument* document, Scenario before, Scenario after)
        : m_document(document), m_before(std::move(before)), m_after(std::move(after))
    {
        setText(QCoreApplication::translate("PlanDocument", "Edit scenario"));
    }
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        if (!m_document->m_editOpen || other->id() != id())
            return false;
        m_after = static_cast<const EditCommand*>(other)->m_after;
        return true;
    }
    void redo() override { m_document->apply(m_after); }
    void undo() override { m_document->apply(m_before); }

private:
    PlanDocument* m_document;
    Scenario m_before;
    Scenario m_after;
};

PlanDocument::PlanDocument(QObject* parent)
    : QObject(parent)
    , m_sweeper(new FitMapWorker(this))
    , m_searcher(new LayoutSearchWorker(this))
    , m_undo(new QUndoStack(this))
    , m_planTimer(new QTimer(this))
{
    connect(m_sweeper, &FitMapWorker::progress, this, &PlanDocument::sweepProgress);
    // The worker delivers only the latest start's result, and a new plan
    // cancels it (planNow), so what arrives is the current plan's.
    connect(m_sweeper, &FitMapWorker::finished, this, [this](const SweepBundle& bundle) {
        m_sweep = bundle;
        emit sweepReady();
    });
    connect(m_searcher, &LayoutSearchWorker::progress, this, &PlanDocument::searchProgress);
    connect(m_searcher, &LayoutSearchWorker::finished, this, [this](const LayoutSearchOutcome& outcome) {
        m_search = outcome;
        emit searchReady();
    });
    m_planTimer->setSingleShot(true);
    m_planTimer->setInterval(0);
    connect(m_planTimer, &QTimer::timeout, this, &PlanDocument::planNow);
    connect(m_undo, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

PlanDocument::~PlanDocument() = default;

bool PlanDocument::isModified() const { return !m_undo->isClean(); }

void PlanDocument::edit(const Scenario& scenario)
{
    // push() runs the command's redo(), which applies the scenario, whether
    // or not it then merges into the open step.
    m_fromInput = true;
    m_undo->push(new EditCommand(this, m_scenario, scenario));
    m_fromInput = false;
    m_editOpen = true;
}

void PlanDocument::apply(const Scenario& scenario)
{
    m_scenario = scenario;
    // Undo and redo come from the menu, not the inputs: the inputs follow.
    // An edit came from them, and they already show it.
    if (!m_fromInput)
        emit scenarioReplaced(m_scenario);
    schedulePlan();
}

void PlanDocument::reset(const Scenario& scenario, const QString& path)
{
    m_undo->clear();
    m_editOpen = false;
    m_scenario = scenario;
    emit scenarioReplaced(m_scenario);
    if (path != m_path) {
        m_path = path;
        emit pathChanged(m_path);
    }
    emit modifiedChanged(false);
    planNow();
}

void PlanDocument::markSaved(const QString& path)
{
    m_undo->setClean();
    if (path != m_path) {
        m_path = path;
        emit pathChanged(m_path);
    }
}

void PlanDocument::schedulePlan() { m_planTimer->start(); }

void PlanDocument::planNow()
{
    m_planTimer->stop();
    m_editOpen = false;
    auto result = makePlan(m_scenario);
    if (result) {
        m_plan = std::move(result).value();
        m_problem.reset();
    } else {
        // Never silently ignored: the views show the reason in place of the plan.
        m_plan.reset();
        m_problem = result.error();
    }
    m_ladder.reset();
    m_suggestions.reset();
    m_sweep.reset();
    if (m_sweepRequested) {
        m_sweeper->cancel();
        m_sweepRequested.reset();
    }
    m_search.reset();
    if (m_searchRequested) {
        m_searcher->drop();
        m_searchRequested.reset();
    }
    ++m_revision;
    emit planChanged();
}

const PlanDocument::Ladder& PlanDocument::ladder()
{
    if (m_planTimer->isActive())
        planNow();
    if (!m_ladder)
        m_ladder = ladderFor(m_scenario);
    return *m_ladder;
}

const PlanDocument::Suggestions& PlanDocument::suggestions()
{
    if (m_planTimer->isActive())
        planNow();
    if (!m_suggestions)
        m_suggestions = suggestionsFor(m_scenario);
    return *m_suggestions;
}

void PlanDocument::requestSweep()
{
    if (m_planTimer->isActive())
        planNow();
    if (m_sweepRequested == m_revision)
        return;  // done, or on its way
    m_sweepRequested = m_revision;
    m_sweeper->start(m_scenario);
}

bool PlanDocument::sweepRunning() const { return m_sweepRequested.has_value() && !m_sweep; }

bool PlanDocument::waitForSweep(int timeoutMs) { return m_sweep || m_sweeper->waitForResult(timeoutMs); }

void PlanDocument::requestSearch(bool again)
{
    if (m_planTimer->isActive())
        planNow();
    if (m_searchRequested == m_revision && !again)
        return; // done, or on its way
    m_search.reset();
    m_searchRequested = m_revision;
    m_searcher->start(m_scenario);
}

void PlanDocument::cancelSearch() { m_searcher->cancel(); }

bool PlanDocument::searchRunning() const { return m_searchRequested.has_value() && !m_search; }

bool PlanDocument::waitForSearch(int timeoutMs) { return m_search || m_searcher->waitForResult(timeoutMs); }

// The tensor, pipeline and data-parallel layouts of the scenario's GPUs, fastest first (engine/plan/layoutsearch.h).
LayoutSearchOutcome PlanDocument::searchFor(const Scenario& scenario) { return LayoutSearchWorker::compute(scenario); }

Result<Plan> PlanDocument::planFor(const Scenario& scenario) { return makePlan(scenario); }

// The study notes' exercise: from a naive full fine-tune, one technique after another (engine/plan/ladder.h).
PlanDocument::Ladder PlanDocument::ladderFor(const Scenario& scenario)
{
    return buildLadder(scenario, defaultLadder());
}

PlanDocument::Suggestions PlanDocument::suggestionsFor(const Scenario& scenario) { return makeItFit(scenario); }

// The fit searches (engine/plan/fitsearch.h): the largest value of one knob that still fits.
Result<FitResult> PlanDocument::largestMicroBatchFor(const Scenario& scenario) { return largestMicroBatch(scenario); }

Result<FitResult> PlanDocument::longestSequenceFor(const Scenario& scenario) { return longestSequence(scenario); }

Result<std::vector<ModelFitRow>> PlanDocument::largestModelsFor(const Scenario& scenario)
{
    return largestModels(scenario);
}
