// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/hardwaregroup.h"

#include "inputs/comboitems.h"
#include "plan/gpucatalog.h"
#include "text/displaynames.h"
#include "text/gputext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <memory>

using namespace headroom;

namespace {

// Generous, but well inside what the planner accepts (planner.cpp, validate()).
constexpr int kMaxGpus = 4096;

} // namespace

HardwareGroup::HardwareGroup(QWidget* parent)
    : QGroupBox(parent)
    , m_gpu(new QComboBox(this))
    , m_gpuCapacity(new QLabel(this))
    , m_gpuCount(makeSpin(1, kMaxGpus))
    , m_sharding(new QComboBox(this))
    , m_cpuOffload(new QCheckBox(this))
    , m_tensorParallel(makeSpin(1, kMaxGpus))
    , m_sequenceParallel(new QCheckBox(this))
    , m_pipelineParallel(makeSpin(1, kMaxGpus))
    , m_virtualStages(makeSpin(1, kMaxGpus))
    , m_ppSchedule(new QComboBox(this))
    , m_ppSplit(new QComboBox(this))
    , m_ppReturnOutputs(new QCheckBox(this))
    , m_contextParallel(makeSpin(1, kMaxGpus))
    , m_expertParallel(makeSpin(1, kMaxGpus))
    , m_expertTensorParallel(makeSpin(0, kMaxGpus))
    , m_capacityFactor(makeFactor(0.0, 1000.0))
    , m_padToCapacity(new QCheckBox(this))
    , m_imbalance(makeFactor(1.0, 1000.0))
    , m_dpReplicate(makeSpin(1, kMaxGpus))
    , m_asyncTp(new QCheckBox(this))
{
    m_gpuCapacity->setWordWrap(true);
    m_gpuCapacity->setForegroundRole(QPalette::PlaceholderText);

    auto* form = new QFormLayout(this);
    addField(form, m_gpu, QT_TR_NOOP("GPU"),
             QT_TR_NOOP("The GPU to fit: the list shows the total nvidia-smi prints; the plan fits against what CUDA "
                        "can allocate"));
    form->addRow(m_gpuCapacity);
    addField(form, m_gpuCount, QT_TR_NOOP("GPUs"), QT_TR_NOOP("Number of GPUs; the plan is for one of them"));
    addField(form, m_sharding, QT_TR_NOOP("Sharding"),
             QT_TR_NOOP("How model states are split across the GPUs (DeepSpeed ZeRO, PyTorch FSDP)"));
    addField(
        form, m_cpuOffload, QT_TR_NOOP("CPU offload"),
        QT_TR_NOOP(
            "ZeRO-Offload / FSDP CPU offload: optimizer states (and with stage 3, parameters) live in CPU memory"));
    addField(form, m_tensorParallel, QT_TR_NOOP("Tensor parallel"),
             QT_TR_NOOP("GPUs that split each layer's weights and activations (Megatron-LM); GPUs / (tensor x pipeline "
                        "x context) is the data-parallel degree"));
    addField(form, m_sequenceParallel, QT_TR_NOOP("Sequence parallel"),
             QT_TR_NOOP("Split the norm, dropout and residual activations over the tensor-parallel GPUs too"));
    addField(form, m_pipelineParallel, QT_TR_NOOP("Pipeline stages"),
             QT_TR_NOOP("Stages the layers are split into; the plan shows the fullest stage"));
    addField(
        form, m_virtualStages, QT_TR_NOOP("Virtual stages"),
        QT_TR_NOOP(
            "Model chunks per pipeline stage: above 1 the schedule is interleaved 1F1B, each GPU holding that many "
            "separate groups of layers; the micro-batches (gradient accumulation) must divide by the pipeline stages"));
    addField(form, m_ppSchedule, QT_TR_NOOP("Pipeline schedule"),
             QT_TR_NOOP("1F1B: each stage holds the micro-batches still in flight to it (pipeline stages - stage); "
                        "GPipe: every micro-batch's forward runs before any backward, so each stage holds all of "
                        "them"));
    addField(form, m_ppSplit, QT_TR_NOOP("Pipeline split"),
             QT_TR_NOOP("How the layers are split over the stages: the layers alone (Megatron-LM), or with the "
                        "embedding and the output counted as one layer each, as torchtitan has split them since 2025 "
                        "(needs FSDP2 sharding)"));
    addField(form, m_ppReturnOutputs, QT_TR_NOOP("Schedule keeps outputs"),
             QT_TR_NOOP("torch's pipeline schedule returns the last stage's outputs, so that stage keeps every "
                        "micro-batch's logits to the end of the step (torchtitan before October 2025; needs FSDP2 "
                        "sharding)"));
    addField(form, m_contextParallel, QT_TR_NOOP("Context parallel"),
             QT_TR_NOOP("GPUs that split every sequence (torchtitan's ring attention), each holding sequence / context "
                        "tokens; needs FSDP2 sharding"));
    addField(form, m_expertParallel, QT_TR_NOOP("Expert parallel"),
             QT_TR_NOOP("Data-parallel GPUs that split each mixture-of-experts layer's routed experts, exchanging "
                        "tokens by all-to-all (Megatron-LM's expert parallelism; full fine-tuning with DDP or the "
                        "distributed optimizer)"));
    addField(form, m_expertTensorParallel, QT_TR_NOOP("Expert tensor parallel"),
             QT_TR_NOOP("GPUs that split each routed expert's linears, as tensor parallelism splits a dense MLP "
                        "(Megatron-LM's expert tensor parallelism; the default is the tensor-parallel degree, 1 keeps "
                        "each expert whole)"));
    addField(form, m_capacityFactor, QT_TR_NOOP("Expert capacity factor"),
             QT_TR_NOOP("Each expert takes at most this many times its even share of token slots and drops the "
                        "rest (Megatron-LM's capacity factor; with tensor, pipeline or expert parallelism)"));
    addField(form, m_padToCapacity, QT_TR_NOOP("Pad experts to capacity"),
             QT_TR_NOOP("Every expert's input is padded to its capacity, so each holds the capacity factor times "
                        "its even share"));
    addField(form, m_imbalance, QT_TR_NOOP("Routing imbalance"),
             QT_TR_NOOP("Plan for uneven routing: the busiest expert-parallel GPU receives this many times the even "
                        "share of token slots (1: balanced; a what-if, not measured)"));
    addField(form, m_dpReplicate, QT_TR_NOOP("Replicate groups (HSDP)"),
             QT_TR_NOOP("FSDP2 shards within each group of data-parallel GPUs and the groups all-reduce the sharded "
                        "gradients (torchtitan's data_parallel_replicate_degree); 1 shards over all of them"));
    addField(form, m_asyncTp, QT_TR_NOOP("AsyncTP"),
             QT_TR_NOOP("torchtitan's asynchronous tensor parallelism: each all-gather and reduce-scatter fused with "
                        "its matmul over a symmetric-memory workspace outside PyTorch's allocator (needs tensor "
                        "parallel, FSDP2 and torch.compile)"));

    // Object names: stable handles for tests and for style sheets.
    const std::pair<QWidget*, const char*> names[] = {{m_gpu, "gpu"},
                                                      {m_gpuCapacity, "gpuCapacity"},
                                                      {m_gpuCount, "gpuCount"},
                                                      {m_sharding, "sharding"},
                                                      {m_cpuOffload, "cpuOffload"},
                                                      {m_tensorParallel, "tensorParallel"},
                                                      {m_sequenceParallel, "sequenceParallel"},
                                                      {m_pipelineParallel, "pipelineParallel"},
                                                      {m_virtualStages, "virtualStages"},
                                                      {m_ppSchedule, "ppSchedule"},
                                                      {m_ppSplit, "ppSplit"},
                                                      {m_ppReturnOutputs, "ppReturnOutputs"},
                                                      {m_contextParallel, "contextParallel"},
                                                      {m_expertParallel, "expertParallel"},
                                                      {m_dpReplicate, "dpReplicate"},
                                                      {m_asyncTp, "asyncTp"}};
    for (const auto& [widget, name] : names)
        widget->setObjectName(QLatin1String(name));
    retranslate();

    for (QWidget* input : inputsInReadingOrder()) {
        if (auto* combo = qobject_cast<QComboBox*>(input))
            connect(combo, &QComboBox::currentIndexChanged, this, &HardwareGroup::onInputChanged);
        else if (auto* spin = qobject_cast<QSpinBox*>(input))
            connect(spin, &QSpinBox::valueChanged, this, &HardwareGroup::onInputChanged);
        else if (auto* factor = qobject_cast<QDoubleSpinBox*>(input))
            connect(factor, &QDoubleSpinBox::valueChanged, this, &HardwareGroup::onInputChanged);
        else if (auto* box = qobject_cast<QCheckBox*>(input))
            connect(box, &QCheckBox::toggled, this, &HardwareGroup::onInputChanged);
    }
    updateEnabled();
}

QSpinBox* HardwareGroup::makeSpin(int minimum, int maximum)
{
    return makeSpinBox(this, minimum, maximum);
}

QDoubleSpinBox* HardwareGroup::makeFactor(double minimum, double maximum)
{
    auto* spin = new QDoubleSpinBox(this);
    spin->setRange(minimum, maximum);
    spin->setDecimals(2);
    spin->setSingleStep(0.25);
    return spin;
}

void HardwareGroup::addField(QFormLayout* form, QWidget* widget, const char* text, const char* toolTip)
{
    m_fields.add(form, this, widget, text, toolTip);
}

void HardwareGroup::retranslate()
{
    setTitle(tr("GPU"));
    //: the expert tensor-parallel field's value 0
    m_expertTensorParallel->setSpecialValueText(tr("as tensor parallel"));
    //: the capacity factor field's value 0: no capacity, no token dropped
    m_capacityFactor->setSpecialValueText(tr("dropless"));
    m_fields.retranslate(metaObject()->className());
    QList<ComboItem> shardings;
    for (Sharding sharding : {Sharding::None, Sharding::Ddp, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3,
                              Sharding::Fsdp, Sharding::Fsdp2})
        shardings.append({DisplayNames::sharding(sharding), enumData(sharding), {}});
    setComboItems(m_sharding, shardings);
    //: pipeline schedule names, as Megatron-LM and torch call them
    setComboItems(m_ppSchedule, {{tr("1F1B"), enumData(PipelineSchedule::OneFOneB), {}},
                                 {tr("GPipe"), enumData(PipelineSchedule::GPipe), {}}});
    setComboItems(m_ppSplit, {{tr("Layers only"), enumData(PipelineSplit::Layers), {}},
                              //: the embedding and the output each count as a layer
                              {tr("Weighted (torchtitan)"), enumData(PipelineSplit::Weighted), {}}});
    refreshUnits();
}

void HardwareGroup::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QGroupBox::changeEvent(event);
}

void HardwareGroup::refreshUnits()
{
    // The list shows the total nvidia-smi prints (what people know their GPU
    // by); the plan fits against what CUDA can allocate, said on its own line
    // below the list and in each entry's tooltip (ui/text/gputext.h).
    QList<ComboItem> gpus;
    for (const GpuSpec& gpu : gpuCatalog())
        gpus.append({GpuText::listEntry(gpu), QString::fromStdString(gpu.id), GpuText::toolTip(gpu)});
    setComboItems(m_gpu, gpus); // keeps the selection, emits nothing
    updateGpuCapacity();
}

void HardwareGroup::updateGpuCapacity()
{
    auto gpu = findGpu(m_gpu->currentData().toString().toStdString());
    m_gpuCapacity->setText(gpu ? GpuText::capacityLine(gpu.value()) : QString());
}

std::vector<QWidget*> HardwareGroup::inputsInReadingOrder() const
{
    return {m_gpu,
            m_gpuCount,
            m_sharding,
            m_cpuOffload,
            m_tensorParallel,
            m_sequenceParallel,
            m_pipelineParallel,
            m_virtualStages,
            m_ppSchedule,
            m_ppSplit,
            m_ppReturnOutputs,
            m_contextParallel,
            m_expertParallel,
            m_expertTensorParallel,
            m_capacityFactor,
            m_padToCapacity,
            m_imbalance,
            m_dpReplicate,
            m_asyncTp};
}

void HardwareGroup::onInputChanged()
{
    updateGpuCapacity();
    updateEnabled();
    emit changed();
}

void HardwareGroup::setModel(const ModelSpec& model)
{
    m_moe = model.isMoe();
    updateEnabled();
}

void HardwareGroup::updateEnabled()
{
    // Offload moves sharded states: nothing to move without ZeRO or FSDP.
    const Sharding sharding = comboEnum<Sharding>(m_sharding);
    m_cpuOffload->setEnabled(sharding != Sharding::None && sharding != Sharding::Ddp);
    // Sequence parallelism splits over the tensor-parallel GPUs: nothing to split with one.
    m_sequenceParallel->setEnabled(m_tensorParallel->value() > 1);
    // Virtual stages interleave a pipeline: nothing to interleave without one
    // (kept enabled while above 1, so that a scenario's vpp can be set back).
    m_virtualStages->setEnabled(m_pipelineParallel->value() > 1 || m_virtualStages->value() > 1);
    // The pipeline's settings act with a pipeline (kept enabled while set, so
    // that a scenario's value can be set back).
    const bool pipeline = m_pipelineParallel->value() > 1;
    m_ppSchedule->setEnabled(pipeline || comboEnum<PipelineSchedule>(m_ppSchedule) != PipelineSchedule::OneFOneB);
    m_ppSplit->setEnabled((pipeline && sharding == Sharding::Fsdp2) ||
                          comboEnum<PipelineSplit>(m_ppSplit) != PipelineSplit::Layers);
    m_ppReturnOutputs->setEnabled((pipeline && sharding == Sharding::Fsdp2) || m_ppReturnOutputs->isChecked());
    // HSDP replicates FSDP2's shards: nothing to replicate without FSDP2 (kept
    // enabled while above 1, so that a scenario's groups can be set back).
    m_dpReplicate->setEnabled(sharding == Sharding::Fsdp2 || m_dpReplicate->value() > 1);
    // Likewise kept enabled while checked, so that a scenario's setting can be cleared.
    m_asyncTp->setEnabled(m_tensorParallel->value() > 1 || m_asyncTp->isChecked());
    // A mixture of experts' fields (kept enabled while set, so that a
    // scenario's value can be set back).
    m_expertTensorParallel->setEnabled(m_moe || m_expertTensorParallel->value() != 0);
    m_capacityFactor->setEnabled(m_moe || m_capacityFactor->value() != 0.0);
    m_padToCapacity->setEnabled(m_capacityFactor->value() != 0.0 || m_padToCapacity->isChecked());
    m_imbalance->setEnabled(m_moe || m_imbalance->value() != 1.0);
}

void HardwareGroup::setConfig(const HardwareConfig& hw, const MoeRouting& routing)
{
    // Block every input so one load is one change, announced by the caller.
    std::vector<std::unique_ptr<QSignalBlocker>> blockers;
    for (QWidget* input : inputsInReadingOrder())
        blockers.push_back(std::make_unique<QSignalBlocker>(input));

    if (!selectComboData(m_gpu, QString::fromStdString(hw.gpu))) {
        // An id the catalog spells differently ("RTX-4090"): match case-insensitively.
        if (auto gpu = findGpu(hw.gpu))
            selectComboData(m_gpu, QString::fromStdString(gpu.value().id));
    }
    m_gpuCount->setValue(clampToSpin(hw.count, m_gpuCount));
    selectComboData(m_sharding, enumData(hw.sharding));
    m_cpuOffload->setChecked(hw.cpuOffload);
    m_tensorParallel->setValue(clampToSpin(hw.parallel.tp, m_tensorParallel));
    m_sequenceParallel->setChecked(hw.parallel.sp);
    m_pipelineParallel->setValue(clampToSpin(hw.parallel.pp, m_pipelineParallel));
    m_contextParallel->setValue(clampToSpin(hw.parallel.cp, m_contextParallel));
    m_expertParallel->setValue(clampToSpin(hw.parallel.ep, m_expertParallel));
    m_expertTensorParallel->setValue(clampToSpin(hw.parallel.etp, m_expertTensorParallel));
    m_capacityFactor->setValue(routing.capacityFactor);
    m_padToCapacity->setChecked(routing.padToCapacity);
    m_imbalance->setValue(routing.imbalance);
    m_dpReplicate->setValue(clampToSpin(hw.parallel.dpReplicate, m_dpReplicate));
    m_gpusPerNode = hw.gpusPerNode;
    selectComboData(m_ppSchedule, enumData(hw.parallel.ppSchedule));
    selectComboData(m_ppSplit, enumData(hw.parallel.ppSplit));
    m_ppReturnOutputs->setChecked(hw.parallel.ppReturnOutputs);
    m_virtualStages->setValue(clampToSpin(hw.parallel.vpp, m_virtualStages));
    m_asyncTp->setChecked(hw.parallel.asyncTp);

    updateGpuCapacity();
    updateEnabled();
}

HardwareConfig HardwareGroup::hardware() const
{
    HardwareConfig hw;
    hw.gpu = m_gpu->currentData().toString().toStdString();
    hw.count = spinValue(m_gpuCount);
    hw.sharding = comboEnum<Sharding>(m_sharding);
    hw.cpuOffload = m_cpuOffload->isChecked();
    hw.gpusPerNode = m_gpusPerNode;
    ParallelConfig& p = hw.parallel;
    p.tp = spinValue(m_tensorParallel);
    p.sp = m_sequenceParallel->isChecked();
    p.pp = spinValue(m_pipelineParallel);
    p.ppSchedule = comboEnum<PipelineSchedule>(m_ppSchedule);
    p.ppSplit = comboEnum<PipelineSplit>(m_ppSplit);
    p.ppReturnOutputs = m_ppReturnOutputs->isChecked();
    p.vpp = spinValue(m_virtualStages);
    p.asyncTp = m_asyncTp->isChecked();
    p.cp = spinValue(m_contextParallel);
    p.ep = spinValue(m_expertParallel);
    p.etp = spinValue(m_expertTensorParallel);
    p.dpReplicate = spinValue(m_dpReplicate);
    return hw;
}

MoeRouting HardwareGroup::moe() const
{
    MoeRouting routing;
    routing.capacityFactor = m_capacityFactor->value();
    routing.padToCapacity = m_padToCapacity->isChecked();
    routing.imbalance = m_imbalance->value();
    return routing;
}
