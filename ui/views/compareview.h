// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Compare tab: up to four pinned scenarios side by side. One stacked bar
// per scenario (the breakdown chart's segments and colors), each GPU's
// capacity as a short line over its bar, and a table of device used,
// margin, verdict and the settings in which the scenarios differ. Every
// number is the engine's plan of the pinned scenario.
#include "plan/plan.h"

#include <QWidget>

#include <vector>

class QCPBars;
class QCPItemLine;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QPushButton;
class QTableWidget;

class CompareView : public QWidget {
    Q_OBJECT

public:
    static constexpr int kMaxPins = 4;

    struct Pin {
        QString name;
        headroom::Scenario scenario;
        headroom::Plan plan;
    };

    explicit CompareView(QWidget* parent = nullptr);

    // Pins a copy of `scenario` under `name` (empty: a name from its model and
    // key settings). Returns an empty string, or the translated reason it was
    // not pinned (four already, or the scenario does not plan).
    QString pin(const headroom::Scenario& scenario, const QString& name = QString());
    void unpin(int index);
    void rename(int index, const QString& name);
    const std::vector<Pin>& pins() const { return m_pins; }
    static QString defaultName(const headroom::Scenario& scenario);

    QCustomPlot* chart() const { return m_chart; }
    QTableWidget* table() const { return m_table; }
    // What the chart draws for pin `index`, segment `segment` (DeviceStack
    // order), converted back to bytes: the tests compare it with the plan.
    double drawnBytes(int index, int segment) const;
    void refresh();  // unit or language changed

signals:
    void pinsChanged();

protected:
    void changeEvent(QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void redraw();
    void fillTable();

    QCustomPlot* m_chart;
    QTableWidget* m_table;
    QLabel* m_hint;
    QPushButton* m_unpin;
    QVector<QCPBars*> m_bars;              // one per DeviceStack segment kind
    QVector<QCPItemLine*> m_capacityLines; // one per pin slot
    QVector<QCPItemText*> m_capacityLabels;
    QCPItemText* m_empty = nullptr;
    std::vector<Pin> m_pins;
    bool m_filling = false;
};
