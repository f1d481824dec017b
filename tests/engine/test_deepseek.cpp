// SPDX-License-Identifier: GPL-3.0-or-later
// DeepSeek-V3 (issue 15: multi-head latent attention, dense first layers,
// "DeepSeek-V3's 671B/37B"): the catalog preset, the config.json import
// (model_type "deepseek_v3", DeepseekV3ForCausalLM), the exact totals, the
// parameter table's two kinds of layer, the plan's rows for each (LayerBand),
// the pipeline stages that hold the dense layers and the latent KV cache.
#include "io/modeljson.h"
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"
#include "plan/parallel.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

#include <algorithm>
#include <cstring>
#include <fstream>

using namespace headroom;

namespace {

const char* const kV3 = "deepseek-ai/DeepSeek-V3";

std::string configPath(const char* name) { return std::string(HEADROOM_TEST_DATA) + "/configs/" + name; }

nlohmann::json readConfig(const char* name)
{
    std::ifstream in(configPath(name));
    return nlohmann::json::parse(in);
}

// The reference set's 4-layer DeepSeek-V3-shaped config: hidden 512, the
// first layer dense (intermediate 1536), 16 routed experts of 256, top 4, one
// shared expert, MLA with q rank 192, kv rank 128, heads of 32 + 16 and
// values of 32.
nlohmann::json tinyConfig() { return readConfig("deepseek-v3-tiny.json"); }

Scenario trainScenario(const ModelSpec& model)
{
    Scenario s;
    s.model = model;
    s.hardware.gpu = "h100-sxm-80gb";
    s.train.peft.method = PeftMethod::None;
    s.train.weightQuant = WeightQuant::None;
    s.train.optimizer = Optimizer::Sgd;
    s.train.precision = Precision::Bf16Mixed;
    s.train.microBatch = 2;
    s.train.seqLen = 512;
    s.train.gradAccum = 1;
    s.train.checkpointing = Checkpointing::None;
    s.train.attention = Attention::Sdpa;
    return s;
}

} // namespace

class TestDeepseek : public QObject {
    Q_OBJECT

private slots:
    // By hand (modeling_deepseek_v3.py, transformers 5.17), DeepSeek-V3:
    // MLA per layer q_a_proj 7168*1536 = 11,010,048, q_a_layernorm 1,536,
    // q_b_proj 1536*128*192 = 37,748,736, kv_a_proj_with_mqa 7168*576 =
    // 4,128,768, kv_a_layernorm 512, kv_b_proj 512*128*256 = 16,777,216,
    // o_proj 16384*7168 = 117,440,512: 187,107,328; two norms 14,336. A dense
    // layer adds 3*7168*18432 = 396,361,728 (583,483,392 in all); an MoE layer
    // the router 256*7168 = 1,835,008, 256 experts of 3*7168*2048 =
    // 44,040,192 and one shared expert of the same (11,507,286,016 in all).
    // 3 dense + 58 MoE layers, embed_tokens and lm_head 2*129280*7168 and
    // model.norm 7168: 671,026,404,352, the count transformers 5.17 gives on
    // the meta device (tools/reference/hf_param_counts.py), the "671B total"
    // of the DeepSeek-V3 report (arXiv:2412.19437 §1). Active: 8 of the 256
    // experts: 37,552,282,624, its "37B activated".
    void totals()
    {
        const CatalogModel* preset = findCatalogModel(kV3);
        QVERIFY(preset);
        QCOMPARE(qulonglong(preset->parameters), 671026404352ull);
        QCOMPARE(preset->spec.family, Family::DeepseekV3);
        QCOMPARE(preset->spec.hfClass, std::string("DeepseekV3ForCausalLM"));
        const ParameterTable table = buildParameterTable(preset->spec);
        QCOMPARE(qulonglong(table.totalElements()), 671026404352ull);
        QCOMPARE(qulonglong(table.layerElements()), 11507286016ull);
        QCOMPARE(qulonglong(table.denseLayerElements()), 583483392ull);
        QCOMPARE(qulonglong(table.denseLayers), 3ull);
        QCOMPARE(qulonglong(table.layerRepeats()), 58ull);
        QCOMPARE(qulonglong(table.activeElements(8, 256)), 37552282624ull);
        // The largest tensor: one stacked expert weight counts per expert here
        // (not a 3-D parameter in the table), so the embedding.
        QCOMPARE(qulonglong(table.largestTensorElements()), 129280ull * 7168);
    }

    void importFields()
    {
        const Result<ModelSpec> s = modelSpecFromConfigFile(configPath("deepseek-v3.json"));
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().detail.c_str());
        QCOMPARE(qulonglong(s->qLoraRank), 1536ull);
        QCOMPARE(qulonglong(s->kvLoraRank), 512ull);
        QCOMPARE(qulonglong(s->headDim), 192ull); // qk_nope_head_dim + qk_rope_head_dim
        QCOMPARE(qulonglong(s->qkNopeHeadDim()), 128ull);
        QCOMPARE(qulonglong(s->vHeadDim), 128ull);
        QCOMPARE(qulonglong(s->denseLayers), 3ull);
        QCOMPARE(qulonglong(s->denseIntermediate), 18432ull);
        QCOMPARE(qulonglong(s->intermediate), 2048ull);
        QCOMPARE(qulonglong(s->sharedExpertIntermediate), 2048ull);
        QCOMPARE(qulonglong(buildParameterTable(*s).totalElements()), 671026404352ull);

        // q_lora_rank null: one q_proj of 7168 x 128*192 instead of the
        // low-rank pair and its norm, 127,400,448 more per layer.
        nlohmann::json c = readConfig("deepseek-v3.json");
        c["q_lora_rank"] = nullptr;
        const Result<ModelSpec> plainQ = modelSpecFromHfConfig(c);
        QVERIFY(plainQ.ok());
        QCOMPARE(qulonglong(plainQ->qLoraRank), 0ull);
        QCOMPARE(qulonglong(buildParameterTable(*plainQ).totalElements()), 671026404352ull + 61ull * 127400448);

        // first_k_dense_replace 0: every layer MoE; at or past the layer count: every layer dense.
        c = readConfig("deepseek-v3.json");
        c["first_k_dense_replace"] = 0;
        const ParameterTable allMoe = buildParameterTable(modelSpecFromHfConfig(c).value());
        QCOMPARE(qulonglong(allMoe.denseLayers), 0ull);
        QCOMPARE(qulonglong(allMoe.totalElements()), 671026404352ull + 3ull * (11507286016ull - 583483392ull));
        c["first_k_dense_replace"] = 99;
        const ParameterTable allDense = buildParameterTable(modelSpecFromHfConfig(c).value());
        QCOMPARE(qulonglong(allDense.layerRepeats()), 0ull);
        QCOMPARE(qulonglong(allDense.totalElements()), 2ull * 129280 * 7168 + 7168 + 61ull * 583483392);
    }

    // A config the router cannot run is refused, naming the field.
    void routerErrors_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<int>("value");
        QTest::addColumn<QByteArray>("named");
        QTest::newRow("groups do not divide") << QByteArray("n_group") << 7 << QByteArray("n_group");
        QTest::newRow("one expert a group") << QByteArray("n_group") << 256 << QByteArray("n_group");
        QTest::newRow("kept groups") << QByteArray("topk_group") << 9 << QByteArray("topk_group");
        QTest::newRow("too many chosen") << QByteArray("num_experts_per_tok") << 200 << QByteArray("num_experts_per_tok");
        QTest::newRow("negative dense") << QByteArray("first_k_dense_replace") << -1 << QByteArray("first_k_dense_replace");
    }
    void routerErrors()
    {
        QFETCH(QByteArray, key);
        QFETCH(int, value);
        QFETCH(QByteArray, named);
        nlohmann::json c = readConfig("deepseek-v3.json");
        c[key.toStdString()] = value;
        const Result<ModelSpec> s = modelSpecFromHfConfig(c);
        QVERIFY(!s.ok());
        QVERIFY2(s.error().detail.find(named.toStdString()) != std::string::npos, s.error().detail.c_str());
        // A missing size is required, not DeepseekV3Config's 671B default.
        c = readConfig("deepseek-v3.json");
        c.erase("moe_intermediate_size");
        QVERIFY(!modelSpecFromHfConfig(c).ok());
    }

    // A scenario's "spec" keeps MLA and the dense layers; a deepseek_v3 spec
    // without a latent rank, or with a rope width past the head, is refused.
    void specRoundTrip()
    {
        ModelSpec saved = presetModel(kV3).value();
        saved.origin = "config.json";
        const Result<ModelSpec> back = modelFromJson(nlohmann::json::parse(modelToJson(saved).dump()));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QCOMPARE(qulonglong(buildParameterTable(*back).totalElements()), 671026404352ull);
        QCOMPARE(qulonglong(back->denseLayers), 3ull);
        QCOMPARE(qulonglong(back->kvLoraRank), 512ull);

        nlohmann::json spec = nlohmann::json::parse(modelToJson(saved).dump());
        nlohmann::json& node = spec.contains("spec") ? spec["spec"] : spec;
        node["kv_lora_rank"] = 0;
        QVERIFY(!modelFromJson(spec).ok());
        node["kv_lora_rank"] = 512;
        node["qk_rope_head_dim"] = 192;
        const Result<ModelSpec> wide = modelFromJson(spec);
        QVERIFY(!wide.ok());
        QVERIFY2(wide.error().detail.find("qk_rope_head_dim") != std::string::npos, wide.error().detail.c_str());
    }

    // The plan's per-layer rows that differ between the two kinds of layer
    // are one row each, for the layers they describe; the sweep's timeline is
    // the brute-force placement's, and each row's instances are the layers
    // counted one by one (sweep.cpp's closed forms for a band of dense first
    // layers), with one layer in 2 and in 3 checkpointed too.
    void denseAndMoeRows()
    {
        const ModelSpec tiny = modelSpecFromHfConfig(tinyConfig(), "deepseek-v3-tiny").value();
        for (const auto& [ckpt, every] : {std::pair{Checkpointing::None, 0}, std::pair{Checkpointing::Full, 0},
                                          std::pair{Checkpointing::EveryK, 2}, std::pair{Checkpointing::EveryK, 3}}) {
            Scenario s = trainScenario(tiny);
            s.train.checkpointing = ckpt;
            s.train.checkpointEvery = std::uint64_t(every);
            const Result<Plan> p = makePlan(s);
            QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
            QCOMPARE(qulonglong(p->denseLayers), 1ull);
            const auto find = [&](const char* name, LayerBand band) -> const TensorRow* {
                for (const TensorRow& r : p->tensors)
                    if (std::strcmp(r.name, name) == 0 && r.band == band)
                        return &r;
                return nullptr;
            };
            // fp32 weights under autocast: 4 bytes per element of each kind of layer.
            const ParameterTable table = buildParameterTable(tiny);
            const TensorRow* moeWeights = find("weights.layer", LayerBand::Sparse);
            const TensorRow* denseWeights = find("weights.layer", LayerBand::Dense);
            QVERIFY(moeWeights && denseWeights);
            QCOMPARE(qulonglong(moeWeights->bytes), qulonglong(table.layerElements() * 4));
            QCOMPARE(qulonglong(denseWeights->bytes), qulonglong(table.denseLayerElements() * 4));
            QCOMPARE(qulonglong(instanceCount(*moeWeights, *p)), 3ull);
            QCOMPARE(qulonglong(instanceCount(*denseWeights, *p)), 1ull);
            // The experts' saves are on the MoE layers only; the attention's on every layer.
            QVERIFY(find("moe.routing", LayerBand::Sparse) || ckpt == Checkpointing::Full);
            QVERIFY(!find("moe.routing", LayerBand::Dense));
            QVERIFY(find("attn.q", LayerBand::Every));
            for (const TensorRow& r : p->tensors) {
                std::uint64_t layers = r.layers == LayerSet::Global ? 1 : 0;
                for (std::uint64_t l = 0; r.layers != LayerSet::Global && l < p->layers; ++l)
                    layers += rowOnLayer(r, l, *p) ? 1 : 0;
                QVERIFY2(instanceCount(r, *p) == layers, r.name);
            }
            const std::vector<CategoryBytes> reference = referenceTimeline(*p, Mode::Train);
            QCOMPARE(reference.size(), p->timeline.size());
            for (std::size_t e = 0; e < reference.size(); ++e)
                QVERIFY2(reference[e] == p->timeline[e], eventLabel(p->events[e]).c_str());
        }
    }

    // Pipeline stages: the dense layers are on the first stage; a later chunk
    // of a rank cannot hold dense layers before its MoE ones.
    void pipelineStages()
    {
        Scenario s = trainScenario(presetModel(kV3).value());
        s.hardware.count = 8;
        s.hardware.parallel.pp = 8;
        s.hardware.sharding = Sharding::None;
        s.train.gradAccum = 8;
        const Result<ParallelLayout> layout = parallelLayout(s);
        QVERIFY(layout.ok());
        QCOMPARE(qulonglong(denseLayersOfStage(*layout, 0, s.model)), 3ull);
        QCOMPARE(qulonglong(denseLayersOfStage(*layout, 1, s.model)), 0ull);
        const Result<Plan> p = makePlan(s);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
        QCOMPARE(p->ranks.size(), std::size_t(8));
        QVERIFY(p->ranks[0].peakAllocatedBytes < p->ranks[1].peakAllocatedBytes);

        // Interleaved: 61 layers over pp 4 x vpp 4 (virtual stages 1 to 13
        // take 4 layers, the others 3). 16 dense layers: virtual stages 0
        // to 3 (15 layers) and the first layer of virtual stage 4, rank 0's
        // second chunk, after its first chunk of 3 dense ones.
        s.hardware.count = 16;
        s.hardware.parallel.pp = 4;
        s.hardware.parallel.vpp = 4;
        s.hardware.sharding = Sharding::Fsdp2;
        s.model.denseLayers = 16;
        const Result<ParallelLayout> interleaved = parallelLayout(s);
        QVERIFY2(interleaved.ok(), interleaved.ok() ? "" : interleaved.error().detail.c_str());
        QCOMPARE(qulonglong(denseLayersOfStage(*interleaved, 0, s.model)), 4ull);
        QCOMPARE(qulonglong(denseLayersOfStage(*interleaved, 1, s.model)), 4ull);
        QCOMPARE(qulonglong(denseLayersOfStage(*interleaved, 3, s.model)), 4ull);
        QCOMPARE(qulonglong(denseLayersOfChunk(*interleaved, 0, 1, s.model)), 1ull);
    }

    // Inference caches the latent: (512 + 64) x tokens x batch x 2 bytes per layer.
    void latentCache()
    {
        Scenario s;
        s.model = presetModel(kV3).value();
        s.mode = Mode::Inference;
        s.hardware.gpu = "h200";
        s.inference.batch = 8;
        s.inference.promptTokens = 4096;
        s.inference.newTokens = 1024;
        const Result<Plan> p = makePlan(s);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
        Bytes cache = 0;
        for (const TensorRow& r : p->tensors)
            if (std::strcmp(r.name, "kv_cache.layer") == 0)
                cache += r.bytes * instanceCount(r, *p);
        QCOMPARE(qulonglong(cache), qulonglong(Bytes{576} * 5120 * 8 * 2 * 61));
    }
};

QTEST_APPLESS_MAIN(TestDeepseek)
#include "test_deepseek.moc"
