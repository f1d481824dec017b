// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's planning aids, kept apart from its file and view
// plumbing: the Make it fit, Compare and Search tabs, the Pin action and
// presentation mode.
#include "shell/mainwindow.h"

#include "document/plandocument.h"
#include "inputs/scenariopanel.h"
#include "plan/ladder.h"
#include "views/compareview.h"
#include "views/ladderview.h"
#include "views/makeitfitview.h"
#include "views/presentationview.h"
#include "views/searchview.h"
#include "views/sweepview.h"
#include "views/teachingdialog.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>
#include <QTabWidget>

using namespace headroom;

void MainWindow::createPlanningViews()
{
    m_makeItFit = new MakeItFitView;
    m_compare = new CompareView;
    m_tabs->addTab(m_makeItFit, QString());
    m_tabs->addTab(m_compare, QString());
    m_search = new SearchView(m_document);
    m_tabs->addTab(m_search, QString());
    // Applying a suggestion or a searched layout is an edit like any other:
    // the window is modified, the plan follows, Edit > Undo takes it back.
    connect(m_makeItFit, &MakeItFitView::applyScenario, this, &MainWindow::applyEdit);
    connect(m_search, &SearchView::applyScenario, this, &MainWindow::applyEdit);
}

void MainWindow::createPlanningActions(QMenu* viewMenu)
{
    m_pinAction = viewMenu->addAction(QString(), this, [this] {
        const QString problem = pinScenario();
        statusBar()->showMessage(problem.isEmpty() ? tr("Pinned: %1").arg(m_compare->pins().back().name) : problem, 6000);
        if (problem.isEmpty())
            showView(View::Compare);
    });
    m_pinAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    m_presentAction = viewMenu->addAction(QString(), this, &MainWindow::startPresentation);
    m_presentAction->setShortcut(QKeySequence(Qt::Key_F5));
    viewMenu->addSeparator();
}

void MainWindow::retranslatePlanning()
{
    m_tabs->setTabText(static_cast<int>(View::MakeItFit), tr("Make it fit"));
    m_tabs->setTabText(static_cast<int>(View::Compare), tr("Compare"));
    m_tabs->setTabToolTip(static_cast<int>(View::MakeItFit),
                          tr("The cheapest changes, by their cost in speed, that make the scenario fit the GPU"));
    m_tabs->setTabToolTip(static_cast<int>(View::Compare), tr("Up to four pinned scenarios side by side"));
    m_tabs->setTabText(static_cast<int>(View::Search), tr("Search"));
    m_tabs->setTabToolTip(static_cast<int>(View::Search),
                          tr("The fastest tensor, pipeline and data-parallel layouts of the scenario's GPUs that fit"));
    m_pinAction->setText(tr("&Pin Scenario for Comparison"));
    m_pinAction->setStatusTip(tr("Add the current scenario to the Compare tab (up to four)"));
    m_presentAction->setText(tr("Presentation &Mode"));
    m_presentAction->setStatusTip(tr("Full screen, large type, chart and explanation only; arrow keys step through "
                                     "the ladder, Esc leaves"));
}

void MainWindow::refreshPlanningViews()
{
    m_makeItFit->refresh();
    m_compare->refresh();
    m_search->refresh();
}

QString MainWindow::pinScenario()
{
    m_document->planNow();
    if (!m_document->plan())
        return tr("Nothing to pin: the scenario does not plan.");
    return m_compare->pin(m_document->scenario());
}

void MainWindow::pinExamples()
{
    pinScenario();
    const auto& ladder = m_document->ladder();
    if (!ladder)
        return;
    for (std::size_t i : {std::size_t{0}, std::size_t{2}, std::size_t{4}})
        if (i < ladder->size())
            m_compare->pin((*ladder)[i].scenario);
}

void MainWindow::startPresentation()
{
    if (!m_presentation) {
        m_presentation = new PresentationView(this);
        connect(m_presentation, &PresentationView::closed, this, [this] { activateWindow(); });
    }
    m_document->planNow();
    m_presentation->setAnalyses(PlanDocument::planFor(m_document->scenario()), m_document->ladder());
    m_presentation->showFullScreen();
    m_presentation->activateWindow();
    m_presentation->setFocus();
}

bool MainWindow::waitForBackgroundWork(int timeoutMs)
{
    const bool swept = m_sweep->waitForResult(timeoutMs);
    return m_search->waitForResult(timeoutMs) && swept;
}

void MainWindow::openTeaching()
{
    // Loading a row replaces the configuration like File > Open does.
    auto* dialog = new TeachingDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &TeachingDialog::scenarioRequested, this, [this](const Scenario& s) {
        if (!maybeSave())
            return;
        m_document->reset(s); // a new, unsaved scenario, as File > New
        showView(View::Breakdown);
    });
    dialog->open();
}
