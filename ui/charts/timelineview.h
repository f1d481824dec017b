// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Memory over one step: the plan's timeline (bytes per category at each
// event) as stacked columns, the peak event marked, the capacity as a line.
// The shape teaches what the breakdown cannot: activations pile up through
// forward, peak around the loss, and drain through backward.
#include "plan/plan.h"

#include <qcustomplot.h>

#include <memory>
#include <optional>

class CapacityLine;

class TimelineView : public QCustomPlot {
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);
    ~TimelineView() override;

    void setPlan(const headroom::Plan& plan);
    void clearPlan();
    void refresh();

    // Drawn bytes of a category at an event (tests compare with plan.timeline).
    double drawnBytes(headroom::Category category, std::size_t event) const;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void updateTicks(const headroom::Plan& plan);

    QVector<QCPBars*> m_bars;  // one per category, bottom to top
    std::unique_ptr<CapacityLine> m_capacity;
    QCPItemStraightLine* m_peakLine;
    QCPItemText* m_peakLabel;
    QCPItemText* m_message = nullptr;  // "No plan" while the inputs are invalid
    std::optional<headroom::Plan> m_plan;
};
