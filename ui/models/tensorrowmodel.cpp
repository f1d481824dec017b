// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/tensorrowmodel.h"

#include "plan/tensorlifetime.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QBrush>
#include <QGuiApplication>
#include <QLocale>
#include <QPalette>

#include <algorithm>

using namespace headroom;

TensorRowModel::TensorRowModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void TensorRowModel::setRows(const Plan& plan, Category category)
{
    QList<Row> rows;
    Bytes total = 0;
    for (const TensorRow& tensor : plan.tensors) {
        if (tensor.category != category || tensor.bytes == 0)
            continue;
        Row row{tensor, rowInstances(plan, tensor), rowInstancesLiveAt(plan, tensor, plan.peakEvent),
                rowBytesLiveAt(plan, tensor, plan.peakEvent)};
        total += row.bytesAtPeak;
        rows.append(row);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.bytesAtPeak != b.bytesAtPeak)
            return a.bytesAtPeak > b.bytesAtPeak;
        return a.tensor.bytes > b.tensor.bytes;
    });
    // An edit usually changes numbers, not which tensors there are: then the
    // rows are updated in place (dataChanged), and the view keeps its layout
    // and selection instead of rebuilding itself after a reset (bench_ui).
    const bool sameRows = rows.size() == m_rows.size() &&
                          std::equal(rows.begin(), rows.end(), m_rows.begin(), [](const Row& a, const Row& b) {
                              return a.tensor.name == b.tensor.name && a.tensor.band == b.tensor.band &&
                                     a.tensor.source == b.tensor.source;
                          });
    if (sameRows && !m_rows.isEmpty()) {
        m_rows = std::move(rows);
        m_totalAtPeak = total;
        emit dataChanged(index(0, 0), index(static_cast<int>(m_rows.size()) - 1, columnCount() - 1));
        return;
    }
    beginResetModel();
    m_rows = std::move(rows);
    m_totalAtPeak = total;
    endResetModel();
}

void TensorRowModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_totalAtPeak = 0;
    endResetModel();
}

int TensorRowModel::liveRowCount() const
{
    return static_cast<int>(std::count_if(m_rows.begin(), m_rows.end(), [](const Row& r) { return r.liveAtPeak > 0; }));
}

void TensorRowModel::refresh()
{
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int TensorRowModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(m_rows.size()); }

int TensorRowModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TensorRowModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row& row = m_rows[index.row()];
    const QLocale locale;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Name: {
            // A model whose first layers differ has a row of each name per
            // band (planner.cpp splits the table), alike but for their bytes:
            // the band tells them apart, as the CLI's --tensors does.
            const QString name = QString::fromUtf8(row.tensor.name);
            switch (row.tensor.band) {
            case LayerBand::Every: return name;
            //: a tensor row made only for the dense first layers of a model such as DeepSeek-V3; %1 its name
            case LayerBand::Dense: return tr("%1 [dense layers]").arg(name);
            //: a tensor row made only for the mixture-of-experts layers; %1 its name
            case LayerBand::Sparse: return tr("%1 [MoE layers]").arg(name);
            }
            return name;
        }
        case PerInstance: return MemoryUnits::format(static_cast<double>(row.tensor.bytes), 3);
        case Instances:
            //: live instances at the peak / all instances of the row
            return tr("%1 / %2").arg(locale.toString(static_cast<qulonglong>(row.liveAtPeak)),
                                     locale.toString(static_cast<qulonglong>(row.instances)));
        case AtPeak: return MemoryUnits::format(static_cast<double>(row.bytesAtPeak), 3);
        case Lifetime:
            if (row.tensor.madeAtEventEnd)
                //: a tensor's lifetime: allocated when the first event ends, freed after the second
                return tr("end of %1 → %2").arg(DisplayNames::phase(row.tensor.allocAt), DisplayNames::phase(row.tensor.freeAt));
            //: a tensor's lifetime: allocated at the first event, freed after the second
            return tr("%1 → %2").arg(DisplayNames::phase(row.tensor.allocAt), DisplayNames::phase(row.tensor.freeAt));
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == Instances) {
            if (row.tensor.layers == LayerSet::Global)
                return tr("a single instance");
            if (row.tensor.band != LayerBand::Every)
                //: %1 instances, %2 a set of layers ("kept layers"), %3 "dense layers" or "MoE layers"
                return tr("%1 instances, %2, %3").arg(row.instances).arg(DisplayNames::layerSet(row.tensor.layers))
                    .arg(row.tensor.band == LayerBand::Dense ? tr("dense layers") : tr("MoE layers"));
            //: e.g. "32 instances, each layer"
            return tr("%1 instances, %2").arg(row.instances).arg(DisplayNames::layerSet(row.tensor.layers));
        }
        if (index.column() == PerInstance || index.column() == AtPeak)
            return MemoryUnits::formatExact(index.column() == PerInstance ? row.tensor.bytes : row.bytesAtPeak);
        return QString::fromUtf8(row.tensor.source);
    case Qt::TextAlignmentRole:
        if (index.column() == PerInstance || index.column() == AtPeak)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        // Rows not alive at the peak exist in the step but add nothing to this bar.
        if (row.liveAtPeak == 0)
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        return {};
    case SourceRole: return QString::fromUtf8(row.tensor.source);
    case BytesRole:
        switch (index.column()) {
        case PerInstance: return QVariant::fromValue<qulonglong>(row.tensor.bytes);
        case AtPeak: return QVariant::fromValue<qulonglong>(row.bytesAtPeak);
        case Instances: return QVariant::fromValue<qulonglong>(row.liveAtPeak);
        }
        return {};
    }
    return {};
}

QVariant TensorRowModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name: return tr("Tensor");
    case PerInstance: return tr("Per instance");
    case Instances: return tr("Live");
    case AtPeak: return tr("At peak");
    case Lifetime: return tr("Lifetime");
    }
    return {};
}
