// SPDX-License-Identifier: GPL-3.0-or-later
// Dense layers among the mixture-of-experts ones (ModelSpec::denseLayerIds):
// Qwen3-MoE's mlp_only_layers and decoder_sparse_step, Llama 4's
// interleave_moe_layer_step and moe_layers (Maverick). The parameter totals
// are transformers 5.17's model.num_parameters() for the same configs, built
// with AutoModelForCausalLM.from_config on the meta device (the library
// virtualenv, 2026-11-27); each kind of row on its own layers; the sweep
// against the brute-force timeline; pipeline stages.
#include "io/modeljson.h"
#include "model/hfconfig.h"
#include "model/parametertable.h"
#include "plan/parallel.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <nlohmann/json.hpp>

#include "planrows.h"

#include <QtTest>

#include <cstring>
#include <fstream>

using namespace headroom;
using testing::findBanded;

namespace {

nlohmann::json readConfig(const char* name)
{
    std::ifstream in(std::string(HEADROOM_TEST_DATA) + "/configs/" + name);
    return nlohmann::json::parse(in);
}

ModelSpec withKey(const char* file, const char* key, const char* value)
{
    nlohmann::json config = readConfig(file);
    config[key] = nlohmann::json::parse(value);
    auto spec = modelSpecFromHfConfig(config);
    if (!spec)
        qFatal("%s", spec.error().detail.c_str());
    return spec.value();
}

Scenario fullFinetune(const ModelSpec& model)
{
    Scenario sc;
    sc.model = model;
    sc.train.peft.method = PeftMethod::None;
    sc.train.weightQuant = WeightQuant::None;
    sc.train.optimizer = Optimizer::Sgd;
    sc.train.microBatch = 2;
    sc.train.seqLen = 256;
    sc.hardware.gpu = "h100-sxm-80gb";
    return sc;
}

} // namespace

class TestDenseLayerPattern : public QObject {
    Q_OBJECT

private slots:
    // Which layers are dense, and the totals transformers counts.
    void layersAndCounts_data()
    {
        QTest::addColumn<QByteArray>("file");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<qulonglong>("parameters");
        QTest::addColumn<QList<qulonglong>>("dense");
        // 4 layers: (i + 1) % 2 != 0 makes layers 0 and 2 dense.
        QTest::newRow("qwen3-moe decoder_sparse_step 2") << QByteArray("qwen3-moe-4layers.json")
                                                         << QByteArray("decoder_sparse_step") << QByteArray("2")
                                                         << 1981828096ull << QList<qulonglong>{0, 2};
        QTest::newRow("qwen3-moe mlp_only_layers [1, 2]") << QByteArray("qwen3-moe-4layers.json")
                                                          << QByteArray("mlp_only_layers") << QByteArray("[1, 2]")
                                                          << 1981828096ull << QList<qulonglong>{1, 2};
        // A dense first layer is a prefix: no list kept.
        QTest::newRow("qwen3-moe mlp_only_layers [0]") << QByteArray("qwen3-moe-4layers.json")
                                                       << QByteArray("mlp_only_layers") << QByteArray("[0]")
                                                       << 2548321280ull << QList<qulonglong>{};
        // Maverick's layout on Scout's sizes: the 24 even layers dense.
        QList<qulonglong> even;
        for (qulonglong i = 0; i < 48; i += 2)
            even << i;
        QTest::newRow("llama 4 interleave_moe_layer_step 2") << QByteArray("llama-4-scout-text.json")
                                                             << QByteArray("interleave_moe_layer_step")
                                                             << QByteArray("2") << 62469411840ull << even;
    }
    void layersAndCounts()
    {
        QFETCH(QByteArray, file);
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, value);
        QFETCH(qulonglong, parameters);
        QFETCH(QList<qulonglong>, dense);
        const ModelSpec m = withKey(file.constData(), key.constData(), value.constData());
        QCOMPARE(qulonglong(buildParameterTable(m).totalElements()), parameters);
        QCOMPARE(int(m.denseLayerIds.size()), int(dense.size()));
        for (int k = 0; k < dense.size(); ++k)
            QCOMPARE(qulonglong(m.denseLayerIds[std::size_t(k)]), dense[k]);
        // The saved model reads back the same.
        const auto back = modelFromJson(nlohmann::json::parse(modelToJson(m).dump()));
        QVERIFY2(back.ok(), back.ok() ? "" : back.error().detail.c_str());
        QVERIFY(back->denseLayerIds == m.denseLayerIds);
        QCOMPARE(qulonglong(back->denseLayers), qulonglong(m.denseLayers));
    }

    // Each kind of row on its own layers, and the sweep equal to the
    // brute-force timeline, with and without checkpointing.
    void rowsOnTheirLayers()
    {
        const ModelSpec m = withKey("qwen3-moe-4layers.json", "decoder_sparse_step", "2");
        for (Checkpointing ckpt : {Checkpointing::None, Checkpointing::Full}) {
            Scenario sc = fullFinetune(m);
            sc.train.checkpointing = ckpt;
            const Result<Plan> p = makePlan(sc);
            QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
            QVERIFY(p->denseLayerIds == m.denseLayerIds);
            const TensorRow* moeWeights = findBanded(*p, "weights.layer", LayerBand::Sparse);
            const TensorRow* denseWeights = findBanded(*p, "weights.layer", LayerBand::Dense);
            QVERIFY(moeWeights && denseWeights);
            QCOMPARE(qulonglong(instanceCount(*moeWeights, *p)), 2ull);
            QCOMPARE(qulonglong(instanceCount(*denseWeights, *p)), 2ull);
            for (std::uint64_t l = 0; l < 4; ++l) {
                QCOMPARE(rowOnLayer(*denseWeights, l, *p), l == 0 || l == 2);
                QCOMPARE(rowOnLayer(*moeWeights, l, *p), l == 1 || l == 3);
            }
            const std::vector<CategoryBytes> reference = referenceTimeline(*p, Mode::Train);
            QCOMPARE(reference.size(), p->timeline.size());
            for (std::size_t e = 0; e < reference.size(); ++e)
                QVERIFY2(reference[e] == p->timeline[e], eventLabel(p->events[e]).c_str());
        }
    }

    // Pipeline stages: Maverick's layout, 48 layers over pp 4, 12 a stage, 6
    // of them dense, at the stage's even positions; over pp 3 x vpp 2 the
    // rank's two chunks of 8 alternate the same way (8 is even).
    void pipelineStages()
    {
        Scenario sc = fullFinetune(withKey("llama-4-scout-text.json", "interleave_moe_layer_step", "2"));
        sc.hardware.count = 4;
        sc.hardware.parallel.pp = 4;
        sc.train.gradAccum = 4;
        const ParallelLayout layout = parallelLayout(sc).value();
        for (std::uint64_t stage = 0; stage < 4; ++stage) {
            QCOMPARE(qulonglong(denseLayersOfStage(layout, stage, sc.model)), 6ull);
            const ModelSpec rank = rankModelSpec(sc.model, layout, stage);
            QCOMPARE(int(rank.denseLayerIds.size()), 6);
            for (std::size_t k = 0; k < 6; ++k)
                QCOMPARE(qulonglong(rank.denseLayerIds[k]), qulonglong(2 * k));
        }
        sc.hardware.count = 3;
        sc.hardware.parallel.pp = 3;
        sc.hardware.parallel.vpp = 2;
        sc.train.gradAccum = 3;
        const ParallelLayout interleaved = parallelLayout(sc).value();
        const ModelSpec rank = rankModelSpec(sc.model, interleaved, 1);
        QCOMPARE(qulonglong(rank.layers), 16ull);
        QCOMPARE(int(rank.denseLayerIds.size()), 8);
        for (std::size_t k = 0; k < 8; ++k)
            QCOMPARE(qulonglong(rank.denseLayerIds[k]), qulonglong(2 * k));
        const Result<Plan> p = makePlan(sc);
        QVERIFY2(p.ok(), p.ok() ? "" : p.error().detail.c_str());
    }

    // A saved list must name dense_layers ascending indices below the layer count.
    void badSavedLists_data()
    {
        QTest::addColumn<QByteArray>("ids");
        QTest::newRow("not ascending") << QByteArray("[2, 0]");
        QTest::newRow("past the layers") << QByteArray("[0, 9]");
        QTest::newRow("fewer than dense_layers") << QByteArray("[2]");
        QTest::newRow("not a list") << QByteArray("3");
    }
    void badSavedLists()
    {
        QFETCH(QByteArray, ids);
        nlohmann::json saved =
            nlohmann::json::parse(modelToJson(withKey("qwen3-moe-4layers.json", "decoder_sparse_step", "2")).dump());
        saved["dense_layer_ids"] = nlohmann::json::parse(ids.toStdString());
        const auto back = modelFromJson(saved);
        QVERIFY(!back.ok());
        QVERIFY2(back.error().detail.find("dense_layer_ids") != std::string::npos, back.error().detail.c_str());
    }
};

QTEST_APPLESS_MAIN(TestDenseLayerPattern)
#include "test_denselayerpattern.moc"
