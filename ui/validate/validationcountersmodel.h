// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A validation run's counters as a table: the peak first, then one row per
// category either side reports, with planned, measured, their difference
// and the error. Differences only for a step that ran to the end: a run
// stopped by an out-of-memory measured part of one. The numbers are the
// run's report (VALIDATE-PROTOCOL.md); Qt::UserRole gives the bytes.
// Kept beside the report it reads (validate/), not in models/, which sits
// below the report's floor.
#include "validate/validationreport.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

class ValidationCountersModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Planned, Measured, Difference, Error, ColumnCount };

    explicit ValidationCountersModel(QObject* parent = nullptr);

    void setReport(const ValidationReport& report);
    void clear();
    void refresh(); // the unit or the language changed

    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // "+4.2 %" / "−3.0 %" for (measured − planned) / planned; "—" without a plan.
    static QString percentText(std::optional<double> error);
    static std::optional<double> relativeError(double planned, double measured);

private:
    struct Row {
        bool peak = false;
        headroom::Category category = headroom::Category::Weights; // when not the peak
        std::optional<std::uint64_t> planned;
        std::optional<std::uint64_t> measured;
    };
    std::vector<Row> m_rows;
    bool m_compare = false; // the step ran to the end
};
