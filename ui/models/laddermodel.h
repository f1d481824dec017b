// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The technique ladder as a table: one row per step (the engine's
// LadderStep), with its device used, the memory it saved against the step
// before, and whether it fits. Formats only; Qt::UserRole gives raw values
// (bytes, the saving, fits as a bool).
#include "plan/ladder.h"

#include <QAbstractTableModel>

#include <vector>

class LadderModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Step, DeviceUsed, Saving, Verdict, ColumnCount };

    explicit LadderModel(QObject* parent = nullptr);

    void setSteps(std::vector<headroom::LadderStep> steps);
    const std::vector<headroom::LadderStep>& steps() const { return m_steps; }
    void refresh(); // the unit or the language changed

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<headroom::LadderStep> m_steps;
};
