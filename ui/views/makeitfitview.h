// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The "Make it fit" tab: when the scenario does not fit its GPU, the
// engine's cheapest changes that make it fit (headroom::makeItFit), with the
// new device used, the margin and the estimated step-time cost; each entry
// can be applied to the configuration panel, and the last apply undone.
#include "plan/makeitfit.h"

#include <QWidget>

#include <optional>

class QLabel;
class QPushButton;
class QTableView;
class SuggestionModel;

class MakeItFitView : public QWidget {
    Q_OBJECT

public:
    explicit MakeItFitView(QWidget* parent = nullptr);

    // The suggestions for `scenario` (PlanDocument::suggestions(): headroom::makeItFit), or why there are none.
    void setSuggestions(const headroom::Scenario& scenario, const headroom::Result<headroom::MakeItFitResult>& result);
    void refresh();  // unit or language changed
    const std::optional<headroom::MakeItFitResult>& result() const { return m_result; }
    // What the Apply button of row `index` does.
    void applySuggestion(int index);
    QString summary() const;

signals:
    void applyScenario(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    void fill();

    QLabel* m_summary;
    SuggestionModel* m_model;
    QTableView* m_table;
    QPushButton* m_undo;
    QLabel* m_note;
    headroom::Scenario m_scenario;
    std::optional<headroom::MakeItFitResult> m_result;
    QString m_error;
    std::optional<headroom::Scenario> m_beforeApply;  // for "Undo apply"
};
