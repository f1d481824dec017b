// SPDX-License-Identifier: GPL-3.0-or-later
// Scenario files (engine/io/scenariofile.h) refuse each kind of bad input,
// document or file, with the right error code and a message that names the
// JSON path (and the file). Round trips: test_scenariofile.cpp.
#include "io/scenariofile.h"
#include "scenariotestfiles.h"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

using namespace headroom;
using headroom::testing::baseDocument;
using headroom::testing::writeText;
using nlohmann::json;
namespace fs = std::filesystem;

Q_DECLARE_METATYPE(headroom::ErrorCode)

namespace {

QString q(const std::string& s) { return QString::fromStdString(s); }

} // namespace

class TestScenarioFileErrors : public QObject {
    Q_OBJECT

private slots:
    void badInput_data()
    {
        QTest::addColumn<QString>("pointer");  // JSON pointer into baseDocument()
        QTest::addColumn<QString>("value");    // JSON text to put there; empty: remove the member
        QTest::addColumn<ErrorCode>("code");
        QTest::addColumn<QString>("path");     // what the message must name

        auto row = [](const char* name, const char* pointer, const char* value, ErrorCode code, const char* path) {
            QTest::newRow(name) << QString::fromUtf8(pointer) << QString::fromUtf8(value) << code
                                << QString::fromUtf8(path);
        };
        using E = ErrorCode;
        // Schema and document shape.
        row("schema missing", "/schema", "", E::MissingField, "schema");
        row("schema wrong version", "/schema", R"("headroom.scenario/2")", E::InvalidArgument, "schema");
        row("schema not a string", "/schema", "1", E::InvalidArgument, "schema");
        row("unknown top-level field", "/plan", "{}", E::InvalidArgument, "plan");
        row("mode unknown", "/mode", R"("training")", E::InvalidArgument, "mode");
        row("profile unknown", "/profile", R"("fast")", E::InvalidArgument, "profile");
        // The model node.
        row("model missing", "/model", "", E::MissingField, "model");
        row("model empty", "/model", "{}", E::MissingField, "model");
        row("model not an object", "/model", R"("llama")", E::InvalidArgument, "model");
        row("model two kinds", "/model/size", R"("7B")", E::InvalidArgument, "model");
        row("preset unknown", "/model", R"({"preset": "no-such/model"})", E::UnknownModel, "model.preset");
        row("preset not a string", "/model", R"({"preset": 7})", E::InvalidArgument, "model.preset");
        row("size nonsense", "/model", R"({"size": "huge"})", E::InvalidArgument, "model.size");
        row("size boolean", "/model", R"({"size": true})", E::InvalidArgument, "model.size");
        row("config unknown type", "/model",
            R"({"config": {"model_type": "no-such-type", "hidden_size": 64, "intermediate_size": 128,
                "num_attention_heads": 4, "num_hidden_layers": 2, "vocab_size": 1000}})",
            E::UnknownModelType, "model.config");
        row("config not an object", "/model", R"({"config": "config.json"})", E::InvalidArgument, "model.config");
        row("model_dir missing", "/model", R"({"model_dir": "/no/such/model/folder"})", E::FileNotFound,
            "model.model_dir");
        row("spec layers missing", "/model/spec/layers", "", E::MissingField, "model.spec.layers");
        row("spec layers zero", "/model/spec/layers", "0", E::InvalidArgument, "model.spec.layers");
        row("spec family unknown", "/model/spec/family", R"("falcon")", E::InvalidArgument, "model.spec.family");
        row("spec kv_heads not dividing", "/model/spec/kv_heads", "3", E::InvalidArgument, "model.spec.kv_heads");
        row("spec kv_heads above heads", "/model/spec/kv_heads", "8", E::InvalidArgument, "model.spec.kv_heads");
        row("spec head_dim underivable", "/model/spec/heads", "5", E::InvalidArgument, "model.spec.head_dim");
        row("spec dropout above one", "/model/spec/dropout", "1.5", E::InvalidArgument, "model.spec.dropout");
        row("spec unknown field", "/model/spec/hidden_size", "64", E::InvalidArgument, "model.spec.hidden_size");
        // The model's head.
        row("head unknown", "/model/head", R"("classifier")", E::InvalidArgument, "model.head");
        row("head not a string", "/model/head", "2", E::InvalidArgument, "model.head");
        row("classifier head on llama", "/model/head", R"("sequence-classification")", E::UnsupportedCombination,
            "model.head");
        row("num_labels without the head", "/model/num_labels", "2", E::InvalidArgument, "model.num_labels");
        row("num_labels zero", "/model", R"({"preset": "bert-base-uncased", "head": "sequence-classification", "num_labels": 0})",
            E::InvalidArgument, "model.num_labels");
        row("num_labels fraction", "/model", R"({"preset": "bert-base-uncased", "head": "sequence-classification", "num_labels": 2.5})",
            E::InvalidArgument, "model.num_labels");
        row("num_labels on the masked LM", "/model", R"({"preset": "bert-base-uncased", "head": "language-model", "num_labels": 2})",
            E::InvalidArgument, "model.num_labels");
        // Train sizes.
        row("micro_batch negative", "/train/micro_batch", "-3", E::InvalidArgument, "train.micro_batch");
        row("micro_batch zero", "/train/micro_batch", "0", E::InvalidArgument, "train.micro_batch");
        row("micro_batch too large", "/train/micro_batch", "1000000001", E::InvalidArgument, "train.micro_batch");
        row("micro_batch fraction", "/train/micro_batch", "2.5", E::InvalidArgument, "train.micro_batch");
        row("micro_batch float", "/train/micro_batch", "2.0", E::InvalidArgument, "train.micro_batch");
        row("micro_batch boolean", "/train/micro_batch", "true", E::InvalidArgument, "train.micro_batch");
        row("micro_batch string", "/train/micro_batch", R"("2")", E::InvalidArgument, "train.micro_batch");
        row("micro_batch huge", "/train/micro_batch", "1e300", E::InvalidArgument, "train.micro_batch");
        row("grad_accum zero", "/train/grad_accum", "0", E::InvalidArgument, "train.grad_accum");
        row("grad_accum too large", "/train/grad_accum", "2000000000", E::InvalidArgument, "train.grad_accum");
        row("seq_len zero", "/train/seq_len", "0", E::InvalidArgument, "train.seq_len");
        row("seq_len too large", "/train/seq_len", "1000000001", E::InvalidArgument, "train.seq_len");
        row("seq_len negative", "/train/seq_len", "-2048", E::InvalidArgument, "train.seq_len");
        row("checkpoint_every zero", "/train/checkpoint_every", "0", E::InvalidArgument, "train.checkpoint_every");
        row("loss_chunks zero", "/train/loss_chunks", "0", E::InvalidArgument, "train.loss_chunks");
        row("galore_rank zero", "/train/galore_rank", "0", E::InvalidArgument, "train.galore_rank");
        row("offload not boolean", "/train/activation_offload", "1", E::InvalidArgument, "train.activation_offload");
        row("train not an object", "/train", "[]", E::InvalidArgument, "train");
        row("train unknown field", "/train/micro_batchsize", "2", E::InvalidArgument, "train.micro_batchsize");
        // Train enums.
        row("precision unknown", "/train/precision", R"("fp64")", E::InvalidArgument, "train.precision");
        row("weight_quant unknown", "/train/weight_quant", R"("gptq")", E::InvalidArgument, "train.weight_quant");
        row("optimizer unknown", "/train/optimizer", R"("adam")", E::InvalidArgument, "train.optimizer");
        row("optimizer not a string", "/train/optimizer", "3", E::InvalidArgument, "train.optimizer");
        row("checkpointing unknown", "/train/checkpointing", R"("some")", E::InvalidArgument, "train.checkpointing");
        row("attention unknown", "/train/attention", R"("xformers")", E::InvalidArgument, "train.attention");
        // PEFT.
        row("peft method unknown", "/train/peft/method", R"("dora")", E::InvalidArgument, "train.peft.method");
        row("rank zero", "/train/peft/rank", "0", E::InvalidArgument, "train.peft.rank");
        row("rank too large", "/train/peft/rank", "65537", E::InvalidArgument, "train.peft.rank");
        row("rank fraction", "/train/peft/rank", "8.5", E::InvalidArgument, "train.peft.rank");
        row("alpha zero", "/train/peft/alpha", "0", E::InvalidArgument, "train.peft.alpha");
        row("alpha negative", "/train/peft/alpha", "-16", E::InvalidArgument, "train.peft.alpha");
        row("alpha boolean", "/train/peft/alpha", "true", E::InvalidArgument, "train.peft.alpha");
        row("dropout one", "/train/peft/dropout", "1.0", E::InvalidArgument, "train.peft.dropout");
        row("dropout negative", "/train/peft/dropout", "-0.1", E::InvalidArgument, "train.peft.dropout");
        row("targets not an array", "/train/peft/targets", R"("q_proj")", E::InvalidArgument, "train.peft.targets");
        row("target not a name", "/train/peft/targets", R"(["q_proj", 7])", E::InvalidArgument,
            "train.peft.targets[1]");
        row("target empty", "/train/peft/targets", R"([""])", E::InvalidArgument, "train.peft.targets[0]");
        // Inference.
        row("inference batch zero", "/inference/batch", "0", E::InvalidArgument, "inference.batch");
        row("prompt zero", "/inference/prompt_tokens", "0", E::InvalidArgument, "inference.prompt_tokens");
        row("new_tokens negative", "/inference/new_tokens", "-1", E::InvalidArgument, "inference.new_tokens");
        row("kv dtype unknown", "/inference/kv_cache_dtype", R"("fp4")", E::InvalidArgument,
            "inference.kv_cache_dtype");
        row("inference mixed precision", "/inference/precision", R"("bf16-mixed")", E::InvalidArgument,
            "inference.precision");
        // Hardware.
        row("gpu unknown", "/hardware/gpu", R"("rtx-9090")", E::UnknownGpu, "hardware.gpu");
        row("gpu not a string", "/hardware/gpu", "4090", E::InvalidArgument, "hardware.gpu");
        row("count zero", "/hardware/count", "0", E::InvalidArgument, "hardware.count");
        row("count too large", "/hardware/count", "1000001", E::InvalidArgument, "hardware.count");
        row("count negative", "/hardware/count", "-8", E::InvalidArgument, "hardware.count");
        row("count boolean", "/hardware/count", "false", E::InvalidArgument, "hardware.count");
        row("sharding unknown", "/hardware/sharding", R"("zero4")", E::InvalidArgument, "hardware.sharding");
        row("cpu_offload string", "/hardware/cpu_offload", R"("yes")", E::InvalidArgument, "hardware.cpu_offload");
        row("parallel not an object", "/hardware/parallel", "2", E::InvalidArgument, "hardware.parallel");
        row("tp zero", "/hardware/parallel/tp", "0", E::InvalidArgument, "hardware.parallel.tp");
        row("tp fraction", "/hardware/parallel/tp", "1.5", E::InvalidArgument, "hardware.parallel.tp");
        row("pp zero", "/hardware/parallel/pp", "0", E::InvalidArgument, "hardware.parallel.pp");
        row("sp string", "/hardware/parallel/sp", R"("on")", E::InvalidArgument, "hardware.parallel.sp");
        row("schedule unknown", "/hardware/parallel/pp_schedule", R"("interleaved")", E::InvalidArgument,
            "hardware.parallel.pp_schedule");
        row("cp zero", "/hardware/parallel/cp", "0", E::InvalidArgument, "hardware.parallel.cp");
        row("cp fraction", "/hardware/parallel/cp", "2.5", E::InvalidArgument, "hardware.parallel.cp");
        row("parallel unknown field", "/hardware/parallel/expert_tp", "2", E::InvalidArgument,
            "hardware.parallel.expert_tp");
        row("parallel ep zero", "/hardware/parallel/ep", "0", E::InvalidArgument, "hardware.parallel.ep");
        row("parallel etp zero", "/hardware/parallel/etp", "0", E::InvalidArgument, "hardware.parallel.etp");
        row("moe capacity zero", "/train/moe/capacity_factor", "0", E::InvalidArgument, "train.moe.capacity_factor");
        row("moe imbalance below one", "/train/moe/imbalance", "0.5", E::InvalidArgument, "train.moe.imbalance");
        row("moe pad not a boolean", "/train/moe/pad_to_capacity", "\"yes\"", E::InvalidArgument,
            "train.moe.pad_to_capacity");
        row("moe unknown field", "/train/moe/drop_policy", "\"probs\"", E::InvalidArgument, "train.moe.drop_policy");
        row("global batch zero", "/train/global_batch", "0", E::InvalidArgument, "train.global_batch");
    }

    void badInput()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(ErrorCode, code);
        QFETCH(QString, path);

        json doc = baseDocument();
        const json::json_pointer where(pointer.toStdString());
        if (value.isEmpty())
            doc[where.parent_pointer()].erase(where.back());
        else
            doc[where] = json::parse(value.toStdString());

        // The same refusal from every entry point.
        const auto fromJson = scenarioFromJson(doc);
        const auto fromText = scenarioFromText(doc.dump());
        for (const auto* result : {&fromJson, &fromText}) {
            QVERIFY2(!result->ok(), "bad input was accepted");
            const Error& error = result->error();
            QVERIFY2(int(error.code) == int(code), error.detail.c_str());
            // The message starts with the JSON path of the offending value.
            QVERIFY2(q(error.detail).startsWith(path + QStringLiteral(":")), error.detail.c_str());
        }
    }

    void messagesAreSpecific()
    {
        json doc = baseDocument();
        doc["train"]["micro_batch"] = -3;
        auto parsed = scenarioFromJson(doc);
        QVERIFY(!parsed.ok());
        QCOMPARE(parsed.error().detail,
                 std::string("train.micro_batch: must be an integer between 1 and 1000000000, got -3"));

        // Unknown names list the accepted ones.
        doc = baseDocument();
        doc["train"]["optimizer"] = "adam";
        parsed = scenarioFromJson(doc);
        QVERIFY(!parsed.ok());
        QVERIFY(parsed.error().detail.find("adamw") != std::string::npos);
        QVERIFY(parsed.error().detail.find("paged-adamw-8bit") != std::string::npos);

        doc = baseDocument();
        doc["mode"] = "training";
        parsed = scenarioFromJson(doc);
        QVERIFY(!parsed.ok());
        QVERIFY(parsed.error().detail.find("train, inference") != std::string::npos);

        // Misspelt fields say which fields exist.
        doc = baseDocument();
        doc["train"]["micro_batchsize"] = 2;
        parsed = scenarioFromJson(doc);
        QVERIFY(!parsed.ok());
        QVERIFY(parsed.error().detail.find("micro_batch,") != std::string::npos);
    }

    void documentMustBeAnObject()
    {
        for (const char* text : {"[]", "42", "\"scenario\"", "null"}) {
            const auto parsed = scenarioFromText(text);
            QVERIFY2(!parsed.ok(), text);
            QCOMPARE(int(parsed.error().code), int(ErrorCode::InvalidArgument));
        }
    }

    void malformedText()
    {
        for (const char* text : {"", "   \n", "{", R"({"schema": "headroom.scenario/1",})", "{'schema': 1}"}) {
            const auto parsed = scenarioFromText(text);
            QVERIFY2(!parsed.ok(), text);
            QCOMPARE(int(parsed.error().code), int(ErrorCode::MalformedJson));
            QVERIFY(!parsed.error().detail.empty());
        }
    }

    void truncatedFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path file = fs::path(dir.path().toStdString()) / "truncated.headroom.json";
        const std::string whole = scenarioToText(scenarioFromJson(baseDocument()).value());
        writeText(file, whole.substr(0, whole.size() / 2));
        const auto read = readScenarioFile(file.string());
        QVERIFY(!read.ok());
        QCOMPARE(int(read.error().code), int(ErrorCode::MalformedJson));
        QVERIFY(read.error().detail.find(file.string()) != std::string::npos);
    }

    void emptyFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path file = fs::path(dir.path().toStdString()) / "empty.headroom.json";
        writeText(file, "");
        const auto read = readScenarioFile(file.string());
        QVERIFY(!read.ok());
        QCOMPARE(int(read.error().code), int(ErrorCode::MalformedJson));
        QVERIFY(read.error().detail.find(file.string()) != std::string::npos);
    }

    void missingFile()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string file = dir.path().toStdString() + "/absent.headroom.json";
        const auto read = readScenarioFile(file);
        QVERIFY(!read.ok());
        QCOMPARE(int(read.error().code), int(ErrorCode::FileNotFound));
        QVERIFY(read.error().detail.find(file) != std::string::npos);
    }

    void directoryAsPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto read = readScenarioFile(dir.path().toStdString());
        QVERIFY(!read.ok());
        QCOMPARE(int(read.error().code), int(ErrorCode::IoError));
        QVERIFY(read.error().detail.find(dir.path().toStdString()) != std::string::npos);
    }

    void fileErrorsKeepTheJsonPath()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const fs::path file = fs::path(dir.path().toStdString()) / "bad.headroom.json";
        json doc = baseDocument();
        doc["hardware"]["count"] = 0;
        writeText(file, doc.dump(2));
        const auto read = readScenarioFile(file.string());
        QVERIFY(!read.ok());
        QCOMPARE(int(read.error().code), int(ErrorCode::InvalidArgument));
        QVERIFY(read.error().detail.find(file.string()) != std::string::npos);
        QVERIFY(read.error().detail.find("hardware.count:") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestScenarioFileErrors)
#include "test_scenariofile_errors.moc"
