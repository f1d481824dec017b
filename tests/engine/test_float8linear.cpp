// SPDX-License-Identifier: GPL-3.0-or-later
// torchao Float8Linear under FSDP2 ("fp8-mixed" with "fsdp2",
// plan/float8linear.h). Every expected number is derived here from what
// Float8Linear casts and saves, for a 4-layer Llama-like model (hidden 256,
// 8 heads, 2 KV heads, head_dim 32, MLP 704, vocabulary 1000), micro-batch
// 2 x sequence 128, flash attention, 8 GPUs.
#include "io/scenariofile.h"
#include "model/hfconfig.h"
#include "plan/planner.h"
#include "planrows.h"
#include "smallmodel.h"

#include <QtTest>

#include <cstring>
#include <nlohmann/json.hpp>

using namespace headroom;
using testing::findRow;
using testing::heldPerLayer;
using testing::recomputed;
using testing::recomputedPerLayer;
using testing::rowBytes;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000, L = 4;
constexpr Bytes b = 2, s = 128, T = b * s;
// The layer's linear weights: q, k, v, o, gate, up, down.
constexpr Bytes linearParams = h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i;
constexpr Bytes layerParams = linearParams + 2 * h; // and two RMSNorms

Scenario scenario(Precision p, Checkpointing ckpt = Checkpointing::Full, bool compiled = false,
                  const char* type = "llama")
{
    Scenario sc;
    sc.model = testing::smallModel({type, h, L, a, kv, i, V, false});
    sc.train.precision = p;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.attention = Attention::Flash;
    sc.train.checkpointing = ckpt;
    sc.train.compileLayers = compiled;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = 8;
    sc.hardware.sharding = Sharding::Fsdp2;
    return sc;
}



} // namespace

class TestFloat8Linear : public QObject {
    Q_OBJECT

private slots:
    // One byte per element: the recompute saves every linear's input (q, k,
    // v, o, gate, up read hidden-wide inputs, down the MLP-wide product) and
    // weight; the widest single call is down's (T·i + h·i); the widest output
    // gradient is gate's or up's (T·i).
    void castsAreOneBytePerElement()
    {
        const Plan p = testing::planOrFail(scenario(Precision::Fp8Mixed));
        QCOMPARE(rowBytes(p, "float8.saved_casts"), T * (6 * h + i) + linearParams);
        QCOMPARE(rowBytes(p, "float8.forward_casts"), T * i + h * i);
        QCOMPARE(rowBytes(p, "float8.grad_output_cast"), T * i);
        QCOMPARE(int(findRow(p, "float8.saved_casts")->layers), int(LayerSet::Checkpointed));
    }

    // The linears' 16-bit inputs are not kept for their backward: their fp8
    // copies are. The norms' and the product's own saves stay.
    void sixteenBitLinearInputsAreReplaced()
    {
        const Plan bf16 = testing::planOrFail(scenario(Precision::Bf16Mixed));
        const Plan fp8 = testing::planOrFail(scenario(Precision::Fp8Mixed));
        for (const char* key : {"norm1.out", "norm2.out", "mlp.down_in"}) {
            QVERIFY2(recomputed(bf16, key), key);
            QVERIFY2(!recomputed(fp8, key), key);
        }
        for (const char* key : {"norm1.normed", "mlp.up_out", "attn.q"})
            QCOMPARE(recomputed(fp8, key), recomputed(bf16, key));
        QVERIFY(!findRow(bf16, "float8.saved_casts"));
    }

    // The op-level policy sees the same aten.mm calls: a compiled,
    // checkpointed layer keeps what the bf16 one keeps. FSDP2 gathers bf16
    // parameters as for bf16-mixed.
    void keepsWhatBf16Keeps()
    {
        const Plan bf16 = testing::planOrFail(scenario(Precision::Bf16Mixed, Checkpointing::SelectiveOps, true));
        const Plan fp8 = testing::planOrFail(scenario(Precision::Fp8Mixed, Checkpointing::SelectiveOps, true));
        QCOMPARE(heldPerLayer(fp8), heldPerLayer(bf16));
        QCOMPARE(rowBytes(fp8, "fsdp2.unsharded_layer"), 2 * layerParams);
        QCOMPARE(rowBytes(fp8, "fsdp2.reduce_scatter_input"), 4 * layerParams);
        QCOMPARE(rowBytes(fp8, "weights.layer"), (4 * layerParams + 7) / 8);
    }

    // FSDP2's float8 all-gather (torchao WeightWithDynamicFloat8CastTensor):
    // the layer's linear weights are gathered and kept unsharded in 1 byte,
    // its two RMSNorm weights in bf16; the gradients stay bf16 before the
    // fp32 reduce-scatter. Float8Linear casts no weight: the saved casts are
    // the inputs alone (T·(6h + i)), the widest forward call down's input T·i.
    void float8AllGatherGathersOneByteWeights()
    {
        Scenario sc = scenario(Precision::Fp8Mixed);
        sc.train.float8AllGather = true;
        const Plan p = testing::planOrFail(sc);
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), linearParams + 2 * (2 * h));
        QCOMPARE(rowBytes(p, "fsdp2.all_gather_buffer"), linearParams + 2 * (2 * h));
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_grad"), 2 * layerParams);
        QCOMPARE(rowBytes(p, "fsdp2.reduce_scatter_input"), 4 * layerParams);
        QCOMPARE(rowBytes(p, "float8.saved_casts"), T * (6 * h + i));
        QCOMPARE(rowBytes(p, "float8.forward_casts"), T * i);
        // Saved and read back; only written when on.
        const std::string text = scenarioToText(sc);
        QVERIFY(text.find("\"float8_all_gather\": true") != std::string::npos);
        auto back = scenarioFromText(text);
        QVERIFY2(back, back ? "" : back.error().detail.c_str());
        QVERIFY(back->train.float8AllGather);
        QVERIFY(scenarioToText(scenario(Precision::Fp8Mixed)).find("float8_all_gather") == std::string::npos);
        // Without Float8 linears there is nothing to gather in float8.
        Scenario bf16 = scenario(Precision::Bf16Mixed);
        bf16.train.float8AllGather = true;
        auto refused = makePlan(bf16);
        QVERIFY(!refused);
        QVERIFY2(refused.error().detail.find("train.float8_all_gather") != std::string::npos,
                 refused.error().detail.c_str());
    }

    // Without FSDP2, fp8-mixed stays the Transformer Engine-style autocast
    // plan: no Float8Linear rows.
    void onlyUnderFsdp2()
    {
        Scenario sc = scenario(Precision::Fp8Mixed);
        sc.hardware.sharding = Sharding::Ddp;
        const Plan p = testing::planOrFail(sc);
        QVERIFY(!findRow(p, "float8.saved_casts"));
    }

    void refusesWhatIsNotModelled_data()
    {
        QTest::addColumn<QByteArray>("what");
        QTest::newRow("no checkpointing") << QByteArray("none");
        QTest::newRow("selective-op eager") << QByteArray("eager-sac");
        QTest::newRow("gpt-neox") << QByteArray("gpt_neox");
        QTest::newRow("lora") << QByteArray("lora");
    }
    void refusesWhatIsNotModelled()
    {
        QFETCH(QByteArray, what);
        Scenario sc = scenario(Precision::Fp8Mixed, Checkpointing::Full, false, what == "gpt_neox" ? "gpt_neox" : "llama");
        if (what == "none")
            sc.train.checkpointing = Checkpointing::None;
        if (what == "eager-sac")
            sc.train.checkpointing = Checkpointing::SelectiveOps;
        if (what == "lora")
            sc.train.peft.method = PeftMethod::Lora;
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QCOMPARE(int(plan.error().code), int(ErrorCode::UnsupportedCombination));
        // LoRA is refused by FSDP2 itself, first.
        const char* names = what == "lora" ? "LoRA" : "fp8";
        QVERIFY2(plan.error().detail.find(names) != std::string::npos, plan.error().detail.c_str());
    }
};

QTEST_APPLESS_MAIN(TestFloat8Linear)
#include "test_float8linear.moc"
