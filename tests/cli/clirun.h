// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Runs the built headroom-cli as a user does, for the tests in tests/cli:
// a separate process, arguments in, exit status and both output streams out.
#include <nlohmann/json.hpp>

#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QtGlobal>

#include <cstdint>
#include <functional>
#include <optional>

namespace clitest {

using nlohmann::json;

struct CliResult {
    bool started = false;
    bool finished = false; // false: still running after the timeout, then killed
    bool crashed = false;  // QProcess::CrashExit (signal)
    int exitCode = -1;
    QByteArray out;
    QByteArray err;

    // For failure messages: what the command did.
    QByteArray describe() const
    {
        return "exit " + QByteArray::number(exitCode) + (crashed ? " (crashed)" : "") +
               (finished ? "" : " (timed out)") + "\nstdout: " + out.left(600) + "\nstderr: " + err.left(600);
    }
};

// Runs the built headroom-cli (HEADROOM_CLI_PATH, tests/CMakeLists.txt) with
// `args`; 30 s is far above what any command takes (bench, the slowest, runs
// well under a second). `childSetup` runs in the child before exec (Unix).
inline CliResult runCli(const QStringList& args, const std::function<void()>& childSetup = {},
                        const std::optional<QProcessEnvironment>& environment = std::nullopt, int timeoutMs = 30000)
{
    CliResult r;
    QProcess process;
    process.setProgram(QStringLiteral(HEADROOM_CLI_PATH));
    process.setArguments(args);
    if (environment)
        process.setProcessEnvironment(*environment);
#if defined(Q_OS_UNIX)
    if (childSetup)
        process.setChildProcessModifier(childSetup);
#else
    Q_UNUSED(childSetup);
#endif
    process.start();
    r.started = process.waitForStarted(timeoutMs);
    if (!r.started)
        return r;
    r.finished = process.waitForFinished(timeoutMs);
    if (!r.finished) {
        process.kill();
        process.waitForFinished(5000);
    }
    r.crashed = process.exitStatus() == QProcess::CrashExit;
    r.exitCode = r.crashed ? -1 : process.exitCode();
    r.out = process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}

// "plan --json" -> {"plan", "--json"}: arguments without spaces, split on spaces.
inline QStringList words(const char* text)
{
    return QString::fromUtf8(text).split(QLatin1Char(' '), Qt::SkipEmptyParts);
}

// Writes `bytes` to `path`; false when it could not.
inline bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// stdout as JSON; a discarded value when it is not valid JSON.
inline json parseJson(const QByteArray& text) { return json::parse(text.begin(), text.end(), nullptr, false); }

// A JSON number that is an unsigned byte count or element count.
inline std::optional<std::uint64_t> unsignedAt(const json& j, const char* key)
{
    if (!j.is_object())
        return std::nullopt;
    const auto it = j.find(key);
    // nlohmann's parser stores every non-negative integer as unsigned.
    if (it == j.end() || !it->is_number_unsigned())
        return std::nullopt;
    return it->get<std::uint64_t>();
}

// The same, 0 where absent: for QCOMPARE against an expected count.
inline std::uint64_t countAt(const json& j, const char* key) { return unsignedAt(j, key).value_or(0); }

// `plan --json` plus `args`: exit 0, empty stderr, a JSON object; else a
// warning saying why and a null json.
inline json planJson(const QStringList& args)
{
    const CliResult r = runCli(words("plan --json") + args);
    if (r.exitCode != 0 || !r.err.isEmpty()) {
        qWarning("plan --json %s: %s", qPrintable(args.join(QLatin1Char(' '))), r.describe().constData());
        return json();
    }
    json j = parseJson(r.out);
    return j.is_object() ? j : json();
}

} // namespace clitest
