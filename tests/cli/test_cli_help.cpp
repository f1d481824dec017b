// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli's help as a user reads it: --version, --help, COMMAND --help
// for every command (usage, options with defaults, an example), every option
// a help text lists is one the command parses, the help matches the man
// pages (docs/man), and an unknown command or option points at the help.
// Moved out of test_cli.cpp, assertions unchanged.
#include "cli/clirun.h"

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QRegularExpression>
#include <QtTest/QtTest>

using namespace clitest;

class TestCliHelp : public QObject {
    Q_OBJECT

private slots:
    void version()
    {
        const CliResult r = runCli(words("--version"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        // HEADROOM_VERSION is PROJECT_VERSION (engine/CMakeLists.txt), printed by app/cli/main.cpp.
        QCOMPARE(r.out, QByteArray("headroom-cli " HEADROOM_VERSION "\n"));
        QVERIFY(r.err.isEmpty());
    }

    void help()
    {
        const CliResult r = runCli(words("--help"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        // First line of overviewHelp() in app/cli/helptext.cpp.
        QVERIFY(r.out.startsWith("usage: headroom-cli COMMAND"));
        QVERIFY(r.err.isEmpty());
    }

    void noArguments()
    {
        // main.cpp: no command is a usage error, exit 2 (usage goes to stdout).
        const CliResult r = runCli({});
        QVERIFY2(r.exitCode == 2, r.describe().constData());
        QVERIFY(r.out.startsWith("usage: headroom-cli COMMAND"));
    }

    // Every command and the options of its own (app/cli/helptext.cpp's table).
    void commandHelp_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<bool>("scenario");
        QTest::newRow("plan") << QStringLiteral("plan") << words("--json --tensors --timeline") << true;
        QTest::newRow("fit") << QStringLiteral("fit") << words("--json --models") << true;
        QTest::newRow("suggest") << QStringLiteral("suggest") << words("--json") << true;
        QTest::newRow("ladder") << QStringLiteral("ladder") << words("--json --steps") << true;
        QTest::newRow("models") << QStringLiteral("models") << words("--json") << false;
        QTest::newRow("gpus") << QStringLiteral("gpus") << words("--json") << false;
        QTest::newRow("bench") << QStringLiteral("bench") << words("--json --model") << false;
        QTest::newRow("validate") << QStringLiteral("validate")
                                  << words("--backend --device --steps --max-layers --json --progress --trace "
                                           "--timeout-s --inject-fault")
                                  << true;
        QTest::newRow("devices") << QStringLiteral("devices") << words("--json --measure-context") << false;
        QTest::newRow("replay") << QStringLiteral("replay")
                                << words("--json --expandable-segments --max-split-size-mb --gpu") << false;
        QTest::newRow("teach") << QStringLiteral("teach") << words("--json --scenario") << false;
        QTest::newRow("export") << QStringLiteral("export") << words("--format --output") << true;
        QTest::newRow("compare") << QStringLiteral("compare") << words("--json") << true;
    }

    // `COMMAND --help`, `COMMAND -h` (also after other options) and `help
    // COMMAND`: the same text on stdout, exit 0: usage, its options, the
    // scenario options where it takes them, one example.
    void commandHelp()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, options);
        QFETCH(bool, scenario);
        const CliResult r = runCli({command, QStringLiteral("--help")});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(r.err.isEmpty(), r.describe().constData());
        QVERIFY2(r.out.startsWith("usage: headroom-cli " + command.toUtf8() + " "), r.out.constData());
        QVERIFY2(r.out.contains("\nExample:\n  headroom-cli " + command.toUtf8()), r.out.constData());
        for (const QString& option : options)
            QVERIFY2(r.out.contains(option.toUtf8()), qPrintable(command + QStringLiteral(" --help lacks ") + option));
        // The shared block, with the built-in scenario's values as defaults (defaultscenario.cpp).
        QCOMPARE(r.out.contains("Scenario options (shared by"), scenario);
        if (scenario) {
            QVERIFY2(r.out.contains("--grad-accum N") && r.out.contains("gradient accumulation steps; default 8"),
                     r.out.constData());
            QVERIFY2(r.out.contains("--checkpointing MODE"), r.out.constData());
        }
        for (const QStringList& other :
             {QStringList{command, QStringLiteral("-h")}, QStringList{QStringLiteral("help"), command},
              QStringList{command, QStringLiteral("--json"), QStringLiteral("--help")}}) {
            const CliResult same = runCli(other);
            QVERIFY2(same.exitCode == 0 && same.out == r.out, qPrintable(other.join(QLatin1Char(' '))));
        }
    }

    void commandHelpOptionsAreParsed_data() { commandHelp_data(); }

    // Every option a command's help names is one its parser knows: given
    // first with a value, it fails on the unknown option after it, not on itself.
    void commandHelpOptionsAreParsed()
    {
        QFETCH(QString, command);
        const CliResult help = runCli({command, QStringLiteral("--help")});
        const QRegularExpression option(QStringLiteral("(?:^|[\\s\\[(])--([a-z0-9-]+)"));
        QStringList names;
        for (auto it = option.globalMatch(QString::fromUtf8(help.out)); it.hasNext();) {
            const QString name = it.next().captured(1);
            if (name != QLatin1String("help") && !names.contains(name))
                names << name;
        }
        QVERIFY(!names.isEmpty());
        for (const QString& name : names) {
            const CliResult r = runCli(
                {command, QStringLiteral("--") + name + QStringLiteral("=x"), QStringLiteral("--no-such-option")});
            QVERIFY2(r.exitCode == 2, qPrintable(command + QStringLiteral(" --") + name + QLatin1Char(' ') +
                                                 QString::fromUtf8(r.describe())));
            QVERIFY2(!r.err.contains("unknown option --" + name.toUtf8() + " "),
                     qPrintable(command + QStringLiteral(": ") + QString::fromUtf8(r.err)));
        }
    }

    void commandHelpMatchesManPage_data() { commandHelp_data(); }

    // docs/man/headroom-cli.1 names every command and every option the help names.
    void commandHelpMatchesManPage()
    {
        QFETCH(QString, command);
        QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/docs/man/headroom-cli.1"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString man = QString::fromUtf8(file.readAll());
        QVERIFY2(man.contains(QStringLiteral(".B ") + command) || man.contains(QStringLiteral(".BI ") + command) ||
                     man.contains(QStringLiteral(".BR ") + command),
                 qPrintable(command));
        const CliResult help = runCli({command, QStringLiteral("--help")});
        const QRegularExpression option(QStringLiteral("--([a-z0-9-]+)"));
        for (auto it = option.globalMatch(QString::fromUtf8(help.out)); it.hasNext();) {
            const QString name = it.next().captured(1);
            const QString roff =
                QStringLiteral("\\-\\-") + QString(name).replace(QLatin1Char('-'), QStringLiteral("\\-"));
            QVERIFY2(man.contains(roff), qPrintable(command + QStringLiteral(" --help names --") + name +
                                                    QStringLiteral("; the man page lacks ") + roff));
        }
        // The exit statuses of `headroom-cli --help` are the man page's.
        QVERIFY(man.contains(QStringLiteral(".SH EXIT STATUS")));
    }

    void helpUnknownCommand()
    {
        const CliResult r = runCli(words("help frobnicate"));
        QVERIFY2(r.exitCode == 2 && r.out.isEmpty(), r.describe().constData());
        QVERIFY2(r.err.startsWith("headroom-cli: invalid-argument: ") && r.err.count('\n') == 1,
                 r.describe().constData());
    }

    // An unknown option names itself and the help to read, exit 2.
    void unknownOptionPointsToCommandHelp()
    {
        const CliResult r = runCli(words("plan --frobnicate"));
        QVERIFY2(r.exitCode == 2 && r.out.isEmpty(), r.describe().constData());
        QCOMPARE(r.err, QByteArray("headroom-cli: invalid-argument: unknown option --frobnicate "
                                   "(see headroom-cli plan --help)\n"));
        // A scenario option is not one of models'.
        const CliResult models = runCli(words("models --micro-batch 4"));
        QVERIFY2(models.exitCode == 2 && models.err.contains("see headroom-cli models --help"),
                 models.describe().constData());
    }

    // `headroom-cli --help` lists every command and the exit statuses.
    void helpListsCommandsAndExitStatus()
    {
        const CliResult r = runCli(words("--help"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        for (const char* command : {"plan", "fit", "suggest", "ladder", "models", "gpus", "bench", "validate",
                                    "devices", "replay", "teach", "export", "compare"})
            QVERIFY2(r.out.contains(QByteArray("\n  ") + command + " "), command);
        QVERIFY(r.out.contains("Exit status:\n  0  done\n  2  bad input"));
        QVERIFY(r.out.contains("\n  3  validate, devices:"));
        QVERIFY(r.out.contains("\n  4  internal error"));
    }

    // Options on top of the built-in scenario: plan says which settings they
    // changed and which notable ones still come from the scenario.
};

QTEST_GUILESS_MAIN(TestCliHelp)
#include "test_cli_help.moc"
