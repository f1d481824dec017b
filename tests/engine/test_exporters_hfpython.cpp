// SPDX-License-Identifier: GPL-3.0-or-later
// The hf-python export (engine/io/exportershf.cpp): a Hugging Face training
// script that measures what the plan predicts, runs as a smoke test, teaches
// in comments, follows the scenario's variants and sharding, and parses as
// Python. The other formats: test_exporters.cpp.
#include "exportcases.h"
#include "io/exporters.h"
#include "model/catalog.h"
#include "plan/gpucatalog.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QProcessEnvironment>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <string>

using namespace headroom;
using namespace headroom::testing;
using nlohmann::json;

class TestExportersHfPython : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY2(teachingScenario().ok(), "the teaching scenario's preset is in the catalog");
        QVERIFY2(findGpu("h100-sxm-80gb").ok(), "the H100 the sharded cases use is in the GPU catalog");
    }

    void hfPythonMeasurement()
    {
        const Scenario s = scenarioFor(Teaching);
        const std::string py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "def write_headroom_measurement(path, scenario=None"));
        QVERIFY(contains(py, "class HeadroomMeasurementCallback(TrainerCallback):"));
        QVERIFY(contains(py, "\"schema\": \"headroom.measurement/1\""));
        QVERIFY(contains(py, "torch.cuda.max_memory_reserved("));
        QVERIFY(contains(py, "\"device_used_source\""));
        QVERIFY(contains(py, "callbacks=[HeadroomMeasurementCallback(cli.measurement, HEADROOM_SCENARIO, \"; \".join(headroom_notes))]"));
        QVERIFY(contains(py, "parser.add_argument(\"--measurement\", default=\"headroom_measurement.json\""));
        // Without a GPU the file says so and carries no counters (io/measurement.h).
        QVERIFY(contains(py, "measurement = {\"schema\": \"headroom.measurement/1\", \"device\": \"cpu\"}\n"));
        QVERIFY(contains(py, "            \"device\": \"cuda\",\n"));
        // The peak printed at the end is the callback's: it resets PyTorch's
        // counters after each phase, so torch.cuda.max_memory_allocated()
        // read after training holds only what came after the last reset.
        QVERIFY(contains(py, "peak = json.load(measured).get(\"max_memory_allocated_bytes\")"));
        // The embedded scenario is the exported one: it reads back to the same plan.
        const std::string marker = "HEADROOM_SCENARIO = json.loads(";
        QVERIFY(contains(py, marker));
    }

    // --smoke-test: random weights from a config.json and random tokens, on
    // the CPU when there is no GPU (tests/libraries runs it under the pinned
    // stack); what it changes from the scenario goes into the measurement's notes.
    void hfPythonSmokeTest()
    {
        Scenario s = scenarioFor(Teaching);  // flash attention
        std::string py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        for (const char* line : {
                 "parser.add_argument(\"--smoke-test\", metavar=\"CONFIG\",\n",
                 "parser.add_argument(\"--steps\", type=int, default=2,",
                 "cli = parser.parse_known_args()[0]",
                 "    AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(cli.smoke_test)).save_pretrained(model_id)\n",
                 "\"use_cpu\": not torch.cuda.is_available()}",
                 "    **smoke_test_args,\n",
                 "if cli.smoke_test and not torch.cuda.is_available():  # flash-attn runs on CUDA only\n",
                 "    attn_implementation = \"sdpa\"\n",
                 "    tokens = torch.randint(0, model.config.vocab_size, (rows, 2048))\n",
                 "    train_dataset = [{\"input_ids\": t, \"labels\": t} for t in tokens]\n",
             })
            QVERIFY2(contains(py, line), line);
        // The random weights exist before TrainingArguments: with ZeRO-3 those
        // make from_config partition what it builds (HfDeepSpeedConfig).
        QVERIFY(py.find("model_id = tempfile.mkdtemp(") < py.find("training_args = TrainingArguments("));

        // Attention other than flash runs on the CPU as it is: no switch.
        s.train.attention = Attention::Sdpa;
        py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "    attn_implementation=\"sdpa\",\n"));
        QVERIFY(!contains(py, "flash_attention_2"));

        // A classifier: the random model has the planned labels, and each
        // random sequence one class.
        auto bert = presetModel("bert-base-uncased");
        QVERIFY2(bert.ok(), "bert-base-uncased is a catalog preset");
        Scenario c = s;
        c.model = bert.value();
        c.model.head = ModelHead::SequenceClassification;
        c.model.numLabels = 3;
        py = exportAs(c, makePlan(c).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "AutoModelForSequenceClassification.from_config(AutoConfig.from_pretrained(cli.smoke_test, num_labels=3))"));
        QVERIFY(contains(py, "\"labels\": torch.randint(0, model.config.num_labels, ())}"));

        // Inference scripts run as they are: no smoke test to offer.
        s.mode = Mode::Inference;
        py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        QVERIFY(!contains(py, "--smoke-test"));
    }

    void hfPythonTeaching()
    {
        const Scenario s = scenarioFor(Teaching);
        const Plan plan = makePlan(s).value();
        const Exported e = exportAs(s, plan, ExportFormat::HfPython);
        QVERIFY(e.ok);
        const std::string& py = e.text;
        for (const char* line : {
                 "model_id = \"meta-llama/Llama-3.1-8B\"\n",
                 "    per_device_train_batch_size=2,\n",
                 "    gradient_accumulation_steps=8,\n",
                 "    bf16=True,\n",
                 "    fp16=False,\n",
                 "    gradient_checkpointing=True,\n",
                 "    optim=\"paged_adamw_8bit\",\n",
                 "bnb_config = BitsAndBytesConfig(\n",
                 "    load_in_4bit=True,\n",
                 "    bnb_4bit_quant_type=\"nf4\",\n",
                 "    bnb_4bit_use_double_quant=True,\n",
                 "    bnb_4bit_compute_dtype=torch.bfloat16,\n",
                 "    quantization_config=bnb_config,\n",
                 "attn_implementation = \"flash_attention_2\"\n",
                 "    attn_implementation=attn_implementation,\n",
                 "lora_config = LoraConfig(\n",
                 "    r=16,\n",
                 "    lora_alpha=32,\n",
                 "    lora_dropout=0.05,\n",
                 "    target_modules=\"all-linear\",\n",
                 "    task_type=\"CAUSAL_LM\",\n",
                 "# max_seq_length = 2048",
                 "model = prepare_model_for_kbit_training(model, use_gradient_checkpointing=True)\n",
             })
            QVERIFY2(contains(py, line), line);
        // The header's numbers are the plan's, and it names the profile.
        QVERIFY(contains(py, "prediction for the pytorch profile"));
        QVERIFY(contains(py, "#   peak " + gib(static_cast<double>(plan.peakBytes)) + " GiB at "));
        QVERIFY(contains(py, "#   device used " + gib(static_cast<double>(plan.deviceUsedBytes)) + " GiB"));
        QVERIFY(contains(py, expectedVerdict(plan)));
        QVERIFY(!contains(py, "deepspeed="));
        QVERIFY(!contains(py, "fsdp="));
    }

    void hfPythonVariants()
    {
        // Plain NF4, q/v targets, 8-bit AdamW, SDPA.
        Scenario s = scenarioFor(Teaching);
        s.train.weightQuant = WeightQuant::Nf4;
        s.train.peft.targets = {"q_proj", "v_proj"};
        s.train.peft.rank = 8;
        s.train.peft.alpha = 16;
        s.train.optimizer = Optimizer::AdamW8bit;
        s.train.attention = Attention::Sdpa;
        std::string py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        for (const char* line : {"    bnb_4bit_use_double_quant=False,\n", "    target_modules=[\"q_proj\", \"v_proj\"],\n",
                                 "    r=8,\n", "    lora_alpha=16,\n", "    optim=\"adamw_bnb_8bit\",\n",
                                 "    attn_implementation=\"sdpa\",\n"})
            QVERIFY2(contains(py, line), line);

        // int8 base: load_in_8bit and no 4-bit keys.
        s.train.weightQuant = WeightQuant::Int8;
        s.train.peft.method = PeftMethod::Lora;
        py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "    load_in_8bit=True,\n"));
        QVERIFY(!contains(py, "bnb_4bit_quant_type"));

        // Each optimizer's transformers name (OptimizerNames).
        const std::vector<std::pair<Optimizer, const char*>> names{
            {Optimizer::AdamW, "adamw_torch"}, {Optimizer::Sgd, "sgd"},          {Optimizer::Adafactor, "adafactor"},
            {Optimizer::Lion, "lion_32bit"},   {Optimizer::PagedAdamW8bit, "paged_adamw_8bit"}};
        for (const auto& [optimizer, name] : names) {
            s.train.optimizer = optimizer;
            py = exportAs(s, makePlan(s).value(), ExportFormat::HfPython).text;
            QVERIFY2(contains(py, std::string("    optim=\"") + name + "\",\n"), name);
        }

        // What TrainingArguments cannot say is a comment, never dropped.
        Scenario f = scenarioFor(Teaching);
        f.train.checkpointing = Checkpointing::EveryK;
        f.train.checkpointEvery = 3;
        f.train.chunkedCrossEntropy = true;
        f.train.activationOffload = true;
        py = exportAs(f, makePlan(f).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "# Not in TrainingArguments: Checkpointing one layer in 3"));
        QVERIFY(contains(py, "# Not in TrainingArguments: Chunked cross-entropy"));
        QVERIFY(contains(py, "# Not in TrainingArguments: Activation offload"));
        Scenario g = scenarioFor(Zero3);
        g.hardware.sharding = Sharding::None;
        g.hardware.count = 1;
        g.train.optimizer = Optimizer::Galore;
        py = exportAs(g, makePlan(g).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "    optim=\"galore_adamw\",\n"));
        QVERIFY(contains(py, "    optim_args=\"rank=128\",\n"));
        QVERIFY(contains(py, "    optim_target_modules=["));
        QVERIFY(contains(py, "# Not in TrainingArguments: GaLore"));
    }

    void hfPythonSharded()
    {
        const Scenario z = scenarioFor(Zero3);
        std::string py = exportAs(z, makePlan(z).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "    per_device_train_batch_size=4,\n"));
        QVERIFY(contains(py, "    gradient_accumulation_steps=2,\n"));
        QVERIFY(contains(py, "    optim=\"adamw_torch\",\n"));
        QVERIFY(contains(py, "    deepspeed=\"ds_config.json\","));
        QVERIFY(contains(py, "    max_grad_norm=1.0,"));
        QVERIFY(!contains(py, "LoraConfig"));
        QVERIFY(!contains(py, "BitsAndBytesConfig"));
        // With ZeRO-3 the arguments exist before the weights load.
        QVERIFY(py.find("training_args = TrainingArguments(") < py.find(".from_pretrained(\\n    model_id,"));

        const Scenario f = scenarioFor(Fsdp);
        py = exportAs(f, makePlan(f).value(), ExportFormat::HfPython).text;
        QVERIFY(contains(py, "    fsdp=\"full_shard offload auto_wrap\",\n"));
        QVERIFY(contains(py, "    fsdp_config={\"activation_checkpointing\": True},\n"));
        QVERIFY2(contains(py, "    gradient_checkpointing=False,"), "transformers refuses both checkpointing switches");
    }

    void hfPythonParses_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<bool>("inference");
        for (int which : {Teaching, Zero3, Fsdp})
            QTest::newRow(caseName(which)) << which << false;
        QTest::newRow("inference") << int(Teaching) << true;
    }
    void hfPythonParses()
    {
        QFETCH(int, which);
        QFETCH(bool, inference);
        Scenario s = scenarioFor(which);
        if (inference) {
            s.mode = Mode::Inference;
            s.inference.weightQuant = WeightQuant::Nf4;
        }
        const Exported e = exportAs(s, makePlan(s).value(), ExportFormat::HfPython);
        QVERIFY(e.ok);
        const QString python = QStandardPaths::findExecutable(QStringLiteral("python3"));
        if (python.isEmpty())
            QSKIP("python3 is not on PATH: the hf-python syntax check needs it");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("train.py"));
        {
            QFile out(file);
            QVERIFY(out.open(QIODevice::WriteOnly));
            QCOMPARE(out.write(e.text.data(), static_cast<qint64>(e.text.size())), static_cast<qint64>(e.text.size()));
        }
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PYTHONUTF8"), QStringLiteral("1"));
        process.setProcessEnvironment(env);
        process.start(python, {QStringLiteral("-c"),
                               QStringLiteral("import ast,sys; ast.parse(open(sys.argv[1]).read())"), file});
        QVERIFY(process.waitForStarted(30000));
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0,
                 process.readAllStandardError().constData());
    }
};

QTEST_GUILESS_MAIN(TestExportersHfPython)
#include "test_exporters_hfpython.moc"
