// SPDX-License-Identifier: GPL-3.0-or-later
// torch.compile of each decoder layer, as torchtitan applies it
// (plan/compiledlayer.h). Every expected number is derived here from what
// the compiled layer keeps and fuses, for a 4-layer Llama-like model (hidden
// 256, 8 heads, 2 KV heads, head_dim 32, MLP 704, vocabulary 1000),
// micro-batch 2 x sequence 128, flash attention, pure bf16.
#include "io/scenariofile.h"
#include "model/hfconfig.h"
#include "plan/planner.h"
#include "planrows.h"
#include "smallmodel.h"

#include <QtTest>

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

Scenario scenario(Checkpointing ckpt, bool compiled, const char* type = "llama")
{
    Scenario sc;
    sc.model = testing::smallModel({type, h, L, a, kv, i, V, false});
    sc.train.precision = Precision::Bf16;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.attention = Attention::Flash;
    sc.train.checkpointing = ckpt;
    sc.train.compileLayers = compiled;
    sc.hardware.gpu = "h100-sxm-80gb";
    return sc;
}



} // namespace

class TestCompiledLayers : public QObject {
    Q_OBJECT

private slots:
    // The op-level policy keeps q, v, gate and down (every other aten.mm);
    // compiled, the down projection's output is not kept: only the residual
    // add reads it. Per layer, 2T·h bytes less.
    void selectiveOpDropsTheDownProjection()
    {
        const Plan eager = testing::planOrFail(scenario(Checkpointing::SelectiveOps, false));
        const Plan compiled = testing::planOrFail(scenario(Checkpointing::SelectiveOps, true));
        QCOMPARE(rowBytes(eager, "sac.down_proj_out"), 2 * T * h);
        QVERIFY(!findRow(compiled, "sac.down_proj_out"));
        QCOMPARE(rowBytes(compiled, "sac.q_proj_out"), 2 * T * a * d);
        QCOMPARE(rowBytes(compiled, "sac.v_proj_out"), 2 * T * kv * d);
        QCOMPARE(rowBytes(compiled, "sac.gate_proj_out"), 2 * T * i);
        QCOMPARE(heldPerLayer(eager) - heldPerLayer(compiled), 2 * T * h);
    }

    // The recompute fuses each norm into one kernel (no fp32 copy of a
    // 16-bit input, no separate normalised tensor) and the gated product
    // into one (no separate activation output); the second norm's input is
    // rebuilt in bf16. Eager per layer: two fp32 inputs 4T·h each, two
    // normalised 2T·h, the activation 2T·i; compiled: the second input in
    // bf16, 2T·h. The first norm's input is the checkpoint boundary.
    void recomputeFusesNormsAndTheActivation()
    {
        for (Checkpointing ckpt : {Checkpointing::SelectiveOps, Checkpointing::Full}) {
            const Plan eager = testing::planOrFail(scenario(ckpt, false));
            const Plan compiled = testing::planOrFail(scenario(ckpt, true));
            QCOMPARE(rowBytes(eager, "norm1.in"), 4 * T * h);
            QCOMPARE(rowBytes(eager, "norm2.in"), 4 * T * h);
            QVERIFY(!findRow(compiled, "norm1.in"));
            QVERIFY(!findRow(compiled, "norm1.normed"));
            QVERIFY(!findRow(compiled, "norm2.normed"));
            QVERIFY(!findRow(compiled, "mlp.act_out"));
            QCOMPARE(rowBytes(compiled, "norm2.in"), 2 * T * h);
            const Bytes fused = 4 * T * h + 4 * T * h + 2 * T * h + 2 * T * h + 2 * T * i - 2 * T * h;
            QCOMPARE(recomputedPerLayer(eager) - recomputedPerLayer(compiled), fused);
        }
        // Full checkpointing keeps only the layer input, compiled or not.
        QCOMPARE(heldPerLayer(testing::planOrFail(scenario(Checkpointing::Full, true))), 2 * T * h);
    }

    // fp32: the norms read their fp32 input as it is; only the normalised
    // tensors and the activation output are fused away.
    void fp32KeepsTheNormInputs()
    {
        Scenario sc = scenario(Checkpointing::Full, true);
        sc.train.precision = Precision::Fp32;
        const Plan compiled = testing::planOrFail(sc);
        QCOMPARE(rowBytes(compiled, "norm2.in"), 4 * T * h);
        QVERIFY(!findRow(compiled, "norm2.normed"));
        QVERIFY(!findRow(compiled, "mlp.act_out"));
    }

    // Outside the layers nothing changes: the loss and head are eager.
    void headAndLossStayEager()
    {
        const Plan eager = testing::planOrFail(scenario(Checkpointing::Full, false));
        const Plan compiled = testing::planOrFail(scenario(Checkpointing::Full, true));
        for (const char* row : {"logits", "final_norm.in", "final_norm.out", "loss.grad"})
            QCOMPARE(rowBytes(compiled, row), rowBytes(eager, row));
    }

    void refusesWhatIsNotModelled_data()
    {
        QTest::addColumn<QByteArray>("what");
        QTest::newRow("no checkpointing") << QByteArray("none");
        QTest::newRow("lora") << QByteArray("lora");
        QTest::newRow("gpt-neox") << QByteArray("gpt_neox");
        QTest::newRow("autocast") << QByteArray("autocast");
        QTest::newRow("headroom profile") << QByteArray("headroom");
        QTest::newRow("activation offload") << QByteArray("offload");
    }
    void refusesWhatIsNotModelled()
    {
        QFETCH(QByteArray, what);
        Scenario sc = scenario(Checkpointing::SelectiveOps, true, what == "gpt_neox" ? "gpt_neox" : "llama");
        if (what == "none")
            sc.train.checkpointing = Checkpointing::None;
        if (what == "lora")
            sc.train.peft.method = PeftMethod::Lora;
        if (what == "autocast")
            sc.train.precision = Precision::Bf16Mixed;
        if (what == "headroom")
            sc.profile = Profile::Headroom;
        if (what == "offload") {
            sc.train.checkpointing = Checkpointing::Full;
            sc.train.activationOffload = true;
        }
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QCOMPARE(int(plan.error().code), int(ErrorCode::UnsupportedCombination));
        QVERIFY2(plan.error().detail.find("train.compile") != std::string::npos, plan.error().detail.c_str());
        // The same scenario without compile plans.
        sc.train.compileLayers = false;
        if (what != "none" && what != "lora")
            QVERIFY2(makePlan(sc), what.constData());
    }

    // Mixed precision through FSDP2's MixedPrecisionPolicy (no autocast) is
    // what torchtitan runs, and plans.
    void fsdp2MixedPrecisionPlans()
    {
        Scenario sc = scenario(Checkpointing::SelectiveOps, true);
        sc.train.precision = Precision::Bf16Mixed;
        sc.hardware.count = 8;
        sc.hardware.sharding = Sharding::Fsdp2;
        const Plan p = testing::planOrFail(sc);
        QVERIFY(!findRow(p, "sac.down_proj_out"));
        QCOMPARE(rowBytes(p, "norm2.in"), 2 * T * h);
    }

    // "compile" is saved and read back; a value that is not a boolean is an error.
    void roundTrip()
    {
        const Scenario sc = scenario(Checkpointing::SelectiveOps, true);
        const std::string text = scenarioToText(sc);
        QVERIFY(text.find("\"compile\": true") != std::string::npos);
        auto back = scenarioFromText(text);
        QVERIFY2(back, back ? "" : back.error().detail.c_str());
        QVERIFY(back->train.compileLayers);
        auto bad = nlohmann::json::parse(text);
        bad["train"]["compile"] = "yes";
        auto refused = scenarioFromText(bad.dump());
        QVERIFY(!refused);
        QVERIFY2(refused.error().detail.find("compile") != std::string::npos, refused.error().detail.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCompiledLayers)
#include "test_compiledlayers.moc"
