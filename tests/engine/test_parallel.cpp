// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor and pipeline parallelism (plan/parallel.h, parallelrows.cpp): every
// expected number below is derived by hand from the formulas, for a 4-layer
// Llama-like model (hidden 256, 8 heads, 2 KV heads, head_dim 32, MLP 704,
// vocabulary 1000), pure bf16, AdamW, micro-batch 2 x sequence 128, flash.
#include "model/hfconfig.h"
#include "plan/defaultscenario.h"
#include "plan/fitsearch.h"
#include "plan/knobsweep.h"
#include "plan/parallel.h"
#include "plan/planbuild.h"
#include "plan/planner.h"
#include "planrows.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

using namespace headroom;
using testing::rowBytes;
using testing::stagePlan;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000, L = 4;
constexpr Bytes b = 2, s = 128, T = b * s;

ModelSpec smallLlama(bool tied = false, Bytes vocab = V)
{
    return testing::smallModel({"llama", h, L, a, kv, i, vocab, tied});
}

Scenario scenario(std::uint64_t gpus, std::uint64_t tp, std::uint64_t pp, bool sp = false,
                  const ModelSpec& m = smallLlama())
{
    Scenario sc;
    sc.model = m;
    sc.train.precision = Precision::Bf16; // weights, gradients and AdamW states in 2 bytes
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.gradAccum = 4;
    sc.train.attention = Attention::Flash;
    sc.train.useCache = UseCache::Off;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.pp = pp;
    sc.hardware.parallel.sp = sp;
    return sc;
}

// What one layer saves from forward to backward (rows on the kept layers).
Bytes savedPerLayer(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == LayerSet::Plain && r.category == Category::Activations)
            sum += r.bytes;
    return sum;
}

// Parameters of one Llama layer on one of t tensor-parallel ranks
// (Megatron-LM ColumnParallelLinear q/k/v/gate/up: output features / t;
// RowParallelLinear o/down: input features / t; the two RMSNorms whole).
Bytes layerParams(Bytes t) { return (h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i) / t + 2 * h; }

// One layer's saved bytes for the HF Llama layer in bf16 with flash, as the
// planner itemises it (memory-model.md §1): per norm fp32 input 4Th, rsqrt 4T,
// normalised 2Th, linear input 2Th (x2 norms: 16Th + 8T); q and the attention
// output 2T·a·d each, k and v 2T·kv·d each, fp32 log-sum-exp 4·b·a·s; the
// gated MLP 4 x 2T·i. Korthikanti et al. 2022 Table 2: tensor parallelism t
// divides the attention and MLP inner terms, sequence parallelism the
// norm/residual terms too.
Bytes expectedSaved(Bytes t, bool sp)
{
    const Bytes outer = 16 * T * h + 8 * T;
    const Bytes inner = 4 * T * a * d + 4 * T * kv * d + 4 * b * a * s + 8 * T * i;
    return outer / (sp ? t : 1) + inner / t;
}


} // namespace

class TestParallel : public QObject {
    Q_OBJECT

private slots:
    // FSDP (v1) with QLoRA (PEFT's accelerate/fsdp.md recipe): each rank
    // gathers the layer as stored, the 4-bit packed base and the adapters,
    // which is the one-GPU plan's weights.layer row, for the current and the
    // prefetched layer; only the adapters get an unsharded 16-bit gradient,
    // half the one-GPU plan's fp32 grads.layer. Unchecked by a run, so the
    // plan says so.
    void fsdpWithQloraGathersTheStoredLayer()
    {
        Scenario single = teachingScenario().value();
        QCOMPARE(int(single.train.peft.method), int(PeftMethod::Qlora));
        single.hardware.count = 1;
        single.hardware.sharding = Sharding::None;
        Scenario sharded = single;
        sharded.hardware.count = 2;
        sharded.hardware.sharding = Sharding::Fsdp;
        const Plan one = testing::planOrFail(single);
        const Plan two = testing::planOrFail(sharded);
        QCOMPARE(rowBytes(two, "sharding.gathered_layer"), 2 * rowBytes(one, "weights.layer"));
        QCOMPARE(rowBytes(two, "sharding.unsharded_grad") * 2, rowBytes(one, "grads.layer"));
        QVERIFY(std::any_of(two.notes.begin(), two.notes.end(),
                            [](const std::string& n) { return n.starts_with("FSDP with LoRA or QLoRA"); }));
        // A full fine-tune keeps the 16-bit gathered layer of every parameter.
        Scenario full = sharded;
        full.train.peft.method = PeftMethod::None;
        full.train.weightQuant = WeightQuant::None;
        const Plan fullPlan = testing::planOrFail(full);
        QVERIFY(std::none_of(fullPlan.notes.begin(), fullPlan.notes.end(),
                             [](const std::string& n) { return n.starts_with("FSDP with LoRA or QLoRA"); }));
    }

    void fsdpParameterOffload()
    {
        // FSDP (v1) CPUOffload(offload_params=True): the sharded parameters,
        // gradients and optimizer state leave the GPU; the gathered units and
        // the unsharded gradient before its reduce-scatter stay.
        Scenario kept = teachingScenario().value();
        kept.train.peft.method = PeftMethod::None;
        kept.train.weightQuant = WeightQuant::None;
        kept.hardware.count = 8;
        kept.hardware.sharding = Sharding::Fsdp;
        Scenario offloaded = kept;
        offloaded.hardware.cpuOffload = true;
        const Plan on = testing::planOrFail(kept);
        const Plan off = testing::planOrFail(offloaded);
        for (const char* name : {"weights.layer", "weights.global", "grads.layer", "grads.global"}) {
            QVERIFY2(rowBytes(on, name) > 0, name);
            QCOMPARE(rowBytes(off, name), Bytes{0});
        }
        for (const TensorRow& r : off.tensors)
            QVERIFY2(r.category != Category::OptimizerState || r.bytes == 0, r.name);
        for (const char* name : {"sharding.gathered_layer", "sharding.gathered_layer_bwd", "sharding.unsharded_grad"})
            QCOMPARE(rowBytes(off, name), rowBytes(on, name));
        // The resident shards are alive at every event, so the peak drops by at least them.
        const Bytes resident = rowBytes(on, "weights.layer") * on.layers + rowBytes(on, "weights.global");
        QVERIFY(off.peakAllocatedBytes + resident <= on.peakAllocatedBytes);
        QVERIFY(std::any_of(off.notes.begin(), off.notes.end(),
                            [](const std::string& n) { return n.starts_with("FSDP with CPU offload (offload_params)"); }));
        QVERIFY(std::none_of(off.notes.begin(), off.notes.end(),
                             [](const std::string& n) { return n.starts_with("CPU offload: optimizer state"); }));
    }

    void oneGpuIsUnchanged()
    {
        // tp = pp = 1 is today's plan: no ranks, the counters as before.
        Scenario sc = scenario(1, 1, 1);
        const Plan p = testing::planOrFail(sc);
        QVERIFY(p.ranks.empty());
        QCOMPARE(savedPerLayer(p), expectedSaved(1, false)); // 2,828,288 bytes
        QCOMPARE(rowBytes(p, "weights.layer"), layerParams(1) * 2);
        // A consistent global batch changes nothing.
        sc.train.globalBatch = b * 4;
        const Plan same = testing::planOrFail(sc);
        QCOMPARE(same.peakAllocatedBytes, p.peakAllocatedBytes);
        QCOMPARE(same.peakReservedBytes, p.peakReservedBytes);
    }

    void tensorParallelWeights()
    {
        const Plan p = testing::planOrFail(scenario(2, 2, 1));
        QCOMPARE(p.ranks.size(), std::size_t{1});
        QCOMPARE(p.tensorParallel, std::uint64_t{2});
        QCOMPARE(p.dataParallel, std::uint64_t{1});
        // 352,768 parameters per layer per rank, 2 bytes each.
        QCOMPARE(layerParams(2), Bytes{352768});
        QCOMPARE(rowBytes(p, "weights.layer"), Bytes{705536});
        // Vocabulary-parallel embedding and LM head (V/t x h each) and the final norm (h).
        QCOMPARE(rowBytes(p, "weights.global"), (2 * (V / 2) * h + h) * 2);
        // Gradients and AdamW's two states follow the weights (bf16: 2 bytes each).
        QCOMPARE(p.ranks[0].breakdown[size_t(Category::Weights)], L * 705536 + (2 * (V / 2) * h + h) * 2);
        // The model's own counts stay whole.
        QCOMPARE(p.totalParameters, Bytes{L * layerParams(1) + 2 * V * h + h});
    }

    void tensorParallelActivations()
    {
        // Without sequence parallelism the norm/residual terms are replicated.
        QCOMPARE(savedPerLayer(testing::planOrFail(scenario(2, 2, 1))), expectedSaved(2, false)); // 1,939,456
        // With it they are divided too.
        QCOMPARE(savedPerLayer(testing::planOrFail(scenario(2, 2, 1, true))), expectedSaved(2, true)); // 1,414,144
        QCOMPARE(expectedSaved(2, false), Bytes{1939456});
        QCOMPARE(expectedSaved(2, true), Bytes{1414144});
        // The logits are vocabulary-parallel: T x V/t in bf16.
        QCOMPARE(rowBytes(testing::planOrFail(scenario(2, 2, 1)), "logits"), T * (V / 2) * 2);
    }

    void pipelineStages()
    {
        const Plan p = testing::planOrFail(scenario(2, 1, 2));
        QCOMPARE(p.ranks.size(), std::size_t{2});
        QCOMPARE(p.ranks[0].layers, std::uint64_t{2});
        QCOMPARE(p.ranks[1].layers, std::uint64_t{2});
        // Stage 0: two layers and the embedding; stage 1: two layers, the final norm and the LM head.
        const Bytes layerBytes = 2 * layerParams(1) * 2;
        QCOMPARE(p.ranks[0].breakdown[size_t(Category::Weights)], layerBytes + V * h * 2);
        QCOMPARE(p.ranks[1].breakdown[size_t(Category::Weights)], layerBytes + (V * h + h) * 2);
        // A tied LM head: the last stage holds its own copy of the embedding.
        const Plan tied = testing::planOrFail(scenario(2, 1, 2, false, smallLlama(true)));
        QCOMPARE(tied.ranks[1].breakdown[size_t(Category::Weights)], layerBytes + (V * h + h) * 2);
        QCOMPARE(tied.totalParameters, Bytes{L * layerParams(1) + V * h + h});
        // The top-level counters are the worst stage's.
        const RankPlan& worst = p.ranks[p.worstRank];
        QCOMPARE(p.deviceUsedBytes, worst.deviceUsedBytes);
        for (const RankPlan& r : p.ranks)
            QVERIFY(r.deviceUsedBytes <= worst.deviceUsedBytes);
    }

    void inFlightMicroBatches()
    {
        // 1F1B, pp 2, 4 micro-batches: stage 0 holds 2, stage 1 holds 1
        // (Narayanan et al. 2021 §2.2.2). Stage 0's one extra micro-batch is
        // its two layers' saves (no Llama embedding row is saved).
        const Plan p = testing::planOrFail(scenario(2, 1, 2));
        QCOMPARE(p.ranks[0].inFlightMicroBatches, std::uint64_t{2});
        QCOMPARE(p.ranks[1].inFlightMicroBatches, std::uint64_t{1});
        Scenario first = scenario(2, 1, 2);
        auto layout = parallelLayout(first);
        QVERIFY(layout.ok());
        QCOMPARE(layout->inFlightMicroBatches(0), std::uint64_t{2});
        QCOMPARE(layout->inFlightMicroBatches(1), std::uint64_t{1});
        // Stage 0 = stage 1 + one micro-batch of saves - the head's rows, so
        // compare the activation category at each stage's peak with the hand numbers.
        const Bytes stash0 = 2 * expectedSaved(1, false); // 5,656,576
        QCOMPARE(stash0, Bytes{5656576});

        // GPipe: every stage holds all 4 micro-batches. The last stage's
        // micro-batch keeps its two layers, the final norm's saves (4Th + 4T +
        // 2Th + 2Th) and the loss's fp32 log-softmax (4·T·V).
        Scenario gpipe = scenario(2, 1, 2);
        gpipe.hardware.parallel.ppSchedule = PipelineSchedule::GPipe;
        const Plan g = testing::planOrFail(gpipe);
        QCOMPARE(g.ranks[0].inFlightMicroBatches, std::uint64_t{4});
        QCOMPARE(g.ranks[1].inFlightMicroBatches, std::uint64_t{4});
        const Bytes lastStash = stash0 + (8 * T * h + 4 * T) + 4 * T * V; // 7,205,888
        QCOMPARE(lastStash, Bytes{7205888});
        // The last stage reports (its logits make it the fullest) and carries 3 more micro-batches.
        QCOMPARE(g.worstRank, std::size_t{1});
        QCOMPARE(rowBytes(g, "pipeline.in_flight"), lastStash * 3); // 21,617,664
        // Stage 0's own plan (1F1B): one more micro-batch of its two layers.
        QCOMPARE(rowBytes(stagePlan(first, 0), "pipeline.in_flight"), stash0);
        QCOMPARE(rowBytes(stagePlan(first, 1), "pipeline.in_flight"), Bytes{0});
        QCOMPARE(rowBytes(stagePlan(gpipe, 0), "pipeline.in_flight"), stash0 * 3);
        // Each stage's entry in ranks is its own plan's counters.
        QCOMPARE(p.ranks[0].peakAllocatedBytes, stagePlan(first, 0).peakAllocatedBytes);
    }

    void searchesIgnoreTheGlobalBatch()
    {
        // The fit search and the sweeps vary the micro-batch; a global batch is
        // a check of the scenario as given and must not refuse their points.
        Scenario sc = scenario(4, 2, 1);
        sc.train.globalBatch = b * 4 * 2;  // micro 2 x accum 4 x dp 2
        QVERIFY(makePlan(sc).ok());
        auto fit = largestMicroBatch(sc, 64);
        QVERIFY2(fit.ok(), fit.ok() ? "" : fit.error().detail.c_str());
        QVERIFY(fit->found);
        QCOMPARE(fit->value, std::uint64_t{64});
        const SweepResult sweep = computeSweep(sc, SweepAxis::MicroBatch);
        QVERIFY(!sweep.error);
        QVERIFY(sweep.points.size() > 1);
    }

    void unevenSplitAndPadding()
    {
        // 4 layers over 3 stages: the last stage takes the extra layer.
        const Plan p = testing::planOrFail(scenario(3, 1, 3));
        QCOMPARE(p.ranks[0].layers, std::uint64_t{1});
        QCOMPARE(p.ranks[1].layers, std::uint64_t{1});
        QCOMPARE(p.ranks[2].layers, std::uint64_t{2});
        bool said = false;
        for (const std::string& n : p.notes)
            said = said || n.find("Uneven pipeline split: stage 2 has 2 layers, the others 1.") != std::string::npos;
        QVERIFY(said);
        // A vocabulary of 1001 over tp 2 is padded to 1002: 501 rows per rank.
        const Plan padded = testing::planOrFail(scenario(2, 2, 1, false, smallLlama(false, 1001)));
        QCOMPARE(rowBytes(padded, "weights.global"), (2 * 501 * h + h) * 2);
    }

    void badLayouts_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("globalBatch");
        QTest::addColumn<QString>("message");
        QTest::newRow("tp x pp does not divide count")
            << 6 << 2 << 2 << 1 << 0
            << QStringLiteral("hardware.parallel: tp 2 x pp 2 = 4 GPUs per model replica must divide hardware.count 6");
        QTest::newRow("more than count")
            << 2 << 2 << 2 << 1 << 0
            << QStringLiteral(
                   "hardware.parallel: tp 2 x pp 2 = more than 2 GPUs per model replica must divide hardware.count 2");
        QTest::newRow("heads") << 3 << 3 << 1 << 1 << 0
                               << QStringLiteral("hardware.parallel.tp: 8 attention heads do not divide by tp 3");
        QTest::newRow("kv heads") << 4 << 4 << 1 << 1 << 0
                                  << QStringLiteral(
                                         "hardware.parallel.tp: 2 KV heads do not divide by tp 4 (replicating KV heads "
                                         "over tensor-parallel ranks is not modelled)");
        QTest::newRow("stages")
            << 8 << 1 << 8 << 1 << 0
            << QStringLiteral(
                   "hardware.parallel.pp: 8 pipeline stages for 4 layers; every stage needs at least one layer");
        // Interleaved layouts (more in tests/engine/test_interleaved.cpp).
        QTest::newRow("vpp without pp")
            << 2 << 1 << 1 << 2 << 0
            << QStringLiteral("hardware.parallel.vpp: 2 virtual stages per rank need pipeline parallelism; pp is 1");
        QTest::newRow("more chunks than layers")
            << 2 << 1 << 2 << 3 << 0
            << QStringLiteral("hardware.parallel.vpp: pp 2 x vpp 3 = 6 model chunks for 4 layers; every chunk needs "
                              "at least one layer");
        QTest::newRow("global batch")
            << 4 << 2 << 1 << 1 << 100
            << QStringLiteral(
                   "train.global_batch: 100 is not micro_batch 2 x grad_accum 4 x data-parallel degree 2 = 16");
    }

    void badLayouts()
    {
        QFETCH(int, gpus);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, globalBatch);
        QFETCH(QString, message);
        Scenario sc = scenario(gpus, tp, pp);
        sc.hardware.parallel.vpp = vpp;
        sc.train.globalBatch = globalBatch;
        auto plan = makePlan(sc);
        QVERIFY(!plan.ok());
        QCOMPARE(QString::fromStdString(plan.error().detail), message);
    }

    void unsupportedModels()
    {
        // Layouts this slice does not plan are refused with the field named, not guessed.
        Scenario sc = scenario(2, 2, 1);
        sc.train.peft.method = PeftMethod::Lora;
        auto lora = makePlan(sc);
        QVERIFY(!lora.ok());
        QVERIFY(lora.error().detail.rfind("train.peft:", 0) == 0);
        Scenario inference = scenario(2, 1, 2);
        inference.mode = Mode::Inference;
        auto inf = makePlan(inference);
        QVERIFY(!inf.ok());
        QVERIFY(inf.error().detail.rfind("hardware.parallel:", 0) == 0);
    }
};

QTEST_GUILESS_MAIN(TestParallel)
#include "test_parallel.moc"
