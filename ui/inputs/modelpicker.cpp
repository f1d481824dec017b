// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/modelpicker.h"

#include "inputs/comboitems.h"
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "model/modelfolder.h"
#include "model/modelhead.h"
#include "text/displaynames.h"
#include "text/errortext.h"

#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QCompleter>
#include <QEvent>
#include <QFileDialog>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace headroom;

namespace {

// Item data: the preset id for catalog entries; for custom entries an empty
// id and the index into m_customModels.
constexpr int kPresetIdRole = Qt::UserRole;
constexpr int kCustomIndexRole = Qt::UserRole + 1;

// A spec is "the preset" only while it equals the catalog entry: the scenario
// writer makes the same decision ({"preset": id} vs {"spec": ...}).
bool isUnmodifiedPreset(const ModelSpec& spec)
{
    if (spec.origin != "catalog" || findCatalogModel(spec.id) == nullptr)
        return false;
    Scenario probe;
    probe.model = spec;
    return scenarioToJson(probe).at("model").contains("preset");
}

} // namespace

ModelPicker::ModelPicker(QWidget* parent)
    : QWidget(parent)
    , m_combo(new QComboBox(this))
    , m_headLabel(new QLabel(this))
    , m_head(new QComboBox(this))
    , m_labelsLabel(new QLabel(this))
    , m_labels(new QSpinBox(this))
    , m_importConfig(new QPushButton(this))
    , m_importFolder(new QPushButton(this))
    , m_summary(new QLabel(this))
{
    // Editable only to search: typing filters the list by any part of the name.
    m_combo->setEditable(true);
    m_combo->setInsertPolicy(QComboBox::NoInsert);
    m_combo->setMaxVisibleItems(20);
    m_combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_combo->setMinimumContentsLength(18);
    m_combo->completer()->setFilterMode(Qt::MatchContains);
    m_combo->completer()->setCompletionMode(QCompleter::PopupCompletion);
    m_combo->completer()->setCaseSensitivity(Qt::CaseInsensitive);
    // Text that matches no model is not a choice: put the selection back.
    connect(m_combo->lineEdit(), &QLineEdit::editingFinished, this,
            [this] { m_combo->setEditText(m_combo->itemText(m_combo->currentIndex())); });
    connect(m_combo, &QComboBox::currentIndexChanged, this, [this] {
        showHead(baseModel());
        updateSummary();
        emit modelChanged();
    });
    // kMaxLabels would do, but a spin box holds an int; a million labels is far past any task.
    m_labels->setRange(1, 1'000'000);
    m_labels->setGroupSeparatorShown(true);
    m_headLabel->setBuddy(m_head);
    m_labelsLabel->setBuddy(m_labels);
    m_head->setObjectName(QStringLiteral("modelHead"));
    m_labels->setObjectName(QStringLiteral("numLabels"));
    connect(m_head, &QComboBox::currentIndexChanged, this, [this] {
        updateHeadInputs();
        updateSummary();
        emit modelChanged();
    });
    connect(m_labels, &QSpinBox::valueChanged, this, [this] {
        updateSummary();
        emit modelChanged();
    });

    m_combo->setObjectName(QStringLiteral("modelCombo"));
    m_summary->setObjectName(QStringLiteral("modelSummary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setForegroundRole(QPalette::PlaceholderText);

    connect(m_importConfig, &QPushButton::clicked, this, &ModelPicker::chooseConfigFile);
    connect(m_importFolder, &QPushButton::clicked, this, &ModelPicker::chooseModelFolder);

    auto* layout = new QGridLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_combo, 0, 0, 1, 2);
    layout->addWidget(m_summary, 1, 0, 1, 2);
    layout->addWidget(m_headLabel, 2, 0);
    layout->addWidget(m_head, 2, 1);
    layout->addWidget(m_labelsLabel, 3, 0);
    layout->addWidget(m_labels, 3, 1);
    layout->addWidget(m_importConfig, 4, 0);
    layout->addWidget(m_importFolder, 4, 1);

    fillPresets();
    retranslate();
    showHead(baseModel());
}

void ModelPicker::showHead(const ModelSpec& spec)
{
    const QSignalBlocker headBlocker(m_head);
    const QSignalBlocker labelsBlocker(m_labels);
    selectComboData(m_head, enumData(spec.head));
    if (spec.classifier())
        m_labels->setValue(static_cast<int>(std::min<std::uint64_t>(spec.numLabels, 1'000'000)));
    else
        m_labels->setValue(2);  // transformers' PretrainedConfig default, if the user switches the head
    updateHeadInputs();
}

void ModelPicker::updateHeadInputs()
{
    // Only BERT has a second head (model/modelhead.h).
    const bool choice = baseModel().family == Family::Bert;
    const bool classifier = comboEnum<ModelHead>(m_head) == ModelHead::SequenceClassification;
    m_headLabel->setVisible(choice);
    m_head->setVisible(choice);
    m_labelsLabel->setVisible(choice && classifier);
    m_labels->setVisible(choice && classifier);
}

void ModelPicker::fillPresets()
{
    const QSignalBlocker blocker(m_combo);
    for (const CatalogModel& entry : modelCatalog()) {
        //: model list entry: name and parameter count
        m_combo->addItem(tr("%1 · %2").arg(QString::fromStdString(entry.name),
                                            DisplayNames::parameterCount(static_cast<double>(entry.parameters))));
        const int index = m_combo->count() - 1;
        m_combo->setItemData(index, QString::fromStdString(entry.id), kPresetIdRole);
        m_combo->setItemData(index, QString::fromStdString(entry.id), Qt::ToolTipRole);
    }
}

void ModelPicker::retranslate()
{
    m_headLabel->setText(tr("Head"));
    m_head->setToolTip(tr("What the model is trained for: BERT's masked-LM head predicts every token over the vocabulary; "
                          "a sequence classifier (BertForSequenceClassification) predicts one label per sequence"));
    m_labelsLabel->setText(tr("Labels"));
    m_labels->setToolTip(tr("Classes of the classifier (num_labels); 1 is regression"));
    {
        const QSignalBlocker blocker(m_head);
        setComboItems(m_head, {{DisplayNames::modelHead(ModelHead::LanguageModel), enumData(ModelHead::LanguageModel), {}},
                               {DisplayNames::modelHead(ModelHead::SequenceClassification),
                                enumData(ModelHead::SequenceClassification), {}}});
    }
    m_importConfig->setText(tr("Import config.json…"));
    m_importConfig->setToolTip(tr("Read the architecture from a Hugging Face config.json"));
    m_importFolder->setText(tr("Import model folder…"));
    m_importFolder->setToolTip(tr("Read config.json and the safetensors headers of a downloaded model (the weights are not loaded)"));
    m_combo->setToolTip(tr("Type any part of a name to search the %1 preset models").arg(modelCatalog().size()));
    // Preset labels carry a translated parameter count; custom labels a translated origin.
    const QSignalBlocker blocker(m_combo);
    for (int i = 0; i < m_combo->count(); ++i) {
        const QVariant custom = m_combo->itemData(i, kCustomIndexRole);
        if (custom.isValid()) {
            m_combo->setItemText(i, customLabel(m_customModels[custom.toUInt()]));
        } else if (const CatalogModel* entry = findCatalogModel(m_combo->itemData(i, kPresetIdRole).toString().toStdString())) {
            m_combo->setItemText(i, tr("%1 · %2").arg(QString::fromStdString(entry->name),
                                                       DisplayNames::parameterCount(static_cast<double>(entry->parameters))));
        }
    }
    updateSummary();
}

void ModelPicker::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

QString ModelPicker::customLabel(const ModelSpec& spec) const
{
    const QString id = QString::fromStdString(spec.id);
    if (spec.origin == "config.json")
        return tr("%1 (from config.json)").arg(id);
    if (spec.origin == "model-folder")
        return tr("%1 (from a model folder)").arg(id);
    if (spec.origin == "hub")
        return tr("%1 (from the Hugging Face Hub)").arg(id);
    if (spec.approximate)
        return tr("%1 (scaled from a size, approximate)").arg(id);
    return tr("%1 (custom)").arg(id);
}

int ModelPicker::addCustomModel(const ModelSpec& spec)
{
    // Re-importing the same file reuses its entry instead of growing the list.
    std::size_t slot = m_customModels.size();
    for (std::size_t i = 0; i < m_customModels.size(); ++i)
        if (m_customModels[i].id == spec.id && m_customModels[i].origin == spec.origin)
            slot = i;
    if (slot == m_customModels.size())
        m_customModels.push_back(spec);
    else
        m_customModels[slot] = spec;
    for (int i = 0; i < m_combo->count(); ++i)
        if (m_combo->itemData(i, kCustomIndexRole).toUInt() == slot && m_combo->itemData(i, kCustomIndexRole).isValid()) {
            m_combo->setItemText(i, customLabel(spec));
            return i;
        }
    // Custom models go first: they are what the user just brought in.
    const QSignalBlocker blocker(m_combo);
    m_combo->insertItem(0, customLabel(spec));
    m_combo->setItemData(0, QVariant::fromValue(static_cast<uint>(slot)), kCustomIndexRole);
    m_combo->setItemData(0, QString::fromStdString(spec.id), Qt::ToolTipRole);
    return 0;
}

void ModelPicker::setModel(const ModelSpec& spec)
{
    const QSignalBlocker blocker(m_combo);
    int index = -1;
    // A preset with another head is still the preset; the head inputs carry the head.
    ModelSpec languageModel = spec;
    if (!setModelHead(languageModel, ModelHead::LanguageModel, 0) && isUnmodifiedPreset(languageModel))
        index = m_combo->findData(QString::fromStdString(findCatalogModel(spec.id)->id), kPresetIdRole);
    if (index < 0)
        index = addCustomModel(spec);
    m_combo->setCurrentIndex(index);
    showHead(spec);
    updateSummary();
}

ModelSpec ModelPicker::model() const
{
    ModelSpec spec = baseModel();
    if (spec.family == Family::Bert) {
        const ModelHead head = comboEnum<ModelHead>(m_head);
        const std::uint64_t labels = head == ModelHead::SequenceClassification ? static_cast<std::uint64_t>(m_labels->value()) : 0;
        setModelHead(spec, head, labels);  // a BERT model takes either head; the spin box bounds the labels
    }
    return spec;
}

ModelSpec ModelPicker::baseModel() const
{
    const int index = m_combo->currentIndex();
    const QVariant custom = m_combo->itemData(index, kCustomIndexRole);
    if (custom.isValid())
        return m_customModels[custom.toUInt()];
    if (const CatalogModel* entry = findCatalogModel(m_combo->itemData(index, kPresetIdRole).toString().toStdString()))
        return entry->spec;
    return modelCatalog().front().spec;
}

void ModelPicker::updateSummary()
{
    const ModelSpec spec = model();
    const QLocale locale;
    QString text = spec.isMla()
                       //: multi-head latent attention (DeepSeek-V3): %4 the key/value latent's width
                       ? tr("%1 layers · hidden %2 · %3 heads (latent %4) · vocabulary %5")
                             .arg(spec.layers)
                             .arg(locale.toString(static_cast<qulonglong>(spec.hidden)))
                             .arg(spec.heads)
                             .arg(spec.kvLoraRank)
                             .arg(locale.toString(static_cast<qulonglong>(spec.vocab)))
                       : tr("%1 layers · hidden %2 · %3 heads (%4 KV) · vocabulary %5")
                             .arg(spec.layers)
                             .arg(locale.toString(static_cast<qulonglong>(spec.hidden)))
                             .arg(spec.heads)
                             .arg(spec.kvHeads)
                             .arg(locale.toString(static_cast<qulonglong>(spec.vocab)));
    if (spec.isMoe())
        text += tr(" · %1 experts, %2 per token").arg(spec.experts).arg(spec.expertsPerToken);
    if (spec.hasDenseLayers() && spec.denseLayerIds.empty())
        //: DeepSeek-V3's first_k_dense_replace: the first layers run a dense MLP
        text += tr(" · dense first layers: %1").arg(spec.denseLayers);
    else if (spec.hasDenseLayers())
        //: Qwen3-MoE's mlp_only_layers, Llama 4 Maverick's interleaved layers: %1 of the %2 layers run a dense MLP
        text += tr(" · dense layers: %1 of %2").arg(spec.denseLayers).arg(spec.layers);
    if (spec.classifier())
        text += tr(" · classifier over %1 labels").arg(locale.toString(static_cast<qulonglong>(spec.numLabels)));
    m_summary->setText(text);
    m_summary->setToolTip(QString::fromStdString(spec.id + " · " + spec.hfClass));
}

QString ModelPicker::importConfigFile(const QString& path)
{
    auto spec = modelSpecFromConfigFile(path.toStdString());
    if (!spec)
        return ErrorText::message(spec.error());
    m_combo->setCurrentIndex(addCustomModel(spec.value()));
    return QString();
}

QString ModelPicker::importModelFolder(const QString& directory)
{
    auto info = headroom::importModelFolder(directory.toStdString());
    if (!info)
        return ErrorText::message(info.error());
    m_combo->setCurrentIndex(addCustomModel(info.value().spec));
    return QString();
}

void ModelPicker::chooseConfigFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import config.json"), QString(),
                                                      tr("Hugging Face config (config.json *.json);;All files (*)"));
    if (path.isEmpty())
        return;
    const QString error = importConfigFile(path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Cannot import %1").arg(QFileInfo(path).fileName()), error);
}

void ModelPicker::chooseModelFolder()
{
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Import model folder"));
    if (directory.isEmpty())
        return;
    const QString error = importModelFolder(directory);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Cannot import %1").arg(QDir(directory).dirName()), error);
}
