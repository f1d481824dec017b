// SPDX-License-Identifier: GPL-3.0-or-later
// The step-time model of the layout search (plan/steptime.h): compute,
// recompute, the pipeline bubble and sends, and the tensor-, data-, context-
// and expert-parallel communication terms. Every expected number is derived
// by hand from the formulas cited in steptime.cpp, for a 4-layer Llama-like
// model: hidden 256, 8 heads of 32, 2 KV heads, MLP 704, vocabulary 1000,
// untied. The search itself: test_layoutsearch.cpp.
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

using testing::smallScenario;

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

class TestStepTime : public QObject {
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

    // torchtitan's MoE under tp (FSDP2, ep 1: apply_moe_ep_tp; steptime.cpp):
    // the MoE block's input is all-gathered and its output reduce-scattered
    // like a dense MLP's under sequence parallelism, so every Mixtral layer
    // has a dense layer's collectives: 2 all-reduce equivalents of T x h for
    // attention and 2 for the MoE block, one more each in the full
    // recompute, 6 in all, of the 1024 tokens x 4096 x 2 bytes over tp 2 at
    // 400 GB/s; 32 layers, 2 micro-batches. No token slots are gathered over
    // the experts' tp ranks, and there is no all-to-all (ep 1).
    void torchtitanMoeTensorParallelTerm()
    {
        Scenario sc = mixtralOn16();
        sc.hardware.sharding = Sharding::Fsdp2;
        sc.hardware.parallel.tp = 2;
        sc.hardware.parallel.sp = true;
        const Interconnect links{8, 400, 40, "test"};
        const GpuSpec gpu = findGpu("h100-sxm-80gb").value();
        auto layout = parallelLayout(sc);
        QVERIFY2(layout, layout ? "" : layout.error().detail.c_str());
        const StepTime t =
            estimateStepTime(stepModel(sc.model, buildParameterTable(sc.model)), sc, layout.value(), gpu, links);
        const double collective = 2.0 * (1.0 / 2) * (1024.0 * 4096 * 2) / 400e9;
        QVERIFY(close(t.tensorParallelSeconds, 2 * 32 * 6 * collective));
        QCOMPARE(t.expertParallelSeconds, 0.0);
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

    // Context parallelism (cp 4 x dp 4, FSDP2, full checkpointing): each
    // rank computes 1/4 of each sequence's tokens against the whole context;
    // ring attention all-gathers the keys and values (2 KV heads x 32, pure
    // bf16) in forward, again in the recompute and in backward, and
    // reduce-scatters their gradients: 4 collectives of (cp - 1) / cp of the
    // sequence's keys and values a layer, inside a node (ranks 1 apart).
    // FSDP2 shards over dp x cp = 16 ranks, which span two nodes of 8.
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
};

QTEST_APPLESS_MAIN(TestStepTime)
#include "test_steptime.moc"
