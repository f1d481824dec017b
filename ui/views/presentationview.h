// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Presentation mode, for class: full screen, large type, only the breakdown
// chart and the Explain panel. Left and Right step through the technique
// ladder of the current scenario (Right applies the next step, Left goes
// back, down to the scenario itself); Esc leaves. The ladder and every plan
// are the engine's (headroom::buildLadder).
#include "plan/ladder.h"

#include <QWidget>

#include <optional>
#include <vector>

class BreakdownView;
class QLabel;

class PresentationView : public QWidget {
    Q_OBJECT

public:
    explicit PresentationView(QWidget* parent = nullptr);

    // The scenario's plan (or why there is none) shown at position 0; the
    // steps of its ladder follow it (PlanDocument's plan and ladder).
    void setAnalyses(const headroom::Result<headroom::Plan>& plan,
                     const headroom::Result<std::vector<headroom::LadderStep>>& ladder);
    // -1: the scenario itself; 0..steps-1: that ladder step.
    int position() const { return m_position; }
    void setPosition(int position);
    int stepCount() const { return static_cast<int>(m_steps.size()); }
    const headroom::Plan* shownPlan() const;
    BreakdownView* breakdown() const { return m_view; }
    QString title() const;

signals:
    void closed();

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void showPosition();

    QLabel* m_title;
    QLabel* m_hint;
    BreakdownView* m_view;
    std::optional<headroom::Plan> m_plan;  // of the scenario itself
    std::vector<headroom::LadderStep> m_steps;
    QString m_error;
    int m_position = -1;
};
