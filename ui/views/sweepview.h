// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Sweep tab: memory against micro-batch (left) and against sequence
// length (middle), everything else as configured. Stacked areas per category
// at each value's peak, device used as a line, the capacity, the current
// value and the largest value that fits (the engine's fit search); on the
// right the fit map, micro-batch × sequence length. The document computes
// them off the UI thread (PlanDocument::requestSweep); the view shows its
// progress and draws what it delivers.
#include "plan/knobsweep.h"

#include <qcustomplot.h>

#include <array>
#include <memory>

class CapacityLine;
class PlanDocument;
class QProgressBar;

class SweepView : public QCustomPlot {
    Q_OBJECT

public:
    explicit SweepView(PlanDocument* document, QWidget* parent = nullptr);
    ~SweepView() override;

    // Shows the document's sweeps for its current plan, asking for them
    // (and showing the progress) when they are not computed yet.
    void showCurrent();
    // Blocks (processing events) until the document's sweep is shown.
    bool waitForResult(int timeoutMs = 60000);
    bool busy() const;
    void refresh();
    const headroom::SweepResult& result(headroom::SweepAxis axis) const;
    const headroom::FitMap& fitMap() const { return m_fitMap; }
    QProgressBar* progressBar() const { return m_progress; }

protected:
    void changeEvent(QEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Panel {
        QCPAxisRect* rect = nullptr;
        QVector<QCPGraph*> layers;  // cumulative per category, bottom to top
        QCPGraph* deviceUsed = nullptr;
        std::unique_ptr<CapacityLine> capacity;
        QCPItemStraightLine* currentLine = nullptr;
        QCPItemText* currentLabel = nullptr;
        QCPItemStraightLine* fitLine = nullptr;
        QCPItemText* fitLabel = nullptr;
        QCPItemText* message = nullptr;
        headroom::SweepResult result;
    };

    void setUpPanel(Panel& panel, QCPAxisRect* rect, bool withLegend);
    void drawPanel(Panel& panel);
    QString axisTitle(const headroom::SweepResult& result) const;
    void setUpFitMap(QCPAxisRect* rect);
    void drawFitMap();
    void placeProgress();
    void showSweep();

    std::array<Panel, 2> m_panels;
    headroom::FitMap m_fitMap;
    QCPAxisRect* m_mapRect = nullptr;
    QCPColorMap* m_map = nullptr;
    QCPGraph* m_mapCurrent = nullptr;
    QCPItemText* m_mapMessage = nullptr;
    PlanDocument* m_document;
    QProgressBar* m_progress;
};
