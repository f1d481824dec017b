// SPDX-License-Identifier: GPL-3.0-or-later
// headroom.measurement/1 (engine/io/measurement.h): the strict reader, its
// round trip, and the plan-beside-measurement rows of `headroom-cli compare`.
#include "io/measurement.h"
#include "io/scenariofile.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <string>

using namespace headroom;

namespace {

nlohmann::json minimal()
{
    return {{"schema", "headroom.measurement/1"},
            {"max_memory_allocated_bytes", 1000},
            {"max_memory_reserved_bytes", 2000}};
}

} // namespace

class TestMeasurement : public QObject {
    Q_OBJECT

private slots:
    void minimalFile()
    {
        auto m = measurementFromText(minimal().dump());
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().detail.c_str());
        QCOMPARE(m->maxAllocatedBytes, Bytes(1000));
        QCOMPARE(m->maxReservedBytes, Bytes(2000));
        QVERIFY(!m->deviceUsedBytes);
        QVERIFY(!m->scenario);
        QVERIFY(m->phases.empty());
    }

    void fullFileRoundTrip()
    {
        const Scenario scenario = teachingScenario().value();
        nlohmann::json j = minimal();
        j["device_used_bytes"] = 3000;
        j["device_used_source"] = "mem_get_info";
        j["phases"] = {{"optimizer", {{"max_memory_allocated_bytes", 900}, {"max_memory_reserved_bytes", 2000}}},
                       {"forward_backward", {{"max_memory_allocated_bytes", 1000}}}};
        j["gpu"] = {{"name", "NVIDIA GeForce RTX 4090"}, {"total_bytes", 25393692672ull}};
        j["versions"] = {{"torch", "2.5.1+cu124"}, {"transformers", "4.46.3"}, {"cuda", "12.4"}, {"peft", nullptr}};
        j["scenario"] = nlohmann::json::parse(scenarioToText(scenario));
        j["steps"] = 3;
        j["notes"] = "bench";
        auto m = measurementFromText(j.dump());
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().detail.c_str());
        QCOMPARE(*m->deviceUsedBytes, Bytes(3000));
        QCOMPARE(m->deviceUsedSource, std::string("mem_get_info"));
        QCOMPARE(m->phases.size(), std::size_t(2));
        QCOMPARE(m->phases[0].name, std::string("forward_backward"));  // name order
        QVERIFY(!m->phases[0].maxReservedBytes);
        QCOMPARE(*m->phases[1].maxReservedBytes, Bytes(2000));
        QCOMPARE(m->gpuName, std::string("NVIDIA GeForce RTX 4090"));
        QCOMPARE(*m->gpuTotalBytes, Bytes(25393692672ull));
        QCOMPARE(m->torchVersion, std::string("2.5.1+cu124"));
        QCOMPARE(m->peftVersion, std::string());  // null
        QCOMPARE(*m->steps, std::uint64_t(3));
        QVERIFY(m->scenario.has_value());
        QCOMPARE(scenarioToText(*m->scenario), scenarioToText(scenario));

        // Written and read back: the same text again.
        const std::string text = measurementToText(m.value());
        auto back = measurementFromText(text);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(measurementToText(back.value()), text);
        QCOMPARE(makePlan(*back->scenario).value().peakBytes, makePlan(scenario).value().peakBytes);
    }

    // A CPU run (the hf-python script's --smoke-test without a GPU): no CUDA
    // counters, none compared, and the same text after a round trip.
    void cpuRun()
    {
        const nlohmann::json j = {{"schema", "headroom.measurement/1"},
                                  {"device", "cpu"},
                                  {"versions", {{"torch", "2.11.0+cu130"}, {"transformers", "5.17.0"}}},
                                  {"steps", 2},
                                  {"notes", "smoke test"}};
        auto m = measurementFromText(j.dump());
        QVERIFY2(m.ok(), m.ok() ? "" : m.error().detail.c_str());
        QVERIFY(measuredOnCpu(m.value()));
        QCOMPARE(m->maxAllocatedBytes, Bytes(0));
        QCOMPARE(*m->steps, std::uint64_t(2));
        Plan plan;
        plan.peakAllocatedBytes = 1100;
        QVERIFY(compareWithPlan(plan, m.value()).empty());
        const std::string text = measurementToText(m.value());
        QVERIFY(nlohmann::json::parse(text).at("device") == "cpu");
        QVERIFY(!nlohmann::json::parse(text).contains("max_memory_allocated_bytes"));
        auto back = measurementFromText(text);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(measurementToText(back.value()), text);

        // "device": "cuda" is what a file without the field means.
        nlohmann::json cuda = minimal();
        cuda["device"] = "cuda";
        auto c = measurementFromText(cuda.dump());
        QVERIFY2(c.ok(), c.ok() ? "" : c.error().detail.c_str());
        QVERIFY(!measuredOnCpu(c.value()));
        QCOMPARE(measurementToText(c.value()), measurementToText(measurementFromText(minimal().dump()).value()));
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("names");
        const auto with = [](const char* key, const nlohmann::json& value) {
            nlohmann::json j = minimal();
            j[key] = value;
            return QString::fromStdString(j.dump());
        };
        const auto without = [](const char* key) {
            nlohmann::json j = minimal();
            j.erase(key);
            return QString::fromStdString(j.dump());
        };
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
        QTest::newRow("not json") << QStringLiteral("{\"schema\": ") << QStringLiteral("parse error");
        QTest::newRow("array") << QStringLiteral("[1]") << QStringLiteral("JSON object");
        QTest::newRow("no schema") << without("schema") << QStringLiteral("schema: required field is missing");
        QTest::newRow("other schema") << with("schema", "headroom.scenario/1") << QStringLiteral("schema: must be");
        QTest::newRow("no allocated") << without("max_memory_allocated_bytes")
                                      << QStringLiteral("max_memory_allocated_bytes: required field is missing");
        QTest::newRow("no reserved") << without("max_memory_reserved_bytes")
                                     << QStringLiteral("max_memory_reserved_bytes: required field is missing");
        QTest::newRow("negative") << with("max_memory_allocated_bytes", -5)
                                  << QStringLiteral("max_memory_allocated_bytes: must be a whole number of bytes");
        QTest::newRow("float") << with("max_memory_allocated_bytes", 1000.5)
                               << QStringLiteral("max_memory_allocated_bytes: must be a whole number");
        QTest::newRow("2.0") << with("max_memory_reserved_bytes", 2000.0)
                             << QStringLiteral("max_memory_reserved_bytes: must be a whole number");
        QTest::newRow("string") << with("max_memory_allocated_bytes", "1000")
                                << QStringLiteral("max_memory_allocated_bytes: must be a whole number");
        QTest::newRow("zero") << with("max_memory_allocated_bytes", 0)
                              << QStringLiteral("max_memory_allocated_bytes: must be a whole number of bytes between 1");
        QTest::newRow("huge") << with("max_memory_reserved_bytes", 18446744073709551615ull)
                              << QStringLiteral("max_memory_reserved_bytes: must be a whole number");
        QTest::newRow("reserved below allocated")
            << with("max_memory_reserved_bytes", 999) << QStringLiteral("max_memory_reserved_bytes: is below");
        QTest::newRow("unknown field") << with("max_memory_alocated_bytes", 5)
                                       << QStringLiteral("max_memory_alocated_bytes: unknown field");
        QTest::newRow("device used negative") << with("device_used_bytes", -1) << QStringLiteral("device_used_bytes:");
        QTest::newRow("source unknown") << with("device_used_source", "smi") << QStringLiteral("device_used_source:");
        // fuzz_measurement (seed 1): a newline in the value broke the one-line error.
        QTest::newRow("source with a newline") << with("device_used_source", "\nvml")
                                               << QStringLiteral("device_used_source: must be \"nvml\" or \"mem_get_info\", got \"\\nvml\"");
        QTest::newRow("device with a newline") << with("device", "cu\nda") << QStringLiteral("got \"cu\\nda\"");
        QTest::newRow("source without bytes")
            << with("device_used_source", "nvml") << QStringLiteral("device_used_bytes: required with");
        QTest::newRow("phases array") << with("phases", nlohmann::json::array()) << QStringLiteral("phases: must be a JSON object");
        QTest::newRow("phase number") << with("phases", {{"forward", 5}}) << QStringLiteral("phases.forward: must be a JSON object");
        QTest::newRow("phase missing") << with("phases", {{"forward", nlohmann::json::object()}})
                                       << QStringLiteral("phases.forward.max_memory_allocated_bytes: required");
        QTest::newRow("phase float") << with("phases", {{"forward", {{"max_memory_allocated_bytes", 1.5}}}})
                                     << QStringLiteral("phases.forward.max_memory_allocated_bytes: must be");
        QTest::newRow("phase unknown") << with("phases", {{"forward", {{"max_memory_allocated_bytes", 1}, {"peak", 2}}}})
                                       << QStringLiteral("phases.forward.peak: unknown field");
        QTest::newRow("gpu name number") << with("gpu", {{"name", 4090}}) << QStringLiteral("gpu.name: must be a string");
        QTest::newRow("gpu total zero") << with("gpu", {{"total_bytes", 0}}) << QStringLiteral("gpu.total_bytes:");
        QTest::newRow("versions number") << with("versions", {{"torch", 2.5}}) << QStringLiteral("versions.torch:");
        QTest::newRow("versions unknown") << with("versions", {{"jax", "0.4"}}) << QStringLiteral("versions.jax: unknown field");
        QTest::newRow("steps zero") << with("steps", 0) << QStringLiteral("steps: must be");
        QTest::newRow("steps float") << with("steps", 2.5) << QStringLiteral("steps: must be");
        QTest::newRow("notes number") << with("notes", 1) << QStringLiteral("notes: must be a string");
        QTest::newRow("notes long") << with("notes", std::string(5000, 'x')) << QStringLiteral("notes: must be a string of at most 4096");
        QTest::newRow("device unknown") << with("device", "gpu") << QStringLiteral("device: must be \"cuda\" or \"cpu\"");
        QTest::newRow("device number") << with("device", 0) << QStringLiteral("device: must be a string");
        QTest::newRow("cuda without counters")
            << QStringLiteral(R"({"schema": "headroom.measurement/1", "device": "cuda"})")
            << QStringLiteral("max_memory_allocated_bytes: required field is missing");
        // A CPU run with counters: zeros or not, they would read as a GPU's.
        const std::pair<const char*, nlohmann::json> cudaOnly[] = {{"max_memory_allocated_bytes", 0},
                                                                  {"max_memory_reserved_bytes", 1000},
                                                                  {"device_used_bytes", 5},
                                                                  {"phases", nlohmann::json::object()},
                                                                  {"gpu", {{"name", "x"}}}};
        for (const auto& [key, value] : cudaOnly) {
            const nlohmann::json j = {{"schema", "headroom.measurement/1"}, {"device", "cpu"}, {key, value}};
            QTest::newRow((std::string("cpu with ") + key).c_str())
                << QString::fromStdString(j.dump()) << QString::fromStdString(std::string(key) + ": a run on the CPU");
        }
        QTest::newRow("scenario array") << with("scenario", nlohmann::json::array()) << QStringLiteral("scenario: must be a JSON object");
        QTest::newRow("scenario bad") << with("scenario", {{"schema", "headroom.scenario/1"}, {"mode", "sleep"}})
                                      << QStringLiteral("scenario: ");
    }

    void malformed()
    {
        QFETCH(QString, text);
        QFETCH(QString, names);
        const std::string bytes = text.toStdString();
        auto m = measurementFromText(bytes);
        QVERIFY(!m.ok());
        QVERIFY2(QString::fromStdString(m.error().detail).contains(names), m.error().detail.c_str());
        QVERIFY(m.error().detail.find('\n') == std::string::npos);  // one line
    }

    void fileErrorsNameThePath()
    {
        auto missing = readMeasurementFile("/nonexistent/headroom_measurement.json");
        QVERIFY(!missing.ok());
        QVERIFY(missing.error().code == ErrorCode::FileNotFound);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("m.json")).toStdString();
        {
            QFile f(QString::fromStdString(path));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"schema\": \"headroom.measurement/1\", \"max_memory_allocated_bytes\": 1}");
        }
        auto m = readMeasurementFile(path);
        QVERIFY(!m.ok());
        QCOMPARE(m.error().detail, path + ": max_memory_reserved_bytes: required field is missing");
    }

    // error % = (planned - measured) / measured * 100, by hand:
    // allocated (1100 - 1000) / 1000 = +10 %, reserved (1900 - 2000) / 2000 = -5 %,
    // device used (3000 - 2500) / 2500 = +20 %.
    void comparisonRows()
    {
        Plan plan;
        plan.peakAllocatedBytes = 1100;
        plan.peakReservedBytes = 1900;
        plan.deviceUsedBytes = 3000;
        Measurement m;
        m.maxAllocatedBytes = 1000;
        m.maxReservedBytes = 2000;
        auto rows = compareWithPlan(plan, m);
        QCOMPARE(rows.size(), std::size_t(2));  // no device used in the file: no row
        m.deviceUsedBytes = 2500;
        rows = compareWithPlan(plan, m);
        QCOMPARE(rows.size(), std::size_t(3));
        QCOMPARE(rows[0].counter, std::string("peak allocated"));
        QCOMPARE(rows[0].key, std::string("max_memory_allocated_bytes"));
        QCOMPARE(rows[0].planned, Bytes(1100));
        QCOMPARE(rows[0].measured, Bytes(1000));
        QCOMPARE(rows[0].errorPercent, 10.0);
        QCOMPARE(rows[1].counter, std::string("peak reserved"));
        QCOMPARE(rows[1].errorPercent, -5.0);
        QCOMPARE(rows[2].counter, std::string("device used"));
        QCOMPARE(rows[2].planned, Bytes(3000));
        QCOMPARE(rows[2].errorPercent, 20.0);
    }
};

QTEST_APPLESS_MAIN(TestMeasurement)
#include "test_measurement.moc"
