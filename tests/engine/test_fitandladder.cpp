// SPDX-License-Identifier: GPL-3.0-or-later
// The fit search (plan/fitsearch.h: the largest micro-batch and the longest
// sequence that fit) and the technique ladder (plan/ladder.h, the study
// notes' steps), on presets; moved out of test_planner.cpp, whose concern is
// the sweep and the table.
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "plan/fitsearch.h"
#include "plan/ladder.h"
#include "plan/planner.h"
#include "planrows.h"

#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

Scenario baseScenario(const char* preset)
{
    auto model = presetModel(preset);
    if (!model)
        qFatal("preset %s missing: %s", preset, model.error().detail.c_str());
    Scenario s;
    s.model = model.value();
    s.hardware.gpu = "h100-sxm-80gb";
    return s;
}

} // namespace

class TestFitAndLadder : public QObject {
    Q_OBJECT

private slots:
    void fitSearchFindsTheBoundary()
    {
        Scenario s = baseScenario("meta-llama/Llama-3.1-8B");
        s.train.peft.method = PeftMethod::Qlora;
        s.train.weightQuant = WeightQuant::Nf4;
        s.train.checkpointing = Checkpointing::Full;
        s.hardware.gpu = "rtx-4090";
        auto batch = largestMicroBatch(s);
        QVERIFY(batch.ok() && batch->found);
        Scenario at = s;
        at.train.microBatch = batch->value;
        QVERIFY(testing::planOrFail(at).fits);
        at.train.microBatch = batch->value + 1;
        QVERIFY(!testing::planOrFail(at).fits);
        auto seq = longestSequence(s);
        QVERIFY(seq.ok() && seq->found);
        at = s;
        at.train.seqLen = seq->value;
        QVERIFY(testing::planOrFail(at).fits);
        at.train.seqLen = seq->value + 1;
        QVERIFY(!testing::planOrFail(at).fits);
        // Nothing fits: a 405B model, full fine-tune, on one 24 GB card.
        Scenario huge = baseScenario("meta-llama/Llama-3.1-405B");
        huge.hardware.gpu = "rtx-4090";
        QVERIFY(!largestMicroBatch(huge)->found);
    }

    // The searches bisect on estimated plans and settle on simulated ones:
    // what they return is what makePlan says, for several models and cards.
    void fitSearchAgreesWithTheSimulatedPlan()
    {
        const char* models[] = {"meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-0.5B", "mistralai/Mistral-7B-v0.1"};
        const char* gpus[] = {"rtx-4090", "h100-sxm-80gb", "a100-40gb"};
        for (const char* id : models)
            for (const char* gpu : gpus)
                for (int variant = 0; variant < 2; ++variant) {
                    Scenario s = baseScenario(id);
                    if (!findGpu(gpu))
                        continue;
                    s.hardware.gpu = gpu;
                    s.train.checkpointing = Checkpointing::Full;
                    if (variant == 1) {
                        s.train.peft.method = PeftMethod::Lora;
                        s.train.attention = Attention::Flash;
                    }
                    const std::string what = std::string(id) + " on " + gpu + " variant " + std::to_string(variant);
                    auto batch = largestMicroBatch(s);
                    QVERIFY2(batch.ok(), what.c_str());
                    if (batch->found) {
                        Scenario at = s;
                        at.train.microBatch = batch->value;
                        const Plan p = testing::planOrFail(at);
                        QVERIFY2(p.fits && p.reservedSimulated, what.c_str());
                        QCOMPARE(batch->deviceUsedBytes, p.deviceUsedBytes);
                        at.train.microBatch = batch->value + 1;
                        QVERIFY2(!testing::planOrFail(at).fits, what.c_str());
                        QVERIFY(batch->plansSimulated >= 2 && batch->plansSimulated < batch->plansEvaluated);
                    } else {
                        Scenario at = s;
                        at.train.microBatch = 1;
                        QVERIFY2(!testing::planOrFail(at).fits, what.c_str());
                    }
                    auto seq = longestSequence(s);
                    QVERIFY2(seq.ok(), what.c_str());
                    if (seq->found) {
                        Scenario at = s;
                        at.train.seqLen = seq->value;
                        QVERIFY2(testing::planOrFail(at).fits, what.c_str());
                        QCOMPARE(seq->deviceUsedBytes, testing::planOrFail(at).deviceUsedBytes);
                        at.train.seqLen = seq->value + 1;
                        QVERIFY2(!testing::planOrFail(at).fits, what.c_str());
                    }
                }
        // The estimate says so on the plan; the default plan is simulated.
        Scenario s = baseScenario("meta-llama/Llama-3.1-8B");
        PlanOptions quick;
        quick.estimateReserved = true;
        auto estimated = makePlan(s, buildParameterTable(s.model), quick);
        QVERIFY(estimated.ok() && !estimated->reservedSimulated && estimated->allocatorSegments == 0);
        QVERIFY(testing::planOrFail(s).reservedSimulated);
        QCOMPARE(estimated->peakAllocatedBytes, testing::planOrFail(s).peakAllocatedBytes);
    }

    void ladderOfTheStudyNotes()
    {
        auto s = teachingScenario();
        QVERIFY(s.ok());
        auto ladder = buildLadder(s.value(), defaultLadder());
        QVERIFY(ladder.ok());
        QCOMPARE(ladder->size(), defaultLadder().size());
        QVERIFY(!ladder->front().plan.fits);  // full fine-tuning of 8B does not fit 24 GB
        QVERIFY(ladder->back().plan.fits);    // QLoRA does
        // Every step lowers the planned peak. Device used (the simulated
        // reserved) falls too where the run fits; far past the card's memory
        // the simulation releases and retries its cache (cachingallocator.h,
        // pastCapacity), where a smaller stream may fragment more: with
        // torch.optim's lazy state, flash attention on the full fine-tune of
        // 8B at 153 GiB on 24 GiB reads 1.4 GiB more (the same rows on a
        // B200, which fit, save 3.5 GiB).
        for (std::size_t k = 1; k < ladder->size(); ++k) {
            QVERIFY((*ladder)[k].plan.peakAllocatedBytes <= (*ladder)[k - 1].plan.peakAllocatedBytes);
            if ((*ladder)[k].plan.fits)
                QVERIFY((*ladder)[k].savingBytes >= 0);
        }
        QVERIFY(!buildLadder(s.value(), {"no-such-step"}).ok());
        // A step that moves only the cache says so: device used changed, the
        // peak of allocated memory did not.
        for (std::size_t k = 1; k < ladder->size(); ++k) {
            const LadderStep& step = (*ladder)[k];
            QCOMPARE(step.cacheOnly, step.savingBytes != 0 && step.plan.peakAllocatedBytes ==
                                                                  (*ladder)[k - 1].plan.peakAllocatedBytes);
        }
        // Flash attention after checkpointing, far past the card's memory.
        QVERIFY(std::any_of(ladder->begin(), ladder->end(), [](const LadderStep& step) { return step.cacheOnly; }));
    }

    void largestModelsPerTechnique()
    {
        Scenario s = baseScenario("gpt2");
        s.hardware.gpu = "rtx-4090";
        s.train.seqLen = 512;
        auto rows = largestModels(s);
        QVERIFY(rows.ok());
        QCOMPARE(rows->size(), standardTechniques().size());
        double fp32 = 0, qlora = 0;
        for (const ModelFitRow& r : rows.value()) {
            if (r.technique.id == "fp32-adamw")
                fp32 = r.largestGenericParameters;
            if (r.technique.id == "qlora-ckpt-flash")
                qlora = r.largestGenericParameters;
        }
        QVERIFY(fp32 > 0);
        QVERIFY(qlora > 4 * fp32);
    }
};

QTEST_APPLESS_MAIN(TestFitAndLadder)
#include "test_fitandladder.moc"
