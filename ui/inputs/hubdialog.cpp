// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputs/hubdialog.h"

#include "inputs/hubfetch.h"
#include "text/hubtext.h"

#include <QDialogButtonBox>
#include <QEvent>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

HubDialog::HubDialog(QWidget* parent)
    : QDialog(parent)
    , m_fetch(new HubFetch(this))
    , m_intro(new QLabel)
    , m_idLabel(new QLabel)
    , m_id(new QLineEdit)
    , m_revisionLabel(new QLabel)
    , m_revision(new QLineEdit)
    , m_progress(new QProgressBar)
    , m_status(new QLabel)
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel))
    , m_fetchButton(m_buttons->addButton(QString(), QDialogButtonBox::AcceptRole))
{
    m_intro->setWordWrap(true);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse); // a licence page URL to copy
    m_id->setPlaceholderText(QStringLiteral("ORG/NAME"));
    m_revision->setPlaceholderText(QStringLiteral("main"));
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);

    auto* form = new QFormLayout;
    form->addRow(m_idLabel, m_id);
    form->addRow(m_revisionLabel, m_revision);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(form);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addStretch(1);
    layout->addWidget(m_buttons);

    m_fetchButton->setDefault(true);
    m_fetchButton->setEnabled(false);
    connect(m_id, &QLineEdit::textChanged, this,
            [this] { m_fetchButton->setEnabled(!busy() && !m_id->text().trimmed().isEmpty()); });
    // Fetch has the accept role for Enter, but starts the fetch; the dialog accepts when a model is in hand.
    connect(m_buttons, &QDialogButtonBox::accepted, this, &HubDialog::fetch);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &HubDialog::reject);
    connect(m_fetch, &HubFetch::progress, this, &HubDialog::showProgress);
    connect(m_fetch, &HubFetch::finished, this, &HubDialog::finish);
    retranslate();
    setMinimumWidth(520);
}

HubDialog::~HubDialog() = default;

void HubDialog::retranslate()
{
    setWindowTitle(tr("Open from Hugging Face Hub"));
    m_intro->setText(tr("Reads config.json and the safetensors headers of a model on the Hugging Face Hub; the weights "
                        "are not downloaded. Gated models need your access token: set HF_TOKEN or run "
                        "huggingface-cli login. HF_ENDPOINT, HF_HOME and HF_HUB_OFFLINE apply."));
    m_idLabel->setText(tr("&Model:"));
    m_idLabel->setBuddy(m_id);
    m_revisionLabel->setText(tr("&Revision:"));
    m_revisionLabel->setBuddy(m_revision);
    m_revision->setToolTip(tr("A branch, tag or commit hash; empty means main"));
    m_fetchButton->setText(tr("&Fetch"));
}

void HubDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QDialog::changeEvent(event);
}

void HubDialog::setModelId(const QString& id, const QString& revision)
{
    m_id->setText(id);
    m_revision->setText(revision);
}

bool HubDialog::busy() const { return m_fetch->busy(); }

QString HubDialog::statusText() const { return m_status->text(); }

void HubDialog::setRunning(bool running)
{
    m_id->setEnabled(!running);
    m_revision->setEnabled(!running);
    m_fetchButton->setEnabled(!running && !m_id->text().trimmed().isEmpty());
}

void HubDialog::fetch()
{
    if (busy() || m_id->text().trimmed().isEmpty())
        return;
    QString id = m_id->text().trimmed();
    if (const QString revision = m_revision->text().trimmed(); !revision.isEmpty())
        id += QLatin1Char('@') + revision;
    m_model.reset();
    m_progress->setRange(0, 0); // busy until the first file is named
    m_status->setText(tr("Connecting…"));
    setRunning(true);
    m_fetch->start(id);
}

void HubDialog::showProgress(const QString& file, int done, int total)
{
    m_progress->setRange(0, std::max(total, 1));
    m_progress->setValue(done);
    if (!file.isEmpty())
        //: %1 a file name, %2 and %3 counts of files
        m_status->setText(tr("Reading %1 (%2 of %3)…").arg(file).arg(done + 1).arg(total));
}

void HubDialog::finish(const HubFetchResult& result)
{
    setRunning(false);
    if (!result.info) {
        m_progress->setRange(0, 1);
        m_progress->setValue(0);
        m_status->setText(HubText::message(result.error));
        return;
    }
    m_model = result.info;
    m_progress->setValue(m_progress->maximum());
    accept();
}

void HubDialog::reject()
{
    if (busy()) {
        m_fetch->cancel();
        m_status->setText(tr("Cancelling…"));
        return;
    }
    QDialog::reject();
}

QString HubDialog::summary() const
{
    if (!m_model)
        return QString();
    const headroom::HubModelInfo& m = *m_model;
    const QString id = QString::fromStdString(m.ref.repo);
    const QString commit = QString::fromStdString(m.commit.substr(0, 12));
    QString text = m.fetched.empty()
                       //: %1 a model id, %2 a commit hash (shortened)
                       ? tr("%1 at commit %2, from the Hugging Face cache").arg(id, commit)
                       //: %1 a model id, %2 a commit hash (shortened), %3 a count of files
                       : tr("%1 at commit %2: %3 files read from the Hub").arg(id, commit).arg(m.fetched.size());
    for (const std::string& note : m.notes)
        text += QStringLiteral(" · ") + HubText::note(note);
    return text;
}
