// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Breakdown tab: the stacked bar at the peak beside the Explain panel
// for the segment clicked in it.
#include "charts/devicestack.h"
#include "plan/plan.h"

#include <QElapsedTimer>
#include <QWidget>

class BreakdownChart;
class QTimer;
class ExplainPanel;

class BreakdownView : public QWidget {
    Q_OBJECT

public:
    explicit BreakdownView(QWidget* parent = nullptr);

    void setPlan(const headroom::Plan& plan);
    void clearPlan();
    void selectSegment(const DeviceSegment& segment);
    void refresh();  // the unit changed

    BreakdownChart* chart() const { return m_chart; }
    ExplainPanel* explain() const { return m_explain; }

    // Edits closer together than this are one burst: while it lasts, the
    // automatically chosen category stays put (docs/benchmarks.md).
    static constexpr int kSettleMs = 250;

private:
    BreakdownChart* m_chart;
    ExplainPanel* m_explain;
    bool m_userChoseSegment = false;
    bool m_haveAutoSegment = false;
    DeviceSegment m_autoSegment;     // the largest category, as shown
    DeviceSegment m_pendingSegment;  // the largest category of the latest plan
    QElapsedTimer m_sinceLastPlan;
    QTimer* m_followLargest;
};
