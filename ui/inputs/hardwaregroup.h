// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The GPU inputs: which GPU and how many, how model states are sharded over
// them, and the parallel layout. A mixture of experts' routing (train.moe)
// sits here too, beside the expert layout it acts with.
#include "inputs/formfields.h"
#include "model/modelspec.h"
#include "plan/scenario.h"

#include <QGroupBox>

#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QSpinBox;

class HardwareGroup : public QGroupBox {
    Q_OBJECT

public:
    explicit HardwareGroup(QWidget* parent = nullptr);

    // The expert fields stay enabled for a mixture of experts. Emits nothing.
    void setModel(const headroom::ModelSpec& model);
    void setConfig(const headroom::HardwareConfig& hardware, const headroom::MoeRouting& routing); // emits nothing
    headroom::HardwareConfig hardware() const;
    headroom::MoeRouting moe() const;

    // The GPU list carries sizes: it follows the unit choice.
    void refreshUnits();
    // The panel's tab order runs through these, between its own inputs.
    std::vector<QWidget*> inputsInReadingOrder() const;

signals:
    void changed();

protected:
    void changeEvent(QEvent* event) override;

private:
    void addField(QFormLayout* form, QWidget* widget, const char* text, const char* toolTip);
    QSpinBox* makeSpin(int minimum, int maximum);
    QDoubleSpinBox* makeFactor(double minimum, double maximum);
    void retranslate();
    void updateEnabled();
    void updateGpuCapacity();
    void onInputChanged();

    QComboBox* m_gpu;
    QLabel* m_gpuCapacity; // the capacity the plan uses (CUDA-allocatable), apart from the list's nvidia-smi total
    QSpinBox* m_gpuCount;
    QComboBox* m_sharding;
    QCheckBox* m_cpuOffload;
    QSpinBox* m_tensorParallel;       // hardware.parallel.tp
    QCheckBox* m_sequenceParallel;    // hardware.parallel.sp
    QSpinBox* m_pipelineParallel;     // hardware.parallel.pp
    QSpinBox* m_virtualStages;        // hardware.parallel.vpp
    QComboBox* m_ppSchedule;          // hardware.parallel.pp_schedule
    QComboBox* m_ppSplit;             // hardware.parallel.pp_split
    QCheckBox* m_ppReturnOutputs;     // hardware.parallel.pp_return_outputs
    QSpinBox* m_contextParallel;      // hardware.parallel.cp
    QSpinBox* m_expertParallel;       // hardware.parallel.ep
    QSpinBox* m_expertTensorParallel; // hardware.parallel.etp (0: the tensor-parallel degree)
    QDoubleSpinBox* m_capacityFactor; // train.moe.capacity_factor (0: dropless)
    QCheckBox* m_padToCapacity;       // train.moe.pad_to_capacity
    QDoubleSpinBox* m_imbalance;      // train.moe.imbalance
    QSpinBox* m_dpReplicate;          // hardware.parallel.dp_replicate (HSDP)
    QCheckBox* m_asyncTp;             // hardware.parallel.async_tp

    FormFields m_fields; // labels and tooltips, re-translated on a language switch
    bool m_moe = false;
    // Settings without an input: kept from the last configuration shown, so
    // that an edit does not drop them.
    std::uint64_t m_gpusPerNode = 0; // hardware.gpus_per_node (the layout search's node size)
};
