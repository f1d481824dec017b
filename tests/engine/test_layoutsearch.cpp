// SPDX-License-Identifier: GPL-3.0-or-later
// The layout search (plan/layoutsearch.h) and its step-time model
// (plan/steptime.h). Every expected number is derived by hand from the
// formulas cited in steptime.cpp, for a 4-layer Llama-like model: hidden
// 256, 8 heads of 32, 2 KV heads, MLP 704, vocabulary 1000, untied.
#include "model/catalog.h"
#include "model/hfconfig.h"
#include "plan/layoutsearch.h"
#include "plan/parallel.h"
#include "plan/planner.h"
#include "plan/steptime.h"
#include "runtime/stepflops.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

ModelSpec smallLlama(std::uint64_t layers = 4)
{
    return testing::smallModel({"llama", 256, layers, 8, 2, 704, 1000, false});
}

Scenario smallScenario(std::uint64_t gpus)
{
    Scenario sc;
    sc.model = smallLlama();
    sc.train.precision = Precision::Bf16; // pure bf16: 2-byte activations, gradients and gathers
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = 2;
    sc.train.seqLen = 128;
    sc.train.gradAccum = 1;
    sc.train.attention = Attention::Flash;
    sc.train.useCache = UseCache::Off;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = gpus;
    return sc;
}

// 8 GPUs as tp 2 x pp 2 x dp 2, ZeRO-1, 4 micro-batches, full checkpointing:
// the layout the step-time terms are checked on by hand.
Scenario tp2pp2Zero1()
{
    Scenario sc = smallScenario(8);
    sc.hardware.parallel.tp = 2;
    sc.hardware.parallel.pp = 2;
    sc.hardware.sharding = Sharding::Zero1;
    sc.train.gradAccum = 4;
    sc.train.checkpointing = Checkpointing::Full;
    return sc;
}

// One layer's linear weights: q 256x256, k and v 256x64, o 256x256, gate,
// up and down 256x704 each.
constexpr double kLayerMatmul = 65536 + 16384 + 16384 + 65536 + 3 * 180224.0; // 704,512
constexpr double kLayerParams = kLayerMatmul + 2 * 256;                       // + two RMSNorm weights
constexpr double kHead = 1000 * 256.0;                                         // untied LM head

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

// Mixtral 8x7B fully fine-tuned with AdamW over 16 H100s, ZeRO-1, 2
// micro-batches of 1 x 1024, full recompute: the expert terms' layouts.
Scenario mixtralOn16()
{
    Scenario sc = testing::mixtralFullFinetune(Sharding::Zero1, Checkpointing::Full);
    sc.train.gradAccum = 2;
    sc.train.attention = Attention::Sdpa; // the scenario default these terms were derived with
    sc.hardware.count = 16;
    return sc;
}

} // namespace

class TestLayoutSearch : public QObject {
    Q_OBJECT

private slots:
    void stepModelCounts()
    {
        const Scenario sc = smallScenario(1);
        const StepModel m = stepModel(sc.model, buildParameterTable(sc.model));
        QCOMPARE(m.layerMatmulParams, kLayerMatmul);
        QCOMPARE(m.layerParams, kLayerParams);
        QCOMPARE(m.headMatmulParams, kHead);
        QCOMPARE(m.embeddingParams, 1000 * 256.0);
        QCOMPARE(m.lastStageParams, kHead + 256); // LM head and the final norm
        QCOMPARE(m.tiedHeadParams, 0.0);
        QCOMPARE(m.attentionPerTokenPerSeq, 4.0 * 8 * 32);
        // PaLM: 6 N + 12 L H Q T per token, N = 4 layers' matrices + the head.
        const double perToken = 6 * (4 * kLayerMatmul + kHead) + 12.0 * 4 * 8 * 32 * 128;
        QVERIFY(close(modelFlopsPerToken(m, 128), perToken));
        // The same count the runtime reports achieved TFLOP/s with (runtime/stepflops.h).
        QVERIFY(close(rt::modelFlopsPerStep(sc), perToken * 2 * 128));
    }

    void crossesNodes_data()
    {
        QTest::addColumn<int>("stride");
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("inter");
        QTest::newRow("tp 8 in a node of 8") << 1 << 8 << false;
        QTest::newRow("tp 16 over two nodes") << 1 << 16 << true;
        QTest::newRow("dp 2 after tp 8") << 8 << 2 << true;
        QTest::newRow("dp 2 after tp 2") << 2 << 2 << false;
        QTest::newRow("one rank") << 64 << 1 << false;
        QTest::newRow("a block of 6 straddles nodes of 8") << 3 << 2 << true;
    }
    void crossesNodes()
    {
        QFETCH(int, stride);
        QFETCH(int, size);
        QFETCH(bool, inter);
        QCOMPARE(headroom::crossesNodes(std::uint64_t(stride), std::uint64_t(size), 8), inter);
    }

    // tp 2 x pp 2 x dp 2 on 8 GPUs in nodes of 4 (made-up links: 400 GB/s
    // inside a node, 40 GB/s between), ZeRO-1, micro-batch 2 x 128 tokens, 4
    // micro-batches, full checkpointing, pure bf16.
    void stepTimeTermsByHand()
    {
        Scenario sc = tp2pp2Zero1();
        auto layout = parallelLayout(sc);
        QVERIFY(layout);
        QCOMPARE(layout->dp, std::uint64_t(2));
        const Interconnect links{4, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const StepTime t = estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(),
                                            gpu, links);

        // Rank order tp, dp, pp: tp pairs {0,1}, dp pairs {0,2} inside a node of 4;
        // pipeline peers {0,4} in different nodes.
        QVERIFY(!t.tensorParallelInterNode);
        QVERIFY(!t.dataParallelInterNode);
        QVERIFY(t.pipelineInterNode);

        const double T = 2 * 128;                                  // tokens per micro-batch
        const double forward = 2 * kLayerMatmul + 4.0 * 8 * 32 * 128; // one layer's forward per token
        const double layer = 3 * forward + forward;                // backward twice the forward, one recompute
        const double rate = 989.5e12 * 0.6;
        // Stage 1 (2 layers and the LM head, 6 N_head) is slower than stage 0 (2 layers).
        const double stageCompute = T * (2 * layer + 6 * kHead) / 2 / rate;
        // 4 all-reduces per layer and 2 more in the recompute, of T x 256 x 2 bytes;
        // a ring of 2 sends 2 (2 - 1) / 2 = 1 x the bytes.
        const double stageTp = 2 * 6 * (T * 256 * 2) / 400e9;
        // The activation forward, its gradient back: T x 256 x 2 bytes / tp each, between nodes.
        const double send = 2 * (T * 256 * 2 / 2) / 40e9;
        const double slot = stageCompute + stageTp + send;
        QVERIFY(close(t.computeSeconds, 4 * stageCompute));
        QVERIFY(close(t.tensorParallelSeconds, 4 * stageTp));
        QVERIFY(close(t.pipelineSendSeconds, 4 * send));
        QVERIFY(close(t.bubbleSeconds, 1 * slot)); // (p - 1) slots
        QVERIFY(close(t.bubbleFraction, 1.0 / 5)); // (p - 1) / (m + p - 1)
        // ZeRO-1: reduce-scatter of the gradients and all-gather of the
        // parameters, (d - 1) / d x Psi x 2 bytes each, Psi the larger stage's
        // parameters per tensor-parallel rank: the last stage's 2 layers, the
        // head and the final norm, over tp 2.
        const double psi = (2 * kLayerParams + kHead + 256) / 2;
        const double dpSeconds = 2 * (0.5 * psi * 2) / 400e9;
        QVERIFY(close(t.dataParallelSeconds, dpSeconds));
        const double step = 4 * slot + slot + dpSeconds;
        QVERIFY(close(t.stepSeconds, step));
        const double tokensPerGpu = T * 4 * 2 / step / 8;
        QVERIFY(close(t.tokensPerSecondPerGpu, tokensPerGpu));
        const double perToken = 6 * (4 * kLayerMatmul + kHead) + 12.0 * 4 * 8 * 32 * 128;
        QVERIFY(close(t.mfu, perToken * tokensPerGpu / 989.5e12));
    }

    // Interleaved 1F1B (Narayanan et al. 2021 §2.2.2): the same layout with
    // vpp 2 has a bubble of (p - 1) / v slots and sends each micro-batch's
    // activations across v times as many boundaries; compute, tensor-parallel
    // and data-parallel terms do not change.
    void interleavedBubbleAndSends()
    {
        Scenario sc = tp2pp2Zero1();
        const Interconnect links{4, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const StepModel model = stepModel(sc.model, buildParameterTable(sc.model));
        const StepTime plain = estimateStepTime(model, sc, parallelLayout(sc).value(), gpu, links);
        sc.hardware.parallel.vpp = 2;
        auto layout = parallelLayout(sc);
        QVERIFY2(layout, layout ? "" : layout.error().detail.c_str());
        const StepTime v = estimateStepTime(model, sc, layout.value(), gpu, links);
        QVERIFY(close(v.computeSeconds, plain.computeSeconds));
        QVERIFY(close(v.tensorParallelSeconds, plain.tensorParallelSeconds));
        QVERIFY(close(v.dataParallelSeconds, plain.dataParallelSeconds));
        QVERIFY(close(v.pipelineSendSeconds, 2 * plain.pipelineSendSeconds));
        const double m = 4, stage = plain.computeSeconds / m + plain.tensorParallelSeconds / m;
        const double send = plain.pipelineSendSeconds / m;
        QVERIFY(close(v.bubbleSeconds, (stage + 2 * send) / 2)); // (p - 1) / v = 1/2 slot
        QVERIFY(close(v.bubbleFraction, 0.5 / (4 + 0.5)));
    }

    // HSDP: FSDP2's gathers and reduce-scatters over the shard group (8
    // ranks, inside a node), then the sharded gradients' all-reduce over the
    // 2 replicas (between nodes), every micro-batch; pure bf16, 2 bytes each.
    void hsdpDataParallelTerm()
    {
        Scenario sc = smallScenario(16);
        sc.hardware.sharding = Sharding::Fsdp2;
        sc.hardware.parallel.dpReplicate = 2;
        sc.train.gradAccum = 2;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        auto layout = parallelLayout(sc);
        QVERIFY(layout);
        const StepTime t =
            estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(), gpu, links);
        const double psi = 4 * kLayerParams + 1000 * 256.0 + 256 + kHead;             // the whole model on one stage
        const double shard = 2 * (2 * 7.0 / 8 * psi * 2 + 7.0 / 8 * psi * 2) / 400e9; // m x (2 gathers + 1 scatter)
        const double replicas = 2 * (2 * 1.0 / 2 * (psi / 8) * 2) / 40e9;             // m x all-reduce of psi / 8
        QVERIFY(close(t.dataParallelSeconds, shard + replicas));
        QVERIFY(t.dataParallelInterNode);
    }

    // Context parallelism (cp 4 x dp 4, FSDP2, full checkpointing): each
    // rank computes 1/4 of each sequence's tokens against the whole context;
    // ring attention all-gathers the keys and values (2 KV heads x 32, pure
    // bf16) in forward, again in the recompute and in backward, and
    // reduce-scatters their gradients: 4 collectives of (cp - 1) / cp of the
    // sequence's keys and values a layer, inside a node (ranks 1 apart).
    // FSDP2 shards over dp x cp = 16 ranks, which span two nodes of 8.
    // Expert parallelism's all-to-alls (steptime.cpp): Mixtral 8x7B, 16 GPUs
    // over 2 nodes, ep 4 inside a node; per micro-batch and MoE layer four
    // all-to-alls (dispatch and combine, forward and backward) and two more in
    // a full recompute, each moving (ep - 1) / ep of tokens x top-k x hidden
    // bf16 rows; the search tries ep for a mixture of experts and finds one.
    void expertParallelTerm()
    {
        Scenario sc = mixtralOn16();
        sc.hardware.parallel.ep = 4;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        auto layout = parallelLayout(sc);
        QVERIFY2(layout, layout ? "" : layout.error().detail.c_str());
        const StepTime t =
            estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(), gpu, links);
        QVERIFY(!t.expertParallelInterNode);
        const double rows = 1024.0 * 2 * 4096 * 2; // tokens x top-2 x hidden, bf16
        QVERIFY(close(t.expertParallelSeconds, 2 * 32 * 6 * (3.0 / 4 * rows) / 400e9));
        sc.hardware.parallel.ep = 1;
        sc.train.globalBatch = 32;
        LayoutSearchOptions options;
        options.keep = 40;
        const auto result = searchLayouts(sc, options);
        QVERIFY2(result, result ? "" : result.error().detail.c_str());
        QVERIFY(std::any_of(result->layouts.begin(), result->layouts.end(),
                            [](const LayoutCandidate& c) { return c.ep > 1 && c.time.expertParallelSeconds > 0; }));
    }

    // Expert tensor parallelism (steptime.cpp): Mixtral 8x7B, 16 GPUs, tp 2
    // with sequence parallelism, ep 4, etp 2. A GPU's own token slots are its
    // sequence shard's, 1024 / 2 tokens x top-2 x hidden in bf16; per
    // micro-batch and MoE layer six exchanges (four, two more in the full
    // recompute), each an all-to-all of 3/4 of those rows over ep 4 and a
    // gather of the etp 2 ranks' (half of twice the rows), all inside a node.
    void expertTensorParallelTerm()
    {
        Scenario sc = mixtralOn16();
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = true;
        sc.hardware.parallel.ep = 4;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        auto layout = parallelLayout(sc);
        QVERIFY2(layout, layout ? "" : layout.error().detail.c_str());
        QCOMPARE(qulonglong(layout->etp), 2ull);
        const StepTime t =
            estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(), gpu, links);
        const double rows = 512.0 * 2 * 4096 * 2;
        const double perExchange = 3.0 / 4 * rows / 400e9 + 1.0 / 2 * (2 * rows) / 400e9;
        QVERIFY(close(t.expertParallelSeconds, 2 * 32 * 6 * perExchange));
        // Whole experts (etp 1): the all-to-alls alone.
        sc.hardware.parallel.etp = 1;
        const StepTime whole = estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc,
                                                parallelLayout(sc).value(), gpu, links);
        QVERIFY(close(whole.expertParallelSeconds, 2 * 32 * 6 * (3.0 / 4 * rows / 400e9)));
    }

    // train.moe in the step time (steptime.cpp): padded to a capacity of
    // 1.25, the busiest GPU's experts multiply 1.25 times the even share of
    // token slots and every exchange moves 1.25 times the rows. Mixtral's
    // routed experts a token multiplies: top-2 x 3 x 4096 x 14336 =
    // 352,321,536 weights; per token and layer the forward adds 2 x 0.25 x
    // that, and with full recompute a step runs the forward 4 times (forward,
    // backward twice, recompute), on 1024 / tp tokens of 32 layers, twice.
    void moeRoutingTimed()
    {
        Scenario sc = mixtralOn16();
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = true;
        sc.hardware.parallel.ep = 4;
        sc.hardware.parallel.etp = 1;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const StepModel model = stepModel(sc.model, buildParameterTable(sc.model));
        QCOMPARE(model.layerExpertMatmulParams, 352'321'536.0);
        const StepTime even = estimateStepTime(model, sc, parallelLayout(sc).value(), gpu, links);
        sc.train.moe.capacityFactor = 1.25;
        sc.train.moe.padToCapacity = true;
        const StepTime padded = estimateStepTime(model, sc, parallelLayout(sc).value(), gpu, links);
        QVERIFY(close(padded.expertParallelSeconds, 1.25 * even.expertParallelSeconds));
        const double extraFlops = 2.0 * (1024.0 / 2) * 32 * 4 * (2 * 0.25 * 352'321'536.0);
        QVERIFY(close(padded.computeSeconds - even.computeSeconds, extraFlops / (gpu.denseBf16Tflops * 1e12 * 0.6)));
        QVERIFY(padded.mfu < even.mfu);
        // Balanced and dropless: the factor is 1, nothing changes.
        sc.train.moe = {};
        QVERIFY(close(estimateStepTime(model, sc, parallelLayout(sc).value(), gpu, links).stepSeconds,
                      even.stepSeconds));
    }

    void contextParallelTerm()
    {
        Scenario sc = smallScenario(16);
        sc.hardware.sharding = Sharding::Fsdp2;
        sc.hardware.parallel.cp = 4;
        sc.train.gradAccum = 2;
        sc.train.checkpointing = Checkpointing::Full;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        auto layout = parallelLayout(sc);
        QVERIFY2(layout, layout ? "" : layout.error().detail.c_str());
        QCOMPARE(layout->dp, std::uint64_t(4));
        const StepTime t =
            estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(), gpu, links);
        QVERIFY(!t.contextParallelInterNode);
        QVERIFY(t.dataParallelInterNode);

        const double T = 2 * 128 / 4.0;                               // this rank's tokens of a micro-batch
        const double forward = 2 * kLayerMatmul + 4.0 * 8 * 32 * 128; // the whole context's attention
        const double compute = 2 * T * (4 * (4 * forward) + 6 * kHead) / (989.5e12 * 0.6);
        QVERIFY(close(t.computeSeconds, compute));
        const double kv = 2 * 128 * 2 * 64 * 2.0;               // a micro-batch's keys and values, bf16
        const double ring = 2 * 4 * 4 * (3.0 / 4 * kv) / 400e9; // m x layers x collectives
        QVERIFY(close(t.contextParallelSeconds, ring));
        const double psi = 4 * kLayerParams + 1000 * 256.0 + 256 + kHead;
        QVERIFY(close(t.dataParallelSeconds, 2 * (2 * 15.0 / 16 * psi * 2 + 15.0 / 16 * psi * 2) / 40e9));
        QVERIFY(close(t.stepSeconds, compute + ring + t.dataParallelSeconds));
        // 2 x 2 sequences on each of dp 4 (the cp ranks share theirs) of 128 tokens, over 16 GPUs.
        QVERIFY(close(t.tokensPerSecondPerGpu, 16 * 128 / t.stepSeconds / 16));
    }

    // ZeRO paper §7: ZeRO-1 moves what plain data parallelism moves (2 Psi),
    // ZeRO-3 1.5 times that (3 Psi), with one micro-batch; pure bf16 so every
    // transfer is 2 bytes an element.
    void dataParallelVolumes()
    {
        Scenario sc = smallScenario(8);
        const StepModel m = stepModel(sc.model, buildParameterTable(sc.model));
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const Interconnect links = interconnectFor(gpu);
        const auto dpSeconds = [&](Sharding s, std::uint64_t accum) {
            Scenario v = sc;
            v.hardware.sharding = s;
            v.train.gradAccum = accum;
            return estimateStepTime(m, v, parallelLayout(v).value(), gpu, links).dataParallelSeconds;
        };
        const double ddp = dpSeconds(Sharding::Ddp, 1);
        const double psi = 4 * kLayerParams + 1000 * 256.0 + kHead + 256;  // every parameter on each rank
        QVERIFY(close(ddp, 2 * 7.0 / 8 * psi * 2 / 450e9));  // ring all-reduce over NVLink (450 GB/s a direction)
        QVERIFY(close(dpSeconds(Sharding::Zero1, 1), ddp));
        QVERIFY(close(dpSeconds(Sharding::Zero2, 1), ddp));
        QVERIFY(close(dpSeconds(Sharding::Zero3, 1), 1.5 * ddp));
        QVERIFY(close(dpSeconds(Sharding::Fsdp2, 1), 1.5 * ddp));
        // With 4 micro-batches: DDP and ZeRO-1 still once a step; ZeRO-2 reduces
        // each micro-batch (4 + 1 halves); ZeRO-3 gathers and reduces each (4 x 3 halves).
        QVERIFY(close(dpSeconds(Sharding::Zero1, 4), ddp));
        QVERIFY(close(dpSeconds(Sharding::Zero2, 4), 5.0 / 2 * ddp));
        QVERIFY(close(dpSeconds(Sharding::Zero3, 4), 12.0 / 2 * ddp));
    }

    void recomputeFlops()
    {
        Scenario sc = smallScenario(1);
        const StepModel m = stepModel(sc.model, buildParameterTable(sc.model));
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const auto compute = [&](Checkpointing c) {
            Scenario v = sc;
            v.train.checkpointing = c;
            return estimateStepTime(m, v, parallelLayout(v).value(), gpu, interconnectFor(gpu)).computeSeconds;
        };
        const double forward = 2 * kLayerMatmul + 4.0 * 8 * 32 * 128;
        const double none = 256 * (4 * 3 * forward + 6 * kHead) / (989.5e12 * 0.6);
        QVERIFY(close(compute(Checkpointing::None), none));
        QVERIFY(close(compute(Checkpointing::Full), none + 256 * 4 * forward / (989.5e12 * 0.6)));
        // selective-op: half the forward's matrix products again, no attention.
        QVERIFY(close(compute(Checkpointing::SelectiveOps), none + 256 * 4 * kLayerMatmul / (989.5e12 * 0.6)));
    }

    // Under op-level checkpointing a mixture of experts' routed experts are
    // recomputed whole: the policy neither keeps nor counts their grouped
    // GEMMs. Moving X of a layer's matmul parameters into routed experts adds
    // X of recompute (a half, 0.5 x 2 X, becomes 2 X); full checkpointing
    // recomputes everything either way.
    void selectiveOpsRecomputeExperts()
    {
        Scenario sc = smallScenario(1);
        const StepModel dense = stepModel(sc.model, buildParameterTable(sc.model));
        StepModel moe = dense;
        moe.layerExpertMatmulParams = 0.5 * dense.layerMatmulParams;
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        const auto compute = [&](const StepModel& m, Checkpointing c) {
            Scenario v = sc;
            v.train.checkpointing = c;
            return estimateStepTime(m, v, parallelLayout(v).value(), gpu, interconnectFor(gpu)).computeSeconds;
        };
        const double experts = moe.layerExpertMatmulParams;
        QVERIFY(close(compute(moe, Checkpointing::SelectiveOps) - compute(dense, Checkpointing::SelectiveOps),
                      256 * 4 * experts / (989.5e12 * 0.6)));
        QVERIFY(close(compute(moe, Checkpointing::Full), compute(dense, Checkpointing::Full)));
        QVERIFY(close(compute(moe, Checkpointing::None), compute(dense, Checkpointing::None)));
    }

    // The search's fast path plans only the stages that can be the worst; its
    // counters must be those of planning every stage.
    void worstRankOnlyMatchesEveryStage_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("accum");
        QTest::addColumn<bool>("gpipe");
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<int>("sharding"); // 0: dp 1; 1: ZeRO-3 over dp 2; 2: FSDP2 over dp 2 (torchtitan's)
        for (int layers : {4, 7})
            for (int pp : {2, 3, 4})
                for (int accum : {1, 2, 3, 8})
                    for (bool gpipe : {false, true})
                        for (int c = 0; c < 3; ++c)
                            for (int sharding = 0; sharding < 3; ++sharding) {
                                if (accum == 3 && sharding != 2) // the FSDP2 rows depend on m against in-flight
                                    continue;
                                const char* names[] = {"dp1", "zero3", "fsdp2"};
                                QTest::addRow("L%d pp%d m%d %s ckpt%d %s", layers, pp, accum, gpipe ? "gpipe" : "1f1b",
                                              c, names[sharding])
                                    << layers << pp << accum << gpipe << c << sharding;
                            }
    }
    void worstRankOnlyMatchesEveryStage()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, accum);
        QFETCH(bool, gpipe);
        QFETCH(int, checkpointing);
        QFETCH(int, sharding);
        Scenario sc = smallScenario(std::uint64_t(2 * pp * (sharding != 0 ? 2 : 1)));
        const Sharding shardings[] = {Sharding::None, Sharding::Zero3, Sharding::Fsdp2};
        sc.hardware.sharding = shardings[sharding];
        sc.model = smallLlama(std::uint64_t(layers));
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = sharding == 2; // torchtitan's tensor parallelism has sequence parallelism
        sc.hardware.parallel.pp = std::uint64_t(pp);
        sc.hardware.parallel.ppSchedule = gpipe ? PipelineSchedule::GPipe : PipelineSchedule::OneFOneB;
        sc.train.gradAccum = std::uint64_t(accum);
        const Checkpointing c[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::SelectiveOps};
        sc.train.checkpointing = c[checkpointing];
        const ParameterTable table = buildParameterTable(sc.model);
        PlanOptions every, worst;
        every.estimateReserved = worst.estimateReserved = true;
        worst.worstRankOnly = true;
        const Plan a = makePlan(sc, table, every).value();
        const Plan b = makePlan(sc, table, worst).value();
        QCOMPARE(b.deviceUsedBytes, a.deviceUsedBytes);
        QCOMPARE(b.peakAllocatedBytes, a.peakAllocatedBytes);
        QCOMPARE(b.peakReservedBytes, a.peakReservedBytes);
        QCOMPARE(b.fits, a.fits);
        QCOMPARE(b.ranks[b.worstRank].stage, a.ranks[a.worstRank].stage);
        // At most the first, a middle stage with more layers and the last;
        // under FSDP2 one stage of each kind (parallelrows.cpp plannedStages).
        QVERIFY(b.ranks.size() <= (sharding == 2 ? 6U : 3U));
    }

    // 16 H100s, global batch 32. The enumeration by hand: tp in {1, 2, 4, 8}
    // (divisors of the node's 8), sp off and on for tp > 1, pp in the
    // divisors of 16 / tp up to the 4 layers, dp = 16 / (tp pp); five
    // shardings with tp = pp = 1, four otherwise, none at dp 1; micro-batches
    // the powers of two up to 32 / dp; three checkpointings.
    //   tp 1: pp 1 (dp 16: 2 mb x 5 x 3 = 30), pp 2 (dp 8: 3 x 4 x 3 = 36), pp 4 (dp 4: 4 x 4 x 3 = 48): 114
    //   tp 2: pp 1 (dp 8: 36), pp 2 (dp 4: 48), pp 4 (dp 2: 5 x 4 x 3 = 60): 144, twice: 288
    // 402 in all with four shardings under tp/pp (FSDP2 under tp/pp and
    // virtual stages are counted below). tp 4 and 8 do not divide the 2 KV heads: their 5 (tp, pp)
    // shapes (tp 4 with pp 1, 2, 4; tp 8 with pp 1, 2) are refused whole.
    void searchSmallModel()
    {
        Scenario sc = smallScenario(16);
        sc.train.globalBatch = 32;
        LayoutSearchOptions options;
        options.keep = 0; // every feasible layout
        auto r = searchLayouts(sc, options);
        QVERIFY2(r, r ? "" : r.error().detail.c_str());
        // The 5 refused (tp, pp) shapes, and their context-parallel
        // variants: tp 4 pp 1 with cp 2 and 4, tp 4 pp 2 with cp 2, tp 8 pp 1
        // with cp 2.
        QCOMPARE(r->refusedShapes, std::size_t(5 + 4));
        // 402 layouts without virtual stages, and 96 interleaved with vpp 2:
        // pp 2 (4 layers in 2 x 2 chunks) at tp 1 (dp 8, micro-batches 1 or
        // 2 so that pp divides the accumulation 4 or 2; 1 sp choice) and tp 2
        // (dp 4, micro-batches 1, 2, 4; sp off and on), each under 4
        // shardings and 3 checkpointings: 1 x 2 x 12 + 2 x 3 x 12 = 96.
        // And 57 with FSDP2 under tp/pp (torchtitan's composition: sp on
        // when tp > 1, no virtual stages), by micro-batch count x 3
        // checkpointings: tp 1 pp 2 (3 mb), tp 1 pp 4 (4), tp 2 pp 1 (3),
        // tp 2 pp 2 (4), tp 2 pp 4 (5): 19 x 3 = 57.
        // And 15 with HSDP, whose replicate groups are tried where the
        // data-parallel ranks span more than a node of 8 (shard within a
        // node): tp 1 pp 1 (dp 16 = 2 x 8; micro-batches 1, 2) and tp 2 pp 1
        // (dp 8 = 2 x 4; micro-batches 1, 2, 4), 5 x 3 checkpointings.
        // And 261 with context parallelism: FSDP2 only (sp on when tp > 1,
        // no virtual stages), cp each divisor of 16 / (tp pp) from 2 (the 128
        // tokens split into 2 x cp chunks for every cp up to 16), dp = 16 /
        // (tp pp cp), micro-batches the powers of two up to 32 / dp, HSDP
        // where dp spans more than the node's 8 / (tp cp) shard group, by 3
        // checkpointings:
        //   tp 1 pp 1: cp 2 (dp 8: 3 mb x 2 replicate choices), cp 4 (dp 4: 4 x 2), cp 8 (5), cp 16 (6): 25
        //   tp 1 pp 2: cp 2 (4), cp 4 (5), cp 8 (6): 15;  tp 1 pp 4: cp 2 (5), cp 4 (6): 11
        //   tp 2 pp 1: cp 2 (dp 4: 4 x 2), cp 4 (5), cp 8 (6): 19;  tp 2 pp 2: cp 2 (5), cp 4 (6): 11
        //   tp 2 pp 4: cp 2 (6): 6
        // (25 + 15 + 11 + 19 + 11 + 6) x 3 = 261.
        QCOMPARE(r->evaluated, std::size_t(402 + 96 + 57 + 15 + 261));
        QCOMPARE(r->refused, std::size_t(0));
        QVERIFY(r->commonRefusal.find("KV heads do not divide by tp") != std::string::npos);
        QVERIFY(r->gpusPerNodeAssumed);
        QCOMPARE(r->links.gpusPerNode, std::uint64_t(8));
        QVERIFY(!r->globalBatchDerived);
        QCOMPARE(r->feasible, r->evaluated); // a 4-layer model fits every layout on 80 GB
        QCOMPARE(r->layouts.size(), r->feasible - r->droppedBySimulation);
        QVERIFY(r->message.empty());
        for (std::size_t k = 0; k < r->layouts.size(); ++k) {
            const LayoutCandidate& c = r->layouts[k];
            QVERIFY(c.fits && c.reservedSimulated);
            QCOMPARE(c.tp * c.pp * c.cp * c.dp, std::uint64_t(16));
            if (c.cp > 1)
                QVERIFY(c.sharding == Sharding::Fsdp2 && c.time.contextParallelSeconds > 0);
            else
                QCOMPARE(c.time.contextParallelSeconds, 0.0);
            QCOMPARE(c.microBatch * c.gradAccum * c.dp, std::uint64_t(32));
            if (k > 0)
                QVERIFY(r->layouts[k - 1].time.stepSeconds <= c.time.stepSeconds);
            // What the search reports is what makePlan says of that layout.
            const Plan p = makePlan(applyLayout(sc, c)).value();
            QCOMPARE(c.deviceUsedBytes, p.deviceUsedBytes);
            QCOMPARE(c.peakAllocatedBytes, p.peakAllocatedBytes);
            QVERIFY(p.fits);
        }
        // The scenario's own layout and batch split do not matter: only its global batch.
        Scenario other = sc;
        other.hardware.parallel.tp = 2;
        other.train.microBatch = 4;
        other.train.gradAccum = 2;
        auto again = searchLayouts(other, options);
        QVERIFY(again);
        QCOMPARE(again->evaluated, r->evaluated);
        QCOMPARE(again->layouts.front().time.stepSeconds, r->layouts.front().time.stepSeconds);
        // Nor does its sharding: an FSDP2 scenario planned without sp (which
        // FSDP2 under tp requires) still has every tp > 1 shape searched.
        Scenario fsdp2 = sc;
        fsdp2.hardware.sharding = Sharding::Fsdp2;
        fsdp2.hardware.parallel.sp = false;
        auto third = searchLayouts(fsdp2, options);
        QVERIFY(third);
        QCOMPARE(third->refusedShapes, r->refusedShapes);
        QCOMPARE(third->evaluated, r->evaluated);
    }

    void globalBatchDerivedWhenAbsent()
    {
        Scenario sc = smallScenario(16);
        sc.train.microBatch = 2;
        sc.train.gradAccum = 1;
        auto r = searchLayouts(sc);
        QVERIFY(r);
        QVERIFY(r->globalBatchDerived);
        QCOMPARE(r->globalBatch, std::uint64_t(2 * 1 * 16));
        QCOMPARE(r->layouts.size(), std::size_t(10)); // the default keep
    }

    void nothingFits()
    {
        Scenario sc;
        sc.model = presetModel("meta-llama/Llama-3.1-70B").value();
        sc.train.precision = Precision::Fp16Mixed; // a T4 has no bf16
        sc.train.optimizer = Optimizer::AdamW;
        sc.train.seqLen = 4096;
        sc.train.globalBatch = 8;
        sc.hardware.gpu = "t4";
        sc.hardware.count = 2;
        auto r = searchLayouts(sc);
        QVERIFY(r);
        QVERIFY(r->layouts.empty());
        QCOMPARE(r->feasible, std::size_t(0));
        QVERIFY(r->evaluated > 0);
        QVERIFY(r->closest.has_value());
        QVERIFY2(r->message.rfind("No layout of 2 t4 GPUs fits", 0) == 0, r->message.c_str());
        QVERIFY(r->message.find("the closest") != std::string::npos);
    }

    void globalBatchThatNoLayoutDivides()
    {
        // 64 GPUs, 4 layers, 2 KV heads: tp 1 or 2 and pp at most 4 leave dp
        // 64, 32, 16 (tp 1) and 32, 16, 8 (tp 2); no cp, as 126 tokens split into 2 x cp
        // chunks for no power of two cp but 1 (126 = 2 x 63).
        Scenario sc = smallScenario(64);
        sc.train.globalBatch = 3;
        sc.train.seqLen = 126;
        auto r = searchLayouts(sc);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
        QCOMPARE(r.error().detail, std::string("train.global_batch: 3 sequences do not divide by the data-parallel "
                                               "degree of any layout of 64 GPUs (8, 16, 32, 64) that the planner "
                                               "accepts"));
    }

    void refusesWhatItCannotTime()
    {
        Scenario sc = smallScenario(8);
        sc.mode = Mode::Inference;
        auto inference = searchLayouts(sc);
        QVERIFY(!inference);
        QCOMPARE(inference.error().code, ErrorCode::InvalidArgument);
        sc.mode = Mode::Train;
        sc.hardware.gpu = "a10g"; // no published tensor peak
        auto noPeak = searchLayouts(sc);
        QVERIFY(!noPeak);
        QCOMPARE(noPeak.error().code, ErrorCode::UnsupportedCombination);
        QVERIFY(noPeak.error().detail.find("a10g") != std::string::npos);
    }

    // compareLayouts: the term in which #1 saves the most over #2, the one in
    // which it pays the most, and a tie broken by device used.
    void comparesTheBestWithTheRunnerUp()
    {
        LayoutCandidate best, next;
        best.time.computeSeconds = 1.0;
        best.time.dataParallelSeconds = 0.3;
        best.time.bubbleSeconds = 0.1;
        best.time.stepSeconds = 1.4;
        next.time.computeSeconds = 1.5;
        next.time.dataParallelSeconds = 0.1;
        next.time.bubbleSeconds = 0.0;
        next.time.stepSeconds = 1.6;
        LayoutComparison c = compareLayouts(best, next);
        QVERIFY(!c.tie);
        QVERIFY(close(c.gapSeconds, 0.2));
        QVERIFY(close(c.gapFraction, 0.2 / 1.6));
        QCOMPARE(c.savedTerm, StepTerm::Compute);
        QVERIFY(close(c.savedSeconds, 0.5));
        QCOMPARE(c.bestSavedTermSeconds, 1.0);
        QCOMPARE(c.runnerUpSavedTermSeconds, 1.5);
        QVERIFY(c.paidTerm.has_value());
        QCOMPARE(*c.paidTerm, StepTerm::DataParallel); // +0.2 s, more than the bubble's +0.1 s
        QVERIFY(close(c.paidSeconds, 0.2));

        // Better or equal in every term: nothing paid.
        next.time.dataParallelSeconds = 0.4;
        next.time.bubbleSeconds = 0.1;
        next.time.stepSeconds = 2.0;
        c = compareLayouts(best, next);
        QVERIFY(!c.paidTerm.has_value());
        QCOMPARE(c.paidSeconds, 0.0);

        // The same step: first by less device used, and said so.
        next.time = best.time;
        best.deviceUsedBytes = 10;
        next.deviceUsedBytes = 20;
        c = compareLayouts(best, next);
        QVERIFY(c.tie);
        QCOMPARE(c.gapSeconds, 0.0);
        QCOMPARE(c.bestDeviceUsedBytes, Bytes(10));
        QCOMPARE(c.runnerUpDeviceUsedBytes, Bytes(20));

        // On a real search the explanation adds up. The step is the sum of
        // its five terms, so the gap is the sum of their differences: the
        // largest saving is at least a fifth of it, and all of it at most
        // when nothing is paid.
        Scenario sc = smallScenario(16);
        sc.train.globalBatch = 32;
        auto r = searchLayouts(sc);
        QVERIFY(r && r->layouts.size() >= 2);
        const LayoutCandidate& first = r->layouts[0];
        const LayoutCandidate& second = r->layouts[1];
        c = compareLayouts(first, second);
        QCOMPARE(c.tie, !(second.time.stepSeconds > first.time.stepSeconds));
        if (!c.tie) {
            QVERIFY(close(c.gapSeconds, second.time.stepSeconds - first.time.stepSeconds));
            QVERIFY(c.savedSeconds * 5 >= c.gapSeconds * (1 - 1e-9));
            if (!c.paidTerm)
                QVERIFY(c.savedSeconds <= c.gapSeconds * (1 + 1e-9));
            QVERIFY(close(c.savedSeconds, c.runnerUpSavedTermSeconds - c.bestSavedTermSeconds));
        }
    }

    void cancels()
    {
        Scenario sc = smallScenario(16);
        LayoutSearchOptions options;
        options.progress = [](std::size_t done, std::size_t) { return done < 2; };
        auto r = searchLayouts(sc, options);
        QVERIFY(r);
        QVERIFY(r->cancelled);
        QVERIFY(r->evaluated < 402);
    }
};

QTEST_APPLESS_MAIN(TestLayoutSearch)
#include "test_layoutsearch.moc"
