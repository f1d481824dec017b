// SPDX-License-Identifier: GPL-3.0-or-later
// Exports from the app: every engine exporter written through ExportActions
// (the bytes the engine produced, atomically), the PDF report (pages,
// Korean font), chart images (PNG size, PDF header, SVG well-formed), the
// clipboard (Markdown, text, image), and the engine's notes and errors
// translated by the table in ui/text/errortext.cpp.
#include "charts/chartexport.h"
#include "charts/timelineview.h"
#include "export/exportactions.h"
#include "export/reportwriter.h"
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "plan/defaultscenario.h"
#include "plan/fitsearch.h"
#include "plan/planner.h"
#include "runtime/backend.h"
#include "runtime/validate.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "text/errortext.h"

#include "../runtime/runtime_testmodels.h"

#include <QDir>
#include <QClipboard>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QXmlStreamReader>
#include <QtTest>

#include <fstream>
#include <tuple>

using namespace headroom;

namespace {

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// Pages of a PDF: its page objects ("/Type /Page", not "/Type /Pages").
qsizetype pdfPages(const QByteArray& pdf)
{
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
    return QString::fromLatin1(pdf).count(page);
}

bool hasHangul(const QString& text)
{
    for (QChar c : text)
        if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3)
            return true;
    return false;
}

Scenario fullFinetune()
{
    Scenario s = teachingScenario().value();
    s.train.peft.method = PeftMethod::None;
    s.train.weightQuant = WeightQuant::None;
    s.train.optimizer = Optimizer::AdamW;
    return s;
}

} // namespace

class TestUiExports : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_exports"));
    }

    void everyFormatWritesTheEngineBytes_data()
    {
        QTest::addColumn<int>("format");
        for (ExportFormat format : allExportFormats())
            QTest::newRow(exportFormatName(format)) << static_cast<int>(format);
    }

    void everyFormatWritesTheEngineBytes()
    {
        QFETCH(int, format);
        const auto f = static_cast<ExportFormat>(format);
        // Megatron-LM and torchtitan train every weight: the full fine-tune.
        const bool layoutFormat = f == ExportFormat::MegatronArgs || f == ExportFormat::TorchtitanToml;
        const Scenario scenario = layoutFormat ? fullFinetune() : teachingScenario().value();
        const Plan plan = makePlan(scenario).value();
        QTemporaryDir dir;
        const QString path = dir.filePath(ExportActions::defaultFileName(f, QStringLiteral("t")));
        QCOMPARE(ExportActions::exportTo(scenario, plan, f, path), QString());
        const QByteArray written = readAll(path);
        QCOMPARE(written, QByteArray::fromStdString(exportPlan(scenario, plan, f).value()));
        QVERIFY(!written.isEmpty());
        // No temporary file is left beside it.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files).size(), 1);
        if (f == ExportFormat::PlanJson || f == ExportFormat::ScenarioJson || f == ExportFormat::DeepSpeedJson) {
            QJsonParseError error;
            QJsonDocument::fromJson(written, &error);
            QCOMPARE(error.error, QJsonParseError::NoError);
        }
        if (f == ExportFormat::ScenarioJson) {
            auto back = readScenarioFile(path.toStdString());
            QVERIFY(static_cast<bool>(back));
            QCOMPARE(scenarioToText(back.value()), scenarioToText(scenario));
        }
        QVERIFY(!ExportActions::formatTitle(f).isEmpty());
        QVERIFY(ExportActions::fileFilter(f).contains(QLatin1String("*.")));
    }

    void pythonExportHasLoraConfigOnlyWithPeft()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("train.py"));
        const Scenario qlora = teachingScenario().value();  // QLoRA
        QCOMPARE(ExportActions::exportTo(qlora, makePlan(qlora).value(), ExportFormat::HfPython, path), QString());
        QVERIFY(readAll(path).contains("LoraConfig("));
        QVERIFY(readAll(path).contains("BitsAndBytesConfig("));
        const Scenario full = fullFinetune();
        QCOMPARE(ExportActions::exportTo(full, makePlan(full).value(), ExportFormat::HfPython, path), QString());
        QVERIFY(!readAll(path).contains("LoraConfig("));
        QVERIFY(readAll(path).contains("TrainingArguments("));
    }

    void trainingConfigOfInferenceIsATranslatedError()
    {
        Scenario s = teachingScenario().value();
        s.mode = Mode::Inference;
        s.inference.weightQuant = WeightQuant::None;
        const Plan plan = makePlan(s).value();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("ds.json"));
        const QString error = ExportActions::exportTo(s, plan, ExportFormat::DeepSpeedJson, path);
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(QLatin1String("this scenario is inference")), qPrintable(error));  // the table's phrasing
        QVERIFY(!QFile::exists(path));
        QVERIFY(ExportActions::exportTo(s, plan, ExportFormat::HfPython, dir.filePath(QStringLiteral("x/y/z.py"))).contains(
            QLatin1String("z.py")));  // an unwritable path names the file
    }

    void reportIsAMultiPagePdf()
    {
        const Scenario scenario = teachingScenario().value();
        const Plan plan = makePlan(scenario).value();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("report.pdf"));
        QCOMPARE(ReportWriter::write(scenario, plan, path), QString());
        const QByteArray pdf = readAll(path);
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY2(pdfPages(pdf) > 1, qPrintable(QString::number(pdfPages(pdf))));
        // The charts are in it, as images.
        QVERIFY(pdf.contains("/Subtype /Image") || pdf.contains("/Subtype/Image"));
    }

    void reportHasTheEngineNumbers()
    {
        // The document before it is printed: the verdict, a source of a
        // formula and the ladder's steps, as the engine gives them.
        const Scenario scenario = teachingScenario().value();
        const Plan plan = makePlan(scenario).value();
        QTextDocument document;
        ReportWriter::build(document, scenario, plan);
        const QString text = document.toPlainText();
        QVERIFY(text.contains(QLatin1String("Fits, ")));
        QVERIFY(text.contains(QString::fromStdString(plan.gpu.name)));
        QVERIFY(text.contains(QLatin1String("Technique ladder")));
        QVERIFY(text.contains(QLatin1String("Largest that fits")));
        bool anySource = false;
        for (const TensorRow& row : plan.tensors)
            anySource = anySource || (row.source && *row.source && text.contains(QString::fromUtf8(row.source)));
        QVERIFY(anySource);
    }

    void koreanReportEmbedsACjkFont()
    {
        MainWindow window;  // owns the language manager
        QVERIFY(window.languages()->setLanguage(QStringLiteral("ko")));
        const Scenario scenario = teachingScenario().value();
        const QByteArray pdf = ReportWriter::render(scenario, makePlan(scenario).value());
        window.languages()->setLanguage(QStringLiteral("en"));
        QVERIFY(pdf.startsWith("%PDF-"));
        QVERIFY2(pdf.contains("CJK"), "the Korean report names no CJK font");
        // HEADROOM_REPORT_SAMPLES=dir keeps both reports for a look (pdftoppm).
        if (const QString samples = qEnvironmentVariable("HEADROOM_REPORT_SAMPLES"); !samples.isEmpty()) {
            QFile ko(samples + QStringLiteral("/report-ko.pdf"));
            QVERIFY(ko.open(QIODevice::WriteOnly) && ko.write(pdf) == pdf.size());
            QCOMPARE(ReportWriter::write(scenario, makePlan(scenario).value(), samples + QStringLiteral("/report-en.pdf")), QString());
        }
        QVERIFY(pdfPages(pdf) > 1);
    }

    void chartImages()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.showView(MainWindow::View::Timeline);
        QCustomPlot* chart = window.currentChart();
        chart->resize(600, 400);
        QTemporaryDir dir;

        QCOMPARE(ChartExport::save(chart, dir.filePath(QStringLiteral("c.png"))), QString());
        const QImage png(dir.filePath(QStringLiteral("c.png")));
        QCOMPARE(png.width(), static_cast<int>(600 * ChartExport::pngScale(chart)));

        QCOMPARE(ChartExport::save(chart, dir.filePath(QStringLiteral("c.pdf"))), QString());
        QVERIFY(readAll(dir.filePath(QStringLiteral("c.pdf"))).startsWith("%PDF-"));

        if (ChartExport::suffixes().contains(QLatin1String("svg"))) {
            QCOMPARE(ChartExport::save(chart, dir.filePath(QStringLiteral("c.svg"))), QString());
            QXmlStreamReader xml(readAll(dir.filePath(QStringLiteral("c.svg"))));
            bool sawSvg = false;
            while (!xml.atEnd())
                if (xml.readNext() == QXmlStreamReader::StartElement && xml.name() == QLatin1String("svg"))
                    sawSvg = true;
            QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
            QVERIFY(sawSvg);
        }
        QVERIFY(!ChartExport::save(chart, dir.filePath(QStringLiteral("c.bmp"))).isEmpty());
    }

    void clipboard()
    {
        MainWindow window;
        const Scenario scenario = window.scenario();
        QCOMPARE(window.exports()->copyMarkdown(), QString());
        const std::string markdown = exportPlan(scenario, *window.plan(), ExportFormat::Markdown).value();
        QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(markdown));
        QVERIFY(QApplication::clipboard()->mimeData()->hasFormat(QStringLiteral("text/markdown")));

        QCOMPARE(window.exports()->copyText(), QString());
        const QString text = QApplication::clipboard()->text();
        QVERIFY2(text.contains(QLatin1String("Fits, ")), qPrintable(text));
        QVERIFY(text.contains(QString::fromStdString(window.plan()->gpu.name)));

        window.showView(MainWindow::View::Breakdown);
        QCOMPARE(window.exports()->copyChart(), QString());
        QVERIFY(!QApplication::clipboard()->image().isNull());

        // No plan, no copy: the reason instead.
        Scenario bad = scenario;
        bad.train.weightQuant = WeightQuant::None;  // QLoRA without a 4-bit base
        window.setScenario(bad);
        QVERIFY(!window.exports()->copyMarkdown().isEmpty());
    }

    void engineNotesAndErrorsAreTranslated()
    {
        // Notes and error details the engine emits today, each matched by the
        // table: in Korean they come out in Hangul, not in the engine's English.
        std::vector<std::string> notes;
        Scenario bf16OnT4 = fullFinetune();
        bf16OnT4.hardware.gpu = "t4";
        bf16OnT4.train.precision = Precision::Bf16Mixed;
        Scenario fp8OnA100 = fullFinetune();
        fp8OnA100.hardware.gpu = "a100-80gb";
        fp8OnA100.train.precision = Precision::Fp8Mixed;
        Scenario longSequence = fullFinetune();
        longSequence.train.seqLen = 1u << 20;
        for (const Scenario& s : {bf16OnT4, fp8OnA100, longSequence}) {
            auto plan = makePlan(s);
            QVERIFY(static_cast<bool>(plan));
            QCOMPARE(plan.value().notes.size(), std::size_t(1));
            notes.push_back(plan.value().notes.front());
        }
        // The notes the model-state rows add: paged 8-bit AdamW (the teaching
        // scenario), ZeRO-3 with CPU offload, ZeRO-2 with CPU offload.
        Scenario zero3Offload = fullFinetune();
        zero3Offload.hardware.count = 2;
        zero3Offload.hardware.sharding = Sharding::Zero3;
        zero3Offload.hardware.cpuOffload = true;
        Scenario zero2Offload = zero3Offload;
        zero2Offload.hardware.sharding = Sharding::Zero2;
        Scenario fsdp2Offload = zero3Offload;
        fsdp2Offload.hardware.sharding = Sharding::Fsdp2;
        Scenario fsdpOffload = zero3Offload;
        fsdpOffload.hardware.sharding = Sharding::Fsdp;
        std::size_t before = notes.size();
        for (const Scenario& s : {teachingScenario().value(), zero3Offload, zero2Offload, fsdp2Offload, fsdpOffload}) {
            auto plan = makePlan(s);
            QVERIFY(static_cast<bool>(plan));
            QVERIFY(!plan.value().notes.empty());
            notes.insert(notes.end(), plan.value().notes.begin(), plan.value().notes.end());
        }
        QVERIFY(notes.size() >= before + 4);
        // QLoRA of a mixture of experts: the experts stay unquantized.
        Scenario moeQlora = teachingScenario().value();
        moeQlora.model = presetModel("Qwen/Qwen3-30B-A3B").value();
        auto moePlan = makePlan(moeQlora);
        QVERIFY(static_cast<bool>(moePlan));
        const auto expertsNote =
            std::find_if(moePlan.value().notes.begin(), moePlan.value().notes.end(),
                         [](const std::string& n) { return n.starts_with("Experts are not quantized"); });
        QVERIFY(expertsNote != moePlan.value().notes.end());
        notes.push_back(*expertsNote);
        // gpt-oss asked for sdpa: planned eager, and said.
        Scenario oss = fullFinetune();
        oss.model = presetModel("openai/gpt-oss-20b").value();
        oss.train.attention = Attention::Sdpa;
        auto ossPlan = makePlan(oss);
        QVERIFY(static_cast<bool>(ossPlan));
        const auto eagerNote = std::find_if(ossPlan.value().notes.begin(), ossPlan.value().notes.end(),
                                            [](const std::string& n) { return n.starts_with("gpt-oss has no sdpa"); });
        QVERIFY(eagerNote != ossPlan.value().notes.end());
        notes.push_back(*eagerNote);
        // DeepSeek-V3's last pipeline stage has no dense layer: its note says so.
        Scenario deepseekStages = fullFinetune();
        deepseekStages.model = presetModel("deepseek-ai/DeepSeek-V3").value();
        deepseekStages.hardware.gpu = "h200";
        deepseekStages.hardware.count = 16;
        deepseekStages.hardware.sharding = Sharding::Zero1;
        deepseekStages.hardware.parallel.pp = 4;
        deepseekStages.hardware.parallel.ep = 4;
        deepseekStages.train.gradAccum = 4;
        auto deepseekPlan = makePlan(deepseekStages);
        QVERIFY2(deepseekPlan.ok(), deepseekPlan.ok() ? "" : deepseekPlan.error().detail.c_str());
        const auto stageNote = std::find_if(deepseekPlan->notes.begin(), deepseekPlan->notes.end(), [](const std::string& n) {
            return n.starts_with("DeepSeek-V3: its ") && n.find("dense") == std::string::npos;
        });
        QVERIFY(stageNote != deepseekPlan->notes.end());
        notes.push_back(*stageNote);
        // torchtitan's weighted pipeline split names each virtual stage's layers.
        Scenario weightedStages = deepseekStages;
        weightedStages.hardware.sharding = Sharding::Fsdp2;
        weightedStages.hardware.parallel.ep = 1;
        weightedStages.hardware.parallel.vpp = 2;
        weightedStages.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        auto weightedPlan = makePlan(weightedStages);
        QVERIFY2(weightedPlan.ok(), weightedPlan.ok() ? "" : weightedPlan.error().detail.c_str());
        const auto splitNote = std::find_if(weightedPlan->notes.begin(), weightedPlan->notes.end(),
                                            [](const std::string& n) { return n.starts_with("Weighted pipeline split"); });
        QVERIFY(splitNote != weightedPlan->notes.end());
        notes.push_back(*splitNote);
        std::vector<Error> errors;
        Scenario qloraNoBase = teachingScenario().value();
        qloraNoBase.train.weightQuant = WeightQuant::None;
        Scenario zeroBatch = teachingScenario().value();
        zeroBatch.train.microBatch = 0;
        Scenario badDropout = teachingScenario().value();
        badDropout.train.peft.dropout = 1.5;
        // Interleaved pipelines' refusals (engine/plan/parallel.cpp): virtual
        // stages without a pipeline, 32 layers over pp 2 x vpp 3 = 6 chunks,
        // 3 micro-batches over pp 2.
        Scenario vppWithoutPp = fullFinetune();
        vppWithoutPp.hardware.count = 2;
        vppWithoutPp.hardware.parallel.vpp = 2;
        Scenario unevenChunks = vppWithoutPp;
        unevenChunks.hardware.parallel.pp = 2;
        unevenChunks.hardware.parallel.vpp = 3;
        Scenario oddMicroBatches = unevenChunks;
        oddMicroBatches.hardware.parallel.vpp = 2;
        oddMicroBatches.train.gradAccum = 3;
        // torchtitan's weighted split: outside FSDP2, and 32 layers + 2 over
        // pp 4 x vpp 8 = 32 stages (one each: the last stage would hold none).
        Scenario weightedDdp = unevenChunks;
        weightedDdp.hardware.parallel.vpp = 2;
        weightedDdp.train.gradAccum = 2;
        weightedDdp.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        Scenario returnsOutputsDdp = weightedDdp;
        returnsOutputsDdp.hardware.parallel.ppSplit = PipelineSplit::Layers;
        returnsOutputsDdp.hardware.parallel.ppReturnOutputs = true;
        Scenario weightedThin = weightedDdp;
        weightedThin.hardware.sharding = Sharding::Fsdp2;
        weightedThin.train.precision = Precision::Bf16Mixed;
        weightedThin.hardware.count = 4;
        weightedThin.hardware.parallel.pp = 4;
        weightedThin.hardware.parallel.vpp = 8;
        weightedThin.train.gradAccum = 4;
        // Expert parallelism's refusals: a dense model, 8 experts over ep 3,
        // ep past the data-parallel GPUs, FSDP2 past torchtitan's expert region, ZeRO-3.
        Scenario epDense = fullFinetune();
        epDense.hardware.count = 2;
        epDense.hardware.parallel.ep = 2;
        Scenario epMoe = epDense;
        epMoe.model = presetModel("mistralai/Mixtral-8x7B-v0.1").value();
        epMoe.hardware.sharding = Sharding::Zero1;
        Scenario epUneven = epMoe;
        epUneven.hardware.count = 3;
        epUneven.hardware.parallel.ep = 3;
        Scenario epPastDp = epMoe;
        epPastDp.hardware.parallel.ep = 4;
        Scenario epFsdp2 = epMoe; // HSDP 2 x 1: ep 2 past torchtitan's expert region
        epFsdp2.hardware.sharding = Sharding::Fsdp2;
        epFsdp2.hardware.parallel.dpReplicate = 2;
        Scenario epZero3 = epMoe;
        epZero3.hardware.sharding = Sharding::Zero3;
        // Mixtures of experts under tensor parallelism and train.moe
        // (parallel.cpp): tp without sp, etp on a dense model, etp x ep past
        // a stage's GPUs, an expert width etp does not divide, FSDP2, then
        // capacity factors on a dense model, on one GPU, padding without a
        // capacity, and more imbalance than a GPU can receive.
        Scenario moeTp = epMoe;
        moeTp.hardware.count = 4;
        moeTp.hardware.parallel.ep = 1;
        moeTp.hardware.parallel.tp = 2;
        Scenario etpDense = moeTp;
        etpDense.model = fullFinetune().model;
        etpDense.hardware.parallel.sp = true;
        etpDense.hardware.parallel.etp = 1;
        Scenario etpPastStage = moeTp;
        etpPastStage.hardware.parallel.sp = true;
        etpPastStage.hardware.parallel.ep = 4;
        Scenario etpWidth = moeTp;
        etpWidth.hardware.parallel.sp = true;
        etpWidth.model.intermediate += 1;
        // MoE under tp with FSDP2: etp other than tp, ep with tp, Llama 4, an
        // expert width tp does not divide.
        Scenario moeTpFsdp2 = moeTp;
        moeTpFsdp2.hardware.parallel.sp = true;
        moeTpFsdp2.hardware.parallel.etp = 1;
        moeTpFsdp2.hardware.sharding = Sharding::Fsdp2;
        Scenario epTpFsdp2 = moeTpFsdp2;
        epTpFsdp2.hardware.parallel.etp = 0;
        epTpFsdp2.hardware.parallel.ep = 2;
        Scenario llama4TpFsdp2 = epTpFsdp2;
        llama4TpFsdp2.hardware.parallel.ep = 1;
        llama4TpFsdp2.model = presetModel("meta-llama/Llama-4-Scout-17B-16E").value();
        Scenario fusedLion = fullFinetune();
        fusedLion.train.optimizer = Optimizer::Lion;
        fusedLion.train.optimizerImpl = OptimizerImpl::Fused;
        Scenario widthTpFsdp2 = epTpFsdp2;
        widthTpFsdp2.hardware.parallel.ep = 1;
        widthTpFsdp2.model.intermediate += 1;
        Scenario capacityDense = etpDense;
        capacityDense.hardware.parallel.etp = 0;
        capacityDense.train.moe.capacityFactor = 1.0;
        Scenario capacityOneGpu = fullFinetune();
        capacityOneGpu.model = epMoe.model;
        capacityOneGpu.train.moe.capacityFactor = 1.0;
        Scenario padWithoutCapacity = moeTp;
        padWithoutCapacity.hardware.parallel.sp = true;
        padWithoutCapacity.train.moe.padToCapacity = true;
        Scenario tooUneven = padWithoutCapacity;
        tooUneven.train.moe.padToCapacity = false;
        tooUneven.train.moe.imbalance = 2.0;
        // DeepSeek-V3 under tp: a shared-expert width and a dense-layer width
        // tp does not divide; then a family tensor parallelism is not planned for.
        Scenario mlaShared = padWithoutCapacity;
        mlaShared.train.moe = {};
        mlaShared.model = presetModel("deepseek-ai/DeepSeek-V3").value();
        mlaShared.model.sharedExpertIntermediate += 1;
        Scenario mlaDense = mlaShared;
        mlaDense.model.sharedExpertIntermediate -= 1;
        mlaDense.model.denseIntermediate += 1;
        Scenario tpFamily = mlaShared;
        tpFamily.model = presetModel("gpt2").value();
        for (const Scenario& s : {qloraNoBase, zeroBatch, badDropout, vppWithoutPp, unevenChunks, oddMicroBatches,
                                  weightedDdp, weightedThin, returnsOutputsDdp,
                                  epDense, epUneven, epPastDp, epFsdp2, epZero3, moeTp, etpDense, etpPastStage, etpWidth,
                                  moeTpFsdp2, epTpFsdp2, llama4TpFsdp2, widthTpFsdp2, fusedLion, capacityDense, capacityOneGpu, padWithoutCapacity, tooUneven, mlaShared,
                                  mlaDense, tpFamily}) {
            auto plan = makePlan(s);
            QVERIFY(!plan);
            errors.push_back(plan.error());
        }
        // Mixture-of-experts configs with no sparse layer (Qwen3-MoE's
        // decoder_sparse_step and mlp_only_layers, Llama 4's
        // interleave_moe_layer_step and moe_layers) and DeepSeek-V3 routers
        // that cannot run, from a file: the path comes first.
        const std::string configs = HEADROOM_TEST_DATA "/configs/";
        for (const auto& [file, key, value] :
             {std::tuple{"qwen3-moe-4layers.json", "decoder_sparse_step", "5"},
              std::tuple{"qwen3-moe-4layers.json", "mlp_only_layers", "[0, 1, 2, 3]"},
              std::tuple{"llama-4-scout-text.json", "interleave_moe_layer_step", "100"},
              std::tuple{"llama-4-scout-text.json", "moe_layers", "[]"},
              // DeepSeek-V3's group-limited router.
              std::tuple{"deepseek-v3.json", "n_group", "7"},
              std::tuple{"deepseek-v3.json", "n_group", "256"},
              std::tuple{"deepseek-v3.json", "topk_group", "9"},
              std::tuple{"deepseek-v3.json", "num_experts_per_tok", "200"}}) {
            std::ifstream in(configs + file);
            nlohmann::json config = nlohmann::json::parse(in);
            config[key] = nlohmann::json::parse(value);
            const std::string path = QDir::temp().filePath(QStringLiteral("headroom-dense-moe.json")).toStdString();
            std::ofstream(path) << config.dump();
            auto spec = modelSpecFromConfigFile(path);
            QVERIFY2(!spec, key);
            errors.push_back(spec.error());
            QVERIFY2(ErrorText::knownDetail(spec.error().detail).startsWith(QString::fromStdString(path)), key);
        }

        // The notes of a validation (what the Validate view lists): a tiny
        // model on the CPU engine, planned in the pytorch profile.
        Scenario tiny = testing::tinyScenario();
        tiny.profile = Profile::Pytorch;
        auto backend = rt::makeCpuBackend();
        const auto validation = rt::runValidation(tiny, *backend, {});
        QVERIFY(validation.ok());
        const auto validationNotes = rt::validationJson(*validation)["notes"];
        QCOMPARE(int(validationNotes.size()), 2); // the profile, and the agreement to the byte
        for (const auto& note : validationNotes)
            notes.push_back(note.get<std::string>());

        MainWindow window;
        QVERIFY(window.languages()->setLanguage(QStringLiteral("ko")));
        for (const std::string& note : notes) {
            const QString shown = ErrorText::note(note);
            QVERIFY2(hasHangul(shown), note.c_str());
        }
        for (const Error& error : errors) {
            QVERIFY2(!ErrorText::knownDetail(error.detail).isEmpty(), error.detail.c_str());
            QVERIFY2(hasHangul(ErrorText::knownDetail(error.detail)), error.detail.c_str());
        }
        // Every fit-search technique has its own translated name.
        for (const Technique& technique : standardTechniques())
            QVERIFY2(hasHangul(ErrorText::technique(technique.id, "ENGINE")), technique.id.c_str());
        // The numbers travel: "between 1 and 1000000000; it is 0".
        QVERIFY(ErrorText::knownDetail(errors[1].detail).contains(QLatin1String("1000000000")));
        // Unknown text is shown as the engine wrote it.
        QCOMPARE(ErrorText::note("something new"), QStringLiteral("something new"));
        QVERIFY(ErrorText::knownDetail("something new").isEmpty());
        QCOMPARE(ErrorText::technique("something-new", "engine label"), QStringLiteral("engine label"));
        window.languages()->setLanguage(QStringLiteral("en"));
        QVERIFY(ErrorText::note(notes[0]).startsWith(QLatin1String("Tesla T4")) ||
                ErrorText::note(notes[0]).contains(QLatin1String("T4")));
    }
};

QTEST_MAIN(TestUiExports)
#include "test_ui_exports.moc"
