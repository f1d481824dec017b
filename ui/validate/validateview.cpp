// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/validateview.h"

#include "validate/measurementpanel.h"
#include "validate/validationcharts.h"

#include "style/palette.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QComboBox>
#include <QEvent>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include "io/scenariofile.h"

#include <qcustomplot.h>


using namespace headroom;

namespace {

constexpr int kProgressSteps = 1000;

QString phaseText(const QString& phase)
{
    // The phases of VALIDATE-PROTOCOL.md; an unknown one is shown as sent.
    if (phase == QLatin1String("setup"))
        return ValidateView::tr("setting up");
    if (phase == QLatin1String("warmup"))
        return ValidateView::tr("warm-up");
    if (phase == QLatin1String("forward"))
        return ValidateView::tr("forward");
    if (phase == QLatin1String("loss"))
        return ValidateView::tr("loss");
    if (phase == QLatin1String("backward"))
        return ValidateView::tr("backward");
    if (phase == QLatin1String("optimizer"))
        return ValidateView::tr("optimizer step");
    if (phase == QLatin1String("done"))
        return ValidateView::tr("done");
    return phase;
}

} // namespace

ValidateView::ValidateView(QWidget* parent)
    : QWidget(parent)
    , m_runner(new ValidationRunner(this))
    , m_measurementPanel(new MeasurementPanel)
    , m_backend(new QComboBox)
    , m_backendLabel(new QLabel)
    , m_device(new QLabel)
    , m_timeoutLabel(new QLabel)
    , m_timeout(new QSpinBox)
    , m_runButton(new QPushButton)
    , m_cancelButton(new QPushButton)
    , m_progress(new QProgressBar)
    , m_status(new QLabel)
    , m_summary(new QLabel)
    , m_charts(new ValidationCharts)
{
    m_backend->addItem(QString(), QString());
    m_backend->addItem(QString(), QStringLiteral("cpu"));
    m_backend->addItem(QString(), QStringLiteral("cuda"));
    m_backendLabel->setBuddy(m_backend);
    m_device->setWordWrap(true);
    m_device->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_timeout->setRange(1, 24 * 3600);
    m_timeout->setValue(ValidationRunner::kDefaultTimeoutSeconds);
    m_timeoutLabel->setBuddy(m_timeout);
    m_cancelButton->setEnabled(false);
    m_progress->setRange(0, kProgressSteps);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setTextFormat(Qt::PlainText);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_backendLabel);
    controls->addWidget(m_backend);
    controls->addWidget(m_device, 1);
    controls->addWidget(m_timeoutLabel);
    controls->addWidget(m_timeout);
    controls->addWidget(m_runButton);
    controls->addWidget(m_cancelButton);


    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    layout->addWidget(m_charts, 1);
    layout->addWidget(m_summary);
    layout->addWidget(m_measurementPanel);

    connect(m_runButton, &QPushButton::clicked, this, &ValidateView::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &ValidateView::cancel);
    connect(m_runner, &ValidationRunner::progress, this, &ValidateView::onProgress);
    connect(m_runner, &ValidationRunner::finished, this, &ValidateView::onFinished);
    connect(m_runner, &ValidationRunner::failed, this, &ValidateView::onFailed);
    connect(m_runner, &ValidationRunner::devicesProbed, this, &ValidateView::onDevicesProbed);

    retranslate();
    clearResult();
}

ValidateView::~ValidateView() = default;

void ValidateView::retranslate()
{
    m_backendLabel->setText(tr("&Engine:"));
    m_backend->setItemText(0, tr("Automatic (CUDA when available)"));
    m_backend->setItemText(1, tr("CPU"));
    m_backend->setItemText(2, tr("CUDA GPU"));
    m_backend->setToolTip(tr("Which engine runs the step. The CPU engine measures the same tensors on the processor."));
    m_timeoutLabel->setText(tr("&Timeout:"));
    //: suffix of the timeout box: seconds
    m_timeout->setSuffix(tr(" s"));
    m_timeout->setToolTip(tr("A run that has not finished by then is stopped."));
    m_runButton->setText(tr("&Run"));
    m_runButton->setToolTip(tr("Run one step of this scenario for real and measure its memory"));
    m_cancelButton->setText(tr("&Cancel"));
    m_charts->retranslate();
    onDevicesProbed(m_devices, m_deviceProblem);
    refresh();
}

void ValidateView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void ValidateView::showEvent(QShowEvent* event)
{
    // Devices are asked for once, when the tab is first seen: a main window
    // that is never shown on this tab starts no process.
    if (!m_probed) {
        m_probed = true;
        m_runner->probeDevices();
    }
    QWidget::showEvent(event);
}

void ValidateView::onDevicesProbed(const QStringList& devices, const QString& problem)
{
    m_devices = devices;
    m_deviceProblem = problem;
    if (!devices.isEmpty()) {
        m_device->setText(tr("CUDA: %1").arg(devices.join(QStringLiteral(", "))));
        return;
    }
    if (!m_probed) {
        m_device->clear();
        return;
    }
    const QString plain = tr("No CUDA device / no CUDA engine in this build: the CPU engine runs the step instead.");
    m_device->setText(problem.isEmpty() ? plain : QStringLiteral("%1 (%2)").arg(plain, problem));
}

QString ValidateView::deviceText() const { return m_device->text(); }

void ValidateView::setScenario(const Scenario& scenario)
{
    m_scenario = scenario;
    updateStaleNote();
}

bool ValidateView::isRunning() const { return m_runner->isRunning(); }

void ValidateView::run()
{
    if (m_runner->isRunning())
        return;
    m_runner->setBackend(m_backend->currentData().toString());
    m_runner->setTimeoutSeconds(m_timeout->value());
    // A new run replaces the shown result, whatever its outcome.
    m_report.reset();
    m_ranScenario.reset();
    clearResult();
    // The view is in its running state before start(): a child that cannot
    // even be started reports failed() from within start().
    m_ranScenario = m_scenario;
    setRunning(true);
    m_progress->setValue(0);
    m_progress->setFormat(tr("Starting…"));
    setStatus(tr("Running one step in a separate process; the app stays usable and Cancel stops it."),
              palette().color(QPalette::WindowText));
    if (!m_runner->start(m_scenario)) {
        setRunning(false);
        m_progress->setFormat(tr("No result"));
        setStatus(tr("Cannot start a validation run: the scenario could not be written to a temporary file."),
                  Palette::outOfMemory());
    }
}

void ValidateView::cancel() { m_runner->cancel(); }

void ValidateView::setRunning(bool running)
{
    m_runButton->setEnabled(!running);
    m_cancelButton->setEnabled(running);
    m_backend->setEnabled(!running);
    m_timeout->setEnabled(!running);
}

void ValidateView::setStatus(const QString& text, const QColor& color)
{
    m_statusMessage = text;
    m_status->setText(text);
    QPalette p = m_status->palette();
    p.setColor(QPalette::WindowText, color);
    m_status->setPalette(p);
}

QString ValidateView::statusText() const { return m_status->text(); }

QString ValidateView::progressText() const { return m_progress->text(); }

int ValidateView::progressValue() const { return m_progress->value(); }

void ValidateView::onProgress(const ValidationProgress& progress)
{
    m_progress->setValue(static_cast<int>(progress.fraction * kProgressSteps));
    QString text = phaseText(progress.phase);
    if (!progress.event.isEmpty())
        text += QStringLiteral(" · ") + ValidationCharts::shownEvent(progress.event);
    if (progress.steps > 1)
        //: progress bar: step 2 of 3
        text += QStringLiteral(" · ") + tr("step %1 of %2").arg(progress.step).arg(progress.steps);
    // QProgressBar replaces %p with the percentage; a literal % in an event would be read as one.
    text.replace(QLatin1Char('%'), QStringLiteral("%%"));
    m_progress->setFormat(text + QStringLiteral(" — %p%"));
}

void ValidateView::onFinished(const ValidationReport& report)
{
    setRunning(false);
    showReport(report);
}

void ValidateView::onFailed(ValidationRunner::Failure failure, const QString& message)
{
    setRunning(false);
    m_progress->setValue(0);
    if (failure == ValidationRunner::Failure::Cancelled) {
        m_progress->setFormat(tr("Cancelled"));
        setStatus(message, palette().color(QPalette::WindowText));
        return;
    }
    m_progress->setFormat(tr("No result"));
    QString text = message;
    if (failure == ValidationRunner::Failure::Unavailable && m_backend->currentData().toString() != QLatin1String("cpu"))
        text += QLatin1Char(' ') + tr("Choose the CPU engine to run the step on the processor instead.");
    setStatus(text, Palette::outOfMemory());
}

void ValidateView::showReport(const ValidationReport& report)
{
    m_report = report;
    if (!m_ranScenario)
        m_ranScenario = m_scenario;
    m_progress->setValue(kProgressSteps);
    refresh();
}

QString ValidateView::loadReportFile(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return tr("cannot read %1: %2").arg(path, file.errorString());
    QString error;
    const auto report = ValidationJson::parseReport(file.readAll(), &error);
    if (!report)
        return tr("cannot read %1: %2").arg(path, error);
    showReport(*report);
    return QString();
}

void ValidateView::refresh()
{
    m_measurementPanel->refresh();
    if (!m_report) {
        clearResult();
        return;
    }
    const ValidationReport& report = *m_report;
    m_progress->setFormat(report.status == ValidationReport::Status::OutOfMemory ? tr("Stopped: out of memory") : tr("Done"));
    if (report.status == ValidationReport::Status::OutOfMemory)
        //: %1 is the run's own words, e.g. "out of memory at 71.3 GiB in backward of layer 12"
        setStatus(tr("Measured: the step ran out of memory (%1). The planned peak is beside what was measured before it stopped.")
                      .arg(report.message.isEmpty() ? tr("no details") : report.message),
                  Palette::outOfMemory());
    else
        setStatus(tr("Measured: the step ran to the end. Planned and measured memory below."), Palette::fits());
    m_charts->show(report);
    drawSummary();
    updateStaleNote();
}

void ValidateView::clearResult()
{
    m_charts->clear();
    m_summary->clear();
}

void ValidateView::drawSummary()
{
    const ValidationReport& report = *m_report;
    QStringList parts;
    //: %1 is the engine (cpu, cuda), %2 the device as the run names it
    parts << tr("Engine: %1 on %2").arg(report.backend.isEmpty() ? tr("unknown") : report.backend,
                                        report.device.isEmpty() ? tr("an unnamed device") : report.device);
    if (!report.planned.peakEvent.isEmpty() || !report.measured.peakEvent.isEmpty())
        parts << tr("Peak at %1 (planned) and %2 (measured)")
                     .arg(ValidationCharts::shownEvent(report.planned.peakEvent),
                          report.measured.peakEvent.isEmpty() ? QStringLiteral("—") : ValidationCharts::shownEvent(report.measured.peakEvent));
    if (report.stepSeconds)
        parts << tr("Step time: %1 s").arg(QLocale().toString(*report.stepSeconds, 'f', 3));
    if (report.tokensPerSecond)
        parts << tr("Tokens/s: %1").arg(QLocale().toString(*report.tokensPerSecond, 'f', 0));
    QString text = parts.join(QStringLiteral(" · "));
    if (report.deviceUsedMeasured && report.deviceUsedPlanned)
        //: %1 measured bytes, %2 planned bytes, %3 the overheads included in %2, %4 the verdict of the check
        text += QLatin1Char('\n') + tr("Device memory used: %1 measured, %2 planned (the peak plus %3 of CUDA context, "
                                       "cuBLAS workspace and kernel arena): %4")
                                        .arg(MemoryUnits::format(*report.deviceUsedMeasured),
                                             MemoryUnits::format(*report.deviceUsedPlanned),
                                             MemoryUnits::format(report.deviceOverhead.value_or(0.0)),
                                             report.deviceWithinTolerance ? tr("within 2 % or 64 MiB")
                                                                          : tr("outside 2 % or 64 MiB"));
    if (report.extrapolated)
        text += QLatin1Char('\n') + tr("Extrapolated: the full model did not fit, so fewer layers were run and the "
                                       "per-layer measurement was scaled up.");
    for (const QString& note : report.notes)
        text += QLatin1Char('\n') + QStringLiteral("• ") + ErrorText::note(note.toStdString());
    m_summary->setText(text);
}

void ValidateView::updateStaleNote()
{
    if (!m_report || !m_ranScenario)
        return;
    // The result belongs to the scenario that was run; say so once the inputs move on.
    const bool stale = scenarioToText(*m_ranScenario) != scenarioToText(m_scenario);
    m_status->setText(stale ? m_statusMessage + QLatin1Char(' ') + tr("The inputs have changed since this run; press Run to measure them.")
                            : m_statusMessage);
}

QTableView* ValidateView::table() const { return m_charts->table(); }

QCustomPlot* ValidateView::barsChart() const { return m_charts->barsChart(); }

QCustomPlot* ValidateView::timelineChart() const { return m_charts->timelineChart(); }

std::optional<double> ValidateView::plannedBarBytes(Category category) const { return m_charts->plannedBarBytes(category); }

std::optional<double> ValidateView::measuredBarBytes(Category category) const { return m_charts->measuredBarBytes(category); }

QString ValidateView::errorLabel(Category category) const { return m_charts->errorLabel(category); }

std::optional<double> ValidateView::measuredTimelineBytes(int event) const { return m_charts->measuredTimelineBytes(event); }

std::optional<double> ValidateView::plannedTimelineBytes(int event) const { return m_charts->plannedTimelineBytes(event); }
