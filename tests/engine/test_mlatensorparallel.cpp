// SPDX-License-Identifier: GPL-3.0-or-later
// DeepSeek-V3 under tensor parallelism, as Megatron-LM runs multi-head
// latent attention (megatron/core/transformer/multi_latent_attention.py):
// the down projections to the latents whole on every rank (TELinear,
// parallel_mode "duplicated"), the up projections column-parallel over the
// heads, the output projection row-parallel; the shared experts and the
// dense layers' MLP split as dense MLPs. Sizes from DeepSeek-V3's
// config.json: hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank 512,
// qk_nope 128 + qk_rope 64, v_head_dim 128, one shared expert of 2048,
// dense layers of 18432.
#include "model/catalog.h"
#include "plan/parallel.h"
#include "plan/planner.h"

#include "planrows.h"
#include "rankplan.h"

#include <QtTest>

#include <cstring>

using namespace headroom;
using testing::stagePlan;

namespace {

Scenario deepseek(std::uint64_t tp, Checkpointing checkpointing = Checkpointing::None)
{
    // Full fine-tuning with AdamW in bf16 mixed precision, flash attention, micro-batch 1.
    Scenario sc = testing::mixtralFullFinetune(Sharding::Zero1, checkpointing);
    sc.model = presetModel("deepseek-ai/DeepSeek-V3").value();
    sc.train.seqLen = 4096;
    sc.train.gradAccum = 16;
    sc.hardware.gpu = "h200";
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = tp > 1;
    sc.hardware.parallel.pp = 8;
    sc.hardware.parallel.ep = 8;
    sc.hardware.parallel.etp = 1;
    sc.hardware.count = tp * 8 * 8; // dp 8
    return sc;
}

std::uint64_t elements(const ParamTensor& t) { return t.rows * t.cols * t.copies; }

std::uint64_t moduleElements(const std::vector<ParamTensor>& layer, const char* module)
{
    std::uint64_t n = 0;
    for (const ParamTensor& t : layer)
        if (std::strcmp(t.module, module) == 0)
            n += elements(t);
    return n;
}

} // namespace

class TestMlaTensorParallel : public QObject {
    Q_OBJECT

private slots:
    void latentProjectionsStayWholeHeadsSplit()
    {
        const Scenario sc = deepseek(2);
        const ParallelLayout layout = testing::layoutOrFail(sc);
        const ParameterTable full = buildParameterTable(sc.model);
        const ParameterTable rank = rankParameterTable(full, sc.model, layout, 0);
        // Whole on every rank: 7168 x 1536 and 7168 x (512 + 64), and the latent norms.
        QCOMPARE(moduleElements(rank.layer, "q_a_proj"), 7168ull * 1536);
        QCOMPARE(moduleElements(rank.layer, "kv_a_proj_with_mqa"), 7168ull * 576);
        QCOMPARE(moduleElements(rank.layer, "q_a_layernorm"), 1536ull);
        QCOMPARE(moduleElements(rank.layer, "kv_a_layernorm"), 512ull);
        // Half the heads: q_b 1536 -> 64 x 192, kv_b 512 -> 64 x (128 + 128), o 64 x 128 -> 7168.
        QCOMPARE(moduleElements(rank.layer, "q_b_proj"), 1536ull * 64 * 192);
        QCOMPARE(moduleElements(rank.layer, "kv_b_proj"), 512ull * 64 * 256);
        QCOMPARE(moduleElements(rank.layer, "o_proj"), 64ull * 128 * 7168);
        // The attention of one layer: 15,140,864 whole + 171,966,464 / 2.
        std::uint64_t attention = 0;
        for (const char* module : {"q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa", "kv_a_layernorm",
                                   "kv_b_proj", "o_proj"})
            attention += moduleElements(rank.layer, module);
        QCOMPARE(attention, 15'140'864ull + 171'966'464ull / 2);
        // The shared expert's gate, up and down over tp (3 x 7168 x 2048 / 2);
        // the dense layers' MLP likewise (3 x 7168 x 18432 / 2).
        std::uint64_t shared = 0, dense = 0;
        for (const ParamTensor& t : rank.layer)
            if (std::strstr(t.path, "shared_experts"))
                shared += elements(t);
        for (const ParamTensor& t : rank.denseLayer)
            if (std::strstr(t.path, ".mlp."))
                dense += elements(t);
        QCOMPARE(shared, 3ull * 7168 * 2048 / 2);
        QCOMPARE(dense, 3ull * 7168 * 18432 / 2);
        // Routed experts at etp 1 and ep 8: 32 whole experts.
        std::uint64_t routed = 0;
        for (const ParamTensor& t : rank.layer)
            if (std::strstr(t.path, ".experts.{e}."))
                routed += elements(t);
        QCOMPARE(routed, 32ull * 3 * 7168 * 2048);
    }

    // Sequence parallelism divides what runs on the rank's sequence shard
    // (the norms, the latents) and leaves the per-head tensors at the
    // full sequence, on the MoE layers and on the dense ones (planned
    // apart, denselayers.h) alike: against tp 1, each of these halves once.
    void sequenceParallelOnBothKindsOfLayer()
    {
        const Plan one = stagePlan(deepseek(1), 0), two = stagePlan(deepseek(2), 0);
        QVERIFY(one.denseLayers > 0 && one.denseLayers < one.layers);
        for (const char* name : {"norm1.in", "kv_a_norm.in", "q_a_norm.in", "attn.q", "attn.k"}) {
            for (LayerBand band : {LayerBand::Dense, LayerBand::Sparse, LayerBand::Every}) {
                const TensorRow* a = testing::findBanded(one, name, band);
                const TensorRow* b = testing::findBanded(two, name, band);
                if (!a && !b)
                    continue;
                QVERIFY2(a && b, name);
                QCOMPARE(b->bytes * 2, a->bytes);
            }
        }
    }

    // The dense layers' MLP rows are split over tp, not over the sequence,
    // even where a rank's dense width equals the routed experts' whole
    // width (4096 / 2 = 2048 here): the undivided model the rows are
    // compared with is the dense view's (parallelrows.cpp applySequenceParallel).
    void denseLayersMlpSplitsOverTp()
    {
        Scenario a = deepseek(1), b = deepseek(2);
        a.model.denseIntermediate = b.model.denseIntermediate = 4096;
        const Plan one = stagePlan(a, 0), two = stagePlan(b, 0);
        for (const char* name : {"mlp.act_out", "mlp.down_in"}) {
            const TensorRow* whole = testing::findBanded(one, name, LayerBand::Dense);
            const TensorRow* split = testing::findBanded(two, name, LayerBand::Dense);
            QVERIFY2(whole && split, name);
            QCOMPARE(split->bytes * 2, whole->bytes);
        }
    }

    void widthsMustDivide()
    {
        Scenario sc = deepseek(2);
        sc.model.sharedExpertIntermediate = 2047;
        auto plan = makePlan(sc);
        QVERIFY(!plan);
        QVERIFY(plan.error().detail.find("shared experts' width 2047") != std::string::npos);
        sc = deepseek(2);
        sc.model.denseIntermediate = 18431;
        plan = makePlan(sc);
        QVERIFY(!plan);
        QVERIFY(plan.error().detail.find("dense layers' MLP width 18431") != std::string::npos);
    }

    // The whole model's plan runs under tp 2 and halves the stage's
    // attention and shared experts against tp 1 (same stages, ep, dp).
    void planFitsTheSplit()
    {
        const auto two = makePlan(deepseek(2, Checkpointing::Full));
        QVERIFY2(two.ok(), two.ok() ? "" : two.error().detail.c_str());
        QCOMPARE(two->ranks.size(), std::size_t(8));
        const auto one = makePlan(deepseek(1, Checkpointing::Full));
        QVERIFY(one.ok());
        QVERIFY(two->peakAllocatedBytes < one->peakAllocatedBytes);
    }
};

QTEST_APPLESS_MAIN(TestMlaTensorParallel)
#include "test_mlatensorparallel.moc"
