// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli compare (cli/clirun.h): a measurement file (headroom.measurement/1,
// tests/data/measurement) beside the plan of its scenario, a run on the CPU
// with no CUDA counters, and malformed files. The other commands: test_cli.cpp.
#include "cli/clirun.h"

#include <nlohmann/json.hpp>

#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstdint>
#include <fstream>
#include <string>

using nlohmann::json;
using namespace clitest;

class TestCliCompare : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir; // scenarios taken out of the measurements, malformed measurements
    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(QStringLiteral(HEADROOM_CLI_PATH)));
    }

    // compare: a measurement with its scenario embedded (tests/data/measurement)
    // beside the plan of that scenario; the error is (planned - measured) / measured.
    void compare()
    {
        const QString file = QStringLiteral(HEADROOM_TEST_DATA "/measurement/size-qlora.json");
        const CliResult text = runCli({QStringLiteral("compare"), file});
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        for (const char* counter : {"\npeak allocated ", "\npeak reserved ", "\ndevice used "})
            QVERIFY2(text.out.contains(counter), text.out.constData());
        QVERIFY(text.out.startsWith("measured on NVIDIA GeForce RTX 4090, torch 2.5.1+cu124"));

        const CliResult r = runCli({QStringLiteral("compare"), file, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QCOMPARE(j.at("schema").get<std::string>(), std::string("headroom.compare/1"));
        QCOMPARE(j.at("scenario_source").get<std::string>(), std::string("measurement"));
        // The plan of the embedded scenario, as plan --scenario gives it.
        std::ifstream in(HEADROOM_TEST_DATA "/measurement/size-qlora.json");
        const json m = json::parse(in);
        const QString scenarioFile = path("embedded-scenario.json");
        {
            std::ofstream out(scenarioFile.toStdString());
            out << m.at("scenario").dump();
        }
        const json plan = planJson({QStringLiteral("--scenario"), scenarioFile});
        const json& rows = j.at("rows");
        QCOMPARE(rows.size(), std::size_t(3));
        const char* planKeys[] = {"peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes"};
        const char* fileKeys[] = {"max_memory_allocated_bytes", "max_memory_reserved_bytes", "device_used_bytes"};
        for (std::size_t i = 0; i < 3; ++i) {
            const double planned = static_cast<double>(countAt(plan, planKeys[i]));
            const double measured = static_cast<double>(m.at(fileKeys[i]).get<std::uint64_t>());
            QCOMPARE(rows[i].at("field").get<std::string>(), std::string(fileKeys[i]));
            QCOMPARE(rows[i].at("planned_bytes").get<double>(), planned);
            QCOMPARE(rows[i].at("measured_bytes").get<double>(), measured);
            QVERIFY(qFuzzyCompare(rows[i].at("error_percent").get<double>(), (planned - measured) / measured * 100));
        }

        // Scenario options apply on top of the embedded scenario.
        const CliResult other = runCli({QStringLiteral("compare"), file, QStringLiteral("--micro-batch"),
                                        QStringLiteral("7"), QStringLiteral("--json")});
        QVERIFY2(other.exitCode == 0, other.describe().constData());
        QVERIFY(parseJson(other.out).at("rows")[0].at("planned_bytes") != rows[0].at("planned_bytes"));
    }

    // A run on the CPU (the hf-python script's --smoke-test without a GPU) has
    // no CUDA counters: compare accepts it, shows the plan's counters alone
    // (those plan --scenario gives for the embedded scenario) and says why.
    void compareCpuRun()
    {
        const QString file = QStringLiteral(HEADROOM_TEST_DATA "/measurement/cpu-smoke-test.json");
        const CliResult text = runCli({QStringLiteral("compare"), file});
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        QVERIFY2(text.out.startsWith("run on the CPU, torch 2.11.0+cu130"), text.out.constData());
        QVERIFY2(text.out.contains("notes: smoke test: random weights"), text.out.constData());
        QVERIFY2(text.out.contains("nothing measured: the run was on the CPU"), text.out.constData());
        QVERIFY2(!text.out.contains("error"), text.out.constData());

        const CliResult r = runCli({QStringLiteral("compare"), file, QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QCOMPARE(j.at("measured_device").get<std::string>(), std::string("cpu"));
        QVERIFY(j.at("rows").empty());
        QVERIFY(j.at("note").get<std::string>().find("no CUDA memory counters") != std::string::npos);
        std::ifstream in(HEADROOM_TEST_DATA "/measurement/cpu-smoke-test.json");
        const QString scenarioFile = path("cpu-embedded-scenario.json");
        {
            std::ofstream out(scenarioFile.toStdString());
            out << json::parse(in).at("scenario").dump();
        }
        const json plan = planJson({QStringLiteral("--scenario"), scenarioFile});
        const json& planned = j.at("planned");
        QCOMPARE(planned.at("max_memory_allocated_bytes").get<std::uint64_t>(), countAt(plan, "peak_allocated_bytes"));
        QCOMPARE(planned.at("max_memory_reserved_bytes").get<std::uint64_t>(), countAt(plan, "peak_reserved_bytes"));
        QCOMPARE(planned.at("device_used_bytes").get<std::uint64_t>(), countAt(plan, "device_used_bytes"));
    }

    // A malformed measurement: exit 2, one line naming the file and the field.
    void compareMalformed()
    {
        const QString bad = path("bad-measurement.json");
        {
            std::ofstream out(bad.toStdString());
            out << R"({"schema": "headroom.measurement/1", "max_memory_allocated_bytes": -1,)"
                   R"( "max_memory_reserved_bytes": 5})";
        }
        const CliResult r = runCli({QStringLiteral("compare"), bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith("headroom-cli: invalid-argument: " + bad.toUtf8() + ": max_memory_allocated_bytes: "),
                 r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        // No scenario in the file and none given.
        const QString bare = path("bare-measurement.json");
        {
            std::ofstream out(bare.toStdString());
            out << R"({"schema": "headroom.measurement/1", "max_memory_allocated_bytes": 1, "max_memory_reserved_bytes": 5})";
        }
        const CliResult none = runCli({QStringLiteral("compare"), bare});
        QCOMPARE(none.exitCode, 2);
        QVERIFY2(none.err.contains("--scenario FILE"), none.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "test_cli_compare.moc"
