// SPDX-License-Identifier: GPL-3.0-or-later
// Interleaved 1F1B (hardware.parallel.vpp > 1; plan/parallel.h,
// parallelrows.cpp, fsdp2rows.cpp). Every expected number below is derived
// by hand in its comment from the schedule's formulas:
// - warm-up of rank r (Megatron-LM schedules.py get_pp_rank_microbatches;
//   torch.distributed.pipelining ScheduleInterleaved1F1B _get_warmup_ops):
//   W_r = min(2 (pp - r - 1) + (vpp - 1) pp, vpp m) chunk forwards;
// - forward k runs chunk (k / pp) mod vpp, backward k chunk
//   vpp - 1 - (k / pp) mod vpp; after the warm-up each step is one forward
//   then one backward, so a rank holds W_r + 1 chunk micro-batches (at most
//   vpp m) from the first steady-state forward on;
// - layers: Megatron-LM every chunk L / (pp vpp); torchtitan@9dec370
//   generate_split_points: virtual stages 1 .. L mod (pp vpp) one more.
// The model is the 4-layer Llama-like one of tests/engine/test_parallel.cpp
// (hidden 256, 8 heads, 2 KV heads, head_dim 32, MLP 704, vocabulary 1000)
// with other layer counts where a test says so; pure bf16, AdamW,
// micro-batch 2 x sequence 128, flash.
#include "model/hfconfig.h"
#include "plan/parallel.h"
#include "plan/planbuild.h"
#include "plan/planner.h"
#include "plan/sweep.h"
#include "planrows.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;
using testing::findRow;
using testing::layoutOrFail;
using testing::rowBytes;
using testing::rowTensors;
using testing::stagePlan;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000;
constexpr Bytes b = 2, s = 128, T = b * s;

ModelSpec smallLlama(Bytes layers) { return testing::smallModel({"llama", h, layers, a, kv, i, V, false}); }

// Megatron-style layout (sharding none), pure bf16.
Scenario megatron(Bytes layers, std::uint64_t pp, std::uint64_t vpp, std::uint64_t microBatches)
{
    Scenario sc;
    sc.model = smallLlama(layers);
    sc.train.precision = Precision::Bf16;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.gradAccum = microBatches;
    sc.train.attention = Attention::Flash;
    sc.train.useCache = UseCache::Off;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = pp;
    sc.hardware.parallel.pp = pp;
    sc.hardware.parallel.vpp = vpp;
    return sc;
}

// torchtitan's layout (FSDP2 over dp), bf16-mixed: bf16 param_dtype, fp32 reduce_dtype.
Scenario torchtitan(Bytes layers, std::uint64_t pp, std::uint64_t vpp, std::uint64_t microBatches)
{
    Scenario sc = megatron(layers, pp, vpp, microBatches);
    sc.train.precision = Precision::Bf16Mixed;
    sc.hardware.sharding = Sharding::Fsdp2;
    return sc;
}

// One Llama layer's parameters (test_parallel.cpp layerParams with t = 1):
// q, k, v, o, gate, up, down and the two RMSNorms.
constexpr Bytes layerParams = h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i + 2 * h;

// One layer's saves for the HF Llama layer in bf16 with flash (memory-model.md
// §1; test_parallel.cpp expectedSaved with t = 1): per norm fp32 input 4Th,
// rsqrt 4T, normalised 2Th, linear input 2Th (x2: 16Th + 8T); q and the
// attention output 2T·a·d each, k and v 2T·kv·d each, the fp32 log-sum-exp
// 4·b·a·s, the gated MLP 4 x 2T·i.
constexpr Bytes savedPerLayer = 16 * T * h + 8 * T + 4 * T * a * d + 4 * T * kv * d + 4 * b * a * s + 8 * T * i;




} // namespace

class TestInterleaved : public QObject {
    Q_OBJECT

private slots:
    // torchtitan's weighted split (scenario.h PipelineSplit::Weighted,
    // generate_llm_fqn_per_model_part with input and output weight 1). The
    // worked example is torchtitan 8a749c618's own log (PR #1616, DeepSeek-V3
    // 16B, 27 layers, pp 4 x 2 stages per rank): "Stage 3: ... layers.11,
    // layers.12, layers.13, layers.14", "Stage 7: ... layers.25, layers.26,
    // norm, output". 27 + 2 = 29 effective layers over 8 stages: 3 each, the
    // first 29 mod 8 = 5 one more: 4 4 4 4 4 3 3 3, less the embedding on
    // stage 0 and the output on stage 7: 3 4 4 4 4 3 3 2 (layers 0-2, 3-6,
    // 7-10, 11-14, 15-18, 19-21, 22-24, 25-26). PP rank 3 holds stages 3 and
    // 7: 6 layers and the head.
    void weightedPipelineSplit()
    {
        const auto split = weightedSplit(27, 8);
        QVERIFY(split.ok());
        QCOMPARE(split.value(), (std::vector<std::uint64_t>{3, 4, 4, 4, 4, 3, 3, 2}));
        std::uint64_t first = 0;
        for (std::uint64_t s = 0; s < 3; ++s)
            first += split.value()[s];
        QCOMPARE(first, std::uint64_t{11}); // stage 3 starts at layers.11
        Scenario sc = torchtitan(27, 4, 2, 8);
        sc.hardware.count = 8; // dp_shard 2
        sc.hardware.parallel.ppSplit = PipelineSplit::Weighted;
        const ParallelLayout l = layoutOrFail(sc);
        QCOMPARE(l.layersOfChunk(3, 0), std::uint64_t{4});
        QCOMPARE(l.layersOfChunk(3, 1), std::uint64_t{2});
        QCOMPARE(l.stageLayers, (std::vector<std::uint64_t>{7, 7, 7, 6}));
        // Without the weights (generate_split_points): 27 = 8 x 3 + 3, stages 1-3 one more.
        sc.hardware.parallel.ppSplit = PipelineSplit::Layers;
        QCOMPARE(layoutOrFail(sc).stageLayers, (std::vector<std::uint64_t>{6, 7, 7, 7}));
        // vpp 1: 29 over 4 = 7 a stage, the first one more, less the weights: 7 7 7 6.
        QCOMPARE(weightedSplit(27, 4).value(), (std::vector<std::uint64_t>{7, 7, 7, 6}));
        // Fewer than two effective layers a stage: the last would hold none.
        QVERIFY(!weightedSplit(6, 8).ok());
        QVERIFY(weightedSplit(6, 4).ok()); // 8 over 4: 1 2 2 1
        QCOMPARE(weightedSplit(6, 4).value(), (std::vector<std::uint64_t>{1, 2, 2, 1}));
    }

    // pp 4, vpp 2, 8 micro-batches (8 layers, one per chunk):
    // W_r = 2 (3 - r) + 1 x 4 = 10, 8, 6, 4 for r = 0..3, none capped by
    // vpp m = 16; in flight W_r + 1 = 11, 9, 7, 5 chunk micro-batches.
    // With 4 micro-batches vpp m = 8 caps them: W = min(10, 8) = 8,
    // min(8, 8) = 8, 6, 4; in flight min(W + 1, 8) = 8, 8, 7, 5 (ranks 0 and 1
    // run every forward before their first backward).
    void warmUpAndInFlight()
    {
        const ParallelLayout eight = layoutOrFail(megatron(8, 4, 2, 8));
        const std::uint64_t warmup[] = {10, 8, 6, 4}, inFlight[] = {11, 9, 7, 5};
        for (std::uint64_t r = 0; r < 4; ++r) {
            QCOMPARE(eight.interleavedWarmup(r), warmup[r]);
            QCOMPARE(eight.inFlightMicroBatches(r), inFlight[r]);
        }
        const ParallelLayout four = layoutOrFail(megatron(8, 4, 2, 4));
        const std::uint64_t cappedWarmup[] = {8, 8, 6, 4}, cappedInFlight[] = {8, 8, 7, 5};
        for (std::uint64_t r = 0; r < 4; ++r) {
            QCOMPARE(four.interleavedWarmup(r), cappedWarmup[r]);
            QCOMPARE(four.inFlightMicroBatches(r), cappedInFlight[r]);
        }
        // The plan reports each planned rank's count (Megatron path: ranks 0 and 3,
        // the middle ones bounded by rank 0) and each rank's chunks.
        const Plan p = testing::planOrFail(megatron(8, 4, 2, 8));
        QCOMPARE(p.virtualStages, std::uint64_t{2});
        for (const RankPlan& r : p.ranks) {
            QCOMPARE(r.inFlightMicroBatches, inFlight[r.stage]);
            QCOMPARE(r.chunkLayers, (std::vector<std::uint64_t>{1, 1}));
        }
    }

    // The held chunks at the peak, step by step. pp 2, vpp 2, m 4 (N = 8):
    // forwards run chunks 0 0 1 1 0 0 1 1, backwards 1 1 0 0 1 1 0 0.
    // Rank 0, W = 2 x 1 + 1 x 2 = 4: warm-up F0..F3 holds {2, 2}; then
    // F4 {3, 2} B0 {3, 1}, F5 {4, 1} B1 {4, 0}, F6 {4, 1} B2 {3, 1},
    // F7 {3, 2}: five chunk micro-batches after every steady forward. With
    // equal chunks the latest of them is taken (F7), by which B0..B2 have run
    // both chunks' first backwards.
    // Rank 1, W = 0 + 1 x 2 = 2: F0 F1 {2, 0}; F2 {2, 1} B0 {2, 0}, F3 {2, 1}
    // B1, F4 {3, 0} B2 {2, 0}, F5 {3, 0} B3, F6 {2, 1} B4, F7 {2, 1}. With the
    // last chunk heavier (the head and the loss are on it) {2, 1} is the peak,
    // last at F7.
    void heldAtThePeak()
    {
        const ParallelLayout l = layoutOrFail(megatron(4, 2, 2, 4));
        const InterleavedPeak rank0 = interleavedPeak(l, 0, {100, 100}, {0, 0});
        QCOMPARE(rank0.held, (std::vector<std::uint64_t>{3, 2}));
        QCOMPARE(rank0.heldTotal(), std::uint64_t{5});
        QCOMPARE(rank0.gradientsMade, (std::vector<bool>{true, true}));
        const InterleavedPeak rank1 = interleavedPeak(l, 1, {100, 150}, {0, 0});
        QCOMPARE(rank1.held, (std::vector<std::uint64_t>{2, 1}));
        QCOMPARE(rank1.gradientsMade, (std::vector<bool>{true, true}));
        // With chunk 0 the heavier, {3, 0} (F4 or F5; F5 the latest) is:
        // 3 x 120 = 360 > 2 x 120 + 50 = 290.
        const InterleavedPeak heavyFirst = interleavedPeak(l, 1, {120, 50}, {0, 0});
        QCOMPARE(heavyFirst.held, (std::vector<std::uint64_t>{3, 0}));
        // Gradients count once made: at F3 chunk 1's (after B0) join {2, 1}.
        // m 2 (N = 4): rank 1, W = 2, runs F2 B0 F3 B1 then B2 B3: the peak is
        // F3 with chunk 1's gradients only.
        const ParallelLayout two = layoutOrFail(megatron(4, 2, 2, 2));
        const InterleavedPeak partial = interleavedPeak(two, 1, {100, 100}, {10, 10});
        QCOMPARE(partial.held, (std::vector<std::uint64_t>{2, 1}));
        QCOMPARE(partial.gradientsMade, (std::vector<bool>{false, true}));
        // Rank 0 with m 2: W = min(4, 4) = 4, every forward first; no gradient at the peak.
        const InterleavedPeak allForward = interleavedPeak(two, 0, {100, 100}, {10, 10});
        QCOMPARE(allForward.held, (std::vector<std::uint64_t>{2, 2}));
        QCOMPARE(allForward.gradientsMade, (std::vector<bool>{false, false}));
    }

    // Megatron: L / (pp vpp) layers per chunk. torchtitan (FSDP2): 10 layers
    // over 4 virtual stages: base 2, 10 mod 4 = 2 extra to virtual stages 1
    // and 2, i.e. split points layers.2, layers.5, layers.8 and chunks
    // [2, 3, 3, 2]; rank 0 holds virtual stages 0 and 2 (2 + 3), rank 1 1 and
    // 3 (3 + 2). 9 layers: splits 2, 5, 7, chunks [2, 3, 2, 2]; rank 0 2 + 2,
    // rank 1 3 + 2.
    void layersOverChunks()
    {
        const ParallelLayout even = layoutOrFail(megatron(16, 2, 4, 2));
        QCOMPARE(even.chunkLayers, std::vector<std::uint64_t>(8, 2));
        QCOMPARE(even.stageLayers, (std::vector<std::uint64_t>{8, 8}));

        const ParallelLayout ten = layoutOrFail(torchtitan(10, 2, 2, 2));
        QCOMPARE(ten.chunkLayers, (std::vector<std::uint64_t>{2, 3, 3, 2}));
        QCOMPARE(ten.layersOfChunk(0, 0), std::uint64_t{2});
        QCOMPARE(ten.layersOfChunk(0, 1), std::uint64_t{3});
        QCOMPARE(ten.layersOfChunk(1, 0), std::uint64_t{3});
        QCOMPARE(ten.layersOfChunk(1, 1), std::uint64_t{2});
        QCOMPARE(ten.stageLayers, (std::vector<std::uint64_t>{5, 5}));
        const ParallelLayout nine = layoutOrFail(torchtitan(9, 2, 2, 2));
        QCOMPARE(nine.chunkLayers, (std::vector<std::uint64_t>{2, 3, 2, 2}));
        QCOMPARE(nine.stageLayers, (std::vector<std::uint64_t>{4, 5}));
        const Plan p = testing::planOrFail(torchtitan(9, 2, 2, 2));
        QCOMPARE(p.ranks.size(), std::size_t{2});
        QCOMPARE(p.ranks[0].chunkLayers, (std::vector<std::uint64_t>{2, 2}));
        QCOMPARE(p.ranks[1].chunkLayers, (std::vector<std::uint64_t>{3, 2}));
        QCOMPARE(p.ranks[1].layers, std::uint64_t{5});
    }

    // 4 layers, pp 2, vpp 2: one layer per chunk; rank 0 holds layers 0 and 2
    // and the embedding (chunk 0 is virtual stage 0), rank 1 layers 1 and 3,
    // the final norm and the head (its chunk 1 is the last virtual stage).
    // In bf16: 2 layers x layerParams x 2 bytes, + V·h x 2 or + (V·h + h) x 2.
    void parametersOfTheChunks()
    {
        const Plan p = testing::planOrFail(megatron(4, 2, 2, 4));
        QCOMPARE(p.ranks.size(), std::size_t{2});
        const Bytes layers = 2 * layerParams * 2;
        QCOMPARE(p.ranks[0].breakdown[size_t(Category::Weights)], layers + V * h * 2);
        QCOMPARE(p.ranks[1].breakdown[size_t(Category::Weights)], layers + (V * h + h) * 2);
        QCOMPARE(rowBytes(stagePlan(megatron(4, 2, 2, 4), 1), "weights.layer"), layerParams * 2);
    }

    // pp 2, vpp 2, m 4, one layer per chunk, savedPerLayer = 2,828,288 bytes
    // (one chunk micro-batch; the Llama embedding saves nothing).
    // Rank 0 holds 5 chunk micro-batches at its peak (heldAtThePeak), the
    // pass itself one of each of its 2 chunks: 3 more, 8,484,864 bytes.
    // Narayanan et al. 2021 §2.2.2: the first stage holds
    // p (1 + (p - 1)/(p v)) = 2 x 1.25 = 2.5 micro-batches' worth, 2.5 x 2
    // layers = 5 layers' saves. Plain 1F1B holds 2 micro-batches (4 layers'),
    // 1 more than the pass: 5,656,576 (test_parallel.cpp stash0).
    // Rank 1 holds {2, 1} (chunk 1 with the head and the loss once): the
    // pass holds {1, 1}, so one more chunk 0 micro-batch, 2,828,288.
    void inFlightBytes()
    {
        QCOMPARE(savedPerLayer, Bytes{2828288});
        const Scenario interleaved = megatron(4, 2, 2, 4);
        QCOMPARE(rowBytes(stagePlan(interleaved, 0), "pipeline.in_flight"), 3 * savedPerLayer); // 8,484,864
        QCOMPARE(rowBytes(stagePlan(interleaved, 1), "pipeline.in_flight"), savedPerLayer);     // 2,828,288
        const Scenario plain = megatron(4, 2, 1, 4);
        QCOMPARE(rowBytes(stagePlan(plain, 0), "pipeline.in_flight"), 2 * savedPerLayer); // 5,656,576
        QCOMPARE(rowBytes(stagePlan(plain, 1), "pipeline.in_flight"), Bytes{0});
        // The allocator is given those as the tensors they are (each kept
        // row again, 3 times here), as plain 1F1B's: they add up to the row.
        const Plan zero = stagePlan(interleaved, 0);
        const TensorRow* flight = findRow(zero, "pipeline.in_flight");
        QVERIFY(flight && flight->pieceEnd > flight->pieceBegin);
        Bytes pieces = 0;
        for (std::uint32_t k = flight->pieceBegin; k < flight->pieceEnd; ++k) {
            QCOMPARE(zero.pieces[k].count % 3, std::uint64_t{0});
            pieces += zero.pieces[k].bytes * zero.pieces[k].count;
        }
        QCOMPARE(pieces, flight->bytes);
        // The plan's counters are those of the fuller rank, planned as such.
        const Plan p = testing::planOrFail(interleaved);
        QCOMPARE(p.deviceUsedBytes, p.ranks[p.worstRank].deviceUsedBytes);
        QCOMPARE(p.ranks[0].peakAllocatedBytes, stagePlan(interleaved, 0).peakAllocatedBytes);
        QCOMPARE(p.ranks[1].peakAllocatedBytes, stagePlan(interleaved, 1).peakAllocatedBytes);
    }

    // FSDP2 (torchtitan) under interleaving: each rank keeps both its chunks
    // unsharded (param_dtype, 2 bytes) and accumulates their gradients in
    // reduce_dtype (fp32, 4 bytes) from each chunk's first backward.
    // 4 layers, pp 2, vpp 2: one layer per chunk (4 mod 4 = 0).
    // m 4: both ranks have run both chunks' first backwards by their last
    // peak (rank 0 at F7 after B0..B2; rank 1 at F7 after B0..B4), so all the
    // gradients are alive through the pass: one row of the rank's
    // parameters x 4, as plain 1F1B's steady state.
    // m 2: rank 0 runs its 4 forwards first (W = 4): no gradient at its
    // peak; each layer's grow through the backward, 2 layers of 2 later:
    // layerParams x 4 per layer, the embedding's (V·h x 4) from its backward.
    // Rank 1 (W = 2) peaks at F3 after B0, chunk 1's first backward: chunk 1
    // (1 layer, the norm and the head) alive through the pass,
    // (layerParams + V·h + h) x 4; chunk 0's layer later, 1 of the rank's 2
    // layers: layerParams x 4 x 1 / 2 per layer.
    void fsdp2KeepsEveryChunk()
    {
        const Bytes rank0 = 2 * layerParams + V * h, rank1 = 2 * layerParams + V * h + h;
        for (std::uint64_t stage : {0, 1}) {
            const Plan p = stagePlan(torchtitan(4, 2, 2, 4), stage);
            const Bytes params = stage == 0 ? rank0 : rank1;
            QCOMPARE(rowBytes(p, "fsdp2.unsharded_stage"), params * 2);
            const TensorRow* acc = findRow(p, "fsdp2.accumulated_grads");
            QVERIFY(acc);
            QCOMPARE(acc->bytes, params * 4);
            QCOMPARE(int(acc->allocAt), int(Phase::EmbedFwd));
            QVERIFY(rowTensors(p, acc).second); // per parameter, as plain 1F1B's
            QVERIFY(!findRow(p, "fsdp2.accumulated_grads_later"));
            QVERIFY(!findRow(p, "fsdp2.accumulated_root_grads"));
        }
        const Plan first = stagePlan(torchtitan(4, 2, 2, 2), 0);
        QVERIFY(!findRow(first, "fsdp2.accumulated_grads"));
        const TensorRow* later = findRow(first, "fsdp2.accumulated_grads_later");
        QVERIFY(later);
        QCOMPARE(later->bytes, layerParams * 4);
        QCOMPARE(int(later->layers), int(LayerSet::All));
        QCOMPARE(int(later->allocAt), int(Phase::LayerBwd));
        QVERIFY(rowTensors(first, later).second); // every layer's share whole: per parameter
        const TensorRow* embedding = findRow(first, "fsdp2.accumulated_root_grads");
        QVERIFY(embedding);
        QCOMPARE(embedding->bytes, V * h * 4);
        QCOMPARE(int(embedding->allocAt), int(Phase::EmbedBwd));
        QVERIFY(rowTensors(first, embedding).second);

        const Plan last = stagePlan(torchtitan(4, 2, 2, 2), 1);
        QCOMPARE(rowBytes(last, "fsdp2.accumulated_grads"), (layerParams + V * h + h) * 4);
        // Each parameter's share, elements x 4 bytes x 1 / 2 layers, is exact
        // (2 bytes an element), so the row is layerParams x 2.
        QCOMPARE(rowBytes(last, "fsdp2.accumulated_grads_later"), layerParams * 4 / 2);
        QVERIFY(rowTensors(last, findRow(last, "fsdp2.accumulated_grads")).second);
        // Half of each parameter's gradients per layer, one tensor per parameter.
        const TensorRow* half = findRow(last, "fsdp2.accumulated_grads_later");
        QVERIFY(rowTensors(last, half).second);
        QCOMPARE(Bytes(half->pieceEnd - half->pieceBegin), Bytes(buildParameterTable(smallLlama(4)).layer.size()));
        QVERIFY(!findRow(last, "fsdp2.accumulated_root_grads"));
        QCOMPARE(rowBytes(last, "fsdp2.unsharded_stage"), rank1 * 2);
    }

    // vpp = 1 is planned as before: the expectations of test_parallel.cpp
    // (pp 2, m 4: stage 0 holds 2 micro-batches, one more than its pass, two
    // layers' saves = 5,656,576; stage 1 none more), one chunk per stage, no
    // chunk layers reported, no "vpp" in the JSON.
    void vppOneIsUnchanged()
    {
        const Scenario sc = megatron(4, 2, 1, 4);
        const ParallelLayout l = layoutOrFail(sc);
        QCOMPARE(l.chunkLayers, l.stageLayers);
        QCOMPARE(l.inFlightMicroBatches(0), std::uint64_t{2});
        QCOMPARE(l.inFlightMicroBatches(1), std::uint64_t{1});
        const Plan p = testing::planOrFail(sc);
        QCOMPARE(p.virtualStages, std::uint64_t{1});
        for (const RankPlan& r : p.ranks)
            QVERIFY(r.chunkLayers.empty());
        QCOMPARE(rowBytes(stagePlan(sc, 0), "pipeline.in_flight"), Bytes{5656576});
        // Uneven vpp-1 splits keep Headroom's rule: 4 layers over 3 stages, the last takes the extra.
        QCOMPARE(layoutOrFail(megatron(4, 3, 1, 4)).stageLayers, (std::vector<std::uint64_t>{1, 1, 2}));
    }

    // The sweep's timeline equals the brute-force placement of every row
    // (sweep.h referenceTimeline) for interleaved layouts of both paths.
    void sweepMatchesTheReference()
    {
        for (bool fsdp2 : {false, true})
            for (std::uint64_t m : {2, 4, 6})
                for (Checkpointing ckpt : {Checkpointing::None, Checkpointing::Full}) {
                    Scenario sc = fsdp2 ? torchtitan(6, 2, 3, m) : megatron(6, 2, 3, m);
                    sc.train.checkpointing = ckpt;
                    for (std::uint64_t stage = 0; stage < 2; ++stage) {
                        const Plan p = stagePlan(sc, stage);
                        const auto reference = referenceTimeline(p, Mode::Train);
                        QCOMPARE(p.timeline.size(), reference.size());
                        for (std::size_t e = 0; e < reference.size(); ++e)
                            QVERIFY2(p.timeline[e] == reference[e],
                                     qPrintable(QStringLiteral("fsdp2 %1 m %2 stage %3: event %4")
                                                    .arg(fsdp2)
                                                    .arg(m)
                                                    .arg(stage)
                                                    .arg(e)));
                    }
                }
    }

    // The quick mode plans rank 0 and the last (Megatron, even chunks): a
    // middle rank has rank 0's rows less the embedding's and fewer chunk
    // micro-batches in flight (W falls by 2 per rank). The counters equal
    // planning every rank.
    void worstRankOnlyMatchesEveryRank()
    {
        for (std::uint64_t m : {4, 8, 12}) {
            const Scenario sc = megatron(8, 4, 2, m);
            const ParameterTable table = buildParameterTable(sc.model);
            PlanOptions quick;
            quick.worstRankOnly = true;
            auto fast = makePlan(sc, table, quick);
            auto full = makePlan(sc, table, PlanOptions{});
            QVERIFY(fast.ok() && full.ok());
            QCOMPARE(fast->ranks.size(), std::size_t{2});
            QCOMPARE(full->ranks.size(), std::size_t{4});
            QCOMPARE(fast->peakAllocatedBytes, full->peakAllocatedBytes);
            QCOMPARE(fast->deviceUsedBytes, full->deviceUsedBytes);
        }
    }

    void refusals_data()
    {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("vpp");
        QTest::addColumn<int>("microBatches");
        QTest::addColumn<bool>("fsdp2");
        QTest::addColumn<bool>("gpipe");
        QTest::addColumn<QString>("message");
        // 6 layers over pp 2 x vpp 2 = 4 chunks: Megatron-LM's
        // get_num_layers_to_build asserts (6 / 2) % 2 == 0.
        QTest::newRow("layers do not divide (Megatron)")
            << 6 << 2 << 2 << 4 << false << false
            << QStringLiteral("hardware.parallel.vpp: 6 layers do not divide by pp 2 x vpp 2 = 4 model chunks "
                              "(Megatron-LM gives every chunk layers / (pp x vpp); torchtitan's uneven split is "
                              "planned under fsdp2)");
        QTest::newRow("more chunks than layers (torchtitan)")
            << 6 << 2 << 4 << 4 << true << false
            << QStringLiteral("hardware.parallel.vpp: pp 2 x vpp 4 = 8 model chunks for 6 layers; every chunk "
                              "needs at least one layer");
        // 6 micro-batches in groups of pp 4: Megatron-LM raises when
        // 0 < 6 mod 4 < 4; torch 2.5 when 6 mod 4 != 0.
        QTest::newRow("micro-batches do not divide by pp")
            << 8 << 4 << 2 << 6 << false << false
            << QStringLiteral("train.grad_accum: 6 micro-batches do not divide by pp 4; the interleaved schedule "
                              "(vpp 2) runs them in groups of pp (Megatron-LM "
                              "forward_backward_pipelining_with_interleaving, torch ScheduleInterleaved1F1B)");
        QTest::newRow("fewer micro-batches than pp (torchtitan)")
            << 8 << 4 << 2 << 2 << true << false
            << QStringLiteral("train.grad_accum: 2 micro-batches do not divide by pp 4; the interleaved schedule "
                              "(vpp 2) runs them in groups of pp (Megatron-LM "
                              "forward_backward_pipelining_with_interleaving, torch ScheduleInterleaved1F1B)");
        QTest::newRow("gpipe over virtual stages")
            << 8 << 4 << 2 << 4 << false << true
            << QStringLiteral("hardware.parallel.pp_schedule: virtual stages (vpp 2) are planned with interleaved "
                              "1F1B; gpipe over virtual stages is not modelled, set 1f1b");
        QTest::newRow("vpp 0") << 8 << 4 << 0 << 4 << false << false
                               << QStringLiteral("hardware.parallel.vpp: must be at least 1, got 0");
        // No overflow or wrap: pp 2 x vpp 2^30 = 2^31 chunks, named.
        QTest::newRow("huge vpp") << 8 << 2 << (1 << 30) << 4 << false << false
                                  << QStringLiteral("hardware.parallel.vpp: pp 2 x vpp 1073741824 = 2147483648 model "
                                                    "chunks for 8 layers; every chunk needs at least one layer");
    }

    void refusals()
    {
        QFETCH(int, layers);
        QFETCH(int, pp);
        QFETCH(int, vpp);
        QFETCH(int, microBatches);
        QFETCH(bool, fsdp2);
        QFETCH(bool, gpipe);
        QFETCH(QString, message);
        Scenario sc =
            fsdp2 ? torchtitan(Bytes(layers), std::uint64_t(pp), std::uint64_t(vpp), std::uint64_t(microBatches))
                  : megatron(Bytes(layers), std::uint64_t(pp), std::uint64_t(vpp), std::uint64_t(microBatches));
        if (gpipe)
            sc.hardware.parallel.ppSchedule = PipelineSchedule::GPipe;
        auto plan = makePlan(sc);
        QVERIFY(!plan.ok());
        QCOMPARE(QString::fromStdString(plan.error().detail), message);
        // The same layout under the other path: the layer split is Megatron's
        // refusal only; torchtitan plans 6 layers over 4 chunks as [1, 2, 2, 1].
        if (QByteArray(QTest::currentDataTag()) == "layers do not divide (Megatron)") {
            const ParallelLayout uneven = layoutOrFail(torchtitan(6, 2, 2, 4));
            QCOMPARE(uneven.chunkLayers, (std::vector<std::uint64_t>{1, 2, 2, 1}));
        }
    }
};

QTEST_GUILESS_MAIN(TestInterleaved)
#include "test_interleaved.moc"
