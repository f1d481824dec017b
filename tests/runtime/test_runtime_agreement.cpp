// SPDX-License-Identifier: GPL-3.0-or-later
// The agreement suite: randomised small scenarios over every option the CPU
// backend runs; for each, the tracking allocator's measurement must equal the
// headroom profile's plan to the byte: the peak, the categories at the peak,
// and every event's bytes per category and per tensor row.
#include "runtime/validate.h"
#include "runtime/runtime_scenarios.h"
#include "runtime/runtime_testmodels.h"

#include <QtTest>

#include <random>
#include <sstream>

using namespace headroom;

namespace {

using testing::describe;
using testing::randomBertScenario;
using testing::randomScenario;

// The plan of the headroom profile and the tracking allocator's measurement
// agree to the byte: peak, categories at the peak, every event and row.
void checkAgreement(const Scenario& s, rt::Backend& backend, std::uint64_t seed)
{
    rt::RunOptions options;
    options.steps = 2;
    options.seed = seed;
    auto r = rt::runValidation(s, backend, options);
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
        s.model.family = Family::Phi3;
        rejected(s, "model family phi3");
        s = testing::tinyScenario();
        s.model = testing::tinyNeoX();
        s.model.parallelResidual = false;
        rejected(s, "GPT-NeoX without the parallel residual (use_parallel_residual false)");
        s = testing::tinyScenario();
        s.model = testing::tinyBert(2, 16, 4, 32, 64, 32, 1);
        rejected(s, "a regression head (num_labels 1, MSELoss)");
        s.model = testing::tinyBert();
        s.train.chunkedCrossEntropy = true;
        rejected(s, "chunked cross-entropy on BERT (its heads run whole: the MLM transform and decoder bias, or one "
                    "row of logits per sequence)");
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
        s.model.family = Family::Phi3;
        auto plan = rt::headroomPlan(s);
        QVERIFY(plan.ok());
        bool noted = false;
        for (const std::string& n : plan->notes)
            noted = noted || n.find("does not run this scenario yet (model family phi3)") != std::string::npos;
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
        constexpr std::size_t kScenarios = 160;
        std::size_t checkpointedRuns = 0, accumulatingRuns = 0, loraRuns = 0, qloraRuns = 0, lomoRuns = 0, gpt2Runs = 0, chunkedRuns = 0,
                    dropoutRuns = 0, neoxRuns = 0;
        for (std::size_t i = 0; i < kScenarios; ++i) {
            const Scenario s = randomScenario(rng, i);
            checkAgreement(s, *backend, i + 1);
            if (QTest::currentTestFailed())
                return;
            checkpointedRuns += s.train.checkpointing != Checkpointing::None ? 1 : 0;
            accumulatingRuns += s.train.gradAccum > 1 ? 1 : 0;
            loraRuns += s.train.peft.method == PeftMethod::Lora ? 1 : 0;
            qloraRuns += s.train.peft.method == PeftMethod::Qlora ? 1 : 0;
            lomoRuns += s.train.optimizer == Optimizer::Lomo ? 1 : 0;
            gpt2Runs += s.model.family == Family::Gpt2 ? 1 : 0;
            neoxRuns += s.model.family == Family::GptNeoX ? 1 : 0;
            chunkedRuns += s.train.chunkedCrossEntropy ? 1 : 0;
            dropoutRuns += s.model.dropout > 0 ? 1 : 0;
        }
        QVERIFY(dropoutRuns > 20);
        QVERIFY(neoxRuns > 10);
        QVERIFY(loraRuns > 10);
        QVERIFY(lomoRuns > 8);
        QVERIFY(gpt2Runs > 15);
        QVERIFY(chunkedRuns > 20);
        QVERIFY(qloraRuns > 10);
        QVERIFY(checkpointedRuns > 20);
        QVERIFY(accumulatingRuns > 10);
    }

    void randomisedBertModelsAgreeToTheByte()
    {
        // BertForMaskedLM and BertForSequenceClassification: post-LN encoder
        // layers, bidirectional attention, embedding LayerNorm, the MLM
        // transform and tied decoder, or pooler and classifier
        // (runtime/step/bertlayer.cpp, bertheadstep.cpp).
        std::mt19937_64 rng(20261125);
        auto backend = rt::makeCpuBackend();
        constexpr std::size_t kScenarios = 48;
        std::size_t dropoutRuns = 0, checkpointedRuns = 0, accumulatingRuns = 0, eagerRuns = 0, classifierRuns = 0;
        for (std::size_t i = 0; i < kScenarios; ++i) {
            const Scenario s = randomBertScenario(rng, i);
            checkAgreement(s, *backend, i + 1);
            if (QTest::currentTestFailed())
                return;
            dropoutRuns += s.model.dropout > 0 ? 1 : 0;
            checkpointedRuns += s.train.checkpointing != Checkpointing::None ? 1 : 0;
            accumulatingRuns += s.train.gradAccum > 1 ? 1 : 0;
            eagerRuns += s.train.attention == Attention::Eager ? 1 : 0;
            classifierRuns += s.model.classifier() ? 1 : 0;
        }
        QCOMPARE(classifierRuns, kScenarios / 2);
        QVERIFY(dropoutRuns > 12);
        QVERIFY(checkpointedRuns > 12);
        QVERIFY(accumulatingRuns > 6);
        QVERIFY(eagerRuns > 8);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeAgreement)
#include "test_runtime_agreement.moc"
