// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The answer first: does it fit, by how much, and the three counters the
// pytorch profile predicts (peak allocated, peak reserved, device used as
// nvidia-smi shows it). Above every view.
#include "plan/plan.h"
#include "plan/scenario.h"

#include <QColor>
#include <QWidget>

#include <optional>

class QLabel;

class VerdictBar : public QWidget {
    Q_OBJECT

public:
    explicit VerdictBar(QWidget* parent = nullptr);

    void setPlan(const headroom::Scenario& scenario, const headroom::Plan& plan);
    // No plan: the planner refused the inputs; `message` says why.
    void setProblem(const QString& message);
    QString verdictText() const;
    void refresh();

protected:
    void changeEvent(QEvent* event) override;

private:
    void setVerdictColor(const QColor& color);
    QLabel* addCounter(const QString& objectName);
    void setCounter(QLabel* counter, const QString& caption, double bytes, const QString& toolTip);

    QLabel* m_summary;
    QLabel* m_verdict;
    QLabel* m_peak;
    QLabel* m_notes;
    QLabel* m_allocated;
    QLabel* m_reserved;
    QLabel* m_deviceUsed;
    std::optional<std::pair<headroom::Scenario, headroom::Plan>> m_current;
    QString m_problem;
};
