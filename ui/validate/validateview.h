// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Validate tab: runs the planned step for real in a child process
// (ValidationRunner), with its controls, progress and status, and shows what
// it measured beside the plan (ValidationCharts: bars per category, the
// counters, the timeline). Every failure of the child is a message in the
// view, never a dialog and never a crash. Below, a user's own measurement
// file beside the plan (MeasurementPanel).
#include "plan/scenario.h"
#include "validate/validationreport.h"
#include "validate/validationrunner.h"

#include <QWidget>

#include <optional>

class MeasurementPanel;
class ValidationCharts;
class QComboBox;
class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableView;

class ValidateView : public QWidget {
    Q_OBJECT

public:
    explicit ValidateView(QWidget* parent = nullptr);
    ~ValidateView() override;

    // The scenario a Run measures (the main window passes every re-plan).
    void setScenario(const headroom::Scenario& scenario);
    ValidationRunner* runner() const { return m_runner; }

    // Starts a run with the chosen engine and timeout (the Run button).
    void run();
    void cancel();
    bool isRunning() const;

    // Shows a result as if a run had just produced it (screenshots, tests).
    void showReport(const ValidationReport& report);
    // Reads a saved `validate --json` result; an empty string on success, else the translated reason.
    QString loadReportFile(const QString& path);
    // Re-labels for the current unit.
    void refresh();

    // What is shown, for tests.
    QString statusText() const;
    QString progressText() const;
    QString deviceText() const;
    int progressValue() const;  // 0..1000
    const std::optional<ValidationReport>& report() const { return m_report; }
    // Drawn bar heights converted back to bytes; nothing when no bar is drawn.
    std::optional<double> plannedBarBytes(headroom::Category category) const;
    std::optional<double> measuredBarBytes(headroom::Category category) const;
    // The error label drawn above a category's pair ("+4.2 %").
    QString errorLabel(headroom::Category category) const;
    std::optional<double> measuredTimelineBytes(int event) const;
    std::optional<double> plannedTimelineBytes(int event) const;
    QTableView* table() const;
    QCustomPlot* barsChart() const;
    QCustomPlot* timelineChart() const;
    QSpinBox* timeoutBox() const { return m_timeout; }
    QComboBox* backendBox() const { return m_backend; }
    QPushButton* runButton() const { return m_runButton; }
    QPushButton* cancelButton() const { return m_cancelButton; }
    // A user's own measurement file beside the plan (Import measurement…).
    MeasurementPanel* measurementPanel() const { return m_measurementPanel; }

protected:
    void changeEvent(QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void retranslate();
    void setRunning(bool running);
    void setStatus(const QString& text, const QColor& color);
    void onProgress(const ValidationProgress& progress);
    void onFinished(const ValidationReport& report);
    void onFailed(ValidationRunner::Failure failure, const QString& message);
    void onDevicesProbed(const QStringList& devices, const QString& problem);
    void updateStaleNote();
    void clearResult();
    void drawSummary();

    ValidationRunner* m_runner;
    MeasurementPanel* m_measurementPanel;
    QComboBox* m_backend;
    QLabel* m_backendLabel;
    QLabel* m_device;
    QLabel* m_timeoutLabel;
    QSpinBox* m_timeout;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progress;
    QLabel* m_status;
    QLabel* m_summary;
    ValidationCharts* m_charts;

    headroom::Scenario m_scenario;
    std::optional<headroom::Scenario> m_ranScenario;  // what the shown result measured
    std::optional<ValidationReport> m_report;
    // The last message and its kind, re-worded on a language change.
    QString m_statusMessage;
    bool m_probed = false;
    QStringList m_devices;
    QString m_deviceProblem;
};
