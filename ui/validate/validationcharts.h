// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What a validation run measured, drawn beside the plan (the Validate tab's
// lower half, apart from running the child in ValidateView): a bar pair per
// category with the relative error above it, a table of the counters, and
// the measured memory per event over the planned timeline. Everything drawn
// comes from the run's report (VALIDATE-PROTOCOL.md); nothing is computed
// here but the error of two numbers it was given.
#include "validate/validationreport.h"

#include <QWidget>

#include <array>
#include <optional>

class QCPBars;
class QCPGraph;
class QCPItemText;
class QCustomPlot;
class QTableView;
class ValidationCountersModel;

class ValidationCharts : public QWidget {
    Q_OBJECT

public:
    explicit ValidationCharts(QWidget* parent = nullptr);

    void show(const ValidationReport& report);
    void clear();  // "no measurement yet"
    void retranslate();

    // An event label of the child ("forward layer 3") in the app's language.
    static QString shownEvent(const QString& label);

    // What is drawn, for tests: bar heights converted back to bytes, nothing when no bar is drawn.
    std::optional<double> plannedBarBytes(headroom::Category category) const;
    std::optional<double> measuredBarBytes(headroom::Category category) const;
    QString errorLabel(headroom::Category category) const;  // "+4.2 %" above a pair
    std::optional<double> measuredTimelineBytes(int event) const;
    std::optional<double> plannedTimelineBytes(int event) const;
    QTableView* table() const { return m_table; }
    ValidationCountersModel* counters() const { return m_counters; }
    QCustomPlot* barsChart() const { return m_bars; }
    QCustomPlot* timelineChart() const { return m_timeline; }

private:
    void drawBars(const ValidationReport& report);
    void drawTable(const ValidationReport& report);
    void drawTimeline(const ValidationReport& report);

    QCustomPlot* m_bars;
    ValidationCountersModel* m_counters;
    QTableView* m_table;
    QCustomPlot* m_timeline;
    QCPItemText* m_barsMessage = nullptr;
    QCPItemText* m_timelineMessage = nullptr;
    QCPItemText* m_oomLabel = nullptr;  // where an out-of-memory stopped the run
    QCPBars* m_plannedKey = nullptr;    // legend-only swatches: hatched planned, solid measured
    QCPBars* m_measuredKey = nullptr;
    QCPGraph* m_plannedLine = nullptr;
    QCPGraph* m_measuredLine = nullptr;
    std::array<QCPBars*, headroom::kCategoryCount> m_plannedBars{};
    std::array<QCPBars*, headroom::kCategoryCount> m_measuredBars{};
    std::array<QCPItemText*, headroom::kCategoryCount> m_errorLabels{};
};
