// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The model input: a searchable list of the preset catalog (type any part of
// a name: "qwen", "8B"), plus models imported from a config.json or a local
// model folder. Imported models stay in the list for the session.
#include "model/modelspec.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;

class ModelPicker : public QWidget {
    Q_OBJECT

public:
    explicit ModelPicker(QWidget* parent = nullptr);

    // Selects the preset when `spec` is exactly a catalog entry (whatever its
    // head); otherwise adds (or reuses) a custom entry holding `spec` as is.
    // The head inputs show spec's head. Emits nothing.
    void setModel(const headroom::ModelSpec& spec);
    headroom::ModelSpec model() const;  // the selected model with the chosen head

    // The import actions without their file dialogs (tests call these):
    // an empty string on success, else the translated error.
    QString importConfigFile(const QString& path);
    QString importModelFolder(const QString& directory);

signals:
    void modelChanged();

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void fillPresets();
    void chooseConfigFile();
    void chooseModelFolder();
    int addCustomModel(const headroom::ModelSpec& spec);
    QString customLabel(const headroom::ModelSpec& spec) const;
    void updateSummary();
    headroom::ModelSpec baseModel() const;  // the selected entry as stored, with its own head
    void showHead(const headroom::ModelSpec& spec);
    void updateHeadInputs();

    QComboBox* m_combo;
    // The task head (BERT: masked LM or sequence classification) and the
    // classifier's label count; shown for models that have a choice.
    QLabel* m_headLabel;
    QComboBox* m_head;
    QLabel* m_labelsLabel;
    QSpinBox* m_labels;
    QPushButton* m_importConfig;
    QPushButton* m_importFolder;
    QLabel* m_summary;
    std::vector<headroom::ModelSpec> m_customModels;
};
