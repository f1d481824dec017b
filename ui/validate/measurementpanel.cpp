// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/measurementpanel.h"

#include "document/plandocument.h"
#include "models/measurementmodel.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

MeasurementPanel::MeasurementPanel(QWidget* parent)
    : QGroupBox(parent)
    , m_model(new MeasurementModel(this))
    , m_table(new QTableView)
    , m_intro(new QLabel)
    , m_source(new QLabel)
    , m_problem(new QLabel)
    , m_importButton(new QPushButton)
    , m_openScenario(new QPushButton)
{
    setObjectName(QStringLiteral("measurementPanel"));
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("measurementTable"));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->setMaximumHeight(m_table->verticalHeader()->defaultSectionSize() * 4 + 8);
    m_table->hide();
    m_intro->setWordWrap(true);
    m_source->setWordWrap(true);
    m_source->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: palette(link);"));
    m_problem->hide();
    m_openScenario->setEnabled(false);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_importButton);
    buttons->addWidget(m_openScenario);
    buttons->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(buttons);
    layout->addWidget(m_problem);
    layout->addWidget(m_source);
    layout->addWidget(m_table);

    connect(m_importButton, &QPushButton::clicked, this, &MeasurementPanel::importDialog);
    connect(m_openScenario, &QPushButton::clicked, this, [this] {
        if (m_measurement && m_measurement->scenario)
            emit scenarioRequested(*m_measurement->scenario);
    });
    retranslate();
}

void MeasurementPanel::setDocument(PlanDocument* document)
{
    m_document = document;
    // A file without its own scenario follows the current one.
    connect(document, &PlanDocument::planChanged, this, [this] {
        if (m_measurement && !m_measurement->scenario)
            compare();
    });
}

QString MeasurementPanel::importFile(const QString& path)
{
    auto measurement = readMeasurementFile(path.toStdString());
    if (!measurement) {
        //: %1 is a file name, %2 the reason
        const QString text = tr("Cannot import %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(measurement.error()));
        showProblem(text);
        return text;
    }
    m_measurement = std::move(measurement).value();
    m_path = path;
    compare();
    return problemText();
}

void MeasurementPanel::importDialog()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Import measurement"), QString(),
                                                      tr("Headroom measurements (*.json);;All files (*)"));
    if (!path.isEmpty())
        importFile(path);
}

void MeasurementPanel::compare()
{
    if (!m_measurement)
        return;
    const Measurement& m = *m_measurement;
    const bool own = m.scenario.has_value();
    if (!own && !m_document) {
        showProblem(tr("The file does not say which scenario the run was made from."));
        return;
    }
    const Scenario scenario = own ? *m.scenario : m_document->scenario();
    auto plan = PlanDocument::planFor(scenario);
    if (!plan) {
        showProblem(tr("The run's scenario does not plan. %1").arg(ErrorText::message(plan.error())));
        m_model->setRows({});
        m_table->hide();
        return;
    }
    m_model->setRows(compareWithPlan(plan.value(), m));
    const bool onCpu = measuredOnCpu(m);
    m_table->setVisible(!onCpu);
    showProblem(QString());

    QStringList measured;
    if (onCpu)
        measured << tr("run on the CPU");
    else
        measured << (m.gpuName.empty() ? tr("measured on an unnamed GPU")
                                       : tr("measured on %1").arg(QString::fromStdString(m.gpuName)));
    for (const auto& [name, value] : {std::pair<const char*, const std::string*>{"torch", &m.torchVersion},
                                      {"transformers", &m.transformersVersion},
                                      {"CUDA", &m.cudaVersion},
                                      {"peft", &m.peftVersion}})
        if (!value->empty())
            measured << QStringLiteral("%1 %2").arg(QLatin1String(name), QString::fromStdString(*value));
    if (m.steps)
        measured << tr("%n step(s)", nullptr, static_cast<int>(*m.steps));
    QString text = QFileInfo(m_path).fileName() + QStringLiteral(": ") + measured.join(QStringLiteral(", ")) + QLatin1Char('.');
    text += QLatin1Char(' ') + (own ? tr("Planned for the scenario the run was made from (in the file), on %1.")
                                    : tr("The file names no scenario: planned for the current one, on %1."))
                                     .arg(QString::fromStdString(scenario.hardware.gpu));
    if (onCpu)
        text += QLatin1Char(' ') + tr("A run on the CPU (the exported script's smoke test) has no CUDA memory "
                                      "counters, so there is nothing to put beside the plan: run it on the GPU.");
    if (m.deviceUsedBytes)
        text += QLatin1Char(' ') + tr("Device used is the whole device as %1 read it, other processes included; the "
                                      "plan counts this process only.")
                                       .arg(m.deviceUsedSource.empty() ? tr("an unnamed source")
                                                                       : QString::fromStdString(m.deviceUsedSource));
    m_source->setText(text);
    m_openScenario->setEnabled(own);
}

void MeasurementPanel::showProblem(const QString& text)
{
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
}

QString MeasurementPanel::sourceText() const { return m_source->text(); }

QString MeasurementPanel::problemText() const { return m_problem->isHidden() ? QString() : m_problem->text(); }

void MeasurementPanel::refresh() { m_model->refresh(); }

void MeasurementPanel::retranslate()
{
    setTitle(tr("Measured on your stack"));
    m_intro->setText(tr("Ran the exported Hugging Face script, or the Headroom callback in your own loop, on your GPU? "
                        "Import the headroom.measurement/1 file it wrote to put PyTorch's counters beside the plan."));
    m_importButton->setText(tr("Import measurement…"));
    m_openScenario->setText(tr("Open the run's scenario"));
    m_openScenario->setToolTip(tr("Load the scenario the measured run was made from, as File ▸ Open would"));
    m_model->refresh();
    compare();
}

void MeasurementPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QGroupBox::changeEvent(event);
}
