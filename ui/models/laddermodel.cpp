// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/laddermodel.h"

#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

using namespace headroom;

LadderModel::LadderModel(QObject* parent) : QAbstractTableModel(parent) {}

void LadderModel::setSteps(std::vector<LadderStep> steps)
{
    beginResetModel();
    m_steps = std::move(steps);
    endResetModel();
}

void LadderModel::refresh()
{
    if (!m_steps.empty())
        emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    emit headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

int LadderModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_steps.size());
}

int LadderModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant LadderModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<std::size_t>(index.row());
    const LadderStep& step = m_steps[row];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case Step: return DisplayNames::ladderStep(step.technique, step.label);
        case DeviceUsed: return MemoryUnits::format(static_cast<double>(step.plan.deviceUsedBytes));
        case Saving:
            if (row == 0)
                return QString();
            if (step.savingBytes == 0)
                return tr("no change");
            if (step.cacheOnly)
                //: a saving (or cost) that comes from the allocator's cache alone; %1 e.g. "+0.65 GiB"
                return tr("%1 (cache)").arg(MemoryUnits::formatSigned(-static_cast<double>(step.savingBytes)));
            return MemoryUnits::formatSigned(-static_cast<double>(step.savingBytes));
        case Verdict: return step.plan.fits ? tr("fits") : tr("out of memory");
        }
        break;
    case Qt::UserRole:
        switch (index.column()) {
        case Step: return QString::fromLatin1(techniqueName(step.technique));
        case DeviceUsed: return QVariant::fromValue<qulonglong>(step.plan.deviceUsedBytes);
        case Saving: return QVariant::fromValue<qlonglong>(step.savingBytes);
        case Verdict: return step.plan.fits;
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == Step)
            return QString::fromStdString(step.label);
        if (index.column() == Saving && step.cacheOnly)
            return tr("Only the allocator's cache changes: the peak of allocated memory is the same as the step "
                      "before.");
        break;
    case Qt::ForegroundRole:
        if (index.column() == Verdict)
            return step.plan.fits ? Palette::fits() : Palette::outOfMemory();
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == DeviceUsed || index.column() == Saving)
            return QVariant::fromValue<int>(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default: break;
    }
    return {};
}

QVariant LadderModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Step: return tr("Step");
    case DeviceUsed: return tr("Device used");
    case Saving: return tr("Saving");
    case Verdict: return tr("Verdict");
    default: return {};
    }
}
