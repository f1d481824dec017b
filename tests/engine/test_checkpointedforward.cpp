// SPDX-License-Identifier: GPL-3.0-or-later
// Which checkpointed layers plan their forward tensor by tensor
// (plan/checkpointedforward.h), and that the script keeps the sweep's
// arithmetic: the layers that keep activations keep the one block. The
// script's sizes are checked against PyTorch in test_reference
// (reservedAgainstReplay).
#include "model/catalog.h"
#include "plan/planner.h"
#include "planrows.h"

#include <QtTest>

using namespace headroom;
using testing::findRow;

namespace {

Scenario llama1b(PeftMethod peft, Precision precision, Checkpointing checkpointing)
{
    Scenario s;
    s.model = presetModel("meta-llama/Llama-3.2-1B").value();
    s.train.precision = precision;
    s.train.peft.method = peft;
    if (peft == PeftMethod::Qlora)
        s.train.weightQuant = WeightQuant::Nf4;
    s.train.checkpointing = checkpointing;
    s.train.microBatch = 2;
    s.train.seqLen = 1024;
    s.hardware.gpu = "h100-sxm-80gb";
    return s;
}

} // namespace

class TestCheckpointedForward : public QObject {
    Q_OBJECT

private slots:
    void whichLayersAreScripted_data()
    {
        QTest::addColumn<int>("peft");
        QTest::addColumn<int>("precision");
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<bool>("scripted");
        // LoRA under autocast over a 16-bit base, and a pure 16-bit full fine-tune.
        QTest::newRow("lora bf16-mixed full") << int(PeftMethod::Lora) << int(Precision::Bf16Mixed)
                                              << int(Checkpointing::Full) << true;
        QTest::newRow("full bf16 full") << int(PeftMethod::None) << int(Precision::Bf16) << int(Checkpointing::Full)
                                        << true;
        // A full fine-tune under autocast: the script also makes the weight casts.
        QTest::newRow("full bf16-mixed full") << int(PeftMethod::None) << int(Precision::Bf16Mixed)
                                              << int(Checkpointing::Full) << true;
        // QLoRA over NF4 weights: the script dequantises each weight for its matmul.
        QTest::newRow("qlora bf16-mixed full") << int(PeftMethod::Qlora) << int(Precision::Bf16Mixed)
                                               << int(Checkpointing::Full) << true;
        // Nothing checkpointed: the layers keep their activations.
        QTest::newRow("lora bf16-mixed none") << int(PeftMethod::Lora) << int(Precision::Bf16Mixed)
                                              << int(Checkpointing::None) << false;
        // fp32 has no flash kernel.
        QTest::newRow("full fp32 full") << int(PeftMethod::None) << int(Precision::Fp32) << int(Checkpointing::Full)
                                        << false;
    }
    void whichLayersAreScripted()
    {
        QFETCH(int, peft);
        QFETCH(int, precision);
        QFETCH(int, checkpointing);
        QFETCH(bool, scripted);
        const auto plan = makePlan(llama1b(PeftMethod(peft), Precision(precision), Checkpointing(checkpointing)));
        QVERIFY(plan.ok());
        const TensorRow* script = findRow(plan.value(), "layer.ckpt_forward");
        const TensorRow* block = findRow(plan.value(), "layer.fwd_temporary");
        QVERIFY(block != nullptr);
        QCOMPARE(script != nullptr, scripted);
        QCOMPARE(int(block->layers), int(scripted ? LayerSet::Plain : LayerSet::All));
        if (!scripted)
            return;
        QCOMPARE(int(script->layers), int(LayerSet::Checkpointed));
        // QLoRA's one block for the largest dequantised weight stays on the
        // kept layers only: the script makes each layer's.
        if (PeftMethod(peft) == PeftMethod::Qlora)
            QCOMPARE(int(findRow(plan.value(), "quant.dequantized_weight")->layers), int(LayerSet::Plain));
        QVERIFY(script->pieceEnd > script->pieceBegin);
        // The most alive at once is at least the fp32 norm's two tensors of the
        // whole sequence (its input upcast and the squares, Bytes T x h x 4 each).
        const Bytes T = 2 * 1024, h = 2048;
        QVERIFY(script->bytes >= 2 * T * h * 4);
        // Under autocast over fp32 weights the script makes the seven weight
        // casts for their own row, which keeps its bytes (and the sweep's sum).
        const TensorRow* casts = findRow(plan.value(), "autocast.weight_copies_fwd");
        const bool autocastFull = PeftMethod(peft) == PeftMethod::None && Precision(precision) == Precision::Bf16Mixed;
        QCOMPARE(casts != nullptr, autocastFull);
        if (!casts)
            return;
        QVERIFY(casts->madeByScript);
        QCOMPARE(int(casts->pieceEnd - casts->pieceBegin), 7);
        Bytes sum = 0;
        for (std::uint32_t k = casts->pieceBegin; k < casts->pieceEnd; ++k)
            sum += plan.value().pieces[k].bytes * plan.value().pieces[k].count;
        QCOMPARE(sum, casts->bytes);
        std::uint32_t placed = 0;
        for (std::uint32_t k = script->pieceBegin; k < script->pieceEnd; ++k)
            placed += plan.value().pieces[k].isForeign() ? 1 : 0;
        QCOMPARE(placed, 7u);
    }
};

QTEST_APPLESS_MAIN(TestCheckpointedForward)
#include "test_checkpointedforward.moc"
