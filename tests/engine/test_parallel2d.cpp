// SPDX-License-Identifier: GPL-3.0-or-later
// FSDP2 under tensor, pipeline and context parallelism, as torchtitan
// composes them (plan/parallel.h, plan/torchtitanrows.cpp, plan/fsdp2rows.cpp).
// Every expected number is derived here from the formulas, for a 4-layer
// Llama-like model (hidden 256, 8 heads, 2 KV heads, head_dim 32, MLP 704,
// vocabulary 1000), bf16-mixed under FSDP2 (bf16 param_dtype, fp32 reduce
// and fp32 sharded masters, AdamW), micro-batch 2 x sequence 128, flash.
#include "model/hfconfig.h"
#include "plan/parallel.h"
#include "plan/planbuild.h"
#include "plan/planner.h"
#include "plan/sweep.h"
#include "planrows.h"
#include "rankplan.h"
#include "smallmodel.h"

#include <QtTest>

#include <cmath>
#include <nlohmann/json.hpp>

using namespace headroom;
using testing::findRow;
using testing::rowBytes;
using testing::rowTensors;
using testing::stagePlan;

namespace {

constexpr Bytes h = 256, a = 8, kv = 2, d = 32, i = 704, V = 1000, L = 4;
constexpr Bytes b = 2, s = 128;

ModelSpec smallLlama()
{
    return testing::smallModel({"llama", h, L, a, kv, i, V, false});
}

struct Layout {
    std::uint64_t gpus = 1, tp = 1, pp = 1, cp = 1;
};

Scenario torchtitan(Layout l, std::uint64_t gradAccum = 1)
{
    Scenario sc;
    sc.model = smallLlama();
    sc.train.precision = Precision::Bf16Mixed;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.microBatch = b;
    sc.train.seqLen = s;
    sc.train.gradAccum = gradAccum;
    sc.train.attention = Attention::Flash;
    sc.train.useCache = UseCache::Off;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = l.gpus;
    sc.hardware.sharding = Sharding::Fsdp2;
    sc.hardware.parallel.tp = l.tp;
    sc.hardware.parallel.sp = l.tp > 1; // torchtitan's tensor parallelism always has sequence parallelism
    sc.hardware.parallel.pp = l.pp;
    sc.hardware.parallel.cp = l.cp;
    return sc;
}

// One Llama layer's parameters on one of t tensor-parallel ranks: q, k, v,
// gate, up column-parallel (output features / t), o and down row-parallel
// (input features / t), the two RMSNorms whole (torchtitan apply_tp).
constexpr Bytes layerParams(Bytes t) { return (h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i) / t + 2 * h; }
// The embedding and the output layer split over the vocabulary, the final norm whole.
constexpr Bytes globalParams(Bytes t) { return 2 * (V / t) * h + h; }

// What a kept layer saves from forward to backward.
Bytes savedPerLayer(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == LayerSet::Plain && r.category == Category::Activations)
            sum += r.bytes;
    return sum;
}

// One layer's saves for the HF Llama layer in bf16 with flash over T tokens
// of a sequence of S (memory-model.md §1; tests/engine/test_parallel.cpp
// expectedSaved): per norm fp32 input 4Th, rsqrt 4T, normalised 2Th, and
// the linear input 2Th; q and the attention output 2T·a·d each, k and v
// 2T·kv·d each, the fp32 log-sum-exp 4·b·a·S, the gated MLP 4 x 2T·i.
// Tensor parallelism t divides the inner terms; torchtitan's DTensor
// sequence parallelism divides the norm terms but keeps the two linear
// inputs (the all-gathered norm outputs the colwise linears save) whole.
Bytes expectedSaved(Bytes T, Bytes S, Bytes t, bool dtensorSp)
{
    const Bytes linearInputs = 2 * 2 * T * h;
    const Bytes normTerms = 16 * T * h + 8 * T - linearInputs;
    const Bytes inner = 4 * T * a * d + 4 * T * kv * d + 4 * b * a * S + 8 * T * i;
    return (dtensorSp ? normTerms / t : normTerms) + linearInputs + inner / t;
}

Plan planOrFail(const Scenario& sc) { return testing::planOrFail(sc); }


} // namespace

class TestParallel2d : public QObject {
    Q_OBJECT

private slots:
    // FSDP2 without model parallelism is today's plan: no ranks.
    void fsdp2AloneIsUnchanged()
    {
        const Plan p = planOrFail(torchtitan({8, 1, 1, 1}));
        QVERIFY(p.ranks.empty());
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), layerParams(1) * 2);
    }

    // 2D: each rank's tensor-parallel split sharded over the FSDP mesh.
    // 8 GPUs, tp 2: dp 4. Sharded fp32 masters, fp32 gradients and AdamW's
    // two fp32 states are the rank's split / 4; the unsharded layer and the
    // all-gather buffer are the split in bf16.
    void twoDShardsTheTensorParallelSplit()
    {
        const Plan p = planOrFail(torchtitan({8, 2, 1, 1}));
        QCOMPARE(p.ranks.size(), std::size_t{1});
        QCOMPARE(p.tensorParallel, std::uint64_t{2});
        QCOMPARE(p.dataParallel, std::uint64_t{4});
        QCOMPARE(layerParams(2), Bytes{352768});
        QCOMPARE(rowBytes(p, "weights.layer"), layerParams(2) * 4 / 4);
        QCOMPARE(rowBytes(p, "weights.global"), globalParams(2) * 4 / 4);
        QCOMPARE(rowBytes(p, "grads.layer"), layerParams(2) * 4 / 4);
        QCOMPARE(rowBytes(p, "optimizer.layer"), layerParams(2) * 8 / 4);
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), layerParams(2) * 2);
        QCOMPARE(rowBytes(p, "fsdp2.all_gather_buffer"), layerParams(2) * 2);
        QCOMPARE(rowBytes(p, "fsdp2.reduce_scatter_input"), layerParams(2) * 4);
        QCOMPARE(rowBytes(p, "fsdp2.gathered_root"), globalParams(2) * 2);
        // The model's own counts stay whole.
        QCOMPARE(p.totalParameters, L * layerParams(1) + globalParams(1));
    }

    // torchtitan's sequence parallelism: the norms run on seq / tp tokens,
    // but the colwise linears save their all-gathered inputs whole (unlike
    // Megatron-LM's, which keep the shard: tests/engine/test_parallel.cpp).
    void dtensorSequenceParallelKeepsGatheredInputsWhole()
    {
        const Bytes T = b * s;
        const Plan p = planOrFail(torchtitan({2, 2, 1, 1}));
        QCOMPARE(savedPerLayer(p), expectedSaved(T, s, 2, true));
        QCOMPARE(expectedSaved(T, s, 2, true), Bytes{1545216});
        QCOMPARE(rowBytes(p, "norm1.out"), 2 * T * h);      // all-gathered, saved by wq/wk/wv
        QCOMPARE(rowBytes(p, "norm2.out"), 2 * T * h);      // all-gathered, saved by w1/w3
        QCOMPARE(rowBytes(p, "norm1.in"), 4 * T * h / 2);   // SequenceParallel norm: its own shard
        QCOMPARE(rowBytes(p, "final_norm.out"), 2 * T * h); // the output layer's all-gathered input
        // Loss parallelism: logits split over the vocabulary, not gathered;
        // its decomposed log_softmax and fused backward hold one fp32 shard
        // of the logits more than aten's kernels, in forward and in backward.
        QCOMPARE(rowBytes(p, "logits"), T * (V / 2) * 2);
        QCOMPARE(rowBytes(p, "tp.loss_parallel_shifted"), T * (V / 2) * 4);
        QCOMPARE(rowBytes(p, "tp.loss_parallel_bwd"), T * (V / 2) * 4);
        // The collectives' temporaries: a row-parallel partial sum over the
        // whole sequence in forward; in backward an all-gathered output
        // gradient and a partial input gradient.
        QCOMPARE(rowBytes(p, "tp.partial_output"), 2 * T * h);
        QCOMPARE(rowBytes(p, "tp.backward_collectives"), 2 * 2 * T * h);
    }

    // Op-level selective checkpointing under tp: torchtitan's _save_list has
    // reduce_scatter_tensor, so wo's and w2's reduce-scattered outputs are
    // kept (2 x 2·T·h / t), and the kept down_proj mm is its partial sum over
    // the whole sequence (not divided).
    void selectiveOpKeepsTheReduceScatters()
    {
        const Bytes T = b * s;
        Scenario sc = torchtitan({2, 2, 1, 1});
        sc.train.checkpointing = Checkpointing::SelectiveOps;
        const Plan p = planOrFail(sc);
        QCOMPARE(rowBytes(p, "tp.sac_reduce_scatter_out"), 2 * (2 * T * h / 2));
        QCOMPARE(rowBytes(p, "sac.down_proj_out"), 2 * T * h);
        QCOMPARE(rowBytes(p, "sac.q_proj_out"), 2 * T * (a / 2) * d);
    }

    // The sequence-parallel division compares the rank's activation rows with
    // the undivided model's, built with the same options: under op-level
    // checkpointing, compiled layers and Float8 linears too (before, the
    // undivided build lacked them, the rows did not match and no row was
    // divided). SequenceParallel norms: norm1.in is the norm's own shard.
    void sequenceParallelAppliesWithEveryOption_data()
    {
        QTest::addColumn<int>("checkpointing");
        QTest::addColumn<bool>("compiled");
        QTest::addColumn<bool>("float8");
        QTest::newRow("selective-op") << int(Checkpointing::SelectiveOps) << false << false;
        QTest::newRow("full, compiled") << int(Checkpointing::Full) << true << false;
        QTest::newRow("full, float8") << int(Checkpointing::Full) << false << true;
        QTest::newRow("full, compiled float8") << int(Checkpointing::Full) << true << true;
    }

    void sequenceParallelAppliesWithEveryOption()
    {
        QFETCH(int, checkpointing);
        QFETCH(bool, compiled);
        QFETCH(bool, float8);
        const Bytes T = b * s;
        Scenario sc = torchtitan({2, 2, 1, 1});
        sc.train.checkpointing = Checkpointing(checkpointing);
        sc.train.compileLayers = compiled;
        if (float8)
            sc.train.precision = Precision::Fp8Mixed;
        const Plan p = planOrFail(sc);
        for (const std::string& note : p.notes)
            QVERIFY2(note.find("Sequence parallelism was not applied") == std::string::npos, note.c_str());
        // The checkpoint boundary is the layer input on its sequence shard.
        QCOMPARE(rowBytes(p, "checkpoint.layer_input"), 2 * T * h / 2);
    }

    // Float8 under torchtitan's tensor parallelism (torchao eab345c
    // float8_tensor_parallel.py): PrepareFloat8ModuleInput casts the
    // attention's and the feed-forward's input once and all-gathers it in
    // fp8, so wq, wk, wv share one whole-sequence copy (T·h bytes) and w1,
    // w3 another; wo and w2 cast their local inputs (T·a/t·d and T·i/t);
    // every linear's local weight shard is cast (1 byte each). tp 2, T = 256.
    // In backward the row-parallel output's gradient is all-gathered in fp8,
    // so the 16-bit collectives hold only the colwise input's partial
    // gradient (2·T·h).
    void float8SharesTheGatheredInputs()
    {
        const Bytes T = b * s, t = 2;
        Scenario sc = torchtitan({2, 2, 1, 1});
        sc.train.checkpointing = Checkpointing::Full;
        sc.train.compileLayers = true;
        sc.train.precision = Precision::Fp8Mixed;
        const Plan p = planOrFail(sc);
        const Bytes linearShards = (h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i) / t;
        QCOMPARE(rowBytes(p, "float8.saved_casts"), T * h + T * (a / t) * d + T * h + T * (i / t) + linearShards);
        QCOMPARE(rowBytes(p, "tp.backward_collectives"), 2 * T * h);
        // The 16-bit all-gathered norm outputs are not kept: their fp8 copies are.
        QVERIFY(rowBytes(p, "norm1.out") == 0 && rowBytes(p, "norm2.out") == 0);
        // Without tensor parallelism each linear casts its own input.
        Scenario one = sc;
        one.hardware.parallel = ParallelConfig{};
        const Plan q = planOrFail(one);
        QCOMPARE(rowBytes(q, "float8.saved_casts"),
                 T * (6 * h + i) + (h * a * d + 2 * h * kv * d + a * d * h + 3 * h * i));
    }

    // AsyncTP: the fused ops allocate what eager's collectives allocate, so
    // the caching allocator's counters are the 2D plan's; the
    // symmetric-memory workspace (two reduce-scatter chunks of T/t x h in
    // bf16: 2 x 128 x 256 x 2 bytes) is device memory outside them.
    void asyncTpAddsItsWorkspaceOutsideTheAllocator()
    {
        const Bytes T = b * s, t = 2;
        Scenario sc = torchtitan({2, 2, 1, 1});
        sc.train.checkpointing = Checkpointing::Full;
        sc.train.compileLayers = true;
        const Plan plain = planOrFail(sc);
        sc.hardware.parallel.asyncTp = true;
        const Plan async = planOrFail(sc);
        QCOMPARE(async.peakReservedBytes, plain.peakReservedBytes);
        QCOMPARE(async.contextBytes - plain.contextBytes, 2 * (T / t) * h * 2);
        QCOMPARE(async.deviceUsedBytes - plain.deviceUsedBytes, Bytes{131072});
    }

    // Context parallelism: every activation over seq / cp tokens; FSDP over
    // dp x cp (torchtitan's dp_shard_cp mesh).
    void contextParallelSplitsTheSequence()
    {
        const Plan p = planOrFail(torchtitan({8, 1, 1, 2}));
        QCOMPARE(p.contextParallel, std::uint64_t{2});
        QCOMPARE(p.dataParallel, std::uint64_t{4});
        QCOMPARE(p.tokensPerMicroBatch, b * s / 2);
        // Parameters sharded over dp 4 x cp 2 = 8 ranks.
        QCOMPARE(rowBytes(p, "weights.layer"), layerParams(1) * 4 / 8);
        QCOMPARE(rowBytes(p, "optimizer.layer"), layerParams(1) * 8 / 8);
        QCOMPARE(rowBytes(p, "fsdp2.unsharded_layer"), layerParams(1) * 2);
        // A layer's saves over the rank's 128 tokens of a 64-token local sequence.
        QCOMPARE(savedPerLayer(p), expectedSaved(b * s / 2, s / 2, 1, false));
        QCOMPARE(rowBytes(p, "logits"), (b * s / 2) * V * 2);
        // cp 1 on the same GPUs: the whole sequence, sharded over 8.
        const Plan whole = planOrFail(torchtitan({8, 1, 1, 1}));
        QCOMPARE(savedPerLayer(whole), expectedSaved(b * s, s, 1, false));
    }

    // NCCL communicators of a context-parallel rank: FSDP2's over dp x cp
    // (8 ranks: 688 MB, NVIDIA/nccl#964's figure for more than two) and the
    // ring's over cp (2 ranks: 544 MB), outside the caching allocator.
    void ncclCommunicatorsOfContextParallelism()
    {
        const Plan p = planOrFail(torchtitan({8, 1, 1, 2}));
        QCOMPARE(p.ncclBytes, Bytes{688'000'000 + 544'000'000});
        const Plan flat = planOrFail(torchtitan({8, 1, 1, 1}));
        QCOMPARE(flat.ncclBytes, Bytes{688'000'000});
    }

    // Ring attention's buffers (torch/distributed/tensor/experimental/
    // _attention.py): with O = T·a·d attention-output elements, KV = T·2·kv·d
    // (flash reads the grouped heads) and Lse = T·a, over the rank's T = b·s/cp:
    // forward: K/V all-gathered (cp x) plus the concatenation sent, 2 bytes;
    // the fp32 merge (16 bytes per output element) beside the kernel's bf16
    // step output; four fp32 log-sum-exp tensors. Backward: the K/V gather
    // again, fp32 dQ, and 12 bytes per K/V element (fp32 dK/dV accumulated,
    // sent and received around the ring).
    void ringAttentionBuffers()
    {
        const Bytes cp = 2, T = b * s / cp;
        const Bytes O = T * a * d, KV = T * 2 * kv * d, Lse = T * a;
        const Plan p = planOrFail(torchtitan({2, 1, 1, cp}));
        QCOMPARE(rowBytes(p, "cp.ring_attention"), KV * (cp + 1) * 2 + O * 18 + Lse * 16);
        QCOMPARE(rowBytes(p, "cp.ring_attention"), Bytes{704512});
        QCOMPARE(rowBytes(p, "cp.ring_attention_bwd"), KV * (cp + 1) * 2 + O * 4 + KV * 12);
        QCOMPARE(rowBytes(p, "cp.ring_attention_bwd"), Bytes{425984});
    }

    // 3D: under pipeline parallelism torchtitan keeps each stage unsharded
    // through the step and accumulates its gradients unsharded in fp32
    // (apply_fsdp with pp; pipelining stage.py; _fsdp_param.py). 4 GPUs,
    // pp 2, dp 2. Stage 0: two layers and the embedding; stage 1: two layers,
    // the final norm and the output layer.
    void pipelineStagesStayUnsharded()
    {
        const Bytes stage0 = 2 * layerParams(1) + V * h;
        const Bytes stage1 = 2 * layerParams(1) + V * h + h;
        // 4 micro-batches: under 1F1B stage 0 holds 2 in flight, stage 1 one,
        // so both run forwards after a first backward: the accumulated
        // gradients are there for the whole pass.
        const Scenario four = torchtitan({4, 1, 2, 1}, 4);
        const Plan p = planOrFail(four);
        QCOMPARE(p.ranks.size(), std::size_t{2});
        for (std::uint64_t stage : {0, 1}) {
            const Plan sp = stagePlan(four, stage);
            const Bytes params = stage == 0 ? stage0 : stage1;
            QCOMPARE(rowBytes(sp, "fsdp2.unsharded_stage"), params * 2);
            const TensorRow* acc = findRow(sp, "fsdp2.accumulated_grads");
            QVERIFY(acc);
            QCOMPARE(acc->bytes, params * 4);
            QCOMPARE(int(acc->allocAt), int(Phase::EmbedFwd));
            QCOMPARE(int(acc->layers), int(LayerSet::Global));
            // The sharded gradients are the reduce-scatter's, after the last backward.
            const TensorRow* grads = findRow(sp, "grads.layer");
            QVERIFY(grads);
            QCOMPARE(int(grads->allocAt), int(Phase::EmbedBwd));
            QCOMPARE(grads->bytes, layerParams(1) * 4 / 2);
            QCOMPARE(rowBytes(sp, "weights.layer"), layerParams(1) * 4 / 2);
            // No per-layer gathering: the stage is unsharded already.
            QVERIFY(!findRow(sp, "fsdp2.unsharded_layer"));
            QVERIFY(!findRow(sp, "fsdp2.unsharded_layer_bwd"));
            QVERIFY(!findRow(sp, "fsdp2.all_gather_buffer_bwd"));
        }
        // 2 micro-batches: stage 0 runs both forwards before its first
        // backward, so its gradients accumulate layer by layer through it.
        const Plan s0 = stagePlan(torchtitan({4, 1, 2, 1}, 2), 0);
        const TensorRow* perLayer = findRow(s0, "fsdp2.accumulated_grads");
        QVERIFY(perLayer);
        QCOMPARE(perLayer->bytes, layerParams(1) * 4);
        QCOMPARE(int(perLayer->allocAt), int(Phase::LayerBwd));
        QCOMPARE(int(perLayer->layers), int(LayerSet::All));
        QCOMPARE(rowBytes(s0, "fsdp2.accumulated_root_grads"), V * h * 4);
        // The allocator gets them as FSDP2 makes them, one tensor per
        // parameter: a Llama layer has 9 (q, k, v, o, gate, up, down, two
        // norms); stage 0 of 4 layers holds 2, and its root the embedding.
        const auto tensors = [](const Plan& plan, const char* name) { return rowTensors(plan, findRow(plan, name)); };
        QCOMPARE(tensors(s0, "fsdp2.accumulated_grads"), std::make_pair(std::uint64_t{9}, true));
        QCOMPARE(tensors(s0, "fsdp2.unsharded_grad"), std::make_pair(std::uint64_t{9}, true));
        QCOMPARE(tensors(s0, "fsdp2.unsharded_stage"), std::make_pair(std::uint64_t{2 * 9 + 1}, true));
        QCOMPARE(tensors(s0, "fsdp2.accumulated_root_grads"), std::make_pair(std::uint64_t{1}, true));
    }

    // torch.distributed.pipelining's buffers: per micro-batch, the first
    // stage receives its output's gradient, the last its input (and keeps
    // that input's gradient in the buffer's .grad). A boundary tensor is one
    // micro-batch of the residual stream: b x s x h in bf16 = 2·128·256·2.
    void pipeliningReceiveBuffers()
    {
        const Bytes boundary = b * s * h * 2, m = 4;
        const Scenario sc = torchtitan({4, 1, 2, 1}, m);
        const Plan first = stagePlan(sc, 0), last = stagePlan(sc, 1);
        QCOMPARE(rowBytes(first, "pipeline.grad_recv_buffers"), m * boundary);
        QVERIFY(!findRow(first, "pipeline.input_recv_buffers"));
        QCOMPARE(rowBytes(last, "pipeline.input_recv_buffers"), m * boundary);
        QCOMPARE(rowBytes(last, "pipeline.input_grads"), m * boundary);
        QVERIFY(!findRow(last, "pipeline.grad_recv_buffers"));
        QCOMPARE(int(findRow(first, "pipeline.grad_recv_buffers")->allocAt), int(Phase::Load));
        // Under sequence parallelism the boundary is the sequence shard.
        const Plan sp = stagePlan(torchtitan({8, 2, 2, 1}, m), 0);
        QCOMPARE(rowBytes(sp, "pipeline.grad_recv_buffers"), m * boundary / 2);
    }

    // Korthikanti et al. 2022 Table 2, the per-layer activations in units of
    // sbh: 34 + 5as/h without parallelism; 10 + 24/t + 5as/(ht) with tensor
    // parallelism; (34 + 5as/h)/t with sequence parallelism too. The paper's
    // GPT-3 175B (a 96, s 2048, h 12288): 5as/h = 80, so recomputing only the
    // attention core (selective recomputation) saves 80 / 114, about 70 %.
    // Megatron-LM's sequence parallelism in the planner divides the whole
    // layer by t, as the formula says (test_parallel checks the itemisation).
    void korthikantiTable2()
    {
        constexpr double gptA = 96, gptS = 2048, gptH = 12288;
        const double attention = 5 * gptA * gptS / gptH;
        QCOMPARE(attention, 80.0);
        QVERIFY(std::abs(attention / (34 + attention) - 0.70) < 0.01);
        const double t = 8;
        QCOMPARE(10 + 24 / t + attention / t, 23.0);
        QCOMPARE((34 + attention) / t, 14.25);

        Scenario megatron = torchtitan({2, 2, 1, 1});
        megatron.hardware.sharding = Sharding::None;
        megatron.train.precision = Precision::Bf16;
        Scenario one = megatron;
        one.hardware.count = 1;
        one.hardware.parallel.tp = 1;
        one.hardware.parallel.sp = false;
        QCOMPARE(savedPerLayer(planOrFail(megatron)) * 2, savedPerLayer(planOrFail(one)));
    }

    // The sweep's timeline equals the brute-force placement of every row
    // (sweep.h referenceTimeline) for torchtitan's layouts, whose rows include
    // per-layer rows that live from a layer's backward to the stage's end.
    void sweepMatchesTheReference()
    {
        const Layout layouts[] = {{8, 2, 1, 1}, {8, 1, 1, 2}, {8, 2, 2, 2}, {4, 1, 2, 1}, {16, 2, 2, 1}};
        for (const Layout& l : layouts)
            for (std::uint64_t accum : {1, 2, 4})
                for (Checkpointing ckpt : {Checkpointing::None, Checkpointing::Full, Checkpointing::SelectiveOps}) {
                    Scenario sc = torchtitan(l, accum);
                    sc.train.checkpointing = ckpt;
                    auto layout = parallelLayout(sc);
                    QVERIFY(layout.ok());
                    for (std::uint64_t stage = 0; stage < l.pp; ++stage) {
                        const Plan p = stagePlan(sc, stage);
                        const auto reference = referenceTimeline(p, Mode::Train);
                        QCOMPARE(p.timeline.size(), reference.size());
                        for (std::size_t e = 0; e < reference.size(); ++e)
                            QVERIFY2(p.timeline[e] == reference[e],
                                     qPrintable(QStringLiteral("tp %1 pp %2 cp %3 accum %4 stage %5: event %6")
                                                    .arg(l.tp)
                                                    .arg(l.pp)
                                                    .arg(l.cp)
                                                    .arg(accum)
                                                    .arg(stage)
                                                    .arg(e)));
                    }
                }
    }

    void refusals_data()
    {
        QTest::addColumn<int>("gpus");
        QTest::addColumn<int>("tp");
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("cp");
        QTest::addColumn<int>("seq");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("message");
        QTest::newRow("tp x pp x cp does not divide count")
            << 6 << 2 << 1 << 2 << 128 << QString()
            << QStringLiteral("hardware.parallel: tp 2 x pp 1 x cp 2 = 4 GPUs per model replica must divide "
                              "hardware.count 6");
        QTest::newRow("more than count")
            << 4 << 2 << 1 << 4 << 128 << QString()
            << QStringLiteral("hardware.parallel: tp 2 x pp 1 x cp 4 = more than 4 GPUs per model replica must "
                              "divide hardware.count 4");
        QTest::newRow("sequence and 2 x cp")
            << 4 << 1 << 1 << 4 << 100 << QString()
            << QStringLiteral("train.seq_len: 100 does not divide by 2 x cp = 8 (context parallelism's load-balanced "
                              "split gives each rank two chunks of seq / (2 x cp) tokens)");
        QTest::newRow("cp without fsdp2")
            << 2 << 1 << 1 << 2 << 128 << QStringLiteral("zero3")
            << QStringLiteral("hardware.parallel.cp: context parallelism is planned as torchtitan runs it, under "
                              "FSDP2 (parameters sharded over dp x cp); set hardware.sharding to fsdp2, got zero3");
        QTest::newRow("cp with eager attention")
            << 2 << 1 << 1 << 2 << 128 << QStringLiteral("eager")
            << QStringLiteral("train.attention: context parallelism runs ring attention over the flash and "
                              "memory-efficient SDPA kernels; eager attention has no ring variant, use sdpa or flash");
        QTest::newRow("fsdp2 tp without sp")
            << 2 << 2 << 1 << 1 << 128 << QStringLiteral("nosp")
            << QStringLiteral("hardware.parallel.sp: FSDP2 with tensor parallelism is planned as torchtitan applies "
                              "it, with sequence parallelism (apply_tp's SequenceParallel norms); set sp");
        QTest::newRow("chunked loss under loss parallelism")
            << 2 << 2 << 1 << 1 << 128 << QStringLiteral("chunked")
            << QStringLiteral("train.chunked_cross_entropy: under FSDP2 with tensor parallelism the loss is "
                              "torchtitan's loss parallelism over the vocabulary shards, not chunked; turn chunking "
                              "off");
        QTest::newRow("compiled layers under tp, selective-op")
            << 2 << 2 << 1 << 1 << 128 << QStringLiteral("compile")
            << QStringLiteral("train.compile: compiled layers under tensor, pipeline or context parallelism are "
                              "planned with full checkpointing only (tp 2, pp 1, cp 1)");
        QTest::newRow("float8 under cp, selective-op")
            << 2 << 1 << 1 << 2 << 128 << QStringLiteral("fp8")
            << QStringLiteral("train.precision: fp8-mixed (torchao Float8Linear) under tensor, pipeline or context "
                              "parallelism is planned with full checkpointing only (tp 1, pp 1, cp 2)");
        QTest::newRow("async tp without tp")
            << 2 << 1 << 1 << 2 << 128 << QStringLiteral("asynctp")
            << QStringLiteral("hardware.parallel.async_tp: AsyncTP fuses tensor-parallel collectives; it needs tp > 1, "
                              "got tp 1");
        QTest::newRow("async tp without compile")
            << 2 << 2 << 1 << 1 << 128 << QStringLiteral("asynctp-eager")
            << QStringLiteral("hardware.parallel.async_tp: AsyncTP is an Inductor pass and needs compiled layers "
                              "(train.compile), as torchtitan requires");
        // Interleaved 1F1B runs the micro-batches in groups of pp: 1 over pp 2
        // is refused (tests/engine/test_interleaved.cpp plans the layouts that divide).
        QTest::newRow("vpp with 1 micro-batch over pp 2")
            << 2 << 1 << 2 << 1 << 128 << QStringLiteral("vpp")
            << QStringLiteral("train.grad_accum: 1 micro-batches do not divide by pp 2; the interleaved schedule "
                              "(vpp 2) runs them in groups of pp (Megatron-LM "
                              "forward_backward_pipelining_with_interleaving, torch ScheduleInterleaved1F1B)");
        QTest::newRow("cp zero") << 2 << 1 << 1 << 0 << 128 << QString()
                                 << QStringLiteral("hardware.parallel: tp, pp and cp must be at least 1, got tp 1, pp "
                                                   "1, cp 0");
    }

    void refusals()
    {
        QFETCH(int, gpus);
        QFETCH(int, tp);
        QFETCH(int, pp);
        QFETCH(int, cp);
        QFETCH(int, seq);
        QFETCH(QString, change);
        QFETCH(QString, message);
        Scenario sc = torchtitan({std::uint64_t(gpus), std::uint64_t(tp), std::uint64_t(pp), std::uint64_t(cp)});
        sc.train.seqLen = std::uint64_t(seq);
        if (change == QLatin1String("zero3"))
            sc.hardware.sharding = Sharding::Zero3;
        else if (change == QLatin1String("eager"))
            sc.train.attention = Attention::Eager;
        else if (change == QLatin1String("nosp"))
            sc.hardware.parallel.sp = false;
        else if (change == QLatin1String("compile")) {
            sc.train.compileLayers = true;
            sc.train.checkpointing = Checkpointing::SelectiveOps;
        } else if (change == QLatin1String("fp8")) {
            sc.train.precision = Precision::Fp8Mixed;
            sc.train.checkpointing = Checkpointing::SelectiveOps;
            sc.train.compileLayers = true;
        } else if (change == QLatin1String("asynctp")) {
            sc.hardware.parallel.asyncTp = true;
            sc.train.compileLayers = true;
            sc.train.checkpointing = Checkpointing::Full;
        } else if (change == QLatin1String("asynctp-eager")) {
            sc.hardware.parallel.asyncTp = true;
            sc.train.checkpointing = Checkpointing::Full;
        } else if (change == QLatin1String("chunked"))
            sc.train.chunkedCrossEntropy = true;
        else if (change == QLatin1String("vpp"))
            sc.hardware.parallel.vpp = 2;
        auto plan = makePlan(sc);
        QVERIFY(!plan.ok());
        QCOMPARE(QString::fromStdString(plan.error().detail), message);
    }
};

QTEST_GUILESS_MAIN(TestParallel2d)
#include "test_parallel2d.moc"
