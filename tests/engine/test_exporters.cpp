// SPDX-License-Identifier: GPL-3.0-or-later
// The exporters (engine/io/exporters.h) and `headroom-cli export`: each
// format carries the scenario's settings and the plan's numbers, parses as
// what it claims to be, and is the same text every time. The Hugging Face
// Python script: test_exporters_hfpython.cpp.
#include "io/exporters.h"
#include "exportcases.h"
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "plan/gpucatalog.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <algorithm>
#include <clocale>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

using namespace headroom;
using nlohmann::json;
using namespace headroom::testing;

namespace {

// RFC 4180 records: CRLF between records, quoted fields with doubled quotes.
// nullopt when the text breaks the grammar.
std::optional<std::vector<std::vector<std::string>>> parseCsv(const std::string& text)
{
    std::vector<std::vector<std::string>> records;
    std::vector<std::string> fields;
    std::string field;
    std::size_t k = 0;
    while (k < text.size()) {
        if (text[k] == '"') {
            ++k;
            while (true) {
                if (k >= text.size())
                    return std::nullopt;
                if (text[k] == '"') {
                    if (k + 1 < text.size() && text[k + 1] == '"') {
                        field += '"';
                        k += 2;
                        continue;
                    }
                    ++k;
                    break;
                }
                field += text[k++];
            }
        }
        while (k < text.size() && text[k] != ',' && text[k] != '\r') {
            if (text[k] == '"' || text[k] == '\n')
                return std::nullopt;
            field += text[k++];
        }
        if (k >= text.size())
            return std::nullopt;  // every record ends in CRLF
        fields.push_back(field);
        field.clear();
        if (text[k] == ',') {
            ++k;
            continue;
        }
        if (k + 1 >= text.size() || text[k + 1] != '\n')
            return std::nullopt;
        k += 2;
        records.push_back(fields);
        fields.clear();
    }
    return records;
}

std::optional<std::uint64_t> toUnsigned(const std::string& s)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::stoull(s);
}

std::uint64_t unsignedAt(const json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_number_unsigned() ? j.at(key).get<std::uint64_t>() : 0;
}

struct CliRun {
    bool finished = false;
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QByteArray describe() const
    {
        return "exit " + QByteArray::number(exitCode) + (finished ? "" : " (did not finish)") + "\nstdout: " +
               out.left(400) + "\nstderr: " + err.left(400);
    }
};

CliRun runCli(const QStringList& args)
{
    CliRun r;
    QProcess process;
    process.start(QStringLiteral(HEADROOM_CLI_PATH), args);
    if (!process.waitForStarted(30000))
        return r;
    r.finished = process.waitForFinished(30000);
    if (!r.finished) {
        process.kill();
        process.waitForFinished(5000);
    }
    r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    r.out = process.readAllStandardOutput();
    r.err = process.readAllStandardError();
    return r;
}

} // namespace

class TestExporters : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(teachingScenario().ok(), "the teaching scenario's preset is in the catalog");
        QVERIFY2(findGpu("h100-sxm-80gb").ok(), "the H100 the sharded cases use is in the GPU catalog");
    }

    void formatNames()
    {
        const std::vector<std::string> expected{"hf-python",       "deepspeed-json", "accelerate-fsdp-yaml",
                                                "megatron-args",   "torchtitan-toml", "markdown",
                                                "csv",             "plan-json",       "scenario-json"};
        QCOMPARE(allExportFormats().size(), expected.size());
        for (std::size_t k = 0; k < expected.size(); ++k) {
            QCOMPARE(std::string(exportFormatName(allExportFormats()[k])), expected[k]);
            ExportFormat parsed = ExportFormat::Csv;
            QVERIFY(parseExportFormat(expected[k], parsed));
            QVERIFY(parsed == allExportFormats()[k]);
        }
        ExportFormat untouched = ExportFormat::Markdown;
        for (const char* bad : {"nope", "", "HF-PYTHON", "json", "deepspeed", " csv"}) {
            QVERIFY2(!parseExportFormat(bad, untouched), bad);
            QVERIFY(untouched == ExportFormat::Markdown);
        }
    }

    // Same input, same bytes; every format ends in a newline.
    void deterministic_data() { addCases(); }
    void deterministic()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        auto plan = makePlan(s);
        QVERIFY(plan.ok());
        for (ExportFormat f : allExportFormats()) {
            const Exported a = exportAs(s, plan.value(), f);
            const Exported b = exportAs(s, makePlan(s).value(), f);
            // Megatron-LM and torchtitan cannot express every scenario here
            // (QLoRA, ZeRO-3, CPU offload): refused alike every time.
            // test_parallelexports covers the scenarios they take.
            if (!a.ok && (f == ExportFormat::MegatronArgs || f == ExportFormat::TorchtitanToml)) {
                QVERIFY2(contains(a.text, "unsupported-combination: "), a.text.c_str());
                QCOMPARE(a.text, b.text);
                continue;
            }
            QVERIFY2(a.ok, (std::string(exportFormatName(f)) + ": " + a.text).c_str());
            QVERIFY(!a.text.empty());
            QCOMPARE(a.text, b.text);
            QCOMPARE(a.text.back(), '\n');
        }
    }

    // A German number locale (where the process has one) changes no digit:
    // the exporters format with std::to_chars, not printf.
    void localeIndependent()
    {
        const Scenario s = scenarioFor(Teaching);
        const Plan plan = makePlan(s).value();
        std::vector<std::string> before;
        for (ExportFormat f : allExportFormats())
            before.push_back(exportAs(s, plan, f).text);
        const char* old = std::setlocale(LC_NUMERIC, nullptr);
        const std::string saved = old ? old : "C";
        if (!std::setlocale(LC_NUMERIC, "de_DE.UTF-8") && !std::setlocale(LC_NUMERIC, "de_DE"))
            QSKIP("no German locale installed to compare against");
        std::vector<std::string> after;
        for (ExportFormat f : allExportFormats())
            after.push_back(exportAs(s, plan, f).text);
        std::setlocale(LC_NUMERIC, saved.c_str());
        QVERIFY(before == after);
    }

    void deepspeedJson_data() { addCases(); }
    void deepspeedJson()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::DeepSpeedJson);
        QVERIFY2(e.ok, e.text.c_str());
        const json j = json::parse(e.text, nullptr, false);
        QVERIFY2(j.is_object(), e.text.c_str());
        QCOMPARE(unsignedAt(j, "train_micro_batch_size_per_gpu"), s.train.microBatch);
        QCOMPARE(unsignedAt(j, "gradient_accumulation_steps"), s.train.gradAccum);
        QCOMPARE(unsignedAt(j, "train_batch_size"), s.train.microBatch * s.train.gradAccum * s.hardware.count);
        QVERIFY(j.at("zero_optimization").is_object());
        const std::uint64_t stage = which == Zero3 ? 3 : 0;
        QCOMPARE(unsignedAt(j.at("zero_optimization"), "stage"), stage);
        QCOMPARE(j.at("bf16").at("enabled").get<bool>(), true);   // bf16-mixed in all three
        QCOMPARE(j.at("fp16").at("enabled").get<bool>(), false);
        // Numbers only: "auto" means something only inside transformers.
        QVERIFY(j.at("gradient_clipping").is_number());
        QVERIFY(!contains(e.text, "\"auto\""));
        QCOMPARE(j.at("zero_optimization").contains("offload_optimizer"), false);  // no ZeRO offload in these
        QVERIFY(j.at("_headroom").is_object());
        QCOMPARE(unsignedAt(j.at("_headroom"), "predicted_peak_bytes_per_gpu"), plan.peakBytes);
        QCOMPARE(unsignedAt(j.at("_headroom"), "predicted_device_used_bytes_per_gpu"), plan.deviceUsedBytes);
        QCOMPARE(j.at("_headroom").at("fits").get<bool>(), plan.fits);
        QCOMPARE(unsignedAt(j.at("_headroom"), "gpus"), s.hardware.count);
    }

    void deepspeedOffload()
    {
        Scenario s = scenarioFor(Zero3);
        s.hardware.cpuOffload = true;
        const json z3 = json::parse(exportAs(s, makePlan(s).value(), ExportFormat::DeepSpeedJson).text);
        QCOMPARE(z3.at("zero_optimization").at("offload_optimizer").at("device").get<std::string>(), std::string("cpu"));
        QCOMPARE(z3.at("zero_optimization").at("offload_param").at("device").get<std::string>(), std::string("cpu"));
        s.hardware.sharding = Sharding::Zero2;
        const json z2 = json::parse(exportAs(s, makePlan(s).value(), ExportFormat::DeepSpeedJson).text);
        QCOMPARE(unsignedAt(z2.at("zero_optimization"), "stage"), std::uint64_t{2});
        QVERIFY(z2.at("zero_optimization").contains("offload_optimizer"));
        QVERIFY2(!z2.at("zero_optimization").contains("offload_param"), "offload_param is a stage-3 option");
        s.train.precision = Precision::Fp16Mixed;
        const json fp16 = json::parse(exportAs(s, makePlan(s).value(), ExportFormat::DeepSpeedJson).text);
        QCOMPARE(fp16.at("fp16").at("enabled").get<bool>(), true);
        QCOMPARE(fp16.at("bf16").at("enabled").get<bool>(), false);
    }

    void planJson_data() { addCases(); }
    void planJson()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::PlanJson);
        QVERIFY(e.ok);
        const json j = json::parse(e.text, nullptr, false);
        QVERIFY(j.is_object());
        QCOMPARE(j.value("schema", std::string()), std::string("headroom.plan/1"));
        QCOMPARE(unsignedAt(j, "peak_bytes"), plan.peakBytes);
        QCOMPARE(unsignedAt(j, "device_used_bytes"), plan.deviceUsedBytes);
        QCOMPARE(j.at("timeline").size(), plan.events.size());
        QCOMPARE(j.at("tensors").size(), plan.tensors.size());
    }

    void scenarioJsonRoundTrip_data() { addCases(); }
    void scenarioJsonRoundTrip()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::ScenarioJson);
        QVERIFY(e.ok);
        QCOMPARE(e.text, scenarioToText(s));
        auto back = scenarioFromText(e.text);
        QVERIFY2(back.ok(), e.text.c_str());
        QCOMPARE(makePlan(back.value()).value().peakBytes, plan.peakBytes);
    }

    // The training script writes headroom.measurement/1 for `headroom-cli compare`:
    // a function for one's own loop, a TrainerCallback, and the scenario it came from.
    void csvTimeline_data() { addCases(); }
    void csvTimeline()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::Csv);
        QVERIFY(e.ok);
        const auto records = parseCsv(e.text);
        QVERIFY2(records.has_value(), "RFC 4180 records ending in CRLF");
        QCOMPARE(records->size(), plan.events.size() + 1);
        std::vector<std::string> header{"event", "phase", "layer"};
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            header.push_back(categoryName(static_cast<Category>(c)));
        header.push_back("total");
        QVERIFY(records->front() == header);
        std::uint64_t maxTotal = 0;
        for (std::size_t r = 1; r < records->size(); ++r) {
            const auto& row = (*records)[r];
            QCOMPARE(row.size(), header.size());
            QCOMPARE(row[0], eventLabel(plan.events[r - 1]));
            std::uint64_t sum = 0;
            for (std::size_t c = 0; c < kCategoryCount; ++c) {
                const auto v = toUnsigned(row[3 + c]);
                QVERIFY2(v.has_value(), row[3 + c].c_str());
                QCOMPARE(*v, plan.timeline[r - 1][c]);
                sum += *v;
            }
            const auto total = toUnsigned(row.back());
            QVERIFY(total.has_value());
            QCOMPARE(*total, sum);
            maxTotal = std::max(maxTotal, *total);
        }
        QCOMPARE(maxTotal, plan.peakBytes);
    }

    void csvQuoting()
    {
        // A quote-free parser would split this; the exporter's own labels
        // have no commas today, so the grammar is checked on the parser's side.
        const auto records = parseCsv("a,\"b,\"\"c\"\"\",d\r\n");
        QVERIFY(records.has_value());
        QCOMPARE((*records)[0][1], std::string("b,\"c\""));
        QVERIFY(!parseCsv("a,b\n").has_value());
    }

    void markdownReport_data() { addCases(); }
    void markdownReport()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::Markdown);
        QVERIFY(e.ok);
        const std::string& md = e.text;
        QVERIFY(contains(md, "# Headroom plan: " + s.model.id + "\n"));
        QVERIFY2(contains(md, "\n**Verdict:** " + expectedVerdict(plan) + "\n"), md.c_str());
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            const std::string name = categoryName(static_cast<Category>(c));
            const bool row = contains(md, "\n| " + name + " | ");
            QVERIFY2(row == (plan.breakdown[c] != 0), name.c_str());
            if (plan.breakdown[c] != 0)
                QVERIFY(contains(md, "\n| " + name + " | " + gib(static_cast<double>(plan.breakdown[c])) + " | "));
        }
        QVERIFY(contains(md, "| **total** | **" + gib(static_cast<double>(plan.peakBytes)) + "** |"));
        QVERIFY(contains(md, "| peak allocated (`torch.cuda.max_memory_allocated`) | "));
        QVERIFY(contains(md, std::to_string(plan.deviceUsedBytes)));
        QVERIFY(contains(md, "| name | category | bytes | lifetime | source |"));
        for (const std::string& note : plan.notes)
            QVERIFY(contains(md, "- " + note + "\n"));
        for (const TensorRow& row : plan.tensors)
            if (row.bytes != 0)
                QVERIFY2(contains(md, std::string("| `") + row.name + "` | " + categoryName(row.category) + " | " +
                                          std::to_string(row.bytes) + " | "),
                         row.name);
    }

    void accelerateYaml_data() { addCases(); }
    void accelerateYaml()
    {
        QFETCH(int, which);
        const Scenario s = scenarioFor(which);
        const Exported e = exportAs(s, makePlan(s).value(), ExportFormat::AccelerateFsdpYaml);
        QVERIFY(e.ok);
        const std::string& y = e.text;
        QVERIFY(contains(y, "\ndistributed_type: FSDP\n"));
        QVERIFY(contains(y, "\n  fsdp_sharding_strategy: FULL_SHARD\n"));
        QVERIFY(contains(y, "\n  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n"));
        QVERIFY(contains(y, "\nmixed_precision: bf16\n"));
        QVERIFY(contains(y, "\nnum_processes: " + std::to_string(s.hardware.count) + "\n"));
        QVERIFY(contains(y, std::string("\n  fsdp_offload_params: ") + (s.hardware.cpuOffload ? "true" : "false") + "\n"));
        QVERIFY(contains(y, "\n  fsdp_activation_checkpointing: true\n"));  // checkpointing full in all three
        QCOMPARE(contains(y, "not sharded with FSDP"), which != Fsdp);
        if (which != Fsdp)
            QCOMPARE(y.rfind("# ", 0), std::size_t{0});
        if (which == Fsdp)
            QVERIFY(contains(y, "\nnum_processes: 8\n"));
        // Every line is a comment or a key: no tabs (YAML forbids them in indentation).
        QVERIFY(!contains(y, "\t"));
    }

    void inferenceScenarios()
    {
        Scenario s = scenarioFor(Teaching);
        s.mode = Mode::Inference;
        const Plan plan = makePlan(s).value();
        for (ExportFormat f : {ExportFormat::DeepSpeedJson, ExportFormat::AccelerateFsdpYaml, ExportFormat::MegatronArgs,
                               ExportFormat::TorchtitanToml}) {
            auto r = exportPlan(s, plan, f);
            QVERIFY(!r.ok());
            QVERIFY(r.error().code == ErrorCode::UnsupportedCombination);
        }
        for (ExportFormat f : {ExportFormat::HfPython, ExportFormat::Markdown, ExportFormat::Csv, ExportFormat::PlanJson,
                               ExportFormat::ScenarioJson})
            QVERIFY2(exportPlan(s, plan, f).ok(), exportFormatName(f));
        const std::string py = exportAs(s, plan, ExportFormat::HfPython).text;
        QVERIFY(contains(py, "model.generate("));
        QVERIFY(!contains(py, "TrainingArguments"));
    }

    void emptyPlanRejected()
    {
        const Scenario s = scenarioFor(Teaching);
        for (ExportFormat f : allExportFormats()) {
            auto r = exportPlan(s, Plan{}, f);
            QVERIFY(!r.ok());
            QVERIFY(r.error().code == ErrorCode::InvalidArgument);
        }
    }

    // ---- headroom-cli export ------------------------------------------

    void cliDeepSpeedJson()
    {
        const CliRun r = runCli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("deepspeed-json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        QVERIFY(r.err.isEmpty());
        const json j = json::parse(r.out.begin(), r.out.end(), nullptr, false);
        QVERIFY2(j.is_object(), r.out.constData());
        const Scenario s = scenarioFor(Teaching);
        QCOMPARE(unsignedAt(j, "train_micro_batch_size_per_gpu"), s.train.microBatch);
        QCOMPARE(unsignedAt(j, "gradient_accumulation_steps"), s.train.gradAccum);
        QCOMPARE(unsignedAt(j.at("_headroom"), "predicted_peak_bytes_per_gpu"), makePlan(s).value().peakBytes);
    }

    void cliScenarioOptions()
    {
        const CliRun r = runCli({QStringLiteral("export"), QStringLiteral("--format=deepspeed-json"),
                                 QStringLiteral("--peft"), QStringLiteral("none"), QStringLiteral("--weight-quant"),
                                 QStringLiteral("none"), QStringLiteral("--optimizer"), QStringLiteral("adamw"),
                                 QStringLiteral("--gpus"), QStringLiteral("8"), QStringLiteral("--sharding"),
                                 QStringLiteral("zero3"), QStringLiteral("--gpu"), QStringLiteral("h100-sxm-80gb")});
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = json::parse(r.out.begin(), r.out.end(), nullptr, false);
        QVERIFY(j.is_object());
        QCOMPARE(unsignedAt(j.at("zero_optimization"), "stage"), std::uint64_t{3});
        QCOMPARE(unsignedAt(j.at("_headroom"), "gpus"), std::uint64_t{8});
    }

    void cliUnknownFormat()
    {
        for (const QStringList& args : {QStringList{QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("nope")},
                                        QStringList{QStringLiteral("export")}}) {
            const CliRun r = runCli(args);
            QVERIFY2(r.finished && r.exitCode == 2, r.describe().constData());
            QVERIFY(r.out.isEmpty());
            QCOMPARE(r.err.count('\n'), 1);
            QVERIFY(r.err.endsWith('\n'));
            for (ExportFormat f : allExportFormats())
                QVERIFY2(r.err.contains(exportFormatName(f)), r.err.constData());
        }
        const CliRun bad = runCli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"),
                                   QStringLiteral("--micro-batch"), QStringLiteral("0")});
        QCOMPARE(bad.exitCode, 2);
        QCOMPARE(bad.err.count('\n'), 1);
        const CliRun inference = runCli({QStringLiteral("export"), QStringLiteral("--format"),
                                         QStringLiteral("accelerate-fsdp-yaml"), QStringLiteral("--mode"),
                                         QStringLiteral("inference")});
        QCOMPARE(inference.exitCode, 2);
        QCOMPARE(inference.err.count('\n'), 1);
    }

    void cliOutputFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("report.md"));
        {
            QFile old(path);  // replaced, not appended to
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("old contents that are longer than nothing\n");
        }
        const CliRun toFile = runCli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("markdown"),
                                      QStringLiteral("--output"), path});
        QVERIFY2(toFile.finished && toFile.exitCode == 0, toFile.describe().constData());
        QVERIFY(toFile.out.isEmpty());
        const CliRun toStdout = runCli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("markdown")});
        QCOMPARE(toStdout.exitCode, 0);
        QFile written(path);
        QVERIFY(written.open(QIODevice::ReadOnly));
        QCOMPARE(written.readAll(), toStdout.out);
        // The temporary file was renamed, not left beside the target.
        const QStringList entries = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot);
        QCOMPARE(entries, QStringList{QStringLiteral("report.md")});

        const CliRun intoDirectory = runCli({QStringLiteral("export"), QStringLiteral("--format"), QStringLiteral("csv"),
                                             QStringLiteral("--output"), dir.path()});
        QCOMPARE(intoDirectory.exitCode, 2);
        QCOMPARE(intoDirectory.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestExporters)
#include "test_exporters.moc"
