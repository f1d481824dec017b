// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File > Open from Hugging Face Hub: a model id and a revision, then
// config.json and the safetensors headers fetched on a worker (HubFetch),
// with progress and Cancel. Errors are shown in the dialog, translated
// (HubText); the dialog accepts once a model is in hand.
#include "hub/hubclient.h"

#include <QDialog>

#include <optional>

class HubFetch;
struct HubFetchResult;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;

class HubDialog : public QDialog {
    Q_OBJECT

public:
    explicit HubDialog(QWidget* parent = nullptr);
    ~HubDialog() override;

    // The model, after the dialog accepted.
    const std::optional<headroom::HubModelInfo>& model() const { return m_model; }
    // One line for the status bar: what was read, from where, and the notes.
    QString summary() const;

    // What the buttons do, for the tests.
    void setModelId(const QString& id, const QString& revision = QString());
    void fetch();
    bool busy() const;
    QString statusText() const;
    QProgressBar* progressBar() const { return m_progress; }

    void reject() override; // Cancel: stops a running fetch first; a second press closes

protected:
    void changeEvent(QEvent* event) override;

private:
    void retranslate();
    void showProgress(const QString& file, int done, int total);
    void finish(const HubFetchResult& result);
    void setRunning(bool running);

    HubFetch* m_fetch;
    QLabel* m_intro;
    QLabel* m_idLabel;
    QLineEdit* m_id;
    QLabel* m_revisionLabel;
    QLineEdit* m_revision;
    QProgressBar* m_progress;
    QLabel* m_status;
    QDialogButtonBox* m_buttons;
    QPushButton* m_fetchButton;
    std::optional<headroom::HubModelInfo> m_model;
};
