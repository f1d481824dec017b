// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU's capacity as a horizontal line across an axis rect, labelled on
// the rect's right axis ("Capacity / 23.64 GiB"): in the margin, the label
// never covers a bar or a curve, however the data falls.
#include <QString>

class QCPAxis;
class QCPAxisRect;
class QCPItemStraightLine;
class QCustomPlot;

class CapacityLine {
public:
    CapacityLine(QCustomPlot* plot, QCPAxisRect* rect);
    void set(double valueInUnit, const QString& label);
    void setVisible(bool visible);
    // "Capacity\n23.64 GiB": what a process can allocate on the GPU (plan.capacityBytes).
    static QString label(double capacityBytes);

private:
    QCPItemStraightLine* m_line;
    QCPAxis* m_axis;  // the rect's right axis, carrying only the capacity tick
};
