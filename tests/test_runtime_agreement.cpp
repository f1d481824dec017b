// SPDX-License-Identifier: GPL-3.0-or-later
// The agreement suite: randomised small scenarios over every option the CPU
// backend runs; for each, the tracking allocator's measurement must equal the
// headroom profile's plan to the byte: the peak, the categories at the peak,
// and every event's bytes per category and per tensor row.
#include "runtime/validate.h"
#include "runtime_testmodels.h"

#include <QtTest>

#include <random>
#include <sstream>

using namespace headroom;

namespace {

std::string describe(const Scenario& s)
{
    const ModelSpec& m = s.model;
    std::ostringstream out;
    out << familyName(m.family) << " L" << m.layers << " h" << m.hidden << " heads" << m.heads << "/" << m.kvHeads << " i" << m.intermediate
        << " V" << m.vocab << (m.tieEmbeddings ? " tied" : "") << (m.qkvBias ? " qkv-bias" : "")
        << (m.attnOutBias ? " o-bias" : "") << " b" << s.train.microBatch << " s" << s.train.seqLen << " acc"
        << s.train.gradAccum << " " << precisionName(s.train.precision) << " " << optimizerName(s.train.optimizer)
        << " ckpt " << checkpointingName(s.train.checkpointing) << " " << peftMethodName(s.train.peft.method) << " "
        << weightQuantName(s.train.weightQuant) << " r" << s.train.peft.rank;
    if (s.train.checkpointing == Checkpointing::EveryK)
        out << s.train.checkpointEvery;
    out << " " << attentionName(s.train.attention);
    if (s.train.chunkedCrossEntropy)
        out << " chunked-ce " << s.train.lossChunks;
    return out.str();
}

Scenario randomScenario(std::mt19937_64& rng, std::size_t index)
{
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng);
    };
    Scenario s = testing::tinyScenario();
    const std::uint64_t kvHeads = pick(1, 2);
    const std::uint64_t heads = kvHeads * pick(1, 3);
    const std::uint64_t headDim = 2 * pick(1, 4);
    s.model = testing::tinyLlama(pick(1, 4), heads * headDim, heads, kvHeads, pick(4, 40), pick(16, 80));
    s.model.tieEmbeddings = pick(0, 1) == 1;
    s.model.qkvBias = pick(0, 1) == 1;
    s.model.attnOutBias = pick(0, 3) == 0;
    // A quarter of the scenarios are GPT-2 models (multi-head attention, fixed biases).
    if (pick(0, 3) == 0) {
        s.model = testing::tinyGpt2(pick(1, 4), heads * headDim, heads, pick(4, 40), pick(16, 80), 20 + pick(0, 8));
        s.model.tieEmbeddings = pick(0, 3) != 0;
        s.model.hiddenAct = pick(0, 1) ? "gelu_new" : "gelu";
    }
    s.train.microBatch = pick(1, 3);
    s.train.seqLen = pick(2, 20);
    s.train.gradAccum = pick(0, 2) == 0 ? pick(2, 3) : 1;
    // Every option value appears by construction (index-driven), plus random mixing.
    const Precision precisions[] = {Precision::Fp32, Precision::Bf16Mixed, Precision::Bf16, Precision::Fp16Mixed};
    const Optimizer optimizers[] = {Optimizer::Sgd,  Optimizer::SgdMomentum, Optimizer::AdamW, Optimizer::AdamW8bit,
                                    Optimizer::Lion, Optimizer::Adafactor,   Optimizer::Lomo};
    const Attention attentions[] = {Attention::Eager, Attention::Sdpa, Attention::Flash};
    const Checkpointing checkpointing[] = {Checkpointing::None, Checkpointing::Full, Checkpointing::EveryK};
    s.train.precision = precisions[index % 4];
    s.train.optimizer = optimizers[(index / 4 + pick(0, 6)) % 7];
    s.train.attention = attentions[pick(0, 2)];
    s.train.checkpointing = checkpointing[(index + pick(0, 2)) % 3];
    s.train.checkpointEvery = pick(2, 3);
    s.train.chunkedCrossEntropy = pick(0, 2) == 0;
    s.train.lossChunks = pick(1, 8);
    // A third of the scenarios train LoRA adapters, half of those over an NF4 base (QLoRA).
    const std::uint64_t peft = pick(0, 5);
    if (peft >= 4 && s.model.family == Family::Llama) {
        s.train.peft.method = peft == 4 ? PeftMethod::Lora : PeftMethod::Qlora;
        s.train.weightQuant = peft == 4 ? WeightQuant::None : (pick(0, 1) ? WeightQuant::Nf4 : WeightQuant::Nf4DoubleQuant);
        s.train.peft.rank = pick(1, 4);
        s.train.peft.alpha = double(pick(1, 16));
        s.train.peft.dropout = 0;
        const std::vector<std::string> targets[] = {{}, {"all-linear"}, {"o_proj", "down_proj"}, {"k_proj", "gate_proj", "up_proj"}};
        s.train.peft.targets = targets[pick(0, 3)];
    }
    // LOMO updates inside backward: no accumulation, no fp16 loss scaling (rejected: see below).
    if (s.train.optimizer == Optimizer::Lomo) {
        s.train.gradAccum = 1;
        if (s.train.precision == Precision::Fp16Mixed)
            s.train.precision = Precision::Bf16;
    }
    // 8-bit AdamW's blockwise state only applies from 4096 elements: make some tensors that big.
    if (s.train.optimizer == Optimizer::AdamW8bit && pick(0, 1) == 1) {
        s.model.intermediate = 4096 / s.model.hidden + pick(0, 40);
        s.model.vocab = 4096 / s.model.hidden + pick(1, 40);
    }
    return s;
}

} // namespace

class TestRuntimeAgreement : public QObject {
    Q_OBJECT
private slots:
    void unsupportedOptionsAreRejectedByName()
    {
        // Never silently run something else: what the engine does not run is named.
        auto backend = rt::makeCpuBackend();
        auto rejected = [&](Scenario s, const std::string& what) {
            auto r = rt::runValidation(s, *backend, {});
            QVERIFY(!r.ok());
            QVERIFY2(r.error().detail == "not supported by the cpu backend yet: " + what, r.error().detail.c_str());
        };
        Scenario s = testing::tinyScenario();
        s.train.optimizer = Optimizer::Lomo;
        s.train.gradAccum = 2;
        rejected(s, "LOMO with gradient accumulation (LOMO updates during backward)");
        s = testing::tinyScenario();
        s.train.activationOffload = true;
        rejected(s, "activation offload");
        s = testing::tinyScenario();
        s.model.family = Family::GptNeoX;
        rejected(s, "model family gpt_neox");
        s = testing::tinyScenario();
        s.model = testing::tinyGpt2();
        s.model.dropout = 0.1;
        rejected(s, "dropout (set it to 0)");
        s = testing::tinyScenario();
        s.train.optimizer = Optimizer::Galore;
        rejected(s, "optimizer galore");
        s = testing::tinyScenario();
        s.train.peft.method = PeftMethod::Lora;
        s.train.peft.dropout = 0.05;
        rejected(s, "LoRA dropout (set it to 0)");
    }

    void headroomPlanFallsBackWithANote()
    {
        // A scenario the engine does not run keeps a headroom plan (the shared
        // rows with headroom's allocator settings) that says so.
        Scenario s = testing::tinyScenario();
        s.model.family = Family::GptNeoX;
        s.model.norm = NormKind::LayerNorm;
        auto plan = rt::headroomPlan(s);
        QVERIFY(plan.ok());
        bool noted = false;
        for (const std::string& n : plan->notes)
            noted = noted || n.find("does not run this scenario yet (model family gpt_neox)") != std::string::npos;
        QVERIFY(noted);
        // A scenario it runs is planned from the engine's rows.
        auto own = rt::headroomPlan(testing::tinyScenario());
        QVERIFY(own.ok());
        bool hasEngineRow = false;
        for (const TensorRow& row : own->tensors)
            hasEngineRow = hasEngineRow || std::string(row.name) == "layer.bwd_temporaries";
        QVERIFY(hasEngineRow);
    }

    void randomisedScenariosAgreeToTheByte()
    {
        std::mt19937_64 rng(20261122);
        auto backend = rt::makeCpuBackend();
        constexpr std::size_t kScenarios = 120;
        std::size_t checkpointedRuns = 0, accumulatingRuns = 0, loraRuns = 0, qloraRuns = 0, lomoRuns = 0, gpt2Runs = 0, chunkedRuns = 0;
        for (std::size_t i = 0; i < kScenarios; ++i) {
            const Scenario s = randomScenario(rng, i);
            rt::RunOptions options;
            options.steps = 2;
            options.seed = i + 1;
            auto r = rt::runValidation(s, *backend, options);
            QVERIFY2(r.ok(), (describe(s) + ": " + (r ? std::string() : r.error().detail)).c_str());
            const rt::Measurement& m = r->measured;
            QVERIFY2(m.status == "ok", (describe(s) + ": " + m.message).c_str());
            const auto differences = rt::planMeasurementDifferences(r->plan, m);
            std::string first = differences.empty() ? "" : differences.front();
            for (std::size_t k = 1; k < differences.size() && k < 6; ++k)
                first += "; " + differences[k];
            QVERIFY2(differences.empty(), (describe(s) + ": " + first).c_str());
            QCOMPARE(m.peakBytes, r->plan.peakBytes);
            for (std::size_t c = 0; c < kCategoryCount; ++c)
                QCOMPARE(m.peakCategories[c], r->plan.breakdown[c]);
            // Every event ran and was measured.
            for (bool seen : m.eventSeen)
                QVERIFY(seen);
            checkpointedRuns += s.train.checkpointing != Checkpointing::None ? 1 : 0;
            accumulatingRuns += s.train.gradAccum > 1 ? 1 : 0;
            loraRuns += s.train.peft.method == PeftMethod::Lora ? 1 : 0;
            qloraRuns += s.train.peft.method == PeftMethod::Qlora ? 1 : 0;
            lomoRuns += s.train.optimizer == Optimizer::Lomo ? 1 : 0;
            gpt2Runs += s.model.family == Family::Gpt2 ? 1 : 0;
            chunkedRuns += s.train.chunkedCrossEntropy ? 1 : 0;
        }
        QVERIFY(loraRuns > 10);
        QVERIFY(lomoRuns > 8);
        QVERIFY(gpt2Runs > 15);
        QVERIFY(chunkedRuns > 20);
        QVERIFY(qloraRuns > 10);
        QVERIFY(checkpointedRuns > 20);
        QVERIFY(accumulatingRuns > 10);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeAgreement)
#include "test_runtime_agreement.moc"
