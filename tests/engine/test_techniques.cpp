// SPDX-License-Identifier: GPL-3.0-or-later
// The one table of techniques (plan/techniques.h) behind the ladder and make
// it fit: every id has one name that parses back to it, the table is in enum
// order, each technique changes what it says (and only with its value where
// it has one), the ladder takes names and ids alike and refuses what is not a
// ladder step, and no make-it-fit suggestion combines two techniques of one group.
#include "plan/defaultscenario.h"
#include "plan/ladder.h"
#include "plan/makeitfit.h"
#include "plan/techniques.h"

#include <QtTest>

#include <set>
#include <string>

using namespace headroom;

class TestTechniques : public QObject {
    Q_OBJECT
private slots:
    void namesRoundTripInEnumOrder()
    {
        const auto& all = allTechniques();
        QCOMPARE(all.size(), static_cast<std::size_t>(TechniqueId::Prompt) + 1);
        std::set<std::string> names;
        for (std::size_t i = 0; i < all.size(); ++i) {
            QCOMPARE(static_cast<std::size_t>(all[i]), i);
            const std::string name = techniqueName(all[i]);
            QVERIFY2(names.insert(name).second, name.c_str());
            QCOMPARE(parseTechnique(name), std::optional<TechniqueId>(all[i]));
        }
        QVERIFY(!parseTechnique("no-such-technique"));
        QVERIFY(!parseTechnique(""));
    }

    void eachTechniqueChangesWhatItSays()
    {
        const Scenario base = teachingScenario().value(); // QLoRA, bf16 mixed, flash, checkpointing
        auto with = [&](TechniqueId id, std::uint64_t value = 0) {
            Scenario s = base;
            useTechnique(s, id, value);
            return s;
        };
        QCOMPARE(with(TechniqueId::Fp32).train.precision, Precision::Fp32);
        QCOMPARE(with(TechniqueId::Sdpa).train.attention, Attention::Sdpa);
        QCOMPARE(with(TechniqueId::CheckpointEvery, 3).train.checkpointing, Checkpointing::EveryK);
        QCOMPARE(with(TechniqueId::CheckpointEvery, 3).train.checkpointEvery, 3u);
        QCOMPARE(with(TechniqueId::Lora).train.peft.method, PeftMethod::Lora);
        QCOMPARE(with(TechniqueId::Lora).train.weightQuant, WeightQuant::None);
        QCOMPARE(with(TechniqueId::Qlora).train.weightQuant, WeightQuant::Nf4DoubleQuant);
        QCOMPARE(with(TechniqueId::Zero3).hardware.sharding, Sharding::Zero3);

        // Micro-batch changes keep the effective batch.
        Scenario four = base;
        four.train.microBatch = 4;
        four.train.gradAccum = 2;
        Scenario one = four;
        useTechnique(one, TechniqueId::MicroBatch1);
        QCOMPARE(one.train.microBatch * one.train.gradAccum, 8u);
        Scenario two = four;
        useTechnique(two, TechniqueId::MicroBatch, 2);
        QCOMPARE(two.train.microBatch, 2u);
        QCOMPARE(two.train.microBatch * two.train.gradAccum, 8u);
        Scenario zero = four;
        useTechnique(zero, TechniqueId::MicroBatch, 0); // no value: unchanged, never a division by zero
        QCOMPARE(zero.train.microBatch, 4u);

        // The naive start undoes every saving.
        const Scenario naive = with(TechniqueId::NaiveFp16);
        QCOMPARE(naive.train.peft.method, PeftMethod::None);
        QCOMPARE(naive.train.checkpointing, Checkpointing::None);
        QCOMPARE(naive.train.attention, Attention::Eager);
        QCOMPARE(naive.train.precision, Precision::Fp16Mixed);
    }

    void theLadderTakesNamesAndIdsAndRefusesTheRest()
    {
        const Scenario base = teachingScenario().value();
        auto byId = buildLadder(base, std::vector<TechniqueId>{TechniqueId::NaiveFp16, TechniqueId::Checkpointing});
        auto byName = buildLadder(base, std::vector<std::string>{"naive-fp16", "checkpointing"});
        QVERIFY(byId && byName);
        QCOMPARE(byId->size(), 2u);
        QCOMPARE(byId->back().technique, TechniqueId::Checkpointing);
        QCOMPARE(byId->back().plan.deviceUsedBytes, byName->back().plan.deviceUsedBytes);
        QVERIFY(!buildLadder(base, std::vector<std::string>{"no-such-step"}));
        // A technique that needs its value is not a ladder step.
        QVERIFY(!buildLadder(base, std::vector<TechniqueId>{TechniqueId::MicroBatch}));
        QVERIFY(!buildLadder(base, std::vector<std::string>{"sequence"}));
    }

    void suggestionsNeverCombineOneGroupTwice()
    {
        Scenario s = teachingScenario().value();
        s.train.peft = PeftConfig{};
        s.train.weightQuant = WeightQuant::None;
        s.train.checkpointing = Checkpointing::None;
        s.train.attention = Attention::Eager;
        s.train.microBatch = 8;
        auto result = makeItFit(s);
        QVERIFY(result);
        QVERIFY(!result->alreadyFits);
        QVERIFY(!result->suggestions.empty());
        for (const FitSuggestion& suggestion : result->suggestions) {
            std::set<TechniqueGroup> groups;
            for (const FitChange& c : suggestion.changes)
                QVERIFY2(groups.insert(techniqueGroup(c.technique)).second, suggestion.label.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestTechniques)
#include "test_techniques.moc"
