// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in teaching set (engine/io/teachingset.h): it loads, every
// scenario plans, and the book's values are the ones printed in the seed
// transcript (shared/seeds/001_bda24046924b83e4.txt, lines cited below). The
// errors are printed, not bounded: docs/validation/seed-book.md explains them.
#include "io/teachingset.h"

#include <QtTest/QtTest>

#include <cstdio>
#include <map>
#include <string>

using namespace headroom;

class TestTeaching : public QObject {
    Q_OBJECT

private slots:
    void loadsAndPlans()
    {
        QCOMPARE(builtinTeachingSetIds().size(), std::size_t(1));
        auto set = builtinTeachingSet("seed-book");
        QVERIFY2(set.ok(), set.ok() ? "" : set.error().detail.c_str());
        QCOMPARE(QString::fromStdString(set->id), QStringLiteral("seed-book"));
        QVERIFY(set->notebook.find("onlybooks/llm@2848db0c31c7243dcf92fc9b00704252a52104bd") != std::string::npos);
        QCOMPARE(set->experiments.size(), std::size_t(16));
        for (const TeachingExperiment& e : set->experiments) {
            QCOMPARE(e.scenario.model.id, std::string("EleutherAI/polyglot-ko-1.3b"));
            QCOMPARE(e.scenario.train.seqLen, std::uint64_t(256)); // make_dummy_dataset: seq_len 256
            QCOMPARE(e.scenario.hardware.gpu, std::string("t4"));  // notebook metadata gpuType "T4"
            QVERIFY(e.scenario.train.loop == TrainingLoop::Custom);
        }
        auto rows = compareTeachingSet(*set);
        QVERIFY2(rows.ok(), rows.ok() ? "" : rows.error().detail.c_str());
        QCOMPARE(rows->size(), set->experiments.size());
        for (const TeachingComparison& c : *rows) {
            QVERIFY(c.headroomGiB > 0);
            QVERIFY(!c.explanation.empty());
            std::printf("  %-18s %-21s book %7.3f  Headroom %7.3f  error %+7.3f GiB (%+6.1f%%)\n", c.id.c_str(),
                        teachingCounterName(c.counter), c.bookGiB, c.headroomGiB, c.errorGiB, c.errorPercent);
        }
    }

    void bookValuesAreTheSeeds()
    {
        // id -> {value, seed line}: "[train_model] GPU 메모리 사용량: ..." and
        // the lines after it, in shared/seeds/001_bda24046924b83e4.txt.
        const std::map<std::string, std::pair<double, int>> seed{
            {"load", {2.615, 231}},              // [load_model_and_tokenizer] GPU 메모리 사용량: 2.615 GB
            {"batch-4", {10.586, 234}},          // [train_model] GPU 메모리 사용량: 10.586 GB
            {"batch-4-optimizer", {4.961, 235}}, // 옵티마이저 상태의 메모리 사용량: 4.961 GB
            {"batch-4-gradients", {2.481, 236}}, // 그레디언트 메모리 사용량: 2.481 GB
            {"batch-8", {11.113, 246}},          // [train_model] GPU 메모리 사용량: 11.113 GB
            {"batch-16", {12.164, 258}},         // [train_model] GPU 메모리 사용량: 12.164 GB
            {"accumulation", {10.586, 290}},     // [train_model] GPU 메모리 사용량: 10.586 GB (4 x 4)
            {"checkpointing", {10.290, 336}},    // [train_model] GPU 메모리 사용량: 10.290 GB
            {"lora-load", {2.618, 424}},         // [] GPU 메모리 사용량: 2.618 GB
            {"lora", {4.732, 427}},              // [train_model] GPU 메모리 사용량: 4.732 GB
            {"lora-optimizer", {0.006, 428}},    // 옵티마이저 상태의 메모리 사용량: 0.006 GB
            {"lora-gradients", {0.003, 429}},    // 그래디언트 메모리 사용량: 0.003 GB
            {"qlora-load", {2.112, 475}},        // [] GPU 메모리 사용량: 2.112 GB
            {"qlora", {2.651, 480}},             // [train_model] GPU 메모리 사용량: 2.651 GB
            {"qlora-optimizer", {0.012, 481}},   // 옵티마이저 상태의 메모리 사용량: 0.012 GB
            {"qlora-gradients", {0.006, 482}},   // 그레이언트 메모리 사용량: 0.006 GB
        };
        auto set = builtinTeachingSet("seed-book");
        QVERIFY(set.ok());
        QCOMPARE(set->experiments.size(), seed.size());
        for (const TeachingExperiment& e : set->experiments) {
            const auto it = seed.find(e.id);
            QVERIFY2(it != seed.end(), e.id.c_str());
            QCOMPARE(e.bookGiB, it->second.first);
            QCOMPARE(e.seedLine, it->second.second);
            // The reading before each experiment: 0.016 GB (line 228 etc.), or
            // 0.945 GB with example 5.14's model_nf4 still loaded (line 471).
            if (e.id.rfind("qlora", 0) == 0 && e.counter != TeachingCounter::OptimizerState &&
                e.counter != TeachingCounter::Gradients)
                QCOMPARE(e.bookBeforeGiB, 0.945);
            else if (e.counter == TeachingCounter::AllocatedAfterLoad ||
                     e.counter == TeachingCounter::AllocatedAfterStep)
                QCOMPARE(e.bookBeforeGiB, 0.016);
            else
                QCOMPARE(e.bookBeforeGiB, 0.0);
        }
    }

    // The state counters are the book's own arithmetic: 1,331,810,304 fp16
    // parameters -> 2.481 GiB of gradients and 4.961 GiB of two fp16 states.
    void fullFineTuningStatesMatchExactly()
    {
        auto set = builtinTeachingSet("seed-book");
        QVERIFY(set.ok());
        auto rows = compareTeachingSet(*set);
        QVERIFY(rows.ok());
        for (const TeachingComparison& c : *rows)
            if (c.id == "batch-4-optimizer" || c.id == "batch-4-gradients")
                QVERIFY2(std::abs(c.errorGiB) < 0.0005, c.id.c_str()); // within the book's 3-decimal rounding
    }

    void rejectsBadDocuments()
    {
        QVERIFY(!teachingSetFromText("not json").ok());
        QVERIFY(!teachingSetFromText(R"({"schema":"headroom.teaching/2"})").ok());
        QVERIFY(!builtinTeachingSet("no-such-set").ok());
        auto bad = teachingSetFromText(
            R"({"schema":"headroom.teaching/1","id":"x","title":"t","source":"s","notebook":"n",
                "experiments":[{"id":"a","title":"a","counter":"peak","note":"n","book_gib":1,"seed_line":1,
                                "scenario":{"schema":"headroom.scenario/1"}}]})");
        QVERIFY(!bad.ok());
        QCOMPARE(bad.error().code, ErrorCode::InvalidArgument);
    }
};

QTEST_GUILESS_MAIN(TestTeaching)
#include "test_teaching.moc"
