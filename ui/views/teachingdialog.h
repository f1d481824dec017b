// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Teaching > Seed book: the book's polyglot-ko-1.3b experiment (chapter 5)
// beside Headroom's plan of each experiment (TeachingModel), with a button
// that loads the selected experiment's scenario into the main window.
#include "plan/scenario.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableView;
class TeachingModel;

class TeachingDialog : public QDialog {
    Q_OBJECT

public:
    explicit TeachingDialog(QWidget* parent = nullptr);

    TeachingModel* model() const { return m_model; }
    QTableView* table() const { return m_table; }
    // Emits scenarioRequested for `row`; false when the row has no scenario.
    bool loadRow(int row);

signals:
    void scenarioRequested(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();

    TeachingModel* m_model;
    QLabel* m_intro;
    QLabel* m_problem;
    QTableView* m_table;
    QPushButton* m_load;
    QPushButton* m_close;
};
