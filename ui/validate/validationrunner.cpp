// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/validationrunner.h"

#include "io/scenariofile.h"
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTimer>

namespace {

// Enough of the child's own words to tell what happened, not a log.
constexpr int kTailLines = 8;

// The exit statuses of VALIDATE-PROTOCOL.md.
constexpr int kExitBadInput = 2;
constexpr int kExitUnavailable = 3;

// The CLI's one line for exit 3, in the app's language when it is one the
// contract names; any other line is shown as the child wrote it.
QString unavailableReason(const QString& line)
{
    const QString key = line.trimmed().toLower();
    if (key.contains(QLatin1String("no cuda engine")))
        return ValidationRunner::tr("this build has no CUDA engine");
    if (key.contains(QLatin1String("no cuda device")))
        return ValidationRunner::tr("no CUDA device was found");
    return line.trimmed();
}

} // namespace

ValidationRunner::ValidationRunner(QObject* parent)
    : QObject(parent)
    , m_executable(defaultExecutable())
    , m_timer(new QTimer(this))
{
    qRegisterMetaType<ValidationProgress>();
    qRegisterMetaType<ValidationReport>();
    m_timer->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        if (!isRunning())
            return;
        m_stop = Stop::TimedOut;
        m_process->kill();  // finished() follows asynchronously
    });
}

ValidationRunner::~ValidationRunner()
{
    if (m_probe) {
        m_probe->disconnect(this);
        m_probe->kill();
        m_probe->waitForFinished(2000);
    }
    if (m_process) {
        // The app is closing with a run in flight: SIGKILL cannot be ignored,
        // so this short wait only reaps the child (no zombie, no Qt warning).
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(2000);
    }
}

QString ValidationRunner::defaultExecutable()
{
#ifdef Q_OS_WIN
    const QString name = QStringLiteral("headroom-cli.exe");
#else
    const QString name = QStringLiteral("headroom-cli");
#endif
    return QDir(QCoreApplication::applicationDirPath()).filePath(name);
}

bool ValidationRunner::isRunning() const { return m_process != nullptr; }

bool ValidationRunner::start(const headroom::Scenario& scenario)
{
    if (isRunning())
        return false;
    m_dir = std::make_unique<QTemporaryDir>();
    if (!m_dir->isValid())
        return false;
    const QString scenarioPath = m_dir->filePath(QStringLiteral("scenario.headroom.json"));
    if (!headroom::writeScenarioFile(scenario, scenarioPath.toStdString()))
        return false;

    m_arguments = {QStringLiteral("validate"), QStringLiteral("--json"), QStringLiteral("--progress"),
                   QStringLiteral("--scenario"), scenarioPath};
    if (!m_backend.isEmpty())
        m_arguments << QStringLiteral("--backend") << m_backend;
    if (!m_injectFault.isEmpty())
        m_arguments << QStringLiteral("--inject-fault") << m_injectFault;

    m_stdout.clear();
    m_stderrPartial.clear();
    m_stderrTail.clear();
    m_stop = Stop::None;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { m_stdout += m_process->readAllStandardOutput(); });
    connect(m_process, &QProcess::readyReadStandardError, this, &ValidationRunner::readStderr);
    connect(m_process, &QProcess::finished, this, &ValidationRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ValidationRunner::onError);
    if (m_timeoutSeconds > 0)
        m_timer->start(m_timeoutSeconds * 1000);
    emit started();
    // A program that cannot be started may fail() from within start().
    m_process->start(m_executable, m_arguments);
    return true;
}

void ValidationRunner::cancel()
{
    if (!isRunning())
        return;
    m_stop = Stop::Cancelled;
    m_process->kill();
}

void ValidationRunner::readStderr()
{
    m_stderrPartial += m_process->readAllStandardError();
    qsizetype newline = 0;
    while ((newline = m_stderrPartial.indexOf('\n')) >= 0) {
        const QByteArray line = m_stderrPartial.left(newline);
        m_stderrPartial.remove(0, newline + 1);
        handleStderrLine(line);
    }
}

void ValidationRunner::handleStderrLine(const QByteArray& line)
{
    if (const auto p = ValidationJson::parseProgress(line)) {
        emit progress(*p);
        return;
    }
    const QString text = QString::fromUtf8(line).trimmed();
    if (text.isEmpty())
        return;
    m_stderrTail.append(text);
    while (m_stderrTail.size() > kTailLines)
        m_stderrTail.removeFirst();
}

QString ValidationRunner::tailText() const
{
    if (m_stderrTail.isEmpty())
        return QString();
    //: followed by the last lines the validation command wrote
    return QStringLiteral("\n\n") + tr("Its last output:") + QLatin1Char('\n') + m_stderrTail.join(QLatin1Char('\n'));
}

void ValidationRunner::onError(QProcess::ProcessError error)
{
    // Only a failed start ends a run here; crashes and kills end in onFinished().
    if (error != QProcess::FailedToStart || !m_process)
        return;
    const QString reason = m_process->errorString();
    fail(Failure::NotFound, tr("Cannot start the validation command %1: %2. Validation needs headroom-cli next to the app.")
                                .arg(QDir::toNativeSeparators(m_executable), reason));
}

void ValidationRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (!m_process)
        return;
    m_stdout += m_process->readAllStandardOutput();
    readStderr();
    if (!m_stderrPartial.isEmpty()) {
        handleStderrLine(m_stderrPartial);
        m_stderrPartial.clear();
    }

    if (m_stop == Stop::Cancelled) {
        fail(Failure::Cancelled, tr("Validation cancelled: the run was stopped."));
        return;
    }
    if (m_stop == Stop::TimedOut) {
        fail(Failure::TimedOut, tr("The validation run was stopped after %1 s without finishing. The app is unaffected; "
                                   "a longer timeout may help if the run was still making progress.")
                                    .arg(m_timeoutSeconds) + tailText());
        return;
    }
    if (status == QProcess::CrashExit) {
        // On Unix QProcess reports the terminating signal as the exit code.
        fail(Failure::Crashed, tr("The validation run crashed (signal %1). The app is unaffected.").arg(exitCode) + tailText());
        return;
    }
    if (exitCode == kExitUnavailable) {
        const QString line = m_stderrTail.isEmpty() ? QString() : m_stderrTail.constLast();
        fail(Failure::Unavailable, tr("Validation is not available here: %1.").arg(unavailableReason(line)));
        return;
    }
    if (exitCode == kExitBadInput) {
        const QString line = m_stderrTail.isEmpty() ? QString() : m_stderrTail.constLast();
        fail(Failure::BadInput, tr("The validation command refused the scenario: %1").arg(line));
        return;
    }
    if (exitCode != 0) {
        fail(Failure::Crashed, tr("The validation run crashed (exit status %1). The app is unaffected.").arg(exitCode) + tailText());
        return;
    }
    QString error;
    const auto report = ValidationJson::parseReport(m_stdout, &error);
    if (!report) {
        fail(Failure::BadOutput, tr("The validation run finished, but its result could not be read: %1.").arg(error) + tailText());
        return;
    }
    if (report->status == ValidationReport::Status::Error) {
        fail(Failure::ChildError, tr("The validation run reported an error: %1").arg(report->message));
        return;
    }
    cleanUp();
    emit finished(*report);
}

void ValidationRunner::fail(Failure failure, const QString& message)
{
    cleanUp();
    emit failed(failure, message);
}

void ValidationRunner::cleanUp()
{
    m_timer->stop();
    if (m_process) {
        m_process->disconnect(this);
        // A failed start has no process to wait for; a finished one is reaped.
        m_process->deleteLater();
        m_process = nullptr;
    }
    m_dir.reset();
}

void ValidationRunner::probeDevices()
{
    if (m_probe)
        return;
    m_probe = new QProcess(this);
    auto done = [this](const QStringList& devices, const QString& problem) {
        m_probe->disconnect(this);
        m_probe->deleteLater();
        m_probe = nullptr;
        emit devicesProbed(devices, problem);
    };
    connect(m_probe, &QProcess::errorOccurred, this, [done](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            done({}, QString());
    });
    connect(m_probe, &QProcess::finished, this, [this, done](int exitCode, QProcess::ExitStatus status) {
        const QByteArray out = m_probe->readAllStandardOutput();
        const QString err = QString::fromUtf8(m_probe->readAllStandardError()).trimmed();
        if (status != QProcess::NormalExit || exitCode != 0) {
            // Exit 3 carries the reason in one line; anything else (an older
            // CLI without the command) tells nothing about devices.
            done({}, exitCode == kExitUnavailable ? unavailableReason(err.section(QLatin1Char('\n'), -1)) : QString());
            return;
        }
        QStringList devices;
        for (const QJsonValue& value : QJsonDocument::fromJson(out).object().value(QLatin1String("devices")).toArray()) {
            const QJsonObject device = value.toObject();
            const QString name = device.value(QLatin1String("name")).toString();
            if (name.isEmpty())
                continue;
            const double total = device.value(QLatin1String("total_bytes")).toDouble();
            devices.append(total > 0 ? QStringLiteral("%1 (%2)").arg(name, MemoryUnits::format(total, 1)) : name);
        }
        done(devices, QString());
    });
    // Listing devices takes a second at most; a hung driver must not leave the probe pending forever.
    QTimer::singleShot(30000, m_probe, [this] { m_probe->kill(); });
    m_probe->start(m_executable, {QStringLiteral("devices"), QStringLiteral("--json")});
}
