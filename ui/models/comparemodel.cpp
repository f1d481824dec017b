// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/comparemodel.h"

#include "plan/gpucatalog.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <QStringList>

#include <functional>

using namespace headroom;

namespace {

QString gpuNameOf(const Scenario& s)
{
    auto gpu = findGpu(s.hardware.gpu);
    QString name = gpu ? QString::fromStdString(gpu->name) : QString::fromStdString(s.hardware.gpu);
    name.remove(QStringLiteral("NVIDIA ")).remove(QStringLiteral("GeForce "));
    return s.hardware.count > 1 ? QStringLiteral("%1× %2").arg(s.hardware.count).arg(name) : name;
}

QString shortModelOf(const Scenario& s)
{
    const QString id = QString::fromStdString(s.model.id);
    return id.isEmpty() ? QStringLiteral("model") : id.section(QLatin1Char('/'), -1);
}

// The model-parallel layout in the planner's own notation (tp, pp, vpp, cp:
// the flags' names, not translated), "none" when every GPU holds the whole
// model; HSDP's replicate groups too.
QString layoutOf(const Scenario& s)
{
    const ParallelConfig& p = s.hardware.parallel;
    QStringList parts;
    if (p.tp > 1)
        parts << (p.sp ? QStringLiteral("tp %1 + sp").arg(p.tp) : QStringLiteral("tp %1").arg(p.tp));
    if (p.pp > 1)
        parts << (p.vpp > 1 ? QStringLiteral("pp %1 (vpp %2)").arg(p.pp).arg(p.vpp)
                            : QStringLiteral("pp %1").arg(p.pp));
    if (p.cp > 1)
        parts << QStringLiteral("cp %1").arg(p.cp);
    if (p.asyncTp)
        parts << QStringLiteral("AsyncTP");
    if (p.dpReplicate > 1)
        parts << QStringLiteral("HSDP %1").arg(p.dpReplicate);
    return parts.isEmpty() ? QCoreApplication::translate("CompareView", "none") : parts.join(QStringLiteral(" × "));
}

// The rows of the settings table: a name and the value of one scenario.
struct Setting {
    const char* name;
    std::function<QString(const Scenario&)> value;
};

QString yesNo(bool b)
{
    return b ? QCoreApplication::translate("CompareView", "yes") : QCoreApplication::translate("CompareView", "no");
}

const std::vector<Setting>& settings()
{
    static const std::vector<Setting> list{
        {QT_TRANSLATE_NOOP("CompareView", "Model"), [](const Scenario& s) { return shortModelOf(s); }},
        {QT_TRANSLATE_NOOP("CompareView", "GPU"), [](const Scenario& s) { return gpuNameOf(s); }},
        {QT_TRANSLATE_NOOP("CompareView", "Mode"), [](const Scenario& s) { return DisplayNames::mode(s.mode); }},
        {QT_TRANSLATE_NOOP("CompareView", "Sharding"),
         [](const Scenario& s) { return DisplayNames::sharding(s.hardware.sharding); }},
        {QT_TRANSLATE_NOOP("CompareView", "Parallel layout"), [](const Scenario& s) { return layoutOf(s); }},
        {QT_TRANSLATE_NOOP("CompareView", "CPU offload"),
         [](const Scenario& s) { return yesNo(s.hardware.cpuOffload); }},
        {QT_TRANSLATE_NOOP("CompareView", "Precision"),
         [](const Scenario& s) {
             return DisplayNames::precision(s.mode == Mode::Train ? s.train.precision : s.inference.precision);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Weights"),
         [](const Scenario& s) {
             return DisplayNames::weightQuant(s.mode == Mode::Train ? s.train.weightQuant : s.inference.weightQuant);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Fine-tuning"),
         [](const Scenario& s) {
             return s.mode != Mode::Train                     ? QString()
                    : s.train.peft.method == PeftMethod::None ? DisplayNames::peftMethod(s.train.peft.method)
                                                              : QStringLiteral("%1 r%2")
                                                                    .arg(DisplayNames::peftMethod(s.train.peft.method))
                                                                    .arg(s.train.peft.rank);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Optimizer"),
         [](const Scenario& s) {
             return s.mode == Mode::Train ? DisplayNames::optimizer(s.train.optimizer) : QString();
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Micro-batch × sequence"),
         [](const Scenario& s) {
             return s.mode == Mode::Train
                        ? QStringLiteral("%1 × %2").arg(s.train.microBatch).arg(s.train.seqLen)
                        : QStringLiteral("%1 × %2").arg(s.inference.batch).arg(s.inference.promptTokens);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Accumulation"),
         [](const Scenario& s) { return s.mode == Mode::Train ? QString::number(s.train.gradAccum) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Checkpointing"),
         [](const Scenario& s) {
             return s.mode != Mode::Train ? QString()
                    : s.train.checkpointing == Checkpointing::EveryK
                        ? QStringLiteral("%1 (k = %2)")
                              .arg(DisplayNames::checkpointing(s.train.checkpointing))
                              .arg(s.train.checkpointEvery)
                        : DisplayNames::checkpointing(s.train.checkpointing);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Attention"),
         [](const Scenario& s) {
             return DisplayNames::attention(s.mode == Mode::Train ? s.train.attention : s.inference.attention);
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Chunked cross-entropy"),
         [](const Scenario& s) { return s.mode == Mode::Train ? yesNo(s.train.chunkedCrossEntropy) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Activation offload"),
         [](const Scenario& s) { return s.mode == Mode::Train ? yesNo(s.train.activationOffload) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Compiled layers"),
         [](const Scenario& s) { return s.mode == Mode::Train ? yesNo(s.train.compileLayers) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Compiled loss"),
         [](const Scenario& s) { return s.mode == Mode::Train ? yesNo(s.train.compileLoss) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "KV cache"),
         [](const Scenario& s) {
             return s.mode == Mode::Inference ? DisplayNames::kvCacheDtype(s.inference.kvCacheDtype) : QString();
         }},
        {QT_TRANSLATE_NOOP("CompareView", "New tokens"),
         [](const Scenario& s) {
             return s.mode == Mode::Inference ? QString::number(s.inference.newTokens) : QString();
         }},
        {QT_TRANSLATE_NOOP("CompareView", "Profile"),
         [](const Scenario& s) { return DisplayNames::profile(s.profile); }},
    };
    return list;
}

} // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

QString CompareModel::shortModel(const Scenario& scenario) { return shortModelOf(scenario); }

QString CompareModel::gpuName(const Scenario& scenario) { return gpuNameOf(scenario); }

void CompareModel::setPins(const std::vector<Pin>& pins)
{
    beginResetModel();
    m_pins = pins;
    findDifferences();
    endResetModel();
}

void CompareModel::findDifferences()
{
    m_differing.clear();
    const auto& list = settings();
    for (std::size_t s = 0; s < list.size(); ++s) {
        bool differs = false;
        for (std::size_t p = 1; p < m_pins.size(); ++p)
            differs = differs || list[s].value(m_pins[p].scenario) != list[s].value(m_pins[0].scenario);
        if (differs)
            m_differing.push_back(s);
    }
}

void CompareModel::refresh()
{
    if (rowCount() > 0 && columnCount() > 0)
        emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
    if (rowCount() > 0)
        emit headerDataChanged(Qt::Vertical, 0, rowCount() - 1);
}

int CompareModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : FixedRowCount + static_cast<int>(m_differing.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_pins.size());
}

QVariant CompareModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Pin& pin = m_pins[static_cast<std::size_t>(index.column())];
    const int row = index.row();
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (row) {
        case Name: return pin.name;
        case DeviceUsed: return MemoryUnits::format(static_cast<double>(pin.plan.deviceUsedBytes));
        case Margin: return MemoryUnits::formatSigned(static_cast<double>(pin.plan.marginBytes));
        case Verdict:
            return pin.plan.fits ? QCoreApplication::translate("CompareView", "fits")
                                 : QCoreApplication::translate("CompareView", "out of memory");
        default: return settings()[m_differing[static_cast<std::size_t>(row - FixedRowCount)]].value(pin.scenario);
        }
    }
    if (role == Qt::UserRole) {
        switch (row) {
        case DeviceUsed: return QVariant::fromValue<qulonglong>(pin.plan.deviceUsedBytes);
        case Margin: return QVariant::fromValue<qlonglong>(pin.plan.marginBytes);
        case Verdict: return pin.plan.fits;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::ForegroundRole && row == Verdict)
        return pin.plan.fits ? Palette::fits() : Palette::outOfMemory();
    return {};
}

bool CompareModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (role != Qt::EditRole || !checkIndex(index, CheckIndexOption::IndexIsValid) || index.row() != Name)
        return false;
    const QString name = value.toString().trimmed();
    if (name.isEmpty())
        return false;
    m_pins[static_cast<std::size_t>(index.column())].name = name;
    emit dataChanged(index, index);
    emit renameRequested(index.column(), name);
    return true;
}

Qt::ItemFlags CompareModel::flags(const QModelIndex& index) const
{
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.row() == Name)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (orientation == Qt::Horizontal)
        return QString::number(section + 1);
    switch (section) {
    case Name: return QCoreApplication::translate("CompareView", "Name");
    case DeviceUsed: return QCoreApplication::translate("CompareView", "Device used");
    case Margin: return QCoreApplication::translate("CompareView", "Margin");
    case Verdict: return QCoreApplication::translate("CompareView", "Verdict");
    default:
        if (section - FixedRowCount < static_cast<int>(m_differing.size()))
            return QCoreApplication::translate(
                "CompareView", settings()[m_differing[static_cast<std::size_t>(section - FixedRowCount)]].name);
        return {};
    }
}
