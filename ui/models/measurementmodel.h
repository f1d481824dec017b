// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A measurement beside the plan, as a table: one row per counter the file
// reports (peak allocated, peak reserved, device used), with the planned
// bytes, the measured bytes and the error. The rows are the engine's
// (headroom::compareWithPlan, the same as `headroom-cli compare`); this model
// only formats them, in the current memory unit. Qt::UserRole gives the raw
// value of a cell (bytes, or the error in percent).
#include "io/measurement.h"

#include <QAbstractTableModel>

#include <vector>

class MeasurementModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Counter, Planned, Measured, Error, ColumnCount };

    explicit MeasurementModel(QObject* parent = nullptr);

    void setRows(std::vector<headroom::ComparisonRow> rows);
    const std::vector<headroom::ComparisonRow>& rows() const { return m_rows; }
    // The unit or the language changed: every cell is re-labelled.
    void refresh();

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // The counter as a user reads it, from the measurement's field name.
    static QString counterName(const std::string& key);

private:
    std::vector<headroom::ComparisonRow> m_rows;
};
