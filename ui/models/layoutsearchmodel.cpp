// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/layoutsearchmodel.h"

#include "text/displaynames.h"
#include "text/memoryunits.h"
#include "text/searchtext.h"

#include <QFont>
#include <QLocale>

using namespace headroom;

LayoutSearchModel::LayoutSearchModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayoutSearchModel::setLayouts(std::vector<LayoutCandidate> layouts, Bytes capacityBytes)
{
    beginResetModel();
    m_layouts = std::move(layouts);
    m_capacityBytes = capacityBytes;
    m_currentRow = -1;
    endResetModel();
}

void LayoutSearchModel::setCurrentRow(int row)
{
    if (row == m_currentRow)
        return;
    const int before = m_currentRow;
    m_currentRow = row;
    for (int changed : {before, row})
        if (changed >= 0 && changed < rowCount())
            emit dataChanged(index(changed, 0), index(changed, ColumnCount - 1), {Qt::FontRole, Qt::ToolTipRole});
}

void LayoutSearchModel::refresh()
{
    if (!m_layouts.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int LayoutSearchModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_layouts.size());
}

int LayoutSearchModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LayoutSearchModel::display(const LayoutCandidate& c, int row, int column) const
{
    const QLocale locale;
    auto whole = [&locale](std::uint64_t n) { return locale.toString(static_cast<qulonglong>(n)); };
    switch (column) {
    case Rank: return whole(static_cast<std::uint64_t>(row) + 1);
    case Tp: return whole(c.tp);
    case Sp: return c.sp ? SearchText::tr("on") : QStringLiteral("–");
    //: pipeline stages × virtual stages (model chunks) per stage, interleaved 1F1B
    case Pp: return c.vpp > 1 ? tr("%1 × %2 virtual").arg(whole(c.pp), whole(c.vpp)) : whole(c.pp);
    case Cp: return whole(c.cp);
    //: data-parallel degree under HSDP: %1 the degree, %2 replicate groups of %3 sharding GPUs
    case Dp:
        return c.dpReplicate > 1
                   ? tr("%1 (%2 × %3)").arg(whole(c.dp), whole(c.dpReplicate), whole(c.dp / c.dpReplicate))
                   : whole(c.dp);
    case Sharding: return SearchText::shortSharding(c.sharding);
    case MicroBatch: return whole(c.microBatch);
    case GradAccum: return whole(c.gradAccum);
    case Checkpointing: return SearchText::shortCheckpointing(c.checkpointing);
    // One decimal: fifteen columns share the tab's width; the tooltip has two.
    case PeakReserved: return MemoryUnits::format(static_cast<double>(c.peakReservedBytes), 1);
    case DeviceUsed: return MemoryUnits::format(static_cast<double>(c.deviceUsedBytes), 1);
    case StepTime: return SearchText::seconds(c.time.stepSeconds);
    case TokensPerGpu: return locale.toString(c.time.tokensPerSecondPerGpu, 'f', 0);
    case Mfu: return SearchText::percent(c.time.mfu);
    case Bubble: return SearchText::percent(c.time.bubbleFraction);
    default: return {};
    }
}

QVariant LayoutSearchModel::raw(const LayoutCandidate& c, int row, int column) const
{
    switch (column) {
    case Rank: return row + 1;
    case Tp: return QVariant::fromValue<qulonglong>(c.tp);
    case Sp: return c.sp;
    case Pp: return QVariant::fromValue<qulonglong>(c.pp);
    case Cp: return QVariant::fromValue<qulonglong>(c.cp);
    case Dp: return QVariant::fromValue<qulonglong>(c.dp);
    case Sharding: return static_cast<int>(c.sharding);
    case MicroBatch: return QVariant::fromValue<qulonglong>(c.microBatch);
    case GradAccum: return QVariant::fromValue<qulonglong>(c.gradAccum);
    case Checkpointing: return static_cast<int>(c.checkpointing);
    case PeakReserved: return QVariant::fromValue<qulonglong>(c.peakReservedBytes);
    case DeviceUsed: return QVariant::fromValue<qulonglong>(c.deviceUsedBytes);
    case StepTime: return c.time.stepSeconds;
    case TokensPerGpu: return c.time.tokensPerSecondPerGpu;
    case Mfu: return c.time.mfu;
    case Bubble: return c.time.bubbleFraction;
    default: return {};
    }
}

QString LayoutSearchModel::toolTip(const LayoutCandidate& c, int column) const
{
    switch (column) {
    case Dp:
        if (c.dpReplicate < 2)
            return QString();
        //: %1 replicate groups, %2 GPUs sharding within each
        return tr("HSDP: %1 replicate groups of %2 GPUs; FSDP2 shards within a group, the groups all-reduce the "
                  "sharded gradients")
            .arg(c.dpReplicate)
            .arg(c.dp / c.dpReplicate);
    case Pp:
        if (c.vpp < 2)
            return QString();
        //: %1 pipeline stages, %2 model chunks on each
        return tr("%1 pipeline stages, each holding %2 model chunks: interleaved 1F1B, whose bubble is %2 times "
                  "smaller for %2 times the pipeline sends")
            .arg(c.pp)
            .arg(c.vpp);
    case Sharding: return DisplayNames::sharding(c.sharding);
    case Checkpointing: return DisplayNames::checkpointing(c.checkpointing);
    case PeakReserved:
    case DeviceUsed:
        //: %1 device used, %2 what the GPU can allocate, %3 the margin
        return tr("Device used %1 of %2: %3 to spare.")
                   .arg(MemoryUnits::format(static_cast<double>(c.deviceUsedBytes)),
                        MemoryUnits::format(static_cast<double>(m_capacityBytes)),
                        MemoryUnits::format(static_cast<double>(c.marginBytes))) +
               QLatin1Char(' ') +
               (c.reservedSimulated ? tr("Reserved memory from the caching allocator simulation.")
                                    : tr("Reserved memory from the quick estimate."));
    case StepTime: {
        const headroom::StepTime& t = c.time;
        auto where = [](bool interNode) { return interNode ? tr("between nodes") : tr("inside a node"); };
        QString text =
            tr("Computation %1 · tensor-parallel communication %2 (%3) · pipeline sends %4 (%5) · pipeline bubble "
               "%6 · data-parallel communication %7 (%8).")
                .arg(SearchText::seconds(t.computeSeconds), SearchText::seconds(t.tensorParallelSeconds),
                     where(t.tensorParallelInterNode), SearchText::seconds(t.pipelineSendSeconds),
                     where(t.pipelineInterNode), SearchText::seconds(t.bubbleSeconds),
                     SearchText::seconds(t.dataParallelSeconds), where(t.dataParallelInterNode));
        if (c.cp > 1)
            //: ring attention's key/value all-gathers and gradient reduce-scatters: %1 the time, %2 where they run
            text += QLatin1Char(' ') +
                    tr("Context-parallel communication %1 (%2).")
                        .arg(SearchText::seconds(t.contextParallelSeconds), where(t.contextParallelInterNode));
        if (t.expertParallelSeconds > 0)
            //: the MoE layers' token all-to-alls and expert tensor-parallel gathers: %1 the time, %2 where the all-to-alls run
            text += QLatin1Char(' ') +
                    tr("Expert-parallel communication %1 (%2).")
                        .arg(SearchText::seconds(t.expertParallelSeconds), where(t.expertParallelInterNode));
        return text + QLatin1Char(' ') + tr("No overlap is assumed: the step is their sum.");
    }
    default: return QString();
    }
}

QVariant LayoutSearchModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row(), column = index.column();
    const LayoutCandidate& c = m_layouts[static_cast<std::size_t>(row)];
    switch (role) {
    case Qt::DisplayRole: return display(c, row, column);
    case Qt::UserRole: return raw(c, row, column);
    case Qt::ToolTipRole: {
        QString tip = toolTip(c, column);
        if (row == m_currentRow)
            tip = tip.isEmpty() ? tr("The scenario's layout now")
                                : tr("The scenario's layout now") + QLatin1Char('\n') + tip;
        return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
    case Qt::FontRole:
        if (row == m_currentRow) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        break;
    case Qt::TextAlignmentRole:
        if (column != Sharding && column != Checkpointing)
            return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant LayoutSearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool tip = role == Qt::ToolTipRole;
    switch (section) {
    case Rank: return tip ? tr("Rank by estimated step time") : QStringLiteral("#");
    case Tp:
        return tip ? tr("Tensor-parallel degree: GPUs that split each layer's matrices (inside a node)") : tr("TP");
    case Sp:
        return tip ? tr("Sequence parallelism: norms and dropout split along the sequence over the tensor-parallel "
                        "GPUs")
                   : tr("SP");
    case Pp: return tip ? tr("Pipeline-parallel degree: stages the layers are split into") : tr("PP");
    case Cp:
        return tip ? tr("Context-parallel degree: GPUs that split each sequence, attention running as a ring (FSDP2 "
                        "shards over them too)")
                   : tr("CP");
    case Dp:
        return tip ? tr("Data-parallel degree: model replicas, each with its share of the global batch") : tr("DP");
    case Sharding:
        return tip ? tr("How the data-parallel replicas share the optimizer state, gradients and parameters")
                   : tr("Sharding");
    case MicroBatch: return tip ? tr("Sequences per micro-batch") : tr("Micro-\nbatch");
    case GradAccum: return tip ? tr("Micro-batches per step on each replica (gradient accumulation)") : tr("Accum.");
    case Checkpointing: return tip ? tr("Activation (gradient) checkpointing") : tr("Checkpointing");
    case PeakReserved: return tip ? tr("PyTorch's max_memory_reserved on the fullest GPU") : tr("Peak\nreserved");
    case DeviceUsed:
        if (tip)
            return tr("Device memory as nvidia-smi shows it, CUDA context included, on the fullest GPU");
        //: column header on two lines: device memory used, over what the GPU can allocate
        return tr("Device used\nof %1").arg(MemoryUnits::format(static_cast<double>(m_capacityBytes), 1));
    case StepTime:
        return tip ? tr("Estimated time of one optimizer step (hover a row for its terms)") : tr("Step\ntime");
    case TokensPerGpu: return tip ? tr("Training tokens per second per GPU, by the estimate") : tr("Tokens/s\nper GPU");
    case Mfu:
        return tip ? tr("Model FLOPs utilization: model FLOPs per second over the GPU's dense bf16 peak (PaLM's "
                        "definition, no recomputation)")
                   : tr("MFU");
    case Bubble:
        return tip ? tr("Pipeline bubble: the share of the step pipeline stages wait, (pp − 1) / (micro-batches + pp − "
                        "1)")
                   : tr("Bubble");
    default: return {};
    }
}
