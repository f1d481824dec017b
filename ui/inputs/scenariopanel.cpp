// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/scenariopanel.h"

#include "inputs/comboitems.h"
#include "inputs/hardwaregroup.h"
#include "inputs/modelpicker.h"
#include "inputs/peftgroup.h"
#include "text/displaynames.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <initializer_list>
#include <memory>

using namespace headroom;

namespace {

// Upper bounds of the spin boxes: generous (a 1M-token context) but well
// inside what the planner accepts (planner.cpp, validate()).
constexpr int kMaxBatch = 65536;
constexpr int kMaxTokens = 1 << 22;
constexpr int kMaxAccumulation = 65536;

template <class Enum, class Name>
QList<ComboItem> enumItems(std::initializer_list<Enum> values, Name name)
{
    QList<ComboItem> items;
    for (Enum value : values)
        items.append({name(value), enumData(value), {}});
    return items;
}

} // namespace

ScenarioPanel::ScenarioPanel(QWidget* parent)
    : QWidget(parent)
    , m_problem(new QLabel(this))
    , m_modelPicker(new ModelPicker(this))
    , m_mode(new QComboBox(this))
    , m_profile(new QComboBox(this))
    , m_precision(new QComboBox(this))
    , m_weightQuant(new QComboBox(this))
    , m_optimizer(new QComboBox(this))
    , m_galoreRank(makeSpin(1, 65536, 32))
    , m_peft(new PeftGroup(this))
    , m_microBatch(makeSpin(1, kMaxBatch))
    , m_seqLen(makeSpin(1, kMaxTokens, 256))
    , m_gradAccum(makeSpin(1, kMaxAccumulation))
    , m_effectiveBatch(new QLabel(this))
    , m_checkpointing(new QComboBox(this))
    , m_checkpointEvery(makeSpin(1, 1024))
    , m_attention(new QComboBox(this))
    , m_loop(new QComboBox(this))
    , m_useCache(new QComboBox(this))
    , m_chunkedLoss(new QCheckBox(this))
    , m_lossChunks(makeSpin(1, 1024))
    , m_optimizerInBackward(new QCheckBox(this))
    , m_activationOffload(new QCheckBox(this))
    , m_compileLayers(new QCheckBox(this))
    , m_compileLoss(new QCheckBox(this))
    , m_float8AllGather(new QCheckBox(this))
    , m_inferBatch(makeSpin(1, kMaxBatch))
    , m_promptTokens(makeSpin(1, kMaxTokens, 256))
    , m_newTokens(makeSpin(0, kMaxTokens, 64))
    , m_inferPrecision(new QComboBox(this))
    , m_inferWeightQuant(new QComboBox(this))
    , m_kvCacheDtype(new QComboBox(this))
    , m_inferAttention(new QComboBox(this))
{
    // The problem banner: visible only while the planner refuses the inputs.
    m_problem->setWordWrap(true);
    m_problem->setVisible(false);
    m_problem->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->setStyleSheet(QStringLiteral("QLabel { background: #FFF4E5; color: #6D3A00; border: 1px solid #F0B35B;"
                                            " border-radius: 4px; padding: 6px; }"));
    m_effectiveBatch->setWordWrap(true);
    m_effectiveBatch->setForegroundRole(QPalette::PlaceholderText);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(10);
    layout->addWidget(m_problem);

    QGroupBox* model = addGroup(QT_TR_NOOP("Model"));
    (new QVBoxLayout(model))->addWidget(m_modelPicker);

    QGroupBox* run = addGroup(QT_TR_NOOP("Run"));
    auto* runForm = new QFormLayout(run);
    addField(runForm, m_mode, QT_TR_NOOP("Mode"),
             QT_TR_NOOP("Plan one training step, or generation: training holds gradients and optimizer states, generation a KV cache"));
    addField(runForm, m_profile, QT_TR_NOOP("Runtime profile"),
             QT_TR_NOOP("The framework whose memory behaviour the plan predicts"));

    // Made here, not in the initializer list: the groups get their first
    // layout pass in the order they are made, top to bottom.
    m_hardware = new HardwareGroup(this);
    layout->addWidget(m_hardware);

    QGroupBox* precision = addGroup(QT_TR_NOOP("Precision and optimizer"));
    m_precisionForm = new QFormLayout(precision);
    addField(m_precisionForm, m_precision, QT_TR_NOOP("Precision"),
             QT_TR_NOOP("How weights, gradients and activations are stored during training"));
    addField(m_precisionForm, m_weightQuant, QT_TR_NOOP("Weight quantization"),
             QT_TR_NOOP("Storage of the frozen base weights (bitsandbytes); needs LoRA or QLoRA"));
    addField(m_precisionForm, m_optimizer, QT_TR_NOOP("Optimizer"),
             QT_TR_NOOP("The optimizer's states per trainable parameter: AdamW keeps two, 8-bit AdamW two bytes, SGD none"));
    addField(m_precisionForm, m_galoreRank, QT_TR_NOOP("GaLore rank"),
             QT_TR_NOOP("Rank of GaLore's gradient projection"));
    m_trainGroups.push_back(precision);

    layout->addWidget(m_peft);
    m_trainGroups.push_back(m_peft);

    QGroupBox* batch = addGroup(QT_TR_NOOP("Batch"));
    auto* batchForm = new QFormLayout(batch);
    addField(batchForm, m_microBatch, QT_TR_NOOP("Micro-batch"), QT_TR_NOOP("Sequences per forward/backward pass on one GPU"));
    addField(batchForm, m_seqLen, QT_TR_NOOP("Sequence length"), QT_TR_NOOP("Tokens per sequence"));
    addField(batchForm, m_gradAccum, QT_TR_NOOP("Gradient accumulation"),
             QT_TR_NOOP("Micro-batches per optimizer step: a larger effective batch at the memory of one micro-batch"));
    batchForm->addRow(m_effectiveBatch);
    m_trainGroups.push_back(batch);

    QGroupBox* activations = addGroup(QT_TR_NOOP("Activations"));
    m_activationForm = new QFormLayout(activations);
    addField(m_activationForm, m_checkpointing, QT_TR_NOOP("Gradient checkpointing"),
             QT_TR_NOOP("Keep only each checkpointed layer's input and recompute the rest in backward"));
    addField(m_activationForm, m_checkpointEvery, QT_TR_NOOP("Checkpoint every k"),
             QT_TR_NOOP("Checkpoint one layer in k (layers 0, k, 2k…)"));
    addField(m_activationForm, m_attention, QT_TR_NOOP("Attention"),
             QT_TR_NOOP("Eager attention materialises the seq × seq scores; SDPA and FlashAttention do not"));
    addField(m_activationForm, m_loop, QT_TR_NOOP("Training loop"),
             QT_TR_NOOP("Hugging Face Trainer keeps only the loss. A hand-written loop that keeps `outputs` holds the "
                        "logits (and the KV cache) through backward and the optimizer step, until the next forward returns"));
    addField(m_activationForm, m_useCache, QT_TR_NOOP("use_cache in training"),
             QT_TR_NOOP("transformers returns every layer's keys and values when use_cache is on (most configs' "
                        "default), unless gradient checkpointing turns it off"));
    addField(m_activationForm, m_chunkedLoss, QT_TR_NOOP("Chunked cross-entropy"),
             QT_TR_NOOP("Compute the loss in chunks so the fp32 logits never exist all at once (torchtune)"));
    addField(m_activationForm, m_lossChunks, QT_TR_NOOP("Loss chunks"),
             QT_TR_NOOP("More chunks, smaller fp32 logits at a time"));
    addField(m_activationForm, m_optimizerInBackward, QT_TR_NOOP("Optimizer step in backward"),
             QT_TR_NOOP("Update each parameter in its backward hook and free its gradient at once"));
    addField(m_activationForm, m_activationOffload, QT_TR_NOOP("Offload activations to CPU"),
             QT_TR_NOOP("Saved activations move to CPU memory (torch.autograd.graph.save_on_cpu)"));
    addField(m_activationForm, m_compileLayers, QT_TR_NOOP("torch.compile each layer"),
             QT_TR_NOOP("Compile each decoder layer as torchtitan does: the layer keeps fewer tensors and its recompute fuses the norms and the activation (Llama layout, with full or selective-op checkpointing)"));
    addField(
        m_activationForm, m_compileLoss, QT_TR_NOOP("torch.compile the loss"),
        QT_TR_NOOP("Compile the cross-entropy as torchtitan does since mid-2025: it keeps the 16-bit logits instead of "
                   "fp32 log-probabilities (language-model heads, without tensor parallelism or chunked loss)"));
    addField(m_activationForm, m_float8AllGather, QT_TR_NOOP("Float8 all-gather"),
             QT_TR_NOOP("With fp8-mixed under FSDP2: gather the Float8 linears' weights in 1 byte instead of bf16 (torchtitan's enable_fsdp_float8_all_gather)"));
    m_trainGroups.push_back(activations);

    m_inferenceGroup = addGroup(QT_TR_NOOP("Inference"));
    auto* inferenceForm = new QFormLayout(m_inferenceGroup);
    addField(inferenceForm, m_inferBatch, QT_TR_NOOP("Batch"), QT_TR_NOOP("Sequences generated together"));
    addField(inferenceForm, m_promptTokens, QT_TR_NOOP("Prompt tokens"),
             QT_TR_NOOP("Tokens read before generating: the prefill's activations and the first KV cache"));
    addField(inferenceForm, m_newTokens, QT_TR_NOOP("New tokens"), QT_TR_NOOP("Tokens generated after the prompt"));
    addField(inferenceForm, m_inferPrecision, QT_TR_NOOP("Weights"),
             QT_TR_NOOP("Data type of the served weights: bytes per parameter"));
    addField(inferenceForm, m_inferWeightQuant, QT_TR_NOOP("Weight quantization"),
             QT_TR_NOOP("Serve bitsandbytes 8-bit or 4-bit weights: fewer bytes per parameter"));
    addField(inferenceForm, m_kvCacheDtype, QT_TR_NOOP("KV cache"), QT_TR_NOOP("Data type of the cached keys and values"));
    addField(inferenceForm, m_inferAttention, QT_TR_NOOP("Attention"),
             QT_TR_NOOP("Eager attention materialises the scores; SDPA and FlashAttention do not"));

    layout->addStretch(1);

    nameInputs();
    setTabOrderByLayout();
    retranslate();
    connectInputs();
    // Start on something valid; the main window replaces it at once.
    m_peft->setModel(m_modelPicker->model());
    m_hardware->setModel(m_modelPicker->model());
    updateVisibility();
    updateEffectiveBatch();
}

void ScenarioPanel::nameInputs()
{
    // Object names: stable handles for tests and for style sheets.
    const std::pair<QWidget*, const char*> names[] = {{m_mode, "mode"},
                                                      {m_profile, "profile"},
                                                      {m_precision, "precision"},
                                                      {m_weightQuant, "weightQuant"},
                                                      {m_optimizer, "optimizer"},
                                                      {m_galoreRank, "galoreRank"},
                                                      {m_microBatch, "microBatch"},
                                                      {m_seqLen, "seqLen"},
                                                      {m_gradAccum, "gradAccum"},
                                                      {m_effectiveBatch, "effectiveBatch"},
                                                      {m_checkpointing, "checkpointing"},
                                                      {m_checkpointEvery, "checkpointEvery"},
                                                      {m_attention, "attention"},
                                                      {m_loop, "loop"},
                                                      {m_useCache, "useCache"},
                                                      {m_chunkedLoss, "chunkedLoss"},
                                                      {m_lossChunks, "lossChunks"},
                                                      {m_optimizerInBackward, "optimizerInBackward"},
                                                      {m_activationOffload, "activationOffload"},
                                                      {m_compileLayers, "compileLayers"},
                                                      {m_compileLoss, "compileLoss"},
                                                      {m_float8AllGather, "float8AllGather"},
                                                      {m_inferBatch, "inferBatch"},
                                                      {m_promptTokens, "promptTokens"},
                                                      {m_newTokens, "newTokens"},
                                                      {m_inferPrecision, "inferPrecision"},
                                                      {m_inferWeightQuant, "inferWeightQuant"},
                                                      {m_kvCacheDtype, "kvCacheDtype"},
                                                      {m_inferAttention, "inferAttention"},
                                                      {m_problem, "problem"},
                                                      {m_modelPicker, "modelPicker"},
                                                      {m_peft, "peft"},
                                                      {m_hardware, "hardware"}};
    for (const auto& [widget, name] : names)
        widget->setObjectName(QLatin1String(name));
}

QSpinBox* ScenarioPanel::makeSpin(int minimum, int maximum, int step)
{
    return makeSpinBox(this, minimum, maximum, step);
}

QGroupBox* ScenarioPanel::addGroup(const char* title)
{
    auto* group = new QGroupBox(this);
    m_groupTitles.emplace_back(group, title);
    layout()->addWidget(group);
    return group;
}

void ScenarioPanel::addField(QFormLayout* form, QWidget* widget, const char* text, const char* toolTip)
{
    m_fields.add(form, this, widget, text, toolTip);
}

void ScenarioPanel::retranslate()
{
    for (const auto& [group, title] : m_groupTitles)
        group->setTitle(tr(title));
    m_fields.retranslate(metaObject()->className());

    setComboItems(m_mode, enumItems({Mode::Train, Mode::Inference}, DisplayNames::mode));
    QList<ComboItem> profiles = enumItems({Profile::Pytorch, Profile::Headroom}, DisplayNames::profile);
    for (ComboItem& item : profiles)
        item.toolTip = DisplayNames::profileDescription(static_cast<Profile>(item.data.toInt()));
    setComboItems(m_profile, profiles);
    setComboItems(m_precision, enumItems({Precision::Fp32, Precision::Fp16Mixed, Precision::Bf16Mixed, Precision::Bf16,
                                          Precision::Fp16, Precision::Fp8Mixed},
                                         DisplayNames::precision));
    const auto quants = {WeightQuant::None, WeightQuant::Int8, WeightQuant::Nf4, WeightQuant::Nf4DoubleQuant};
    setComboItems(m_weightQuant, enumItems(quants, DisplayNames::weightQuant));
    setComboItems(m_inferWeightQuant, enumItems(quants, DisplayNames::weightQuant));
    setComboItems(m_optimizer, enumItems({Optimizer::AdamW, Optimizer::AdamW8bit, Optimizer::PagedAdamW8bit, Optimizer::Sgd,
                                          Optimizer::SgdMomentum, Optimizer::Lion, Optimizer::Adafactor, Optimizer::Lomo,
                                          Optimizer::AdaLomo, Optimizer::Galore},
                                         DisplayNames::optimizer));
    setComboItems(m_checkpointing,
                  enumItems({Checkpointing::None, Checkpointing::Full, Checkpointing::EveryK, Checkpointing::SelectiveOps},
                            DisplayNames::checkpointing));
    const auto attentions = {Attention::Eager, Attention::Sdpa, Attention::Flash};
    setComboItems(m_attention, enumItems(attentions, DisplayNames::attention));
    setComboItems(m_inferAttention, enumItems(attentions, DisplayNames::attention));
    setComboItems(m_loop, enumItems({TrainingLoop::Trainer, TrainingLoop::Custom}, DisplayNames::trainingLoop));
    setComboItems(m_useCache, enumItems({UseCache::ConfigDefault, UseCache::On, UseCache::Off}, DisplayNames::useCache));
    // Inference weights are stored in one dtype (no master copy, no autocast).
    setComboItems(m_inferPrecision, {{tr("bf16"), enumData(Precision::Bf16), {}},
                                     {tr("fp16"), enumData(Precision::Fp16), {}},
                                     {tr("fp32"), enumData(Precision::Fp32), {}}});
    setComboItems(m_kvCacheDtype, enumItems({KvCacheDtype::Bf16, KvCacheDtype::Fp16, KvCacheDtype::Fp32,
                                             KvCacheDtype::Fp8, KvCacheDtype::Int8},
                                            DisplayNames::kvCacheDtype));
    updateEffectiveBatch();
}

void ScenarioPanel::refreshUnits() { m_hardware->refreshUnits(); }

std::vector<QWidget*> ScenarioPanel::inputsInReadingOrder() const
{
    // The panel top to bottom, as it reads.
    std::vector<QWidget*> order = {m_modelPicker, m_mode, m_profile};
    const std::vector<QWidget*> hardware = m_hardware->inputsInReadingOrder();
    order.insert(order.end(), hardware.begin(), hardware.end());
    order.insert(order.end(), {m_precision,
                               m_weightQuant,
                               m_optimizer,
                               m_galoreRank,
                               m_peft,
                               m_microBatch,
                               m_seqLen,
                               m_gradAccum,
                               m_checkpointing,
                               m_checkpointEvery,
                               m_attention,
                               m_loop,
                               m_useCache,
                               m_chunkedLoss,
                               m_lossChunks,
                               m_optimizerInBackward,
                               m_activationOffload,
                               m_compileLayers,
                               m_compileLoss,
                               m_float8AllGather,
                               m_inferBatch,
                               m_promptTokens,
                               m_newTokens,
                               m_inferPrecision,
                               m_inferWeightQuant,
                               m_kvCacheDtype,
                               m_inferAttention});
    return order;
}

void ScenarioPanel::setTabOrderByLayout()
{
    // Tab follows the panel top to bottom, as it reads: the widgets were
    // created in another order (the member order), which Qt would follow.
    const std::vector<QWidget*> order = inputsInReadingOrder();
    for (std::size_t i = 1; i < order.size(); ++i)
        QWidget::setTabOrder(order[i - 1], order[i]);
}

void ScenarioPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ScenarioPanel::connectInputs()
{
    connect(m_modelPicker, &ModelPicker::modelChanged, this, &ScenarioPanel::onModelChanged);
    connect(m_peft, &PeftGroup::changed, this, &ScenarioPanel::onInputChanged);
    connect(m_hardware, &HardwareGroup::changed, this, &ScenarioPanel::onInputChanged);
    for (QWidget* input : inputs()) {
        if (auto* combo = qobject_cast<QComboBox*>(input))
            connect(combo, &QComboBox::currentIndexChanged, this, &ScenarioPanel::onInputChanged);
        else if (auto* spin = qobject_cast<QSpinBox*>(input))
            connect(spin, &QSpinBox::valueChanged, this, &ScenarioPanel::onInputChanged);
        else if (auto* box = qobject_cast<QCheckBox*>(input))
            connect(box, &QCheckBox::toggled, this, &ScenarioPanel::onInputChanged);
    }
}

std::vector<QWidget*> ScenarioPanel::inputs() const
{
    // The panel's own inputs; the model picker and the hardware and PEFT
    // groups announce their changes themselves.
    std::vector<QWidget*> all = inputsInReadingOrder();
    const std::vector<QWidget*> hardware = m_hardware->inputsInReadingOrder();
    std::erase_if(all, [this, &hardware](QWidget* w) {
        return w == m_modelPicker || w == m_peft || std::ranges::find(hardware, w) != hardware.end();
    });
    return all;
}

void ScenarioPanel::onModelChanged()
{
    m_peft->setModel(m_modelPicker->model());
    m_hardware->setModel(m_modelPicker->model());
    onInputChanged();
}

void ScenarioPanel::onInputChanged()
{
    updateVisibility();
    updateEffectiveBatch();
    emit scenarioChanged(scenario());
}

void ScenarioPanel::updateVisibility()
{
    const bool training = comboEnum<Mode>(m_mode) == Mode::Train;
    for (QGroupBox* group : m_trainGroups)
        group->setVisible(training);
    m_inferenceGroup->setVisible(!training);
    m_precisionForm->setRowVisible(m_galoreRank, comboEnum<Optimizer>(m_optimizer) == Optimizer::Galore);
    m_activationForm->setRowVisible(m_checkpointEvery, comboEnum<Checkpointing>(m_checkpointing) == Checkpointing::EveryK);
    m_lossChunks->setEnabled(m_chunkedLoss->isChecked());
    // Float8 all-gather acts under fp8-mixed with FSDP2 (kept enabled while
    // checked, so that a scenario's setting can be cleared).
    m_float8AllGather->setEnabled((comboEnum<Precision>(m_precision) == Precision::Fp8Mixed &&
                                   m_hardware->hardware().sharding == Sharding::Fsdp2) ||
                                  m_float8AllGather->isChecked());
}

void ScenarioPanel::updateEffectiveBatch()
{
    const QLocale locale;
    const HardwareConfig hw = m_hardware->hardware();
    const std::uint64_t micro = spinValue(m_microBatch), accum = spinValue(m_gradAccum), gpus = hw.count;
    const std::uint64_t modelParallel = hw.parallel.tp * hw.parallel.pp * hw.parallel.cp;
    if (modelParallel > 1) {
        // The data-parallel replicas are the GPUs over tensor x pipeline x context (plan/parallel.h);
        // a layout that does not divide is the planner's error, shown in the banner.
        const std::uint64_t replicas = gpus % modelParallel == 0 ? gpus / modelParallel : 0;
        const std::uint64_t sequences = micro * accum * replicas;
        //: micro-batch × accumulation × data-parallel replicas = sequences (tokens) per optimizer step
        m_effectiveBatch->setText(tr("Effective batch = %1 × %2 × %3 data-parallel replicas = %4 sequences (%5 tokens) per optimizer step")
                                      .arg(locale.toString(static_cast<qulonglong>(micro)),
                                           locale.toString(static_cast<qulonglong>(accum)),
                                           locale.toString(static_cast<qulonglong>(replicas)),
                                           locale.toString(static_cast<qulonglong>(sequences)),
                                           locale.toString(static_cast<qulonglong>(sequences * spinValue(m_seqLen)))));
        return;
    }
    const std::uint64_t sequences = micro * accum * gpus;
    //: micro-batch × accumulation × GPUs = sequences (tokens) per optimizer step
    m_effectiveBatch->setText(tr("Effective batch = %1 × %2 × %3 GPUs = %4 sequences (%5 tokens) per optimizer step")
                                  .arg(locale.toString(static_cast<qulonglong>(micro)),
                                       locale.toString(static_cast<qulonglong>(accum)),
                                       locale.toString(static_cast<qulonglong>(gpus)),
                                       locale.toString(static_cast<qulonglong>(sequences)),
                                       locale.toString(static_cast<qulonglong>(sequences * spinValue(m_seqLen)))));
}

void ScenarioPanel::showProblem(const QString& message)
{
    m_problem->setText(message);
    m_problem->setVisible(!message.isEmpty());
}

QString ScenarioPanel::problem() const { return m_problem->isHidden() ? QString() : m_problem->text(); }

void ScenarioPanel::setScenario(const Scenario& s)
{
    // Block every input so one load is one change, announced by the caller.
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* input : inputs())
        blockers.push_back(std::make_unique<QSignalBlocker>(input));

    m_modelPicker->setModel(s.model);
    m_peft->setModel(s.model, true);
    m_peft->setConfig(s.train.peft);
    m_hardware->setModel(m_modelPicker->model());
    m_hardware->setConfig(s.hardware, s.train.moe);
    selectComboData(m_mode, enumData(s.mode));
    selectComboData(m_profile, enumData(s.profile));
    m_globalBatch = s.train.globalBatch;

    const TrainConfig& t = s.train;
    selectComboData(m_precision, enumData(t.precision));
    selectComboData(m_weightQuant, enumData(t.weightQuant));
    selectComboData(m_optimizer, enumData(t.optimizer));
    m_galoreRank->setValue(clampToSpin(t.galoreRank, m_galoreRank));
    m_microBatch->setValue(clampToSpin(t.microBatch, m_microBatch));
    m_seqLen->setValue(clampToSpin(t.seqLen, m_seqLen));
    m_gradAccum->setValue(clampToSpin(t.gradAccum, m_gradAccum));
    selectComboData(m_checkpointing, enumData(t.checkpointing));
    m_checkpointEvery->setValue(clampToSpin(t.checkpointEvery, m_checkpointEvery));
    selectComboData(m_attention, enumData(t.attention));
    selectComboData(m_loop, enumData(t.loop));
    selectComboData(m_useCache, enumData(t.useCache));
    m_chunkedLoss->setChecked(t.chunkedCrossEntropy);
    m_lossChunks->setValue(clampToSpin(t.lossChunks, m_lossChunks));
    m_optimizerInBackward->setChecked(t.optimizerInBackward);
    m_activationOffload->setChecked(t.activationOffload);
    m_compileLayers->setChecked(t.compileLayers);
    m_compileLoss->setChecked(t.compileLoss);
    m_float8AllGather->setChecked(t.float8AllGather);

    const InferenceConfig& i = s.inference;
    m_inferBatch->setValue(clampToSpin(i.batch, m_inferBatch));
    m_promptTokens->setValue(clampToSpin(i.promptTokens, m_promptTokens));
    m_newTokens->setValue(clampToSpin(i.newTokens, m_newTokens));
    selectComboData(m_inferPrecision, enumData(i.precision));
    selectComboData(m_inferWeightQuant, enumData(i.weightQuant));
    selectComboData(m_kvCacheDtype, enumData(i.kvCacheDtype));
    selectComboData(m_inferAttention, enumData(i.attention));

    updateVisibility();
    updateEffectiveBatch();
}

Scenario ScenarioPanel::scenario() const
{
    Scenario s;
    s.model = m_modelPicker->model();
    s.mode = comboEnum<Mode>(m_mode);
    s.profile = comboEnum<Profile>(m_profile);

    s.hardware = m_hardware->hardware();
    s.train.moe = m_hardware->moe();
    // A global batch from the file follows the panel's effective batch (micro-batch x accumulation x
    // data-parallel replicas, the label under them), so an edit of either never leaves a stale one.
    const std::uint64_t modelParallel = s.hardware.parallel.tp * s.hardware.parallel.pp * s.hardware.parallel.cp;
    s.train.globalBatch = m_globalBatch;
    if (m_globalBatch != 0 && modelParallel != 0 && s.hardware.count % modelParallel == 0)
        s.train.globalBatch = spinValue(m_microBatch) * spinValue(m_gradAccum) * (s.hardware.count / modelParallel);

    TrainConfig& t = s.train;
    t.precision = comboEnum<Precision>(m_precision);
    t.weightQuant = comboEnum<WeightQuant>(m_weightQuant);
    t.optimizer = comboEnum<Optimizer>(m_optimizer);
    t.galoreRank = spinValue(m_galoreRank);
    t.peft = m_peft->config();
    t.microBatch = spinValue(m_microBatch);
    t.seqLen = spinValue(m_seqLen);
    t.gradAccum = spinValue(m_gradAccum);
    t.checkpointing = comboEnum<Checkpointing>(m_checkpointing);
    t.checkpointEvery = spinValue(m_checkpointEvery);
    t.attention = comboEnum<Attention>(m_attention);
    t.loop = comboEnum<TrainingLoop>(m_loop);
    t.useCache = comboEnum<UseCache>(m_useCache);
    t.chunkedCrossEntropy = m_chunkedLoss->isChecked();
    t.lossChunks = spinValue(m_lossChunks);
    t.optimizerInBackward = m_optimizerInBackward->isChecked();
    t.activationOffload = m_activationOffload->isChecked();
    t.compileLayers = m_compileLayers->isChecked();
    t.compileLoss = m_compileLoss->isChecked();
    t.float8AllGather = m_float8AllGather->isChecked();

    InferenceConfig& i = s.inference;
    i.batch = spinValue(m_inferBatch);
    i.promptTokens = spinValue(m_promptTokens);
    i.newTokens = spinValue(m_newTokens);
    i.precision = comboEnum<Precision>(m_inferPrecision);
    i.weightQuant = comboEnum<WeightQuant>(m_inferWeightQuant);
    i.kvCacheDtype = comboEnum<KvCacheDtype>(m_kvCacheDtype);
    i.attention = comboEnum<Attention>(m_inferAttention);
    return s;
}
