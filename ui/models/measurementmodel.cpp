// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/measurementmodel.h"

#include "text/memoryunits.h"

#include <QLocale>

using namespace headroom;

MeasurementModel::MeasurementModel(QObject* parent) : QAbstractTableModel(parent) {}

void MeasurementModel::setRows(std::vector<ComparisonRow> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

void MeasurementModel::refresh()
{
    if (!m_rows.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int MeasurementModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MeasurementModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString MeasurementModel::counterName(const std::string& key)
{
    if (key == "max_memory_allocated_bytes")
        return tr("Peak allocated");
    if (key == "max_memory_reserved_bytes")
        return tr("Peak reserved");
    if (key == "device_used_bytes")
        return tr("Device used");
    return QString::fromStdString(key);
}

QVariant MeasurementModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ComparisonRow& row = m_rows[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Counter: return counterName(row.key);
        case Planned: return MemoryUnits::format(static_cast<double>(row.planned));
        case Measured: return MemoryUnits::format(static_cast<double>(row.measured));
        case Error:
            //: relative error of the plan against the measurement, e.g. "+4.2 %"
            return tr("%1 %").arg(QLocale().toString(row.errorPercent, 'f', 1).prepend(
                row.errorPercent >= 0 ? QStringLiteral("+") : QString()));
        }
        break;
    case Qt::UserRole:
        switch (index.column()) {
        case Counter: return QString::fromStdString(row.key);
        case Planned: return QVariant::fromValue<qulonglong>(row.planned);
        case Measured: return QVariant::fromValue<qulonglong>(row.measured);
        case Error: return row.errorPercent;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Counter)
            return tr("The measurement's field %1").arg(QString::fromStdString(row.key));
        if (index.column() == Error)
            return tr("(planned − measured) / measured: positive means Headroom predicted more");
        return MemoryUnits::formatExact(index.column() == Planned ? row.planned : row.measured);
    case Qt::TextAlignmentRole:
        if (index.column() != Counter)
            return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant MeasurementModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Counter: return tr("Counter");
    case Planned: return tr("Planned");
    case Measured: return tr("Measured");
    case Error: return tr("Error");
    default: return {};
    }
}
