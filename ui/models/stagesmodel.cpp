// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/stagesmodel.h"

#include "style/palette.h"
#include "text/memoryunits.h"

#include <QFont>
#include <QLocale>
#include <QStringList>

using namespace headroom;

StagesModel::StagesModel(QObject* parent) : QAbstractTableModel(parent) {}

void StagesModel::setPlan(const Plan& plan)
{
    beginResetModel();
    m_ranks = plan.ranks;
    m_worst = plan.worstRank;
    m_capacity = plan.capacityBytes;
    m_interleaved = plan.virtualStages > 1;
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

void StagesModel::clear()
{
    beginResetModel();
    m_ranks.clear();
    m_worst = 0;
    m_capacity = 0;
    m_interleaved = false;
    endResetModel();
}

void StagesModel::refresh()
{
    if (!m_ranks.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int StagesModel::worstRow() const { return m_worst < m_ranks.size() ? static_cast<int>(m_worst) : -1; }

QString StagesModel::layersText(const RankPlan& rank)
{
    const QLocale locale;
    if (rank.chunkLayers.empty())
        return locale.toString(static_cast<qulonglong>(rank.layers));
    QStringList chunks;
    for (std::uint64_t layers : rank.chunkLayers)
        chunks << locale.toString(static_cast<qulonglong>(layers));
    return chunks.join(QStringLiteral(" + "));
}

qlonglong StagesModel::headroomBytes(const RankPlan& rank) const
{
    // What is left of the capacity for display, as Plan::marginBytes is for the worst stage.
    return static_cast<qlonglong>(m_capacity) - static_cast<qlonglong>(rank.deviceUsedBytes);
}

int StagesModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_ranks.size());
}

int StagesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant StagesModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const RankPlan& rank = m_ranks[row];
    const bool worst = row == m_worst;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Stage:
            //: a pipeline stage's number in the Stages table, on the stage the other views show
            return worst ? tr("%1 (worst)").arg(rank.stage) : QString::number(rank.stage);
        case Layers: return layersText(rank);
        case InFlight: return QLocale().toString(static_cast<qulonglong>(rank.inFlightMicroBatches));
        case PeakAllocated: return MemoryUnits::format(static_cast<double>(rank.peakAllocatedBytes));
        case PeakReserved: return MemoryUnits::format(static_cast<double>(rank.peakReservedBytes));
        case DeviceUsed: return MemoryUnits::format(static_cast<double>(rank.deviceUsedBytes));
        case Headroom: return MemoryUnits::formatSigned(static_cast<double>(headroomBytes(rank)));
        }
        break;
    case Qt::UserRole:
        switch (index.column()) {
        case Stage: return QVariant::fromValue<qulonglong>(rank.stage);
        case Layers: return QVariant::fromValue<qulonglong>(rank.layers);
        case InFlight: return QVariant::fromValue<qulonglong>(rank.inFlightMicroBatches);
        case PeakAllocated: return QVariant::fromValue<qulonglong>(rank.peakAllocatedBytes);
        case PeakReserved: return QVariant::fromValue<qulonglong>(rank.peakReservedBytes);
        case DeviceUsed: return QVariant::fromValue<qulonglong>(rank.deviceUsedBytes);
        case Headroom: return headroomBytes(rank);
        }
        break;
    case WorstRole: return worst;
    case Qt::FontRole:
        if (worst) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == Headroom)
            return headroomBytes(rank) >= 0 ? Palette::fits() : Palette::outOfMemory();
        break;
    case Qt::ToolTipRole:
        if (worst)
            return tr("The stage with the most device memory used: the verdict and the other views show its plan");
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != Stage)
            return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant StagesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool tip = role == Qt::ToolTipRole;
    switch (section) {
    case Stage: return tip ? tr("Pipeline stage (pipeline-parallel rank)") : tr("Stage");
    case Layers:
        if (m_interleaved)
            return tip ? tr("Decoder layers of each of the stage's model chunks (virtual stages)") : tr("Layers");
        return tip ? tr("Decoder layers on this stage") : tr("Layers");
    case InFlight:
        if (m_interleaved)
            return tip ? tr("Chunk micro-batches whose activations the stage holds at once (one chunk's activations "
                            "of one micro-batch each; interleaved 1F1B)")
                       : tr("Chunk micro-batches in flight");
        return tip ? tr("Micro-batches whose activations the stage holds at once (1F1B: pp − stage, at most the step's "
                        "micro-batches; GPipe: all of them)")
                   : tr("Micro-batches in flight");
    case PeakAllocated: return tip ? tr("torch.cuda.max_memory_allocated on this stage") : tr("Peak allocated");
    case PeakReserved: return tip ? tr("torch.cuda.max_memory_reserved on this stage") : tr("Peak reserved");
    case DeviceUsed:
        return tip ? tr("Peak reserved plus what lives outside the allocator (the CUDA context), as nvidia-smi shows "
                        "it")
                   : tr("Device used");
    case Headroom:
        return tip ? tr("The GPU's capacity minus device used; negative when the stage does not fit") : tr("Headroom");
    default: return {};
    }
}
