// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// "Measured on your stack" (issue 16 §3): a headroom.measurement/1 file,
// written by the exported Hugging Face script (or the callback pasted into
// a user's own loop) after a real run, put beside Headroom's plan counter by
// counter, with the error. The same rows as `headroom-cli compare`
// (headroom::compareWithPlan). The plan is of the scenario the file says
// the run was made from; a file without one is compared with the current
// scenario, and follows its edits. A file that cannot be read leaves the
// previous comparison in place and says why.
#include "io/measurement.h"

#include <QGroupBox>

#include <optional>

class MeasurementModel;
class PlanDocument;
class QLabel;
class QPushButton;
class QTableView;

class MeasurementPanel : public QGroupBox {
    Q_OBJECT

public:
    explicit MeasurementPanel(QWidget* parent = nullptr);

    // The document whose scenario a file without its own is compared with.
    void setDocument(PlanDocument* document);

    // Without a dialog: an empty string on success, else the translated reason.
    QString importFile(const QString& path);
    void importDialog();
    void refresh();  // the unit changed

    // What is shown, for tests.
    MeasurementModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    QString sourceText() const;
    QString problemText() const;
    QPushButton* importButton() const { return m_importButton; }
    QPushButton* openScenarioButton() const { return m_openScenario; }

signals:
    // "Open the run's scenario": the window loads it as File > Open would.
    void scenarioRequested(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void compare();  // plans and fills the table from m_measurement
    void showProblem(const QString& text);

    PlanDocument* m_document = nullptr;
    std::optional<headroom::Measurement> m_measurement;
    QString m_path;
    MeasurementModel* m_model;
    QTableView* m_table;
    QLabel* m_intro;
    QLabel* m_source;
    QLabel* m_problem;
    QPushButton* m_importButton;
    QPushButton* m_openScenario;
};
