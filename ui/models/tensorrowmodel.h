// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The tensor rows of one category, as the Explain panel lists them: name
// (with its LayerBand, "[dense layers]" or "[MoE layers]", on a model whose
// first layers differ), bytes per instance, instances alive at the peak out
// of all instances, bytes at the peak, lifetime, and the row's source
// (formula and citation, carried by the engine). Rows alive at the peak come
// first, largest first.
#include "plan/plan.h"

#include <QAbstractTableModel>
#include <QVector>

class TensorRowModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { Name, PerInstance, Instances, AtPeak, Lifetime, ColumnCount };
    enum Role { SourceRole = Qt::UserRole + 1, BytesRole };  // BytesRole: the column's number, unformatted

    explicit TensorRowModel(QObject* parent = nullptr);

    void setRows(const headroom::Plan& plan, headroom::Category category);
    void clear();
    headroom::Bytes totalAtPeak() const { return m_totalAtPeak; }
    int liveRowCount() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    // Re-emits all data: the unit or the language changed.
    void refresh();

private:
    struct Row {
        headroom::TensorRow tensor;
        std::uint64_t instances = 0;
        std::uint64_t liveAtPeak = 0;
        headroom::Bytes bytesAtPeak = 0;
    };
    QVector<Row> m_rows;
    headroom::Bytes m_totalAtPeak = 0;
};
