// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs `headroom-cli validate --json --progress` as a child process
// (ARCHITECTURE.md, "The live GPU run"): the GPU work, and whatever can go
// wrong in it (a driver fault, a hang, an out-of-memory), stays in the
// child. Never waits on the UI thread: everything arrives as signals.
// Exactly one of finished() or failed() follows every successful start().
#include "plan/scenario.h"
#include "validate/validationreport.h"

#include <QObject>
#include <QProcess>
#include <QStringList>

#include <memory>

class QTemporaryDir;
class QTimer;

class ValidationRunner : public QObject {
    Q_OBJECT

public:
    // Why a run produced no result; the message says it in words.
    enum class Failure {
        NotFound,     // the CLI could not be started
        Unavailable,  // exit 3: no CUDA engine in this build, no CUDA device
        BadInput,     // exit 2: the child refused the scenario
        Crashed,      // a signal, or a nonzero exit without a result
        TimedOut,     // killed after the timeout
        Cancelled,    // killed by cancel()
        BadOutput,    // exit 0, but the result could not be read
        ChildError,   // the result says "status":"error"
    };
    Q_ENUM(Failure)

    static constexpr int kDefaultTimeoutSeconds = 600;

    explicit ValidationRunner(QObject* parent = nullptr);
    ~ValidationRunner() override;

    // headroom-cli next to the running binary unless set (tests set the fake or the real CLI).
    static QString defaultExecutable();
    void setExecutable(const QString& path) { m_executable = path; }
    QString executable() const { return m_executable; }

    void setTimeoutSeconds(int seconds) { m_timeoutSeconds = seconds; }
    int timeoutSeconds() const { return m_timeoutSeconds; }
    // Empty: the CLI's default (cuda when available, else cpu).
    void setBackend(const QString& backend) { m_backend = backend; }
    // Empty: none. Else crash, hang or oom (VALIDATE-PROTOCOL.md).
    void setInjectFault(const QString& fault) { m_injectFault = fault; }

    // Starts a run for the scenario; false (and nothing emitted) when one is
    // already running or the scenario cannot be written to a temporary file.
    // True otherwise, even when the program cannot be started: failed(NotFound)
    // then follows, possibly before start() returns.
    bool start(const headroom::Scenario& scenario);
    // Kills the child; failed(Cancelled) follows once it is gone.
    void cancel();
    bool isRunning() const;
    // Asks `headroom-cli devices --json` which CUDA devices there are
    // (expected: {"devices":[{"index":0,"name":"...","total_bytes":N}]});
    // devicesProbed() follows. Independent of a validation run.
    void probeDevices();

    // The arguments of the last start() (for tests and the status line).
    QStringList lastArguments() const { return m_arguments; }
    // The child's human stderr lines (progress lines removed), last few only.
    QStringList stderrTail() const { return m_stderrTail; }

signals:
    void started();
    void progress(const ValidationProgress& progress);
    void finished(const ValidationReport& report);
    void failed(ValidationRunner::Failure failure, const QString& message);
    // "NVIDIA H100 80GB HBM3 (79.2 GiB)" per device; none: `problem` holds
    // the child's line (exit 3) or is empty (no such command, no answer).
    void devicesProbed(const QStringList& devices, const QString& problem);

private:
    enum class Stop { None, Cancelled, TimedOut };

    void readStderr();
    void handleStderrLine(const QByteArray& line);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void fail(Failure failure, const QString& message);
    void cleanUp();
    QString tailText() const;

    QString m_executable;
    int m_timeoutSeconds = kDefaultTimeoutSeconds;
    QString m_backend;
    QString m_injectFault;
    QStringList m_arguments;

    QProcess* m_probe = nullptr;
    QProcess* m_process = nullptr;  // one per run: a killed child's late signals cannot reach the next run
    QTimer* m_timer;
    std::unique_ptr<QTemporaryDir> m_dir;
    QByteArray m_stdout;
    QByteArray m_stderrPartial;
    QStringList m_stderrTail;
    Stop m_stop = Stop::None;
};

Q_DECLARE_METATYPE(ValidationProgress)
Q_DECLARE_METATYPE(ValidationReport)
