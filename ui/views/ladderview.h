// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Ladder tab: the study notes' exercise (start from a naive full
// fine-tune, then apply one technique after another and record the peak)
// for the current model, GPU and batch. Any step can be applied to the
// configuration, to continue from there.
#include "plan/ladder.h"

#include <QWidget>

#include <vector>

class LadderChart;
class QLabel;
class QPushButton;
class LadderModel;
class QTableView;

class LadderView : public QWidget {
    Q_OBJECT

public:
    explicit LadderView(QWidget* parent = nullptr);

    // Shows a ladder (PlanDocument::ladder(): buildLadder with the default
    // steps), or the reason there is none.
    void setLadder(const headroom::Result<std::vector<headroom::LadderStep>>& ladder);
    void refresh();
    const std::vector<headroom::LadderStep>& steps() const;
    LadderChart* chart() const { return m_chart; }
    void selectStep(int index);

signals:
    void applyScenario(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    void showIntro();
    void retranslate();

    LadderChart* m_chart;
    QLabel* m_intro;
    LadderModel* m_model;
    QTableView* m_table;
    QPushButton* m_apply;
    QString m_error;
};
