// SPDX-License-Identifier: GPL-3.0-or-later
// The configuration panel maps every widget to the Scenario and back.
#include "inputs/comboitems.h"
#include "inputs/modelpicker.h"
#include "inputs/peftgroup.h"
#include "inputs/scenariopanel.h"
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "plan/defaultscenario.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QLabel>
#include <QSignalSpy>
#include <QSpinBox>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

// Scenarios compare through their canonical JSON: every field, one format.
QString canonical(const Scenario& s) { return QString::fromStdString(scenarioToText(s)); }

Scenario preset(const char* id)
{
    Scenario s;
    s.model = presetModel(id).value();
    return s;
}

} // namespace

class TestUiScenarioPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void roundTrip_data()
    {
        QTest::addColumn<QString>("json");
        QTest::newRow("teaching QLoRA") << canonical(teachingScenario().value());

        Scenario inference = preset("Qwen/Qwen2.5-0.5B");
        inference.mode = Mode::Inference;
        inference.inference = {4, 3000, 700, KvCacheDtype::Fp8, Precision::Fp16, WeightQuant::Int8, Attention::Flash};
        inference.hardware = {"a100-80gb", 1, Sharding::None, false, 0, {}};
        QTest::newRow("inference") << canonical(inference);

        Scenario sharded = preset("meta-llama/Llama-3.2-1B");
        sharded.train.precision = Precision::Fp16Mixed;
        sharded.train.optimizer = Optimizer::Lion;
        sharded.train.checkpointing = Checkpointing::EveryK;
        sharded.train.checkpointEvery = 3;
        sharded.train.chunkedCrossEntropy = true;
        sharded.train.lossChunks = 16;
        sharded.train.optimizerInBackward = true;
        sharded.train.activationOffload = true;
        sharded.train.microBatch = 7;
        sharded.train.seqLen = 4096;
        sharded.train.gradAccum = 3;
        sharded.hardware = {"h100-sxm-80gb", 8, Sharding::Zero3, true, 0, {}};
        sharded.profile = Profile::Headroom;
        QTest::newRow("ZeRO-3 offload, every 3rd layer") << canonical(sharded);

        // Tensor and pipeline parallelism (issue 15): tp, sp, pp, vpp and the
        // schedule have inputs; a consistent global batch is kept as loaded.
        Scenario parallel = preset("meta-llama/Llama-3.1-8B");
        parallel.train.peft = {};
        parallel.train.weightQuant = WeightQuant::None;
        parallel.train.gradAccum = 4;
        parallel.train.globalBatch = 8;  // 1 x 4 x (16 / (2 x 4))
        parallel.hardware.gpu = "h100-sxm-80gb";
        parallel.hardware.count = 16;
        parallel.hardware.parallel = {2, true, 4, PipelineSchedule::GPipe, 1};
        QTest::newRow("tp 2 + sp x pp 4 gpipe") << canonical(parallel);
        Scenario interleaved = parallel;
        interleaved.hardware.parallel = {2, true, 4, PipelineSchedule::OneFOneB, 2};
        QTest::newRow("tp 2 + sp x pp 4 interleaved, vpp 2") << canonical(interleaved);
        // torchtitan's weighted split and the kept outputs.
        Scenario weighted = interleaved;
        weighted.train.precision = Precision::Bf16Mixed;
        weighted.hardware.sharding = Sharding::Fsdp2;
        weighted.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        weighted.hardware.parallel.ppReturnOutputs = true;
        QTest::newRow("FSDP2 tp 2 + sp x pp 4 interleaved, weighted split") << canonical(weighted);

        // HSDP has an input; the node size (no input) is kept as loaded.
        Scenario hsdp = preset("meta-llama/Llama-3.1-8B");
        hsdp.train.peft = {};
        hsdp.train.weightQuant = WeightQuant::None;
        hsdp.hardware.gpu = "h100-sxm-80gb";
        hsdp.hardware.count = 32;
        hsdp.hardware.sharding = Sharding::Fsdp2;
        hsdp.hardware.gpusPerNode = 8;
        hsdp.hardware.parallel.dpReplicate = 4;
        QTest::newRow("FSDP2 HSDP 4 x 8, 8 GPUs per node") << canonical(hsdp);

        Scenario galore = preset("gpt2");
        galore.train.optimizer = Optimizer::Galore;
        galore.train.galoreRank = 64;
        galore.train.attention = Attention::Eager;
        QTest::newRow("GaLore on GPT-2") << canonical(galore);

        Scenario lora = preset("gpt2");
        lora.train.peft = {PeftMethod::Lora, 8, 16, 0.1, {"c_proj", "c_attn"}};
        QTest::newRow("LoRA with chosen targets, in the user's order") << canonical(lora);

        Scenario custom;
        custom.model = modelSpecFromConfigFile(HEADROOM_TEST_DATA "/configs/mistral-7b-v0.1.json").value();
        custom.train.peft = {PeftMethod::Lora, 32, 64, 0, {"all-linear"}};
        QTest::newRow("custom config.json model") << canonical(custom);
    }

    void roundTrip()
    {
        QFETCH(QString, json);
        const auto scenario = scenarioFromText(json.toStdString());
        QVERIFY2(scenario.ok(), scenario.ok() ? "" : scenario.error().detail.c_str());
        ScenarioPanel panel;
        QSignalSpy changed(&panel, &ScenarioPanel::scenarioChanged);
        panel.setScenario(scenario.value());
        QCOMPARE(changed.count(), 0);  // loading is not an edit
        QCOMPARE(canonical(panel.scenario()), json);
    }

    void widgetsWriteTheScenario()
    {
        ScenarioPanel panel;
        panel.setScenario(teachingScenario().value());
        QSignalSpy changed(&panel, &ScenarioPanel::scenarioChanged);

        panel.findChild<QSpinBox*>(QStringLiteral("microBatch"))->setValue(5);
        QCOMPARE(panel.scenario().train.microBatch, 5u);
        panel.findChild<QSpinBox*>(QStringLiteral("seqLen"))->setValue(8192);
        QCOMPARE(panel.scenario().train.seqLen, 8192u);
        panel.findChild<QSpinBox*>(QStringLiteral("gpuCount"))->setValue(4);
        QCOMPARE(panel.scenario().hardware.count, 4u);

        auto* sharding = panel.findChild<QComboBox*>(QStringLiteral("sharding"));
        sharding->setCurrentIndex(sharding->findData(static_cast<int>(Sharding::Fsdp)));
        QCOMPARE(panel.scenario().hardware.sharding, Sharding::Fsdp);
        auto* offload = panel.findChild<QCheckBox*>(QStringLiteral("cpuOffload"));
        QVERIFY(offload->isEnabled());  // offload needs a sharded setup
        offload->setChecked(true);
        QVERIFY(panel.scenario().hardware.cpuOffload);

        auto* gpu = panel.findChild<QComboBox*>(QStringLiteral("gpu"));
        gpu->setCurrentIndex(gpu->findData(QStringLiteral("h100-sxm-80gb")));
        QCOMPARE(panel.scenario().hardware.gpu, std::string("h100-sxm-80gb"));

        auto* mode = panel.findChild<QComboBox*>(QStringLiteral("mode"));
        mode->setCurrentIndex(mode->findData(static_cast<int>(Mode::Inference)));
        QCOMPARE(panel.scenario().mode, Mode::Inference);
        panel.findChild<QSpinBox*>(QStringLiteral("promptTokens"))->setValue(1000);
        QCOMPARE(panel.scenario().inference.promptTokens, 1000u);
        QCOMPARE(changed.count(), 8);

        // Effective batch = micro × accumulation × GPUs, said in the panel.
        const QString effective = panel.findChild<QLabel*>(QStringLiteral("effectiveBatch"))->text();
        QVERIFY2(effective.contains(QStringLiteral("160")), qPrintable(effective));  // 5 × 8 × 4
    }

    void parallelInputs()
    {
        ScenarioPanel panel;
        Scenario s = teachingScenario().value();
        s.hardware.count = 8;
        panel.setScenario(s);
        auto* tp = panel.findChild<QSpinBox*>(QStringLiteral("tensorParallel"));
        auto* sp = panel.findChild<QCheckBox*>(QStringLiteral("sequenceParallel"));
        auto* pp = panel.findChild<QSpinBox*>(QStringLiteral("pipelineParallel"));
        QVERIFY(tp && sp && pp);
        QVERIFY(!sp->isEnabled());  // nothing to split over one tensor-parallel GPU
        tp->setValue(2);
        QVERIFY(sp->isEnabled());
        sp->setChecked(true);
        pp->setValue(2);
        const Scenario edited = panel.scenario();
        QCOMPARE(edited.hardware.parallel.tp, 2u);
        QVERIFY(edited.hardware.parallel.sp);
        QCOMPARE(edited.hardware.parallel.pp, 2u);
        // The effective batch counts data-parallel replicas: 8 GPUs / (2 x 2) = 2.
        const QString effective = panel.findChild<QLabel*>(QStringLiteral("effectiveBatch"))->text();
        QVERIFY2(effective.contains(QStringLiteral("× 2 data-parallel replicas")), qPrintable(effective));

        // Context parallelism splits the sequence, not the batch: 8 / (2 x 2 x 2) = 1 replica.
        auto* cp = panel.findChild<QSpinBox*>(QStringLiteral("contextParallel"));
        QVERIFY(cp);
        cp->setValue(2);
        QCOMPARE(panel.scenario().hardware.parallel.cp, 2u);
        const QString withCp = panel.findChild<QLabel*>(QStringLiteral("effectiveBatch"))->text();
        QVERIFY2(withCp.contains(QStringLiteral("× 1 data-parallel replicas")), qPrintable(withCp));
        // A scenario's cp comes back into the field.
        s.hardware.parallel.cp = 4;
        panel.setScenario(s);
        QCOMPARE(cp->value(), 4);

        // Virtual stages (vpp) sit beside the pipeline stages, enabled with a pipeline.
        auto* vpp = panel.findChild<QSpinBox*>(QStringLiteral("virtualStages"));
        QVERIFY(vpp);
        QVERIFY(!vpp->isEnabled()); // s has pp 1
        pp->setValue(4);
        QVERIFY(vpp->isEnabled());
        vpp->setValue(2);
        QCOMPARE(panel.scenario().hardware.parallel.vpp, 2u);
        s.hardware.parallel.pp = 2;
        s.hardware.parallel.vpp = 3;
        panel.setScenario(s);
        QCOMPARE(vpp->value(), 3);
        QCOMPARE(panel.scenario().hardware.parallel.vpp, 3u);

        // The pipeline's schedule, split and kept outputs: enabled with a
        // pipeline (the split and the outputs under FSDP2 only), edited into
        // the scenario, and a scenario's values come back into them.
        auto* schedule = panel.findChild<QComboBox*>(QStringLiteral("ppSchedule"));
        auto* split = panel.findChild<QComboBox*>(QStringLiteral("ppSplit"));
        auto* keeps = panel.findChild<QCheckBox*>(QStringLiteral("ppReturnOutputs"));
        QVERIFY(schedule && split && keeps);
        QVERIFY(schedule->isEnabled());
        QVERIFY(!split->isEnabled()); // not FSDP2
        QVERIFY(!keeps->isEnabled());
        schedule->setCurrentIndex(schedule->findData(enumData(PipelineSchedule::GPipe)));
        QCOMPARE(int(panel.scenario().hardware.parallel.ppSchedule), int(PipelineSchedule::GPipe));
        s.hardware.sharding = Sharding::Fsdp2;
        s.hardware.parallel.vpp = 2;
        s.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        s.hardware.parallel.ppReturnOutputs = true;
        panel.setScenario(s);
        QVERIFY(split->isEnabled() && keeps->isEnabled());
        QCOMPARE(split->currentData(), enumData(PipelineSplit::Weighted));
        QVERIFY(keeps->isChecked());
        QCOMPARE(int(schedule->currentData().toInt()), int(PipelineSchedule::OneFOneB)); // s's own schedule
        keeps->setChecked(false);
        split->setCurrentIndex(split->findData(enumData(PipelineSplit::Layers)));
        QVERIFY(!panel.scenario().hardware.parallel.ppReturnOutputs);
        QCOMPARE(int(panel.scenario().hardware.parallel.ppSplit), int(PipelineSplit::Layers));
    }

    void peftTargetsComeFromTheModel()
    {
        ScenarioPanel panel;
        Scenario s = preset("gpt2");
        s.train.peft.method = PeftMethod::Lora;
        panel.setScenario(s);
        QStringList boxes;
        for (QCheckBox* box : panel.findChildren<QCheckBox*>())
            if (box->objectName().startsWith(QLatin1String("target:")))
                boxes << box->text();
        QCOMPARE(boxes, (QStringList{QStringLiteral("c_attn"), QStringLiteral("c_proj"), QStringLiteral("c_fc")}));

        // Choosing modules starts from the architecture's default (c_attn for GPT-2).
        auto* targetMode = panel.findChild<QComboBox*>(QStringLiteral("peftTargetMode"));
        targetMode->setCurrentIndex(2);
        QCOMPARE(panel.scenario().train.peft.targets, std::vector<std::string>{"c_attn"});
        panel.findChild<QCheckBox*>(QStringLiteral("target:c_fc"))->setChecked(true);
        QCOMPARE(panel.scenario().train.peft.targets, (std::vector<std::string>{"c_attn", "c_fc"}));
        targetMode->setCurrentIndex(1);
        QCOMPARE(panel.scenario().train.peft.targets, std::vector<std::string>{"all-linear"});
    }

    void modelImportErrorsAreTranslatedMessages()
    {
        ModelPicker picker;
        const QString missing = picker.importConfigFile(QStringLiteral("/nonexistent/config.json"));
        QVERIFY(!missing.isEmpty());
        QVERIFY2(missing.contains(QLatin1String("not found")), qPrintable(missing));
        QTemporaryDir dir;
        QFile bad(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"model_type\": \"llama\"");
        bad.close();
        QVERIFY2(picker.importConfigFile(bad.fileName()).contains(QLatin1String("JSON")),
                 qPrintable(picker.importConfigFile(bad.fileName())));

        QSignalSpy changed(&picker, &ModelPicker::modelChanged);
        QCOMPARE(picker.importConfigFile(QStringLiteral(HEADROOM_TEST_DATA "/configs/pythia-160m.json")), QString());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(picker.model().modelType, std::string("gpt_neox"));
        QCOMPARE(picker.model().origin, std::string("config.json"));
    }

    void modelFoldersImport()
    {
        // A folder with a config.json and no weights still imports (modelfolder.h).
        QTemporaryDir dir;
        QVERIFY(QFile::copy(QStringLiteral(HEADROOM_TEST_DATA "/configs/gpt2.json"), dir.filePath(QStringLiteral("config.json"))));
        ModelPicker picker;
        QCOMPARE(picker.importModelFolder(dir.path()), QString());
        QCOMPARE(picker.model().origin, std::string("model-folder"));
        QCOMPARE(picker.model().modelType, std::string("gpt2"));
        QVERIFY(!picker.importModelFolder(dir.filePath(QStringLiteral("missing"))).isEmpty());
    }

    void presetsAreSearchable()
    {
        ModelPicker picker;
        auto* combo = picker.findChild<QComboBox*>(QStringLiteral("modelCombo"));
        QCOMPARE(combo->count(), static_cast<int>(modelCatalog().size()));
        QCOMPARE(combo->completer()->filterMode(), Qt::MatchContains);
        picker.setModel(presetModel("Qwen/Qwen2.5-0.5B").value());
        QCOMPARE(picker.model().id, std::string("Qwen/Qwen2.5-0.5B"));
        QCOMPARE(combo->count(), static_cast<int>(modelCatalog().size()));  // a preset adds no entry
    }
};

QTEST_MAIN(TestUiScenarioPanel)
#include "test_ui_scenariopanel.moc"
