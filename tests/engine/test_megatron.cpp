// SPDX-License-Identifier: GPL-3.0-or-later
// Model states of a tensor/pipeline-parallel layout planned the Megatron-LM
// way (plan/megatronrows.cpp), against Megatron-LM's own estimate
// (megatron/training/theoretical_memory_usage.py num_bytes_per_parameter:
// 18 bytes per parameter under --bf16, 6 + 12 / dp with the distributed
// optimizer) and, for the modes that estimate does not cover, the bytes its
// DistributedDataParallel and optimizer keep per parameter. The parameters
// of a rank are counted here by hand: a 4-layer Llama-like model (hidden 256,
// 8 heads, 2 KV heads, head_dim 32, MLP 704, vocabulary 1000, untied) over
// tp 2 x pp 2 x dp 2 (8 GPUs).
#include "plan/planner.h"
#include "planrows.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <cstring>

using namespace headroom;
using testing::findRow;
using testing::stagePlan;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000, L = 4;
constexpr Bytes tp = 2, pp = 2, dp = 2;

// One layer on one tensor-parallel rank (column-parallel q/k/v/gate/up,
// row-parallel o/down, the two RMSNorms whole).
constexpr Bytes layerParams = (h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i) / tp + 2 * h;
// Stage 0: its two layers and the vocabulary-parallel embedding; stage 1:
// its two layers, the final norm and the column-parallel output layer.
constexpr Bytes stageParams[2] = {(L / pp) * layerParams + (V / tp) * h, (L / pp) * layerParams + h + (V / tp) * h};

Scenario megatron(Precision precision, Sharding sharding, Optimizer optimizer = Optimizer::AdamW)
{
    Scenario sc;
    sc.model = testing::smallModel({"llama", h, L, a, kv, i, V, false});
    sc.train.precision = precision;
    sc.train.optimizer = optimizer;
    sc.train.microBatch = 2;
    sc.train.seqLen = 128;
    sc.train.gradAccum = 4;
    sc.train.checkpointing = Checkpointing::Full;
    sc.train.attention = Attention::Flash;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = tp * pp * dp;
    sc.hardware.sharding = sharding;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = true;
    sc.hardware.parallel.pp = pp;
    return sc;
}

// Weights, gradients and optimizer state a stage keeps for the run.
Bytes modelStateBytes(const Plan& p, Bytes layers)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors) {
        const bool state = r.category == Category::Weights || r.category == Category::Gradients ||
                           r.category == Category::OptimizerState;
        if (state && r.allocAt == Phase::Load)
            sum += r.layers == LayerSet::All ? r.bytes * layers : r.bytes;
    }
    return sum;
}

} // namespace

class TestMegatron : public QObject {
    Q_OBJECT

private slots:
    // Megatron-LM's estimate, both forms, on both stages.
    void bytesPerParameterAsMegatronEstimates()
    {
        for (std::uint64_t stage : {0, 1}) {
            const Bytes P = stageParams[stage];
            const Plan ddp = stagePlan(megatron(Precision::Bf16Mixed, Sharding::Ddp), stage);
            QCOMPARE(modelStateBytes(ddp, L / pp), 18 * P);
            const Plan distributed = stagePlan(megatron(Precision::Bf16Mixed, Sharding::Zero1), stage);
            QCOMPARE(modelStateBytes(distributed, L / pp), 6 * P + 12 * P / dp);
        }
    }

    // Outside the estimate: --fp16 keeps 16-bit gradients (2 + 2 + 4 + 8),
    // fp32 training has no main copy (4 + 4 + 8; the distributed optimizer
    // shards the moments), SGD with momentum one moment (2 + 4 + 4 + 4).
    void otherModes()
    {
        const Bytes P = stageParams[1];
        QCOMPARE(modelStateBytes(stagePlan(megatron(Precision::Fp16Mixed, Sharding::Ddp), 1), L / pp), 16 * P);
        QCOMPARE(modelStateBytes(stagePlan(megatron(Precision::Fp32, Sharding::Ddp), 1), L / pp), 16 * P);
        QCOMPARE(modelStateBytes(stagePlan(megatron(Precision::Fp32, Sharding::Zero1), 1), L / pp), 8 * P + 8 * P / dp);
        QCOMPARE(modelStateBytes(stagePlan(megatron(Precision::Bf16Mixed, Sharding::Ddp, Optimizer::SgdMomentum), 1),
                                 L / pp),
                 14 * P);
    }

    // One contiguous gradient buffer instead of .grad plus PyTorch DDP's
    // buckets; a fused step without foreach temporaries; no autocast.
    void megatronsBuffersOnly()
    {
        const Plan p = stagePlan(megatron(Precision::Bf16Mixed, Sharding::Ddp), 1);
        QVERIFY(findRow(p, "megatron.grad_buffer"));
        for (const char* gone : {"ddp.buckets", "grads.layer", "optimizer.foreach_temporary", "autocast.head_copy"})
            QVERIFY2(!findRow(p, gone), gone);
    }

    // Megatron-LM's vocab-parallel cross-entropy on the last stage, per
    // element of the rank's T x V/tp logits: 2 + 4 bytes in the loss forward
    // (the 16-bit logits and their fp32 copy, made the softmax in place), 4
    // kept for the backward, 4 + 2 in it (the gradient computed in the softmax,
    // cast to bf16); fp32 training works in the logits themselves (4 throughout).
    void vocabParallelCrossEntropy()
    {
        const Bytes TV = 2 * 128 * (V / tp);
        const auto logitsAt = [](const Plan& p, Phase phase) {
            return testing::categoryBytesAt(p, Category::Logits, phase);
        };
        const Plan mixed = stagePlan(megatron(Precision::Bf16Mixed, Sharding::Ddp), 1);
        QCOMPARE(logitsAt(mixed, Phase::LossFwd), 6 * TV);
        QCOMPARE(logitsAt(mixed, Phase::LossBwd), 6 * TV);
        QCOMPARE(testing::rowBytes(mixed, "loss.softmax"), 4 * TV);
        for (const char* gone : {"logits.fp32", "loss.log_softmax", "loss.grad"})
            QVERIFY2(!findRow(mixed, gone), gone);
        const Plan fp32 = stagePlan(megatron(Precision::Fp32, Sharding::Ddp), 1);
        QCOMPARE(logitsAt(fp32, Phase::LossFwd), 4 * TV);
        QCOMPARE(logitsAt(fp32, Phase::LossBwd), 4 * TV);
    }

    // What Megatron-LM has no mode for stays as PyTorch keeps it: pure bf16,
    // and ZeRO-2/3 (DeepSpeed's).
    void otherRuntimesUnchanged()
    {
        QVERIFY(findRow(stagePlan(megatron(Precision::Bf16, Sharding::Ddp), 1), "grads.layer"));
        QVERIFY(!findRow(stagePlan(megatron(Precision::Bf16Mixed, Sharding::Zero2), 1), "megatron.grad_buffer"));
        // One GPU, no layout: not Megatron-LM either.
        Scenario one = megatron(Precision::Bf16Mixed, Sharding::None);
        one.hardware.count = 1;
        one.hardware.parallel = {};
        QVERIFY(!findRow(testing::planOrFail(one), "megatron.grad_buffer"));
    }
};

QTEST_APPLESS_MAIN(TestMegatron)
#include "test_megatron.moc"
