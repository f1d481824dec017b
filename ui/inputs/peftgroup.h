// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The PEFT inputs: method, rank, alpha, dropout and the target modules. The
// target checkboxes are the model's own linear modules (its parameter
// table's layer template), so a GPT-2 shows c_attn/c_proj/c_fc and a Llama
// q_proj...down_proj.
#include "model/modelspec.h"
#include "model/parametertable.h"
#include "plan/scenario.h"

#include <QGroupBox>

#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QSpinBox;

class PeftGroup : public QGroupBox {
    Q_OBJECT

public:
    explicit PeftGroup(QWidget* parent = nullptr);

    // Rebuilds the module checkboxes. Explicitly chosen modules this model
    // lacks are dropped unless `keepTargets` (a scenario being loaded keeps
    // its list as written). Emits nothing.
    void setModel(const headroom::ModelSpec& model, bool keepTargets = false);
    void setConfig(const headroom::PeftConfig& config);  // emits nothing
    headroom::PeftConfig config() const;

signals:
    void changed();

protected:
    void changeEvent(QEvent* event) override;

private:
    enum class TargetMode { ArchitectureDefault, AllLinear, Chosen };

    void retranslate();
    void rebuildTargetBoxes();
    void refreshTargets();  // checkbox states, enabled states and the hint from m_targets and the mode
    void onTargetModeChanged();
    void onTargetToggled(const std::string& module, bool checked);
    void updateEnabled();
    TargetMode targetMode() const;
    std::vector<std::string> requestedTargets() const;  // what config().targets will be

    QComboBox* m_method;
    QSpinBox* m_rank;
    QDoubleSpinBox* m_alpha;
    QDoubleSpinBox* m_dropout;
    QComboBox* m_targetMode;
    QWidget* m_targetBox;
    QGridLayout* m_targetGrid;
    QLabel* m_targetHint;
    QLabel* m_methodLabel;
    QLabel* m_rankLabel;
    QLabel* m_alphaLabel;
    QLabel* m_dropoutLabel;
    QLabel* m_targetsLabel;
    std::vector<QCheckBox*> m_targetBoxes;

    headroom::ModelSpec m_model;
    headroom::ParameterTable m_table;
    std::vector<std::string> m_modules;  // the model's targetable modules, in table order
    std::vector<std::string> m_targets;  // the explicit list for TargetMode::Chosen, in the user's order
};
