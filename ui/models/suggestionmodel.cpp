// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/suggestionmodel.h"

#include "style/palette.h"
#include "text/memoryunits.h"

#include <QLocale>
#include <QStringList>

#include <cmath>

using namespace headroom;

SuggestionModel::SuggestionModel(QObject* parent) : QAbstractTableModel(parent) {}

void SuggestionModel::setSuggestions(std::vector<FitSuggestion> suggestions)
{
    beginResetModel();
    m_suggestions = std::move(suggestions);
    endResetModel();
}

void SuggestionModel::refresh()
{
    if (!m_suggestions.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int SuggestionModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_suggestions.size());
}

int SuggestionModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SuggestionModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FitSuggestion& s = m_suggestions[static_cast<std::size_t>(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Change: {
            QStringList labels;
            for (const FitChange& c : s.changes)
                labels << changeLabel(c);
            QString text = labels.join(QStringLiteral(" + "));
            if (s.kind == ChangeKind::Method)
                text += QStringLiteral("  [") + tr("method") + QLatin1Char(']');
            else if (s.kind == ChangeKind::Task)
                text += QStringLiteral("  [") + tr("task") + QLatin1Char(']');
            return text;
        }
        case DeviceUsed: return MemoryUnits::format(static_cast<double>(s.deviceUsedBytes));
        case Margin: return MemoryUnits::formatSigned(static_cast<double>(s.marginBytes));
        case Cost: {
            const QLocale locale;
            const double percent = s.speedCost * 100;
            return std::abs(percent) < 0.5 ? tr("about the same")
                   : percent > 0           ? tr("%1 % slower").arg(locale.toString(percent, 'f', 0))
                                           : tr("%1 % faster").arg(locale.toString(-percent, 'f', 0));
        }
        default: break;
        }
        break;
    case Qt::UserRole:
        switch (index.column()) {
        case Change: return QString::fromStdString(s.label);
        case DeviceUsed: return QVariant::fromValue<qulonglong>(s.deviceUsedBytes);
        case Margin: return QVariant::fromValue<qlonglong>(s.marginBytes);
        case Cost: return s.speedCost;
        default: break;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Change) {
            QStringList reasons;
            for (const FitChange& c : s.changes)
                reasons << QStringLiteral("<b>%1</b>: %2")
                               .arg(changeLabel(c).toHtmlEscaped(), changeReason(c).toHtmlEscaped());
            return reasons.join(QStringLiteral("<br>"));
        }
        break;
    case Qt::ForegroundRole:
        if (index.column() == Margin)
            return Palette::fits();
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == DeviceUsed || index.column() == Margin || index.column() == Cost)
            return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant SuggestionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Change: return tr("Change");
    case DeviceUsed: return tr("Device used");
    case Margin: return tr("Margin");
    case Cost: return tr("Step time (est.)");
    case Apply: return QString();
    default: return {};
    }
}

QString SuggestionModel::changeLabel(const FitChange& c)
{
    const QLocale locale;
    const QString value = locale.toString(static_cast<qulonglong>(c.value));
    const TechniqueId id = c.technique;
    if (id == TechniqueId::Flash)
        return tr("flash attention");
    if (id == TechniqueId::Checkpointing)
        return tr("gradient checkpointing (every layer)");
    if (id == TechniqueId::CheckpointEvery)
        return tr("gradient checkpointing (one layer in %1)").arg(value);
    if (id == TechniqueId::ChunkedCe)
        return tr("chunked cross-entropy");
    if (id == TechniqueId::Bf16Mixed)
        return tr("bf16 mixed precision instead of fp32");
    if (id == TechniqueId::Fp16Mixed)
        return tr("fp16 mixed precision instead of fp32");
    if (id == TechniqueId::Bf16)
        return tr("pure bf16 weights and optimizer");
    if (id == TechniqueId::AdamW8bit)
        return tr("8-bit AdamW");
    if (id == TechniqueId::PagedAdamW8bit)
        return tr("paged 8-bit AdamW");
    if (id == TechniqueId::Lora)
        return tr("LoRA (r16, all linear layers)");
    if (id == TechniqueId::Qlora)
        return tr("QLoRA (NF4 base, r16, all linear layers)");
    if (id == TechniqueId::MicroBatch)
        return tr("micro-batch %1 with more accumulation").arg(value);
    if (id == TechniqueId::Zero2)
        return tr("ZeRO-2 sharding");
    if (id == TechniqueId::Zero3)
        return tr("ZeRO-3 / FSDP full sharding");
    if (id == TechniqueId::CpuOffload)
        return tr("CPU offload of the optimizer");
    if (id == TechniqueId::ActivationOffload)
        return tr("activation offload to CPU");
    if (id == TechniqueId::Sequence)
        return tr("sequence length %1").arg(value);
    if (id == TechniqueId::KvFp8)
        return tr("fp8 KV cache");
    if (id == TechniqueId::Int8Weights)
        return tr("int8 weights (LLM.int8)");
    if (id == TechniqueId::Nf4Weights)
        return tr("NF4 weights");
    if (id == TechniqueId::Batch)
        return tr("batch %1").arg(value);
    if (id == TechniqueId::Prompt)
        return tr("prompt length %1").arg(value);
    return QString::fromStdString(c.label);
}

QString SuggestionModel::changeReason(const FitChange& c)
{
    const TechniqueId id = c.technique;
    if (id == TechniqueId::Flash)
        return tr("Computes attention in tiles without storing the score matrix; faster as well (Dao et al. 2022).");
    if (id == TechniqueId::Checkpointing)
        return tr("Keeps only each layer's input and recomputes the rest in backward: about one extra forward pass, "
                  "+33% step time.");
    if (id == TechniqueId::CheckpointEvery)
        return tr("Recomputes some layers in backward: part of the saving of full checkpointing for part of its cost.");
    if (id == TechniqueId::ChunkedCe)
        return tr("Upcasts and differentiates the logits chunk by chunk instead of all at once; the loss is a small "
                  "part of the step.");
    if (id == TechniqueId::Bf16Mixed || id == TechniqueId::Fp16Mixed)
        return tr("Activations in 16 bits (half of fp32) and tensor-core matmuls: much faster.");
    if (id == TechniqueId::Bf16)
        return tr("No fp32 master weights: parameters, gradients and optimizer states in bf16. Small updates can round "
                  "away.");
    if (id == TechniqueId::AdamW8bit)
        return tr("Optimizer moments stored in 8 bits with block-wise scales instead of 32 bits.");
    if (id == TechniqueId::PagedAdamW8bit)
        return tr("8-bit moments in unified memory that pages to the CPU under pressure instead of failing.");
    if (id == TechniqueId::Lora)
        return tr("Trains small adapters over frozen weights: no gradients or optimizer states for the base weights.");
    if (id == TechniqueId::Qlora)
        return tr("LoRA over a 4-bit base: the frozen weights take about a quarter of bf16; dequantizing them slows "
                  "every matmul.");
    if (id == TechniqueId::MicroBatch)
        return tr("Fewer sequences at once, more accumulation steps: the same effective batch with smaller "
                  "activations; smaller matmuls use the GPU less well.");
    if (id == TechniqueId::Zero2)
        return tr("Each GPU keeps its share of the gradients and optimizer states; the same communication as data "
                  "parallelism.");
    if (id == TechniqueId::Zero3)
        return tr("Parameters sharded too and gathered layer by layer: 1.5× the communication of data parallelism.");
    if (id == TechniqueId::CpuOffload)
        return tr("Optimizer states (and the step) on the CPU: gradients and parameters cross PCIe every step.");
    if (id == TechniqueId::ActivationOffload)
        return tr("Saved activations wait in CPU memory until backward: PCIe transfers every step.");
    if (id == TechniqueId::Sequence || id == TechniqueId::Prompt)
        return tr("Shorter sequences change what the model learns (or reads): a last resort.");
    if (id == TechniqueId::KvFp8)
        return tr("Keys and values cached in 8 bits: half of bf16, converted inside the attention kernel.");
    if (id == TechniqueId::Int8Weights)
        return tr("Weights in 8 bits with outliers in 16: half of bf16; slower matmuls.");
    if (id == TechniqueId::Nf4Weights)
        return tr("Weights in 4 bits: about a quarter of bf16; dequantized in every matmul.");
    if (id == TechniqueId::Batch)
        return tr("Fewer sequences at once: a smaller KV cache and activations, fewer sequences per second.");
    return QString::fromStdString(c.reason);
}
