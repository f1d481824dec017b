// SPDX-License-Identifier: GPL-3.0-or-later
// Llama 4 Scout (issue 15, "Presets with exact parameter counts"): the
// catalog preset, its config.json imports (model_type "llama4", counted as
// Llama4ForConditionalGeneration, and "llama4_text", Llama4ForCausalLM), the
// exact totals transformers 5.17 counts on the meta device, the active count,
// and the refusal of layouts with dense layers (Llama 4 Maverick).
#include "io/modeljson.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <fstream>

using namespace headroom;

namespace {

const char* const kScout = "meta-llama/Llama-4-Scout-17B-16E";

std::string configPath(const char* name) { return std::string(HEADROOM_TEST_DATA) + "/configs/" + name; }

nlohmann::json readConfig(const char* name)
{
    std::ifstream in(configPath(name));
    return nlohmann::json::parse(in);
}

Bytes elementsOfKind(const ParameterTable& t, ModuleKind kind)
{
    Bytes total = 0;
    for (const ParamTensor& p : t.global)
        total += p.kind == kind ? p.elements() : 0;
    for (const ParamTensor& p : t.layer)
        total += p.kind == kind ? p.elements() * t.layers : 0;
    return total;
}

} // namespace

class TestLlama4 : public QObject {
    Q_OBJECT

private slots:
    // transformers 5.17 on the meta device, for tests/data/configs/
    // llama-4-scout.json (the published config.json) and its text_config:
    // Llama4ForConditionalGeneration(config).num_parameters() =
    // 108,641,793,536 (tools/reference/hf_param_counts.py --check --only
    // meta-llama/Llama-4-Scout-17B-16E), Llama4ForCausalLM(text_config) =
    // 107,769,861,120. By hand (modeling_llama4.py): per layer q 5120*5120,
    // k and v 1024*5120 each, o 5120*5120 = 62,914,560; router 16*5120 =
    // 81,920; 16 experts of 5120*16384 + 8192*5120 = 125,829,120 each; the
    // shared expert 3*5120*8192 = 125,829,120; two norms 10,240: 2,202,101,760
    // per layer, times 48 = 105,700,884,480; embed_tokens and lm_head
    // 2*202048*5120 and model.norm 5120 = 2,068,976,640; the vision model and
    // projector 871,932,416 (below).
    void totals()
    {
        const CatalogModel* preset = findCatalogModel(kScout);
        QVERIFY(preset);
        QCOMPARE(qulonglong(preset->parameters), 108641793536ull);
        QCOMPARE(qulonglong(buildParameterTable(preset->spec).totalElements()), 108641793536ull);
        QCOMPARE(preset->spec.family, Family::Llama4);
        QCOMPARE(preset->spec.hfClass, std::string("Llama4ForConditionalGeneration"));

        const Result<ModelSpec> full = modelSpecFromConfigFile(configPath("llama-4-scout.json"));
        QVERIFY2(full.ok(), full.ok() ? "" : full.error().detail.c_str());
        const ParameterTable table = buildParameterTable(*full);
        QCOMPARE(qulonglong(table.totalElements()), 108641793536ull);
        QCOMPARE(qulonglong(table.layerElements()), 2202101760ull);
        QCOMPARE(qulonglong(elementsOfKind(table, ModuleKind::VisionTower)), 871932416ull);

        const Result<ModelSpec> text = modelSpecFromConfigFile(configPath("llama-4-scout-text.json"));
        QVERIFY2(text.ok(), text.ok() ? "" : text.error().detail.c_str());
        QCOMPARE(text->hfClass, std::string("Llama4ForCausalLM"));
        QVERIFY(!text->hasVision());
        QCOMPARE(qulonglong(buildParameterTable(*text).totalElements()), 107769861120ull);
    }

    // Llama4VisionModel and Llama4MultiModalProjector, shape by shape as the
    // meta-device model lists them (named_parameters of
    // Llama4ForConditionalGeneration, 5.17): class_embedding 1408,
    // positional_embedding_vlm (577, 1408), patch_embedding.linear (1408,
    // 588), layernorm_pre/post 2 * 2 * 1408; per layer (34) q, k, v, o 4 *
    // (1408^2 + 1408), fc1 5632*1408 + 5632, fc2 1408*5632 + 1408, two
    // LayerNorms 4 * 1408 = 23,815,424; vision_adapter.mlp.fc1 (4096, 5632),
    // fc2 (4096, 4096); multi_modal_projector.linear_1 (5120, 4096):
    // 3,000,448 + 34 * 23,815,424 + 23,068,672 + 16,777,216 + 20,971,520 = 871,932,416.
    void visionShapes()
    {
        const ParameterTable table = buildParameterTable(presetModel(kScout).value());
        const auto find = [&](const std::string& name) -> const ParamTensor* {
            for (const ParamTensor& t : table.global)
                if (t.name() == name)
                    return &t;
            return nullptr;
        };
        const ParamTensor* position = find("vision_model.positional_embedding_vlm.weight");
        QVERIFY(position);
        QCOMPARE(qulonglong(position->rows), 577ull);
        const ParamTensor* adapter = find("vision_model.vision_adapter.mlp.fc1.weight");
        QVERIFY(adapter);
        QCOMPARE(qulonglong(adapter->rows), 4096ull);
        QCOMPARE(qulonglong(adapter->cols), 5632ull);
        const ParamTensor* projector = find("multi_modal_projector.linear_1.weight");
        QVERIFY(projector);
        QCOMPARE(qulonglong(projector->elements()), 5120ull * 4096);
        QVERIFY(!find("multi_modal_projector.linear_1.bias"));
    }

    // Active parameters: every non-expert tensor plus top_k / E of the
    // routed experts, the vision side left out (a text token never reaches
    // it). Derived on the meta model (transformers 5.17,
    // Llama4ForConditionalGeneration of llama-4-scout.json): the sum over
    // named_parameters of numel, times 1/16 for names containing ".experts.",
    // is 18,044,827,136; less the vision model and projector (871,932,416)
    // 17,172,894,720 (Llama4ForCausalLM of the text config gives the same).
    // By hand: 48 * (62,914,560 + 81,920 + 125,829,120 shared + 125,829,120
    // one routed expert + 10,240) + 2,068,976,640. Meta's model card: "17B
    // active parameters", 109B total.
    void activeCount()
    {
        const ModelSpec spec = presetModel(kScout).value();
        const ParameterTable table = buildParameterTable(spec);
        QCOMPARE(qulonglong(table.activeElements(spec.expertsPerToken, spec.experts)), 17172894720ull);
        QCOMPARE(std::round(double(table.activeElements(spec.expertsPerToken, spec.experts)) / 1e9), 17.0);
        QCOMPARE(std::round(double(table.totalElements()) / 1e9), 109.0);
        // The text-only import counts the same active parameters.
        const ModelSpec text = modelSpecFromConfigFile(configPath("llama-4-scout-text.json")).value();
        QCOMPARE(qulonglong(buildParameterTable(text).activeElements(text.expertsPerToken, text.experts)),
                 17172894720ull);
    }

    // The import: sizes from text_config, the shared expert, the tower's
    // projector sizes; attn_temperature_tuning as a bool or a number.
    void importFields()
    {
        nlohmann::json config = readConfig("llama-4-scout.json");
        for (const nlohmann::json& tuning : {nlohmann::json(4), nlohmann::json(true), nlohmann::json(false)}) {
            config["text_config"]["attn_temperature_tuning"] = tuning;
            const Result<ModelSpec> s = modelSpecFromHfConfig(config);
            QVERIFY2(s.ok(), s.ok() ? "" : s.error().detail.c_str());
            QCOMPARE(s->modelType, std::string("llama4"));
            QCOMPARE(qulonglong(s->layers), 48ull);
            QCOMPARE(qulonglong(s->heads), 40ull);
            QCOMPARE(qulonglong(s->kvHeads), 8ull);
            QCOMPARE(qulonglong(s->headDim), 128ull);
            QCOMPARE(qulonglong(s->experts), 16ull);
            QCOMPARE(qulonglong(s->expertsPerToken), 1ull);
            QCOMPARE(qulonglong(s->sharedExperts), 1ull);
            QCOMPARE(qulonglong(s->sharedExpertIntermediate), 8192ull);
            QVERIFY(!s->qkNorm); // Llama4TextL2Norm has no weight
            QCOMPARE(s->vision.kind, VisionTowerKind::Llama4);
            QCOMPARE(qulonglong(s->vision.outputDim), 4096ull);
        }
        config["text_config"]["attn_temperature_tuning"] = "yes";
        const Result<ModelSpec> bad = modelSpecFromHfConfig(config);
        QVERIFY(!bad.ok());
        QVERIFY(bad.error().detail.find("attn_temperature_tuning") != std::string::npos);
    }

    // A scenario's "spec" keeps the shared expert and the tower's kind.
    void specRoundTrip()
    {
        const ModelSpec scout = presetModel(kScout).value();
        ModelSpec saved = scout;
        saved.origin = "config.json"; // written as a spec, not as a catalog id
        const Result<ModelSpec> back = modelFromJson(nlohmann::json::parse(modelToJson(saved).dump()));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(qulonglong(back->sharedExpertIntermediate), 8192ull);
        QCOMPARE(back->vision.kind, VisionTowerKind::Llama4);
        QCOMPARE(qulonglong(buildParameterTable(*back).totalElements()), 108641793536ull);
    }

    // A config with no MoE layer is refused, naming the fields: it is a
    // dense model. (Maverick's interleave_moe_layer_step 2 and a moe_layers
    // list plan: test_denselayerpattern.)
    void denseLayersRefused_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::newRow("step past the layers") << QByteArray("interleave_moe_layer_step") << QByteArray("100");
        QTest::newRow("empty moe_layers") << QByteArray("moe_layers") << QByteArray("[]");
    }
    void denseLayersRefused()
    {
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        for (const char* file : {"llama-4-scout.json", "llama-4-scout-text.json"}) {
            nlohmann::json config = readConfig(file);
            nlohmann::json& text = config.contains("text_config") ? config["text_config"] : config;
            text[key.toStdString()] = nlohmann::json::parse(value.toStdString());
            const Result<ModelSpec> s = modelSpecFromHfConfig(config);
            QVERIFY(!s.ok());
            QCOMPARE(errorCodeName(s.error().code), errorCodeName(ErrorCode::UnsupportedCombination));
            QVERIFY2(s.error().detail.find(key.toStdString()) != std::string::npos, s.error().detail.c_str());
        }
        // moe_layers listing every layer overrides a step of 2.
        nlohmann::json config = readConfig("llama-4-scout-text.json");
        config["interleave_moe_layer_step"] = 2;
        config["moe_layers"] = nlohmann::json::array();
        for (int i = 0; i < 48; ++i)
            config["moe_layers"].push_back(i);
        QVERIFY(modelSpecFromHfConfig(config).ok());
    }

    // The preset plans (full fine-tune and LoRA).
    void plans()
    {
        Scenario s;
        s.model = presetModel(kScout).value();
        s.hardware.gpu = "h100-sxm-80gb";
        s.train.seqLen = 1024;
        const Result<Plan> p = makePlan(s);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
        QCOMPARE(qulonglong(p->totalParameters), 108641793536ull);
        QCOMPARE(qulonglong(p->activeParameters), 17172894720ull);
        // Llama4TextMoe's own saves (plan/llama4moesaves.h), not grouped_mm's.
        const auto hasRow = [&](std::string_view key) {
            return std::any_of(p->tensors.begin(), p->tensors.end(),
                               [&](const TensorRow& r) { return std::string_view(r.name).ends_with(key); });
        };
        QVERIFY(hasRow("moe.repeat"));
        QVERIFY(hasRow("moe.gate_up"));
        QVERIFY(hasRow("q_l2norm.in"));
        QVERIFY(!hasRow("moe.dispatch"));
        // What is not modelled is said (translated in ui/text/errortext.cpp).
        QVERIFY(std::any_of(p->notes.begin(), p->notes.end(),
                            [](const std::string& n) { return n.starts_with("Llama 4: every layer is planned alike"); }));
    }
};

QTEST_APPLESS_MAIN(TestLlama4)
#include "test_llama4.moc"
