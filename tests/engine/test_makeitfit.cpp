// SPDX-License-Identifier: GPL-3.0-or-later
// Make it fit: every suggestion fits when planned on its own, the list is
// ranked by kind then cost, nothing is suggested for a scenario that fits,
// and "nothing fits" is an empty list rather than a wrong answer.
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "plan/makeitfit.h"
#include "plan/planner.h"

#include <QtTest>

#include <algorithm>

using namespace headroom;

namespace {

Scenario scenarioFor(const char* preset, const char* gpu)
{
    auto model = presetModel(preset);
    if (!model)
        qFatal("preset %s missing: %s", preset, model.error().detail.c_str());
    Scenario s;
    s.model = model.value();
    s.hardware.gpu = gpu;
    return s;
}

// Llama 3.1 8B, full fine-tune in bf16 mixed with AdamW, micro-batch 4 of
// 2048 tokens on a 24 GB RTX 4090: 8B × 16 bytes of weights, gradients and
// moments alone are ~120 GiB, far above the card.
Scenario fullFinetuneOn4090()
{
    Scenario s = scenarioFor("meta-llama/Llama-3.1-8B", "rtx-4090");
    s.train.precision = Precision::Bf16Mixed;
    s.train.optimizer = Optimizer::AdamW;
    s.train.microBatch = 4;
    s.train.gradAccum = 2;
    s.train.attention = Attention::Eager;
    return s;
}

MakeItFitResult mustSuggest(const Scenario& s)
{
    auto r = makeItFit(s);
    if (!r)
        qFatal("makeItFit failed: %s", r.error().detail.c_str());
    return r.value();
}

} // namespace

class TestMakeItFit : public QObject {
    Q_OBJECT

private slots:
    void everySuggestionFitsWhenPlannedAlone()
    {
        const Scenario base = fullFinetuneOn4090();
        const MakeItFitResult r = mustSuggest(base);
        QVERIFY(!r.alreadyFits);
        QVERIFY(r.baseMarginBytes < 0);
        QVERIFY(!r.suggestions.empty());
        for (const FitSuggestion& s : r.suggestions) {
            auto plan = makePlan(s.scenario);
            QVERIFY(plan);
            QVERIFY2(plan->fits, s.label.c_str());
            QCOMPARE(plan->deviceUsedBytes, s.deviceUsedBytes);
            QCOMPARE(plan->marginBytes, s.marginBytes);
            QVERIFY(s.marginBytes >= 0);
            // The scenario is the base with exactly the listed changes applied.
            Scenario replay = base;
            for (const FitChange& c : s.changes)
                replay = applyChange(replay, c);
            QCOMPARE(makePlan(replay)->deviceUsedBytes, s.deviceUsedBytes);
            // A smaller micro-batch keeps the effective batch.
            QCOMPARE(s.scenario.train.microBatch * s.scenario.train.gradAccum, base.train.microBatch * base.train.gradAccum);
        }
    }

    void sortedByKindThenCost()
    {
        const MakeItFitResult r = mustSuggest(fullFinetuneOn4090());
        QVERIFY(r.suggestions.size() >= 2);
        for (std::size_t i = 1; i < r.suggestions.size(); ++i) {
            const FitSuggestion& a = r.suggestions[i - 1];
            const FitSuggestion& b = r.suggestions[i];
            QVERIFY(a.kind <= b.kind);
            if (a.kind == b.kind)
                QVERIFY2(a.speedCost <= b.speedCost, (a.label + " before " + b.label).c_str());
        }
    }

    void combinedCostIsTheProductOfItsChanges()
    {
        for (const FitSuggestion& s : mustSuggest(fullFinetuneOn4090()).suggestions) {
            double factor = 1;
            for (const FitChange& c : s.changes)
                factor *= 1 + c.speedCost;
            QCOMPARE(s.speedCost, factor - 1);
        }
    }

    void noSuggestionCarriesAChangeItDoesNotNeed()
    {
        // A combination is listed only when none of its parts fits on its own
        // at no greater cost: checked by planning each part independently.
        const Scenario base = fullFinetuneOn4090();
        for (const FitSuggestion& s : mustSuggest(base).suggestions) {
            if (s.changes.size() < 2)
                continue;
            for (std::size_t drop = 0; drop < s.changes.size(); ++drop) {
                Scenario part = base;
                double factor = 1;
                ChangeKind kind = ChangeKind::Speed;
                for (std::size_t i = 0; i < s.changes.size(); ++i)
                    if (i != drop) {
                        part = applyChange(part, s.changes[i]);
                        factor *= 1 + s.changes[i].speedCost;
                        kind = std::max(kind, s.changes[i].kind);
                    }
                auto plan = makePlan(part);
                const bool partIsAsGood = plan && plan->fits && factor - 1 <= s.speedCost && kind <= s.kind;
                QVERIFY2(!partIsAsGood, s.label.c_str());
            }
        }
    }

    void scenarioThatFitsNeedsNothing()
    {
        auto teaching = teachingScenario();
        QVERIFY(teaching);
        auto plan = makePlan(teaching.value());
        QVERIFY(plan && plan->fits);  // the study notes' exercise fits a 24 GB card
        const MakeItFitResult r = mustSuggest(teaching.value());
        QVERIFY(r.alreadyFits);
        QVERIFY(r.suggestions.empty());
        QCOMPARE(r.baseMarginBytes, plan->marginBytes);
    }

    void nothingFitsGivesAnEmptyList()
    {
        // Llama 3.1 70B on one 24 GB card: even its NF4 weights (~70e9 × 0.5
        // bytes ≈ 33 GiB) exceed the card, so no change of the list can fit.
        Scenario s = scenarioFor("meta-llama/Llama-3.1-70B", "rtx-4090");
        const MakeItFitResult r = mustSuggest(s);
        QVERIFY(!r.alreadyFits);
        QVERIFY(r.suggestions.empty());
        QVERIFY(r.plansEvaluated > 1);
    }

    void shorterSequenceIsTheLastResort()
    {
        // Inference of Llama 3.1 8B in bf16 on a 24 GB card with a 64k-token
        // prompt: the weights (~15 GiB) fit, the prompt's KV cache and
        // activations do not; a shorter prompt is offered, ranked last.
        Scenario s = scenarioFor("meta-llama/Llama-3.1-8B", "rtx-4090");
        s.mode = Mode::Inference;
        s.inference.promptTokens = 65536;
        s.inference.attention = Attention::Eager;
        const MakeItFitResult r = mustSuggest(s);
        QVERIFY(!r.alreadyFits);
        QVERIFY(!r.suggestions.empty());
        const FitSuggestion& last = r.suggestions.back();
        const bool anyTask = std::any_of(r.suggestions.begin(), r.suggestions.end(),
                                         [](const FitSuggestion& x) { return x.kind == ChangeKind::Task; });
        if (anyTask) {
            QCOMPARE(last.kind, ChangeKind::Task);
            QVERIFY(last.scenario.inference.promptTokens < s.inference.promptTokens);
        }
        for (const FitSuggestion& x : r.suggestions)
            QVERIFY(makePlan(x.scenario)->fits);
    }

    void candidatesChangeTheScenario()
    {
        const Scenario base = fullFinetuneOn4090();
        const Bytes before = makePlan(base)->deviceUsedBytes;
        for (const FitChange& c : candidateChanges(base)) {
            auto plan = makePlan(applyChange(base, c));
            if (!plan)
                continue;  // e.g. a combination the planner does not support
            QVERIFY2(plan->deviceUsedBytes != before || c.technique == TechniqueId::ChunkedCe,
                     techniqueName(c.technique));
        }
    }

    void invalidScenarioIsAnError()
    {
        Scenario s = fullFinetuneOn4090();
        s.train.seqLen = 0;
        auto r = makeItFit(s);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(TestMakeItFit)
#include "test_makeitfit.moc"
