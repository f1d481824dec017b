// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The pipeline stages side by side: one stacked bar per stage of a
// tensor/pipeline/context-parallel plan (Plan::ranks), a segment per tensor
// category at that stage's peak (RankPlan::breakdown) in the palette's
// colors, drawn over the stage's device used (RankPlan::deviceUsedBytes), so
// what shows above the tensors is the allocator's cache and the CUDA context.
// The worst stage (Plan::worstRank), the one every other view shows, is
// outlined and labelled; the GPU's capacity is a line. Every number is the
// engine's; nothing is computed here.
#include "plan/plan.h"

#include <qcustomplot.h>

#include <memory>
#include <vector>

class CapacityLine;

class StagesChart : public QCustomPlot {
    Q_OBJECT

public:
    explicit StagesChart(QWidget* parent = nullptr);
    ~StagesChart() override;

    void setPlan(const headroom::Plan& plan);
    void clearPlan();
    void refresh(); // the unit, the language or the theme changed

    // What is drawn, converted back to bytes, for the tests: the stage at
    // `index` (its position in Plan::ranks) of one category, its device used,
    // and which stage carries the worst marker (-1: none).
    int stageCount() const { return static_cast<int>(m_ranks.size()); }
    double drawnBytes(int index, headroom::Category category) const;
    double drawnDeviceUsed(int index) const;
    int markedWorst() const;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int stageAt(const QPointF& position) const;
    static double drawn(const QCPBars* bars, int index);

    QCPBars* m_deviceUsed = nullptr; // behind the stack: device used, showing above the tensors
    QVector<QCPBars*> m_bars;        // one per category, bottom to top
    std::unique_ptr<CapacityLine> m_capacity;
    QCPItemRect* m_worstOutline = nullptr;
    QVector<QCPItemText*> m_labels;   // device used above each bar
    QCPItemText* m_message = nullptr; // "No plan" while the inputs are invalid
    std::vector<headroom::RankPlan> m_ranks;
    std::size_t m_worst = 0;
    headroom::Bytes m_capacityBytes = 0;
    bool m_hasPlan = false;
};
