// SPDX-License-Identifier: GPL-3.0-or-later
// torch.compile of the loss function (plan/compiledloss.h). The expected
// numbers are tools/reference/compile_loss_study.py's measurement on the CPU
// (PyTorch 2.11, Inductor, bf16 logits, profiler allocation events), in
// units of tokens x vocab x 2 bytes: eager keeps 2 units from the loss
// forward to its backward and holds 6 in the backward; compiled keeps 1
// (the bf16 logits) and holds 2. The plan must say the same, plus the
// compiled graph's two fp32 numbers per token. Model: a 4-layer Llama-like
// model (hidden 256, vocabulary 1000), micro-batch 2 x sequence 128.
#include "io/scenariofile.h"
#include "plan/planner.h"
#include "planrows.h"
#include "smallmodel.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;
using testing::findRow;
using testing::rowBytes;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, i = 704, V = 1000, L = 4;
constexpr Bytes b = 2, s = 128, T = b * s;
constexpr Bytes unit = T * V * 2;

Scenario scenario(bool compiledLoss)
{
    Scenario sc;
    sc.model = testing::smallModel({"llama", h, L, a, kv, i, V, false});
    sc.train.precision = Precision::Bf16;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.attention = Attention::Flash;
    sc.train.checkpointing = Checkpointing::Full;
    sc.train.compileLoss = compiledLoss;
    sc.hardware.gpu = "h100-sxm-80gb";
    return sc;
}

// Bytes of the logits category alive at `phase`.
Bytes logitsAt(const Plan& p, Phase phase) { return testing::categoryBytesAt(p, Category::Logits, phase); }

// Bytes of the logits category made by the loss forward or earlier and kept
// into the loss backward.
Bytes keptForLossBackward(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.category == Category::Logits && r.allocAt <= Phase::LossFwd && r.freeAt >= Phase::LossBwd)
            sum += r.bytes;
    return sum;
}

} // namespace

class TestCompiledLoss : public QObject {
    Q_OBJECT

private slots:
    // The measurement's two columns, eager and compiled.
    void keptAndHeldAsMeasured()
    {
        const Plan eager = testing::planOrFail(scenario(false));
        const Plan compiled = testing::planOrFail(scenario(true));
        const Bytes stats = T * 8;
        QCOMPARE(keptForLossBackward(eager), 2 * unit);
        QCOMPARE(logitsAt(eager, Phase::LossBwd), 6 * unit);
        QCOMPARE(keptForLossBackward(compiled), 1 * unit + stats);
        QCOMPARE(logitsAt(compiled, Phase::LossBwd), 2 * unit + stats);
    }

    // No fp32 copy, no log-probabilities, no dense fp32 gradients; the
    // logits' gradient comes out of the loss backward in bf16.
    void compiledRows()
    {
        const Plan p = testing::planOrFail(scenario(true));
        for (const char* gone : {"logits.fp32", "loss.log_softmax", "loss.grad"})
            QVERIFY2(!findRow(p, gone), gone);
        const TensorRow* logits = findRow(p, "logits");
        QVERIFY(logits);
        QCOMPARE(logits->freeAt, Phase::LossBwd);
        const TensorRow* grad = findRow(p, "logits.grad");
        QVERIFY(grad);
        QCOMPARE(grad->bytes, unit);
        QCOMPARE(grad->allocAt, Phase::LossBwd);
        QCOMPARE(rowBytes(p, "loss.row_stats"), T * 8);
    }

    // A loop that keeps the outputs keeps the logits to the optimizer step,
    // compiled or not.
    void customLoopKeepsTheLogits()
    {
        Scenario sc = scenario(true);
        sc.train.loop = TrainingLoop::Custom;
        const TensorRow* logits = findRow(testing::planOrFail(sc), "logits");
        QVERIFY(logits);
        QCOMPARE(logits->freeAt, Phase::OptimizerStep);
    }

    void refusesWhatIsNotModelled_data()
    {
        QTest::addColumn<QByteArray>("what");
        QTest::newRow("headroom profile") << QByteArray("headroom");
        QTest::newRow("chunked loss") << QByteArray("chunked");
        QTest::newRow("classifier") << QByteArray("classifier");
        QTest::newRow("tensor parallel") << QByteArray("tp");
    }
    void refusesWhatIsNotModelled()
    {
        QFETCH(QByteArray, what);
        Scenario sc = scenario(true);
        if (what == "headroom")
            sc.profile = Profile::Headroom;
        if (what == "chunked")
            sc.train.chunkedCrossEntropy = true;
        if (what == "classifier") {
            sc.model = testing::smallModel({"bert", h, L, a, a, i, V, true});
            sc.model.head = ModelHead::SequenceClassification;
            sc.model.numLabels = 2;
            sc.train.precision = Precision::Fp32;
        }
        if (what == "tp") {
            sc.train.precision = Precision::Bf16Mixed;
            sc.hardware.count = 4;
            sc.hardware.sharding = Sharding::Fsdp2;
            sc.hardware.parallel.tp = 2;
            sc.hardware.parallel.sp = true;
        }
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QCOMPARE(int(plan.error().code), int(ErrorCode::UnsupportedCombination));
        QVERIFY2(plan.error().detail.find("train.compile_loss") != std::string::npos, plan.error().detail.c_str());
        sc.train.compileLoss = false;
        QVERIFY2(makePlan(sc), what.constData());
    }

    // "compile_loss" is written only when set, read back, and a value that is
    // not a boolean is an error naming it.
    void roundTrip()
    {
        QVERIFY(scenarioToText(scenario(false)).find("compile_loss") == std::string::npos);
        const std::string text = scenarioToText(scenario(true));
        QVERIFY(text.find("\"compile_loss\": true") != std::string::npos);
        auto back = scenarioFromText(text);
        QVERIFY2(back, back ? "" : back.error().detail.c_str());
        QVERIFY(back->train.compileLoss);
        auto bad = nlohmann::json::parse(text);
        bad["train"]["compile_loss"] = 1;
        auto refused = scenarioFromText(bad.dump());
        QVERIFY(!refused);
        QVERIFY2(refused.error().detail.find("compile_loss") != std::string::npos, refused.error().detail.c_str());
    }
};

QTEST_APPLESS_MAIN(TestCompiledLoss)
#include "test_compiledloss.moc"
