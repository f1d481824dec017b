// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Stages tab (issue 15): the pipeline stages of a tensor/pipeline/
// context-parallel layout side by side, as a stacked bar per stage against
// the GPU's capacity (StagesChart) and a table of each stage's layers,
// micro-batches in flight, counters and headroom (StagesModel), the worst
// stage marked in both. Without such a layout every GPU holds the same plan,
// and the tab says where to set one.
#include "plan/plan.h"

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;
class StagesChart;
class StagesModel;

class StagesView : public QWidget {
    Q_OBJECT

public:
    explicit StagesView(QWidget* parent = nullptr);

    void setPlan(const headroom::Plan& plan);
    void clearPlan(); // the scenario does not plan
    void refresh();   // the unit or the theme changed

    StagesChart* chart() const { return m_chart; }
    StagesModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // True while the chart and the table show stages; false while the tab
    // explains that the plan has none (singleGpuMessage()), or has no plan.
    bool showsStages() const;
    // The text shown when the plan has no stages (tp = pp = cp = 1).
    static QString singleGpuMessage();
    QString summary() const; // the line above the table

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    StagesChart* m_chart;
    StagesModel* m_model;
    QTableView* m_table;
    QLabel* m_summary;
    QLabel* m_single; // the page shown instead when the plan has no stages
    QStackedWidget* m_pages;
    enum class Shown { NoPlan, SingleGpu, Stages };
    Shown m_shown = Shown::NoPlan;
    // For the summary line: the layout and the worst stage of the plan shown.
    std::uint64_t m_tp = 1, m_pp = 1, m_dp = 1, m_cp = 1, m_vpp = 1, m_worstStage = 0;
    std::uint64_t m_ep = 1, m_etp = 0; // Plan::expertParallel, Plan::expertTensorParallel (0: no experts)
};
