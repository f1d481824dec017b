// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Search tab (issue 15): the engine's layout search of the scenario's
// GPUs (engine/plan/layoutsearch.h), which the document runs off the UI
// thread (PlanDocument::requestSearch). While it runs: a progress bar and
// Cancel. Then the best layouts in a table (LayoutSearchModel), why #1 beats
// #2, the search's counts and its assumptions, or the engine's reason there
// is no search. Apply puts the selected row's layout into the scenario as
// an edit like any other.
#include "plan/scenario.h"

#include <QWidget>

class LayoutSearchModel;
class PlanDocument;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

class SearchView : public QWidget {
    Q_OBJECT

public:
    explicit SearchView(PlanDocument* document, QWidget* parent = nullptr);

    // Shows the document's search for its current plan, asking for it (and
    // showing the progress) when it is not done yet: the tab was shown.
    void showCurrent();
    // Blocks (processing events) until the requested search is shown.
    bool waitForResult(int timeoutMs = 60000);
    void refresh(); // unit or language changed
    // What Cancel, Search again and Apply do.
    void cancel();
    void searchAgain();
    void applyRow(int row);

    QString headline() const;
    QString why() const;
    QString details() const; // counts, refusals and assumptions
    LayoutSearchModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QProgressBar* progressBar() const { return m_progress; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* searchAgainButton() const { return m_again; }
    QPushButton* applyButton() const { return m_apply; }

signals:
    void applyScenario(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void showRunning();
    void showOutcome(); // the document's search, or its error
    void showTable(bool shown);
    void markCurrentLayout();
    void updateApply();

    PlanDocument* m_document;
    QLabel* m_headline;
    QProgressBar* m_progress;
    QPushButton* m_cancel;
    QPushButton* m_again;
    LayoutSearchModel* m_model;
    QTableView* m_table;
    QLabel* m_why;
    QLabel* m_counts;
    QLabel* m_assumptions;
    QPushButton* m_apply;
};
