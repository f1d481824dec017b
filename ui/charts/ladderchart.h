// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The technique ladder as a waterfall: each step's device memory as a
// stacked bar in the palette's colors, the memory the step saved as a hatched
// block above it (down to where the previous step stood), the saving written
// on top, and the capacity line to show where the run starts to fit.
#include "plan/ladder.h"

#include <qcustomplot.h>

#include <memory>
#include <vector>

class CapacityLine;

class LadderChart : public QCustomPlot {
    Q_OBJECT

public:
    explicit LadderChart(QWidget* parent = nullptr);
    ~LadderChart() override;

    void setSteps(const std::vector<headroom::LadderStep>& steps);
    void setSelectedStep(int index);
    void refresh();

signals:
    void stepClicked(int index);

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    int stepAt(const QPointF& position) const;

    QVector<QCPBars*> m_bars;  // one per DeviceStack segment, bottom to top
    QCPBars* m_saving;         // the hatched block: what this step removed
    std::unique_ptr<CapacityLine> m_capacity;
    QVector<QCPItemText*> m_labels;
    QCPItemRect* m_selection;
    std::vector<headroom::LadderStep> m_steps;
    int m_selected = -1;
};
