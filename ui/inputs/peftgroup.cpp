// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/peftgroup.h"

#include "inputs/comboitems.h"
#include "plan/planner.h"
#include "text/displaynames.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>

using namespace headroom;

namespace {

constexpr const char* kAllLinear = "all-linear";
constexpr int kTargetColumns = 3;

bool contains(const std::vector<std::string>& list, const std::string& value)
{
    return std::find(list.begin(), list.end(), value) != list.end();
}

QString joined(const std::vector<std::string>& list)
{
    QStringList names;
    for (const std::string& s : list)
        names << QString::fromStdString(s);
    return names.join(QStringLiteral(", "));
}

} // namespace

PeftGroup::PeftGroup(QWidget* parent)
    : QGroupBox(parent)
    , m_method(new QComboBox(this))
    , m_rank(new QSpinBox(this))
    , m_alpha(new QDoubleSpinBox(this))
    , m_dropout(new QDoubleSpinBox(this))
    , m_targetMode(new QComboBox(this))
    , m_targetBox(new QWidget(this))
    , m_targetGrid(new QGridLayout(m_targetBox))
    , m_targetHint(new QLabel(this))
    , m_methodLabel(new QLabel(this))
    , m_rankLabel(new QLabel(this))
    , m_alphaLabel(new QLabel(this))
    , m_dropoutLabel(new QLabel(this))
    , m_targetsLabel(new QLabel(this))
{
    // The planner accepts ranks 1..65536 (planner.cpp, validate()).
    m_rank->setRange(1, 65536);
    m_alpha->setRange(0.1, 1e6);  // the planner wants alpha in (0, 1e6]
    m_alpha->setDecimals(1);
    m_dropout->setRange(0, 0.95);
    m_dropout->setDecimals(3);
    m_dropout->setSingleStep(0.05);
    m_targetGrid->setContentsMargins(0, 0, 0, 0);
    m_targetGrid->setHorizontalSpacing(12);
    m_targetHint->setWordWrap(true);
    m_targetHint->setForegroundRole(QPalette::PlaceholderText);

    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(m_methodLabel, m_method);
    form->addRow(m_rankLabel, m_rank);
    form->addRow(m_alphaLabel, m_alpha);
    form->addRow(m_dropoutLabel, m_dropout);
    form->addRow(m_targetsLabel, m_targetMode);
    form->addRow(m_targetBox);
    form->addRow(m_targetHint);

    m_method->setObjectName(QStringLiteral("peftMethod"));
    m_rank->setObjectName(QStringLiteral("peftRank"));
    m_alpha->setObjectName(QStringLiteral("peftAlpha"));
    m_dropout->setObjectName(QStringLiteral("peftDropout"));
    m_targetMode->setObjectName(QStringLiteral("peftTargetMode"));
    m_targetHint->setObjectName(QStringLiteral("peftTargetHint"));
    retranslate();

    connect(m_method, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabled();
        emit changed();
    });
    connect(m_rank, &QSpinBox::valueChanged, this, &PeftGroup::changed);
    connect(m_alpha, &QDoubleSpinBox::valueChanged, this, &PeftGroup::changed);
    connect(m_dropout, &QDoubleSpinBox::valueChanged, this, &PeftGroup::changed);
    connect(m_targetMode, &QComboBox::currentIndexChanged, this, &PeftGroup::onTargetModeChanged);
    updateEnabled();
}

void PeftGroup::retranslate()
{
    setTitle(tr("Adapters (PEFT)"));
    m_methodLabel->setText(tr("Method"));
    m_rankLabel->setText(tr("Rank r"));
    m_alphaLabel->setText(tr("Alpha"));
    m_dropoutLabel->setText(tr("Dropout"));
    m_targetsLabel->setText(tr("Target modules"));
    m_rank->setToolTip(tr("LoRA rank: each adapted matrix W (out × in) gains A (r × in) and B (out × r)"));
    m_alpha->setToolTip(tr("Scaling alpha / r: changes no memory, kept for the exported configuration"));
    m_dropout->setToolTip(tr("LoRA dropout saves a mask per adapted input in training"));
    m_method->setToolTip(tr("Train small adapters instead of every weight: far fewer gradients and optimizer states"));
    m_targetMode->setToolTip(tr("Which linear layers get adapters: more targets, more trainable parameters"));
    setComboItems(m_method, {{DisplayNames::peftMethod(PeftMethod::None), enumData(PeftMethod::None), {}},
                             {DisplayNames::peftMethod(PeftMethod::Lora), enumData(PeftMethod::Lora),
                              tr("Low-rank adapters over frozen 16-bit weights")},
                             {DisplayNames::peftMethod(PeftMethod::Qlora), enumData(PeftMethod::Qlora),
                              tr("Low-rank adapters over a frozen 4-bit (NF4) base")}});
    setComboItems(m_targetMode,
                  {{tr("PEFT default for this architecture"), enumData(TargetMode::ArchitectureDefault), {}},
                   {tr("All linear layers"), enumData(TargetMode::AllLinear),
                    tr("PEFT's \"all-linear\": every linear layer except the output head")},
                   {tr("Chosen modules"), enumData(TargetMode::Chosen), {}}});
    refreshTargets();
}

void PeftGroup::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QGroupBox::changeEvent(event);
}

void PeftGroup::setModel(const ModelSpec& model, bool keepTargets)
{
    m_model = model;
    m_table = buildParameterTable(model);
    m_modules.clear();
    // Targetable: the layer template's linear weights, as PEFT's "all-linear"
    // sees them (MoE routers are left out, as there).
    for (const ParamTensor& t : m_table.layer)
        if (t.isLinearWeight && t.kind != ModuleKind::Router && !contains(m_modules, t.module))
            m_modules.push_back(t.module);
    if (!keepTargets)
        std::erase_if(m_targets, [this](const std::string& t) { return !contains(m_modules, t); });
    rebuildTargetBoxes();
    refreshTargets();
}

void PeftGroup::rebuildTargetBoxes()
{
    for (QCheckBox* box : m_targetBoxes)
        delete box;
    m_targetBoxes.clear();
    int index = 0;
    for (const std::string& module : m_modules) {
        auto* box = new QCheckBox(QString::fromStdString(module), m_targetBox);
        box->setObjectName(QStringLiteral("target:") + QString::fromStdString(module));
        connect(box, &QCheckBox::toggled, this, [this, module](bool checked) { onTargetToggled(module, checked); });
        m_targetGrid->addWidget(box, index / kTargetColumns, index % kTargetColumns);
        m_targetBoxes.push_back(box);
        ++index;
    }
}

PeftGroup::TargetMode PeftGroup::targetMode() const { return comboEnum<TargetMode>(m_targetMode); }

std::vector<std::string> PeftGroup::requestedTargets() const
{
    switch (targetMode()) {
    case TargetMode::ArchitectureDefault: return {};
    case TargetMode::AllLinear: return {kAllLinear};
    case TargetMode::Chosen: return m_targets;
    }
    return {};
}

void PeftGroup::refreshTargets()
{
    const bool chosen = targetMode() == TargetMode::Chosen;
    // Outside "chosen", the boxes show what the engine resolves the request to.
    const std::vector<std::string> shown =
        chosen ? m_targets : resolveLoraTargets(m_model, m_table, requestedTargets());
    for (std::size_t i = 0; i < m_targetBoxes.size(); ++i) {
        const QSignalBlocker blocker(m_targetBoxes[i]);
        m_targetBoxes[i]->setChecked(contains(shown, m_modules[i]));
    }
    m_targetBox->setEnabled(chosen && m_method->currentIndex() > 0);
    QStringList unknown;
    for (const std::string& t : m_targets)
        if (!contains(m_modules, t))
            unknown << QString::fromStdString(t);
    QString hint;
    switch (targetMode()) {
    case TargetMode::ArchitectureDefault:
        hint = tr("PEFT adapts %1 on this architecture when no modules are given.").arg(joined(shown));
        break;
    case TargetMode::AllLinear: hint = tr("Adapted in every layer: %1.").arg(joined(shown)); break;
    case TargetMode::Chosen:
        hint = m_targets.empty() ? tr("No module chosen: PEFT's default for the architecture applies.")
                                 : tr("Modules chosen: %1.").arg(m_targets.size());
        if (!unknown.isEmpty())
            hint += QLatin1Char(' ') + tr("Not in this model: %1.").arg(unknown.join(QStringLiteral(", ")));
        break;
    }
    m_targetHint->setText(hint);
}

void PeftGroup::onTargetModeChanged()
{
    // Entering "chosen" starts from what was in effect, so nothing jumps.
    if (targetMode() == TargetMode::Chosen && m_targets.empty())
        m_targets = resolveLoraTargets(m_model, m_table, {});
    refreshTargets();
    emit changed();
}

void PeftGroup::onTargetToggled(const std::string& module, bool checked)
{
    if (checked && !contains(m_targets, module))
        m_targets.push_back(module);
    if (!checked)
        std::erase(m_targets, module);
    refreshTargets();
    emit changed();
}

void PeftGroup::updateEnabled()
{
    const bool on = m_method->currentIndex() > 0;
    for (QWidget* w : {static_cast<QWidget*>(m_rank), static_cast<QWidget*>(m_alpha), static_cast<QWidget*>(m_dropout),
                       static_cast<QWidget*>(m_targetMode)})
        w->setEnabled(on);
    refreshTargets();
}

void PeftGroup::setConfig(const PeftConfig& config)
{
    const QSignalBlocker b1(m_method), b2(m_rank), b3(m_alpha), b4(m_dropout), b5(m_targetMode);
    selectComboData(m_method, enumData(config.method));
    m_rank->setValue(static_cast<int>(std::min<std::uint64_t>(config.rank, 65536)));
    m_alpha->setValue(config.alpha);
    m_dropout->setValue(config.dropout);
    if (config.targets.empty()) {
        selectComboData(m_targetMode, enumData(TargetMode::ArchitectureDefault));
        m_targets.clear();
    } else if (config.targets.size() == 1 && config.targets.front() == kAllLinear) {
        selectComboData(m_targetMode, enumData(TargetMode::AllLinear));
        m_targets.clear();
    } else {
        selectComboData(m_targetMode, enumData(TargetMode::Chosen));
        m_targets = config.targets;
    }
    updateEnabled();
}

PeftConfig PeftGroup::config() const
{
    PeftConfig config;
    config.method = comboEnum<PeftMethod>(m_method);
    config.rank = static_cast<std::uint64_t>(m_rank->value());
    config.alpha = m_alpha->value();
    config.dropout = m_dropout->value();
    config.targets = requestedTargets();
    return config;
}
