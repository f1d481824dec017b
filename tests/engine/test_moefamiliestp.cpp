// SPDX-License-Identifier: GPL-3.0-or-later
// gpt-oss and Llama 4 under tensor parallelism, as Megatron-LM splits them:
// attention column/row-parallel over tp with q/k/v biases split and the
// output bias whole (ColumnParallelLinear / RowParallelLinear), gpt-oss's
// learned sinks one per head of the partition (softmax_type "learnable",
// megatron/core/transformer/dot_product_attention.py), routed experts over
// etp (gate/up and their biases column-parallel, down row-parallel with its
// bias whole), the router whole, Llama 4's shared expert over tp. Sizes from
// the config.json files in tests/data/configs.
#include "model/hfconfig.h"
#include "model/catalog.h"
#include "plan/parallel.h"
#include "plan/planner.h"

#include "planrows.h"
#include "rankplan.h"

#include <QtTest>

#include <cstring>

using namespace headroom;

namespace {

Scenario megatron(const ModelSpec& model, std::uint64_t gpus, std::uint64_t tp, std::uint64_t ep)
{
    Scenario sc = testing::mixtralFullFinetune(Sharding::Zero1, Checkpointing::Full);
    sc.model = model;
    sc.hardware.gpu = "h200";
    sc.hardware.count = gpus;
    sc.hardware.parallel.tp = tp;
    sc.hardware.parallel.sp = true;
    sc.hardware.parallel.ep = ep;
    return sc;
}

std::uint64_t elements(const std::vector<ParamTensor>& layer, const char* pathPart, bool bias)
{
    std::uint64_t n = 0;
    for (const ParamTensor& t : layer)
        if (std::strstr(t.path, pathPart) && t.isBias == bias)
            n += t.rows * t.cols * t.copies;
    return n;
}

ModelSpec config(const char* file)
{
    auto spec = modelSpecFromConfigFile(std::string(HEADROOM_TEST_DATA "/configs/") + file);
    if (!spec)
        qFatal("%s: %s", file, spec.error().detail.c_str());
    return spec.value();
}

} // namespace

class TestMoeFamiliesTp : public QObject {
    Q_OBJECT

private slots:
    // gpt-oss-20b: hidden 2880, 64 heads and 8 KV heads of 64, 32 experts of
    // width 2880; tp 2 (etp 2, Megatron-LM's default) and ep 2 on 8 GPUs.
    void gptOssSplits()
    {
        const Scenario sc = megatron(config("gpt-oss-20b.json"), 8, 2, 2);
        const ParallelLayout layout = testing::layoutOrFail(sc);
        const ParameterTable rank = rankParameterTable(buildParameterTable(sc.model), sc.model, layout, 0);
        QCOMPARE(elements(rank.layer, "self_attn.q_proj", false), 2880ull * 2048);
        QCOMPARE(elements(rank.layer, "self_attn.q_proj", true), 2048ull);
        QCOMPARE(elements(rank.layer, "self_attn.k_proj", true), 256ull);
        QCOMPARE(elements(rank.layer, "self_attn.o_proj", false), 2048ull * 2880);
        QCOMPARE(elements(rank.layer, "self_attn.o_proj", true), 2880ull); // row-parallel: the bias whole
        QCOMPARE(elements(rank.layer, "self_attn.sinks", false), 32ull);
        // 16 experts a rank (ep 2), each gate_up 2 x 2880 / 2 wide over etp 2.
        QCOMPARE(elements(rank.layer, "experts.gate_up_proj_bias", true), 16ull * 2880);
        QCOMPARE(elements(rank.layer, "experts.gate_up_proj", false), 16ull * 2880 * 2880);
        QCOMPARE(elements(rank.layer, "experts.down_proj_bias", true), 16ull * 2880);
        QCOMPARE(elements(rank.layer, "experts.down_proj", false), 16ull * 2880 * 1440);
        QCOMPARE(elements(rank.layer, "mlp.router", false), 32ull * 2880);
        const auto plan = makePlan(sc);
        QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
    }

    // Llama 4 Scout's text model: 40 heads and 8 KV heads of 128, 16
    // experts and a shared expert of 8192; tp 4 (etp 1) and ep 4 on 16 GPUs.
    void llama4Splits()
    {
        Scenario sc = megatron(config("llama-4-scout-text.json"), 16, 4, 4);
        sc.hardware.parallel.etp = 1;
        const ParallelLayout layout = testing::layoutOrFail(sc);
        const ParameterTable rank = rankParameterTable(buildParameterTable(sc.model), sc.model, layout, 0);
        QCOMPARE(elements(rank.layer, "self_attn.q_proj", false), 5120ull * 1280);
        QCOMPARE(elements(rank.layer, "self_attn.k_proj", false), 5120ull * 256);
        QCOMPARE(elements(rank.layer, "shared_expert.", false), 3ull * 5120 * 2048);
        QCOMPARE(elements(rank.layer, "experts.gate_up_proj", false), 4ull * 2 * 8192 * 5120);
        QCOMPARE(elements(rank.layer, "router", false), 16ull * 5120);
        const auto plan = makePlan(sc);
        QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
    }

    // With sequence parallelism the shared expert's and the attention's
    // per-head rows split over tp, the norms' over the sequence: both halve
    // from tp 2 to tp 4 (etp and ep fixed).
    void llama4SequenceParallel()
    {
        Scenario two = megatron(config("llama-4-scout-text.json"), 8, 2, 4);
        Scenario four = megatron(config("llama-4-scout-text.json"), 16, 4, 4);
        two.hardware.parallel.etp = four.hardware.parallel.etp = 1;
        two.train.checkpointing = four.train.checkpointing = Checkpointing::None;
        const Plan a = testing::stagePlan(two, 0), b = testing::stagePlan(four, 0);
        for (const char* name : {"norm1.in", "attn.out"}) {
            const TensorRow* x = testing::findRow(a, name);
            const TensorRow* y = testing::findRow(b, name);
            QVERIFY2(x && y, name);
            QCOMPARE(y->bytes * 2, x->bytes);
        }
    }
};

QTEST_APPLESS_MAIN(TestMoeFamiliesTp)
#include "test_moefamiliestp.moc"
