// SPDX-License-Identifier: GPL-3.0-or-later
// config.json files Headroom refuses: malformed JSON, missing or absurd
// sizes, unknown model types, composite configs without their text model,
// classifier heads with bad labels. Each refusal has the right error code and
// names what is wrong.
#include "hfconfigtesting.h"
#include "model/hfconfig.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

using namespace headroom;
using testing::configPath;
using testing::fromFile;
using testing::fromText;
using testing::llamaWith;

class TestHfConfigErrors : public QObject {
    Q_OBJECT

private slots:
    void errors_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("code");
        QTest::addColumn<QByteArray>("named"); // what the detail must mention
        using E = ErrorCode;
        QTest::newRow("not JSON") << QByteArray("{\"model_type\": llama") << int(E::MalformedJson) << QByteArray("JSON");
        QTest::newRow("empty") << QByteArray("") << int(E::MalformedJson) << QByteArray("JSON");
        QTest::newRow("array") << QByteArray("[1, 2]") << int(E::MalformedJson) << QByteArray("array");
        QTest::newRow("no model_type") << llamaWith(R"({"model_type": null})") << int(E::MissingField)
                                       << QByteArray("model_type");
        QTest::newRow("model_type number") << llamaWith(R"({"model_type": 7})") << int(E::MissingField)
                                           << QByteArray("model_type");
        QTest::newRow("unknown model_type") << llamaWith(R"({"model_type": "falcon"})") << int(E::UnknownModelType)
                                            << QByteArray("\"falcon\"; supported: llama, mistral");
        QTest::newRow("no hidden_size") << llamaWith(R"({"hidden_size": null})") << int(E::MissingField)
                                        << QByteArray("hidden_size");
        QTest::newRow("hidden_size null") << QByteArray(llamaWith("{}").replace("64", "null")) << int(E::MissingField)
                                          << QByteArray("hidden_size");
        QTest::newRow("hidden_size 0") << llamaWith(R"({"hidden_size": 0})") << int(E::InvalidArgument)
                                       << QByteArray("\"hidden_size\" is 0");
        QTest::newRow("hidden_size negative") << llamaWith(R"({"hidden_size": -64})") << int(E::InvalidArgument)
                                              << QByteArray("\"hidden_size\" is -64");
        QTest::newRow("hidden_size 1e30") << llamaWith(R"({"hidden_size": 1e30})") << int(E::InvalidArgument)
                                          << QByteArray("\"hidden_size\" is 1e+30");
        QTest::newRow("hidden_size 2^24+1") << llamaWith(R"({"hidden_size": 16777217})") << int(E::InvalidArgument)
                                            << QByteArray("\"hidden_size\" is 16777217");
        QTest::newRow("hidden_size fraction") << llamaWith(R"({"hidden_size": 64.5})") << int(E::InvalidArgument)
                                              << QByteArray("\"hidden_size\" is 64.5");
        QTest::newRow("hidden_size string") << llamaWith(R"({"hidden_size": "64"})") << int(E::MissingField)
                                            << QByteArray("\"hidden_size\" is \"64\"");
        QTest::newRow("layers 2^16+1") << llamaWith(R"({"num_hidden_layers": 65537})") << int(E::InvalidArgument)
                                       << QByteArray("\"num_hidden_layers\" is 65537");
        QTest::newRow("vocab 2^25") << llamaWith(R"({"vocab_size": 33554432})") << int(E::InvalidArgument)
                                    << QByteArray("\"vocab_size\" is 33554432");
        QTest::newRow("no intermediate") << llamaWith(R"({"intermediate_size": null})") << int(E::MissingField)
                                         << QByteArray("intermediate_size");
        QTest::newRow("heads not dividing hidden") << llamaWith(R"({"hidden_size": 66})") << int(E::InvalidArgument)
                                                   << QByteArray("\"hidden_size\" 66 is not divisible by "
                                                                 "\"num_attention_heads\" 4");
        QTest::newRow("n_head not dividing n_embd")
            << QByteArray(R"({"model_type": "gpt2", "n_embd": 66, "n_layer": 2, "n_head": 4, "vocab_size": 9})")
            << int(E::InvalidArgument) << QByteArray("\"n_embd\" 66");
        QTest::newRow("kv heads not dividing") << llamaWith(R"({"num_key_value_heads": 3})")
                                               << int(E::InvalidArgument) << QByteArray("\"num_key_value_heads\" 3");
        QTest::newRow("kv heads above heads") << llamaWith(R"({"num_key_value_heads": 8})")
                                              << int(E::InvalidArgument) << QByteArray("\"num_key_value_heads\" 8");
        QTest::newRow("experts_per_tok > experts")
            << llamaWith(R"({"model_type": "mixtral", "num_local_experts": 4, "num_experts_per_tok": 5})")
            << int(E::InvalidArgument) << QByteArray("\"num_experts_per_tok\" 5");
        QTest::newRow("bool as string") << llamaWith(R"({"tie_word_embeddings": "yes"})") << int(E::MissingField)
                                        << QByteArray("\"tie_word_embeddings\" is \"yes\"");
        QTest::newRow("dropout 1.5") << llamaWith(R"({"attention_dropout": 1.5})") << int(E::InvalidArgument)
                                     << QByteArray("\"attention_dropout\" is 1.5");
        QTest::newRow("hidden_act number") << llamaWith(R"({"hidden_act": 3})") << int(E::MissingField)
                                           << QByteArray("\"hidden_act\" is 3");
        // Composite configs (readTextConfig): the text model is required, and
        // its problems are named under text_config.
        for (const char* type : {"gemma3", "llama4"}) {
            const QByteArray t(type);
            QTest::newRow(t + " without text_config")
                << QByteArray(R"({"model_type": ")" + t + R"("})") << int(E::MissingField)
                << QByteArray("no \"text_config\" object (model_type \"" + t + "\")");
            QTest::newRow(t + " text_config not an object")
                << QByteArray(R"({"model_type": ")" + t + R"(", "text_config": 3})") << int(E::MissingField)
                << QByteArray("no \"text_config\" object");
            QTest::newRow(t + " text_config without hidden_size")
                << QByteArray(R"({"model_type": ")" + t + R"(", "text_config": {"num_hidden_layers": 2}})")
                << int(E::MissingField) << QByteArray("\"text_config.hidden_size\"");
        }
    }
    void errors()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, code);
        QFETCH(QByteArray, named);
        const Result<ModelSpec> s = fromText(text);
        QVERIFY(!s.ok());
        QCOMPARE(errorCodeName(s.error().code), errorCodeName(ErrorCode(code)));
        QVERIFY2(s.error().detail.find(named.toStdString()) != std::string::npos, s.error().detail.c_str());
    }

    void bertSequenceClassificationErrors_data()
    {
        QTest::addColumn<QByteArray>("patch");
        QTest::addColumn<QByteArray>("named");
        QTest::newRow("architectures not a list") << QByteArray(R"({"architectures": "BertForSequenceClassification"})")
                                                  << QByteArray("\"architectures\" is");
        QTest::newRow("num_labels 0") << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "num_labels": 0})")
                                      << QByteArray("\"num_labels\" is 0");
        QTest::newRow("id2label empty") << QByteArray(R"({"architectures": ["BertForSequenceClassification"], "id2label": {}})")
                                        << QByteArray("\"id2label\" must be");
    }
    void bertSequenceClassificationErrors()
    {
        QFETCH(QByteArray, patch);
        QFETCH(QByteArray, named);
        QFile file(configPath("bert-base-uncased.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        nlohmann::json config = nlohmann::json::parse(file.readAll().toStdString());
        config.merge_patch(nlohmann::json::parse(patch.toStdString()));
        const Result<ModelSpec> spec = modelSpecFromHfConfig(config);
        QVERIFY(!spec.ok());
        QVERIFY2(spec.error().detail.find(named.toStdString()) != std::string::npos, spec.error().detail.c_str());
    }

    void jsonOverloadAndFiles()
    {
        const Result<ModelSpec> notObject = modelSpecFromHfConfig(nlohmann::json::array({1, 2}));
        QVERIFY(!notObject.ok());
        QCOMPARE(notObject.error().code, ErrorCode::MalformedJson);
        const Result<ModelSpec> named = modelSpecFromHfConfig(nlohmann::json::parse(llamaWith("{}")), "my/model");
        QVERIFY(named.ok());
        QCOMPARE(named->id, std::string("my/model"));

        const Result<ModelSpec> missing = fromFile("no-such-config.json");
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::FileNotFound);
        QVERIFY(missing.error().detail.find("no-such-config.json") != std::string::npos);

        QCOMPARE(supportedModelTypes().size(), 21u);
    }
};

QTEST_APPLESS_MAIN(TestHfConfigErrors)
#include "test_hfconfig_errors.moc"
