// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/validationcountersmodel.h"

#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QFont>
#include <QLocale>

#include <cmath>

using namespace headroom;

ValidationCountersModel::ValidationCountersModel(QObject* parent) : QAbstractTableModel(parent) {}

std::optional<double> ValidationCountersModel::relativeError(double planned, double measured)
{
    // (measured − planned) / planned, as the counters' error is defined in
    // docs/validation: relative to the plan, signed so that + means the plan was low.
    if (planned <= 0)
        return std::nullopt;
    return (measured - planned) / planned;
}

QString ValidationCountersModel::percentText(std::optional<double> error)
{
    if (!error)
        return QStringLiteral("—");
    const double percent = *error * 100.0;
    const QString magnitude = QLocale().toString(std::abs(percent), 'f', 1) + QStringLiteral(" %");
    return (percent < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + magnitude;
}

void ValidationCountersModel::setReport(const ValidationReport& report)
{
    beginResetModel();
    m_rows.clear();
    m_compare = report.status == ValidationReport::Status::Ok;
    const bool measuredPeak = m_compare || report.measured.peakBytes > 0;
    m_rows.push_back({true, Category::Weights, report.planned.peakBytes,
                      measuredPeak ? std::optional<std::uint64_t>(report.measured.peakBytes) : std::nullopt});
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        const auto planned = report.planned.categories[c];
        const auto measured = report.measured.categories[c];
        if (planned.value_or(0) == 0 && measured.value_or(0) == 0)
            continue;
        m_rows.push_back({false, static_cast<Category>(c), planned, measured});
    }
    endResetModel();
}

void ValidationCountersModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

void ValidationCountersModel::refresh()
{
    if (!m_rows.empty()) {
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
    }
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int ValidationCountersModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ValidationCountersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ValidationCountersModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = m_rows[static_cast<std::size_t>(index.row())];
    const double p = static_cast<double>(row.planned.value_or(0));
    const double m = static_cast<double>(row.measured.value_or(0));
    const bool both = m_compare && row.planned && row.measured;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Planned: return row.planned ? MemoryUnits::format(p) : QStringLiteral("—");
        case Measured: return row.measured ? MemoryUnits::format(m) : QStringLiteral("—");
        case Difference: return both ? MemoryUnits::formatSigned(m - p) : QStringLiteral("—");
        case Error: return both ? percentText(relativeError(p, m)) : QStringLiteral("—");
        }
        break;
    case Qt::UserRole:
        switch (index.column()) {
        case Planned: return row.planned ? QVariant::fromValue<qulonglong>(*row.planned) : QVariant();
        case Measured: return row.measured ? QVariant::fromValue<qulonglong>(*row.measured) : QVariant();
        case Difference: return both ? QVariant(m - p) : QVariant();
        case Error: return both && relativeError(p, m) ? QVariant(*relativeError(p, m)) : QVariant();
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Planned && row.planned)
            return MemoryUnits::formatExact(*row.planned);
        if (index.column() == Measured && row.measured)
            return MemoryUnits::formatExact(*row.measured);
        break;
    case Qt::TextAlignmentRole: return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
        if (row.peak) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    default: break;
    }
    return {};
}

QVariant ValidationCountersModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= rowCount())
            return {};
        const Row& row = m_rows[static_cast<std::size_t>(section)];
        return row.peak ? QCoreApplication::translate("ValidationCharts", "Peak")
                        : DisplayNames::category(row.category);
    }
    switch (section) {
    case Planned: return QCoreApplication::translate("ValidationCharts", "Planned");
    case Measured: return QCoreApplication::translate("ValidationCharts", "Measured");
    case Difference: return QCoreApplication::translate("ValidationCharts", "Difference");
    case Error: return QCoreApplication::translate("ValidationCharts", "Error");
    default: return {};
    }
}
