// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario files (engine/io/scenariofile.h): the documented example reads to
// the expected values, every model kind survives a write and a read, and the
// writer is atomic. Bad input: test_scenariofile_errors.cpp.
#include "io/scenariofile.h"
#include "scenariotestfiles.h"

#include "model/catalog.h"
#include "model/genericmodel.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"
#include "plan/gpucatalog.h"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace headroom;
using headroom::testing::baseDocument;
using headroom::testing::writeText;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// The example of the scenario format, as documented.
const char* const kExample = R"json({
  "schema": "headroom.scenario/1",
  "model": {"preset": "meta-llama/Llama-3.1-8B"},
  "mode": "train",
  "train": {"precision": "bf16-mixed", "weight_quant": "nf4", "optimizer": "adamw",
            "peft": {"method": "qlora", "rank": 16, "alpha": 32, "dropout": 0.05, "targets": ["q_proj", "v_proj"]},
            "micro_batch": 2, "seq_len": 2048, "grad_accum": 8,
            "checkpointing": "full", "checkpoint_every": 1, "attention": "flash",
            "chunked_cross_entropy": false, "loss_chunks": 8, "optimizer_in_backward": false,
            "activation_offload": false, "galore_rank": 128},
  "inference": {"batch": 1, "prompt_tokens": 512, "new_tokens": 256, "kv_cache_dtype": "bf16", "precision": "bf16",
                "weight_quant": "none", "attention": "sdpa"},
  "hardware": {"gpu": "rtx-4090", "count": 1, "sharding": "none", "cpu_offload": false},
  "profile": "pytorch"
})json";

// TinyLlama-1.1B's config.json (the fields a Llama config carries).
const char* const kLlamaConfig = R"json({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "hidden_size": 2048, "intermediate_size": 5632, "num_attention_heads": 32, "num_key_value_heads": 4,
  "num_hidden_layers": 22, "vocab_size": 32000, "max_position_embeddings": 2048, "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false, "torch_dtype": "float32"
})json";

void compareSpecs(const ModelSpec& a, const ModelSpec& b)
{
    QCOMPARE(a.id, b.id);
    QCOMPARE(a.modelType, b.modelType);
    QCOMPARE(a.hfClass, b.hfClass);
    QCOMPARE(int(a.family), int(b.family));
    QCOMPARE(a.layers, b.layers);
    QCOMPARE(a.hidden, b.hidden);
    QCOMPARE(a.heads, b.heads);
    QCOMPARE(a.kvHeads, b.kvHeads);
    QCOMPARE(a.headDim, b.headDim);
    QCOMPARE(a.intermediate, b.intermediate);
    QCOMPARE(a.vocab, b.vocab);
    QCOMPARE(a.maxPositions, b.maxPositions);
    QCOMPARE(a.typeVocab, b.typeVocab);
    QCOMPARE(int(a.norm), int(b.norm));
    QCOMPARE(a.hiddenAct, b.hiddenAct);
    QCOMPARE(a.gatedMlp, b.gatedMlp);
    QCOMPARE(a.tieEmbeddings, b.tieEmbeddings);
    QCOMPARE(a.qkvBias, b.qkvBias);
    QCOMPARE(a.attnOutBias, b.attnOutBias);
    QCOMPARE(a.mlpBias, b.mlpBias);
    QCOMPARE(a.learnedPositions, b.learnedPositions);
    QCOMPARE(a.parallelResidual, b.parallelResidual);
    QCOMPARE(a.qkNorm, b.qkNorm);
    QCOMPARE(a.experts, b.experts);
    QCOMPARE(a.expertsPerToken, b.expertsPerToken);
    QCOMPARE(a.dropout, b.dropout);
    QCOMPARE(a.approximate, b.approximate);
    QCOMPARE(a.encoder, b.encoder);
    QCOMPARE(int(a.head), int(b.head));
    QCOMPARE(a.numLabels, b.numLabels);
    QCOMPARE(a.origin, b.origin);
    QCOMPARE(a.checkpointParameters, b.checkpointParameters);
    QCOMPARE(a.checkpointDtype, b.checkpointDtype);
    QCOMPARE(a.revision, b.revision);
    QCOMPARE(a.vision.layers, b.vision.layers);
    QCOMPARE(a.vision.hidden, b.vision.hidden);
    QCOMPARE(a.vision.intermediate, b.vision.intermediate);
    QCOMPARE(a.vision.channels, b.vision.channels);
    QCOMPARE(a.vision.imageSize, b.vision.imageSize);
    QCOMPARE(a.vision.patchSize, b.vision.patchSize);
    QCOMPARE(a.vision.poolingHead, b.vision.poolingHead);
}

void compareScenarios(const Scenario& a, const Scenario& b)
{
    compareSpecs(a.model, b.model);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(int(a.mode), int(b.mode));
    QCOMPARE(int(a.profile), int(b.profile));
    const TrainConfig& x = a.train;
    const TrainConfig& y = b.train;
    QCOMPARE(int(x.precision), int(y.precision));
    QCOMPARE(int(x.weightQuant), int(y.weightQuant));
    QCOMPARE(int(x.optimizer), int(y.optimizer));
    QCOMPARE(int(x.optimizerImpl), int(y.optimizerImpl));
    QCOMPARE(int(x.peft.method), int(y.peft.method));
    QCOMPARE(x.peft.rank, y.peft.rank);
    QCOMPARE(x.peft.alpha, y.peft.alpha);
    QCOMPARE(x.peft.dropout, y.peft.dropout);
    QCOMPARE(x.peft.targets, y.peft.targets);
    QCOMPARE(x.microBatch, y.microBatch);
    QCOMPARE(x.seqLen, y.seqLen);
    QCOMPARE(x.gradAccum, y.gradAccum);
    QCOMPARE(int(x.checkpointing), int(y.checkpointing));
    QCOMPARE(x.checkpointEvery, y.checkpointEvery);
    QCOMPARE(int(x.attention), int(y.attention));
    QCOMPARE(x.chunkedCrossEntropy, y.chunkedCrossEntropy);
    QCOMPARE(x.lossChunks, y.lossChunks);
    QCOMPARE(x.optimizerInBackward, y.optimizerInBackward);
    QCOMPARE(x.activationOffload, y.activationOffload);
    QCOMPARE(x.galoreRank, y.galoreRank);
    const InferenceConfig& i = a.inference;
    const InferenceConfig& j = b.inference;
    QCOMPARE(i.batch, j.batch);
    QCOMPARE(i.promptTokens, j.promptTokens);
    QCOMPARE(i.newTokens, j.newTokens);
    QCOMPARE(int(i.kvCacheDtype), int(j.kvCacheDtype));
    QCOMPARE(int(i.precision), int(j.precision));
    QCOMPARE(int(i.weightQuant), int(j.weightQuant));
    QCOMPARE(int(i.attention), int(j.attention));
    QCOMPARE(a.hardware.gpu, b.hardware.gpu);
    QCOMPARE(a.hardware.count, b.hardware.count);
    QCOMPARE(int(a.hardware.sharding), int(b.hardware.sharding));
    QCOMPARE(a.hardware.cpuOffload, b.hardware.cpuOffload);
    QCOMPARE(x.globalBatch, y.globalBatch);
    QCOMPARE(a.hardware.parallel.tp, b.hardware.parallel.tp);
    QCOMPARE(a.hardware.parallel.sp, b.hardware.parallel.sp);
    QCOMPARE(a.hardware.parallel.pp, b.hardware.parallel.pp);
    QCOMPARE(int(a.hardware.parallel.ppSchedule), int(b.hardware.parallel.ppSchedule));
    QCOMPARE(a.hardware.parallel.vpp, b.hardware.parallel.vpp);
    QCOMPARE(a.hardware.parallel.cp, b.hardware.parallel.cp);
}

// A scenario with no field left at its default, so a writer that forgets a
// field cannot pass the round trip by accident.
Scenario everyFieldSet(const ModelSpec& model)
{
    Scenario s;
    s.model = model;
    s.mode = Mode::Inference;
    s.profile = Profile::Headroom;
    s.train.precision = Precision::Fp16Mixed;
    s.train.weightQuant = WeightQuant::Nf4DoubleQuant;
    s.train.optimizer = Optimizer::PagedAdamW8bit;
    s.train.optimizerImpl = OptimizerImpl::Fused;
    s.train.peft.method = PeftMethod::Qlora;
    s.train.peft.rank = 64;
    s.train.peft.alpha = 12.5;
    s.train.peft.dropout = 0.1;
    s.train.peft.targets = {"q_proj", "k_proj", "v_proj", "o_proj"};
    s.train.microBatch = 3;
    s.train.seqLen = 4096;
    s.train.gradAccum = 16;
    s.train.checkpointing = Checkpointing::EveryK;
    s.train.checkpointEvery = 4;
    s.train.attention = Attention::Eager;
    s.train.chunkedCrossEntropy = true;
    s.train.lossChunks = 16;
    s.train.optimizerInBackward = true;
    s.train.activationOffload = true;
    s.train.galoreRank = 256;
    s.inference.batch = 8;
    s.inference.promptTokens = 1000;
    s.inference.newTokens = 0;
    s.inference.kvCacheDtype = KvCacheDtype::Fp8;
    s.inference.precision = Precision::Fp16;
    s.inference.weightQuant = WeightQuant::Int8;
    s.inference.attention = Attention::Flash;
    s.hardware.gpu = "h100-sxm-80gb";
    s.hardware.count = 8;
    s.hardware.sharding = Sharding::Zero3;
    s.hardware.cpuOffload = true;
    s.train.globalBatch = 96;
    s.hardware.parallel.tp = 2;
    s.hardware.parallel.sp = true;
    s.hardware.parallel.pp = 2;
    s.hardware.parallel.ppSchedule = PipelineSchedule::GPipe;
    s.hardware.parallel.vpp = 3;
    s.hardware.parallel.cp = 2;
    return s;
}

std::string readAll(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

std::vector<std::string> filesIn(const fs::path& dir)
{
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Write, read back, compare field by field; the written file is returned for
// checks on its shape.
json roundTrip(const Scenario& original, const fs::path& dir)
{
    const fs::path file = dir / "roundtrip.headroom.json";
    const auto written = writeScenarioFile(original, file.string());
    if (!written.ok()) {
        QTest::qFail(written.error().detail.c_str(), __FILE__, __LINE__);
        return {};
    }
    const auto back = readScenarioFile(file.string());
    if (!back.ok()) {
        QTest::qFail(back.error().detail.c_str(), __FILE__, __LINE__);
        return {};
    }
    compareScenarios(back.value(), original);
    return json::parse(readAll(file));
}

} // namespace

class TestScenarioFile : public QObject {
    Q_OBJECT

private slots:
    void exampleParsesToTheExpectedScenario()
    {
        const auto parsed = scenarioFromText(kExample);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().detail.c_str());
        const Scenario& s = parsed.value();

        const auto preset = presetModel("meta-llama/Llama-3.1-8B");
        QVERIFY(preset.ok());
        compareSpecs(s.model, preset.value());
        QCOMPARE(s.model.id, std::string("meta-llama/Llama-3.1-8B"));
        // Llama 3.1 8B's config.json: 32 layers of 4096, 8 KV heads.
        QCOMPARE(s.model.layers, std::uint64_t(32));
        QCOMPARE(s.model.hidden, std::uint64_t(4096));
        QCOMPARE(s.model.kvHeads, std::uint64_t(8));

        QCOMPARE(int(s.mode), int(Mode::Train));
        QCOMPARE(int(s.train.precision), int(Precision::Bf16Mixed));
        QCOMPARE(int(s.train.weightQuant), int(WeightQuant::Nf4));
        QCOMPARE(int(s.train.optimizer), int(Optimizer::AdamW));
        QCOMPARE(int(s.train.peft.method), int(PeftMethod::Qlora));
        QCOMPARE(s.train.peft.rank, std::uint64_t(16));
        QCOMPARE(s.train.peft.alpha, 32.0);
        QCOMPARE(s.train.peft.dropout, 0.05);
        QCOMPARE(s.train.peft.targets, (std::vector<std::string>{"q_proj", "v_proj"}));
        QCOMPARE(s.train.microBatch, std::uint64_t(2));
        QCOMPARE(s.train.seqLen, std::uint64_t(2048));
        QCOMPARE(s.train.gradAccum, std::uint64_t(8));
        QCOMPARE(int(s.train.checkpointing), int(Checkpointing::Full));
        QCOMPARE(s.train.checkpointEvery, std::uint64_t(1));
        QCOMPARE(int(s.train.attention), int(Attention::Flash));
        QCOMPARE(s.train.chunkedCrossEntropy, false);
        QCOMPARE(s.train.lossChunks, std::uint64_t(8));
        QCOMPARE(s.train.optimizerInBackward, false);
        QCOMPARE(s.train.activationOffload, false);
        QCOMPARE(s.train.galoreRank, std::uint64_t(128));
        QCOMPARE(s.inference.batch, std::uint64_t(1));
        QCOMPARE(s.inference.promptTokens, std::uint64_t(512));
        QCOMPARE(s.inference.newTokens, std::uint64_t(256));
        QCOMPARE(int(s.inference.kvCacheDtype), int(KvCacheDtype::Bf16));
        QCOMPARE(int(s.inference.precision), int(Precision::Bf16));
        QCOMPARE(int(s.inference.weightQuant), int(WeightQuant::None));
        QCOMPARE(int(s.inference.attention), int(Attention::Sdpa));
        QCOMPARE(s.hardware.gpu, std::string("rtx-4090"));
        QCOMPARE(s.hardware.count, std::uint64_t(1));
        QCOMPARE(int(s.hardware.sharding), int(Sharding::None));
        QCOMPARE(s.hardware.cpuOffload, false);
        QCOMPARE(int(s.profile), int(Profile::Pytorch));
    }

    void absentFieldsKeepTheDefaults()
    {
        json doc = baseDocument();
        doc.erase("train");
        doc.erase("inference");
        doc.erase("hardware");
        const auto parsed = scenarioFromJson(doc);
        QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().detail.c_str());
        const Scenario defaults;
        Scenario expected = defaults;
        expected.model = parsed->model;
        compareScenarios(parsed.value(), expected);
        QCOMPARE(parsed->model.origin, std::string("spec"));
        QCOMPARE(parsed->model.kvHeads, std::uint64_t(4));   // defaults to heads
        QCOMPARE(parsed->model.headDim, std::uint64_t(16));  // hidden / heads
    }

    void qloraDefaultsWeightsToNf4()
    {
        json doc = baseDocument();
        doc["train"]["peft"]["method"] = "qlora";
        auto parsed = scenarioFromJson(doc);
        QVERIFY(parsed.ok());
        QCOMPARE(int(parsed->train.weightQuant), int(WeightQuant::Nf4));

        // An explicit choice is kept, whatever it is.
        doc["train"]["weight_quant"] = "nf4-dq";
        parsed = scenarioFromJson(doc);
        QVERIFY(parsed.ok());
        QCOMPARE(int(parsed->train.weightQuant), int(WeightQuant::Nf4DoubleQuant));

        doc["train"]["peft"]["method"] = "lora";
        doc["train"].erase("weight_quant");
        parsed = scenarioFromJson(doc);
        QVERIFY(parsed.ok());
        QCOMPARE(int(parsed->train.weightQuant), int(WeightQuant::None));
    }

    void gpuIdIsStoredInCatalogSpelling()
    {
        json doc = baseDocument();
        doc["hardware"]["gpu"] = "H100-SXM-80GB";
        const auto parsed = scenarioFromJson(doc);
        QVERIFY(parsed.ok());
        QCOMPARE(parsed->hardware.gpu, std::string("h100-sxm-80gb"));
    }

    void modelKinds()
    {
        const auto size = modelFromJson(json{{"size", "13B"}});
        QVERIFY2(size.ok(), size.ok() ? "" : size.error().detail.c_str());
        QVERIFY(size->approximate);
        const auto count = modelFromJson(json{{"size", 13e9}});
        QVERIFY2(count.ok(), count.ok() ? "" : count.error().detail.c_str());
        QCOMPARE(count->layers, size->layers);

        const auto config = modelFromJson(json{{"config", json::parse(kLlamaConfig)}, {"id", "TinyLlama"}});
        QVERIFY2(config.ok(), config.ok() ? "" : config.error().detail.c_str());
        QCOMPARE(config->id, std::string("TinyLlama"));
        QCOMPARE(config->layers, std::uint64_t(22));
        QCOMPARE(config->kvHeads, std::uint64_t(4));
    }

    // A scenario without tensor/pipeline parallelism or a global batch saves
    // the same text as before issue 15: neither key is written.
    void defaultLayoutWritesNothingNew()
    {
        const std::string text = scenarioToText(Scenario{});
        QVERIFY(text.find("\"parallel\"") == std::string::npos);
        QVERIFY(text.find("global_batch") == std::string::npos);
        Scenario s;
        s.hardware.parallel.pp = 2;
        QVERIFY(scenarioToText(s).find("\"pp_schedule\": \"1f1b\"") != std::string::npos);
        // cp is written only when used, so a tp/pp scenario's text is as before it.
        QVERIFY(scenarioToText(s).find("\"cp\"") == std::string::npos);
        s.hardware.parallel.cp = 4;
        QVERIFY(scenarioToText(s).find("\"cp\": 4") != std::string::npos);
        // A cp-only layout is not the default layout: the block is written
        // (everyFieldSet's round trip reads it back).
        Scenario cpOnly;
        cpOnly.hardware.parallel.cp = 2;
        const std::string cpText = scenarioToText(cpOnly);
        QVERIFY(cpText.find("\"parallel\"") != std::string::npos);
        QVERIFY(cpText.find("\"cp\": 2") != std::string::npos);
    }

    void roundTripPreset()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto preset = presetModel("meta-llama/Llama-3.1-8B");
        QVERIFY(preset.ok());
        const json written = roundTrip(everyFieldSet(preset.value()), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        // A catalog model is written by name: the file stays short and follows
        // catalog corrections.
        QCOMPARE(written.at("model"), json({{"preset", "meta-llama/Llama-3.1-8B"}}));
    }

    // The sequence-classification head: "head" and "num_labels" beside any
    // model source, written beside the preset (or spec) they apply to.
    void classifierHead()
    {
        const auto cls = modelFromJson(json{{"preset", "bert-base-uncased"}, {"head", "sequence-classification"}});
        QVERIFY2(cls.ok(), cls.ok() ? "" : cls.error().detail.c_str());
        QCOMPARE(int(cls->head), int(ModelHead::SequenceClassification));
        QCOMPARE(cls->numLabels, std::uint64_t(2));  // transformers' PretrainedConfig default
        QCOMPARE(cls->hfClass, std::string("BertForSequenceClassification"));
        const auto three = modelFromJson(
            json{{"preset", "bert-base-uncased"}, {"head", "sequence-classification"}, {"num_labels", 3}});
        QVERIFY(three.ok());
        QCOMPARE(three->numLabels, std::uint64_t(3));
        // A config.json that names BertForSequenceClassification picks the head
        // itself; "num_labels" alone then sets the count, and "head" can undo it.
        json config = json::parse(readAll(fs::path(HEADROOM_TEST_DATA) / "configs" / "bert-base-uncased.json"));
        config["architectures"] = {"BertForSequenceClassification"};
        const auto fromConfig = modelFromJson(json{{"config", config}, {"num_labels", 4}});
        QVERIFY2(fromConfig.ok(), fromConfig.ok() ? "" : fromConfig.error().detail.c_str());
        QCOMPARE(int(fromConfig->head), int(ModelHead::SequenceClassification));
        QCOMPARE(fromConfig->numLabels, std::uint64_t(4));
        const auto undone = modelFromJson(json{{"config", config}, {"head", "language-model"}});
        QVERIFY(undone.ok());
        QCOMPARE(int(undone->head), int(ModelHead::LanguageModel));
        QCOMPARE(undone->numLabels, std::uint64_t(0));
        QCOMPARE(undone->hfClass, std::string("BertForMaskedLM"));

        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const json written = roundTrip(everyFieldSet(three.value()), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        QCOMPARE(written.at("model"),
                 json({{"preset", "bert-base-uncased"}, {"head", "sequence-classification"}, {"num_labels", 3}}));
        const json fromConfigWritten = roundTrip(everyFieldSet(fromConfig.value()), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(fromConfigWritten.at("model").contains("spec"));
        QCOMPARE(fromConfigWritten.at("model").at("head"), json("sequence-classification"));
        QCOMPARE(fromConfigWritten.at("model").at("num_labels"), json(4));
        // The language-model head writes nothing new: older files stay as they were.
        const auto preset = presetModel("bert-base-uncased");
        QVERIFY(preset.ok());
        const json plain = roundTrip(everyFieldSet(preset.value()), dir.path().toStdString());
        QCOMPARE(plain.at("model"), json({{"preset", "bert-base-uncased"}}));
    }

    void roundTripEditedPresetWritesTheSpec()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto preset = presetModel("meta-llama/Llama-3.1-8B");
        QVERIFY(preset.ok());
        ModelSpec edited = preset.value();
        edited.layers = 16;  // still says origin "catalog"
        const json written = roundTrip(everyFieldSet(edited), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        QVERIFY(written.at("model").contains("spec"));
    }

    // Gemma 3's vision tower travels with the spec ("vision"): the edited
    // preset reads back with the same parameter table.
    void roundTripVisionTower()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        auto preset = presetModel("google/gemma-3-4b-pt");
        QVERIFY(preset.ok() && preset->hasVision());
        ModelSpec edited = preset.value();
        edited.layers = 10;
        const json written = roundTrip(everyFieldSet(edited), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        const json& vision = written.at("model").at("spec").at("vision");
        QCOMPARE(vision.at("layers"), json(27));
        QCOMPARE(vision.at("pooling_head"), json(false));
        const auto back = readScenarioFile(dir.path().toStdString() + "/roundtrip.headroom.json");
        QVERIFY(back.ok());
        QCOMPARE(qulonglong(buildParameterTable(back->model).totalElements()),
                 qulonglong(buildParameterTable(edited).totalElements()));
        // A spec without "vision" has none; a bad one is refused.
        json bad = written;
        bad["model"]["spec"]["vision"]["patch_size"] = 15;
        QVERIFY(!scenarioFromJson(bad).ok());
    }

    void roundTripConfigModel()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto spec = modelSpecFromHfConfigText(kLlamaConfig, "TinyLlama/TinyLlama-1.1B");
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().detail.c_str());
        const json written = roundTrip(everyFieldSet(spec.value()), dir.path().toStdString());
        QVERIFY(!QTest::currentTestFailed());
        // Written as a spec, so the file reads without the original config.json.
        QVERIFY(written.at("model").contains("spec"));
        QCOMPARE(written.at("model").at("spec").at("origin"), json("config.json"));
    }

    // Whatever a config.json may say, the scenario that saves the model reads
    // back: the scenario reader's bounds are the importer's (modelspec.h).
    // fuzz_scenario found a config whose import saved but did not read back.
    void roundTripConfigAtTheImportLimits_data()
    {
        QTest::addColumn<std::string>("changes");  // merged into a Llama config.json
        const json most = kMaxModelDimension;
        const json layers = kMaxModelLayers;
        const auto row = [](const char* name, const json& changes) { QTest::newRow(name) << changes.dump(); };
        row("hidden and heads", {{"hidden_size", most}, {"num_attention_heads", most}, {"num_key_value_heads", most}});
        row("head_dim", {{"head_dim", most}});
        row("layers", {{"num_hidden_layers", layers}});
        row("dropout 1", {{"attention_dropout", 1.0}});
        row("vision tower", {{"model_type", "gemma3"},
                             {"architectures", {"Gemma3ForConditionalGeneration"}},
                             {"text_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_attention_heads", 4},
                                              {"num_key_value_heads", 1}, {"num_hidden_layers", 2}, {"head_dim", 16}}},
                             {"vision_config", {{"hidden_size", most}, {"num_channels", most}, {"image_size", most},
                                                {"patch_size", most}, {"num_hidden_layers", layers}}}});
    }
    void roundTripConfigAtTheImportLimits()
    {
        QFETCH(std::string, changes);
        json config = json::parse(kLlamaConfig);
        config.merge_patch(json::parse(changes));
        const auto spec = modelSpecFromHfConfig(config, "at-the-limit");
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().detail.c_str());
        Scenario scenario;
        scenario.model = spec.value();
        const std::string saved = scenarioToText(scenario);
        const auto back = scenarioFromText(saved);
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        compareSpecs(back->model, spec.value());
    }

    void roundTripSizeModel()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto spec = genericModelBySize("13B");
        QVERIFY2(spec.ok(), spec.ok() ? "" : spec.error().detail.c_str());
        roundTrip(everyFieldSet(spec.value()), dir.path().toStdString());
    }

    void roundTripEveryModelSpecField()
    {
        // A spec with every field away from its default, MoE and all.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ModelSpec m;
        m.id = "custom/moe";
        m.modelType = "mixtral";
        m.hfClass = "MixtralForCausalLM";
        m.family = Family::Mixtral;
        m.layers = 4;
        m.hidden = 256;
        m.heads = 8;
        m.kvHeads = 2;
        m.headDim = 48;
        m.intermediate = 512;
        m.vocab = 5000;
        m.maxPositions = 4096;
        m.typeVocab = 2;
        m.norm = NormKind::LayerNorm;
        m.hiddenAct = "gelu_new";
        m.gatedMlp = false;
        m.tieEmbeddings = true;
        m.qkvBias = true;
        m.attnOutBias = true;
        m.mlpBias = true;
        m.learnedPositions = true;
        m.parallelResidual = true;
        m.qkNorm = true;
        m.experts = 8;
        m.expertsPerToken = 2;
        m.dropout = 0.1;
        m.approximate = true;
        m.encoder = true;
        m.origin = "model-folder";
        m.checkpointParameters = 123456789;
        m.checkpointDtype = "BF16";
        m.revision = "0123456789abcdef0123456789abcdef01234567";  // a Hub commit
        roundTrip(everyFieldSet(m), dir.path().toStdString());
    }

    void textIsPrettyWithTrailingNewline()
    {
        const auto parsed = scenarioFromJson(baseDocument());
        QVERIFY(parsed.ok());
        const std::string text = scenarioToText(parsed.value());
        QVERIFY(text.size() > 2 && text.back() == '\n');
        QVERIFY(text.find("\n  \"schema\": \"headroom.scenario/1\"") != std::string::npos);
        const auto again = scenarioFromText(text);
        QVERIFY(again.ok());
        compareScenarios(again.value(), parsed.value());
    }

    void writerIsAtomicAndReplaces()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path file = fs::path(dir.path().toStdString()) / "plan.headroom.json";
        writeText(file, "old content that is not a scenario");
        fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);

        auto scenario = scenarioFromJson(baseDocument());
        QVERIFY(scenario.ok());
        scenario.value().train.microBatch = 7;
        const auto written = writeScenarioFile(scenario.value(), file.string());
        QVERIFY2(written.ok(), written.ok() ? "" : written.error().detail.c_str());
        QVERIFY(written.value());

        // Replaced, and nothing left beside it (no temporary file).
        QCOMPARE(filesIn(file.parent_path()), std::vector<std::string>{"plan.headroom.json"});
        QCOMPARE(readAll(file), scenarioToText(scenario.value()));
#if !defined(_WIN32)
        // The replaced file's permissions survive the replacement (POSIX modes;
        // Windows only knows read-only).
        QVERIFY(fs::status(file).permissions() == (fs::perms::owner_read | fs::perms::owner_write));
#endif
        const auto back = readScenarioFile(file.string());
        QVERIFY(back.ok());
        QCOMPARE(back->train.microBatch, std::uint64_t(7));
    }

    void writerReportsIoErrorsWithThePath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto scenario = scenarioFromJson(baseDocument());
        QVERIFY(scenario.ok());

        const std::string intoMissingDir = dir.path().toStdString() + "/no/such/dir/plan.headroom.json";
        auto written = writeScenarioFile(scenario.value(), intoMissingDir);
        QVERIFY(!written.ok());
        QCOMPARE(int(written.error().code), int(ErrorCode::IoError));
        QVERIFY(written.error().detail.find(intoMissingDir) != std::string::npos);

        const std::string aDirectory = dir.path().toStdString();
        written = writeScenarioFile(scenario.value(), aDirectory);
        QVERIFY(!written.ok());
        QCOMPARE(int(written.error().code), int(ErrorCode::IoError));
        QVERIFY(written.error().detail.find(aDirectory) != std::string::npos);
        QVERIFY(fs::is_directory(aDirectory));
        QVERIFY(filesIn(aDirectory).empty());
    }

    void modelDirIsRelativeToTheScenarioFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path root = dir.path().toStdString();
        fs::create_directories(root / "models" / "tiny");
        writeText(root / "models" / "tiny" / "config.json", kLlamaConfig);
        json doc = baseDocument();
        doc["model"] = json{{"model_dir", "models/tiny"}};
        const fs::path file = root / "plan.headroom.json";
        writeText(file, doc.dump(2));

        const auto read = readScenarioFile(file.string());
        QVERIFY2(read.ok(), read.ok() ? "" : read.error().detail.c_str());
        QCOMPARE(read->model.layers, std::uint64_t(22));
        QCOMPARE(read->model.origin, std::string("model-folder"));
    }
};

QTEST_APPLESS_MAIN(TestScenarioFile)
#include "test_scenariofile.moc"
