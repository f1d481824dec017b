// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The breakdown at the peak as one stacked bar: a segment per category in
// the palette's colors, then the allocator cache and the CUDA context, up to
// "device used"; the GPU's capacity as a line. Hovering a segment tells its
// bytes and share; clicking it selects it for the Explain panel.
#include "charts/devicestack.h"
#include "plan/plan.h"

#include <qcustomplot.h>

#include <memory>
#include <optional>

class CapacityLine;

class BreakdownChart : public QCustomPlot {
    Q_OBJECT

public:
    explicit BreakdownChart(QWidget* parent = nullptr);
    ~BreakdownChart() override;

    void setPlan(const headroom::Plan& plan);
    // The plan with a segment selected, in one replot.
    void setPlan(const headroom::Plan& plan, const DeviceSegment& selected);
    void clearPlan();
    void setSelectedSegment(const DeviceSegment& segment);
    // Re-labels for the current unit (the data is drawn in that unit).
    void refresh();

    // What is drawn for a segment, converted back to bytes: the tests check
    // it equals the plan's breakdown.
    double segmentBytes(const DeviceSegment& segment) const;
    QVector<DeviceSegment> segments() const { return m_segments; }

signals:
    void segmentClicked(const DeviceSegment& segment);

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    int barIndex(const QCPAbstractPlottable* plottable) const;
    void applySelection();

    QVector<QCPBars*> m_bars;           // one per DeviceStack segment, bottom to top
    QVector<DeviceSegment> m_segments;  // of the current plan
    std::unique_ptr<CapacityLine> m_capacity;
    QCPItemText* m_message = nullptr;  // "No plan" while the inputs are invalid
    std::optional<headroom::Plan> m_plan;
    DeviceSegment m_selected;
};
