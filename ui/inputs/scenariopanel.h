// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The configuration panel: one widget per planner input, mapped to a
// headroom::Scenario and back. It computes nothing: every edit goes out as
// the whole scenario (scenarioChanged) into the PlanDocument, and the
// document's problems come back through showProblem().
#include "inputs/formfields.h"
#include "plan/scenario.h"

#include <QWidget>

#include <vector>

class HardwareGroup;
class ModelPicker;
class PeftGroup;
class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QSpinBox;

class ScenarioPanel : public QWidget {
    Q_OBJECT

public:
    explicit ScenarioPanel(QWidget* parent = nullptr);

    void setScenario(const headroom::Scenario& scenario);  // emits nothing
    headroom::Scenario scenario() const;

    // An inline warning above the inputs; an empty message hides it.
    void showProblem(const QString& message);
    QString problem() const;

    // Labels that carry sizes (the GPU list) follow the unit choice.
    void refreshUnits();

signals:
    // A user edit, with the scenario the inputs now describe (not emitted by setScenario).
    void scenarioChanged(const headroom::Scenario& scenario);

protected:
    void changeEvent(QEvent* event) override;

private:
    QGroupBox* addGroup(const char* title);
    void addField(QFormLayout* form, QWidget* widget, const char* text, const char* toolTip);
    QSpinBox* makeSpin(int minimum, int maximum, int step = 1);
    void connectInputs();
    void nameInputs();
    std::vector<QWidget*> inputs() const;
    std::vector<QWidget*> inputsInReadingOrder() const; // every input, top to bottom: the tab order
    void retranslate();
    void updateVisibility();
    void updateEffectiveBatch();
    void setTabOrderByLayout();
    void onModelChanged();
    void onInputChanged();

    QLabel* m_problem;
    ModelPicker* m_modelPicker;
    HardwareGroup* m_hardware = nullptr; // hardware and train.moe
    // Run
    QComboBox* m_mode;
    QComboBox* m_profile;
    // Training: precision and optimizer
    QComboBox* m_precision;
    QComboBox* m_weightQuant;
    QComboBox* m_optimizer;
    QSpinBox* m_galoreRank;
    PeftGroup* m_peft;
    // Training: batch
    QSpinBox* m_microBatch;
    QSpinBox* m_seqLen;
    QSpinBox* m_gradAccum;
    QLabel* m_effectiveBatch;
    // Training: activations
    QComboBox* m_checkpointing;
    QSpinBox* m_checkpointEvery;
    QComboBox* m_attention;
    QComboBox* m_loop;
    QComboBox* m_useCache;
    QCheckBox* m_chunkedLoss;
    QSpinBox* m_lossChunks;
    QCheckBox* m_optimizerInBackward;
    QCheckBox* m_activationOffload;
    QCheckBox* m_compileLayers;
    QCheckBox* m_compileLoss;        // train.compile_loss
    QCheckBox* m_float8AllGather;    // train.float8_all_gather
    // Inference
    QSpinBox* m_inferBatch;
    QSpinBox* m_promptTokens;
    QSpinBox* m_newTokens;
    QComboBox* m_inferPrecision;
    QComboBox* m_inferWeightQuant;
    QComboBox* m_kvCacheDtype;
    QComboBox* m_inferAttention;

    std::vector<QGroupBox*> m_trainGroups;
    QGroupBox* m_inferenceGroup = nullptr;
    std::vector<std::pair<QGroupBox*, const char*>> m_groupTitles;
    FormFields m_fields; // labels and tooltips, re-translated on a language switch
    std::vector<std::pair<QCheckBox*, const char*>> m_checkTexts;
    QFormLayout* m_precisionForm = nullptr;
    // A scenario setting the panel has no input for yet: kept from the last
    // scenario shown, so that an edit does not drop it.
    std::uint64_t m_globalBatch = 0;
    QFormLayout* m_activationForm = nullptr;
};
