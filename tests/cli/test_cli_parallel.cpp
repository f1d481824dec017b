// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli over several GPUs (cli/clirun.h): plan --json's "ranks" for
// tensor, pipeline (1F1B and interleaved) and context-parallel layouts, the
// error naming a layout's bad field, and the layout search, each of whose
// layouts `plan` replays with the same counters. The other commands:
// test_cli.cpp.
#include "cli/clirun.h"

#include <nlohmann/json.hpp>

#include <QtTest/QtTest>

using nlohmann::json;
using namespace clitest;

class TestCliParallel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(QFile::exists(QStringLiteral(HEADROOM_CLI_PATH))); }

    // search: the layouts of 16 H100s for a small preset, best first, each
    // replayed by plan with the same counters; a global batch no layout divides.
    void search()
    {
        const QStringList base = words("--model Qwen/Qwen2.5-0.5B --peft none --precision bf16-mixed --optimizer adamw "
                                       "--seq-len 1024 --gpu h100-sxm-80gb --gpus 16 --global-batch 32");
        const CliResult r = runCli(words("search --json --top 3") + base);
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object());
        QVERIFY(j.at("evaluated").get<int>() > 0);
        QVERIFY(j.at("feasible").get<int>() >= 3);
        QVERIFY(j.at("gpus_per_node_assumed").get<bool>());
        const json& layouts = j.at("layouts");
        QCOMPARE(int(layouts.size()), 3);
        double previous = 0;
        for (const json& l : layouts) {
            const json& p = l.at("parallel");
            const int tp = p.at("tp").get<int>(), pp = p.at("pp").get<int>(), dp = p.at("dp").get<int>();
            const int cp = p.at("cp").get<int>();
            QCOMPARE(tp * pp * cp * dp, 16);
            if (cp > 1) // ring attention: planned under FSDP2 only, and timed
                QVERIFY(p.at("sharding").get<std::string>() == "fsdp2" &&
                        l.at("terms_s").at("context_parallel").get<double>() > 0);
            QCOMPARE(p.at("micro_batch").get<int>() * p.at("grad_accum").get<int>() * dp, 32);
            QVERIFY(l.at("fits").get<bool>());
            const double step = l.at("step_time_s").get<double>();
            QVERIFY(step >= previous);
            previous = step;
            // plan with that layout says the same.
            const QStringList layout = {QStringLiteral("--tp"),
                                        QString::number(tp),
                                        QStringLiteral("--pp"),
                                        QString::number(pp),
                                        QStringLiteral("--vpp"),
                                        QString::number(p.at("vpp").get<int>()),
                                        QStringLiteral("--cp"),
                                        QString::number(cp),
                                        QStringLiteral("--dp-replicate"),
                                        QString::number(p.at("dp_replicate").get<int>()),
                                        QStringLiteral("--sharding"),
                                        QString::fromStdString(p.at("sharding").get<std::string>()),
                                        QStringLiteral("--micro-batch"),
                                        QString::number(p.at("micro_batch").get<int>()),
                                        QStringLiteral("--grad-accum"),
                                        QString::number(p.at("grad_accum").get<int>()),
                                        QStringLiteral("--checkpointing"),
                                        QString::fromStdString(p.at("checkpointing").get<std::string>())};
            const json plan = planJson(base + layout + (p.at("sp").get<bool>() ? words("--sp") : QStringList()));
            QCOMPARE(plan.at("device_used_bytes").get<std::uint64_t>(), l.at("device_used_bytes").get<std::uint64_t>());
        }

        const CliResult text = runCli(words("search") + base);
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        QVERIFY(text.out.contains("#1 is "));
        QVERIFY(text.out.contains("GPUs per node: 8 (assumed"));

        // 64 GPUs: tp at most 2, pp at most 16, and no cp (1001 tokens do not
        // split into 2 x cp chunks): every dp is even.
        const CliResult bad = runCli(words("search --model Qwen/Qwen2.5-0.5B --gpus 64 --gpu h100-sxm-80gb "
                                           "--global-batch 3 --seq-len 1001 --peft none"));
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.startsWith("headroom-cli: invalid-argument: train.global_batch: 3 sequences do not divide"),
                 bad.err.constData());
    }

    // plan --json with tensor and pipeline parallelism (issue 15): one entry
    // per pipeline stage under "ranks", the top-level counters the worst's.
    void planJsonRanks()
    {
        const json j =
            planJson(words("--model meta-llama/Llama-3.1-8B --peft none --precision bf16 --optimizer adamw "
                           "--gpu h100-sxm-80gb --gpus 8 --tp 2 --sp --pp 2 --grad-accum 4 --global-batch 16"));
        QVERIFY(j.is_object());
        QVERIFY(j.contains("ranks") && j.at("ranks").is_array());
        const json& ranks = j.at("ranks");
        QCOMPARE(ranks.size(), std::size_t{2});
        QCOMPARE(j.at("parallel").at("tp").get<int>(), 2);
        QCOMPARE(j.at("parallel").at("pp").get<int>(), 2);
        QCOMPARE(j.at("parallel").at("dp").get<int>(), 2);
        const auto worst = j.at("worst_rank").get<std::size_t>();
        QVERIFY(worst < 2);
        for (std::size_t s = 0; s < ranks.size(); ++s) {
            const json& r = ranks[s];
            QCOMPARE(r.at("stage").get<std::size_t>(), s);
            QCOMPARE(r.at("layers").get<int>(), 16);                              // 32 layers over 2 stages
            QCOMPARE(r.at("in_flight_micro_batches").get<int>(), s == 0 ? 2 : 1); // 1F1B: pp - stage
            for (const char* key : {"peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes"})
                QVERIFY2(r.at(key).get<std::uint64_t>() <= j.at(key).get<std::uint64_t>(), key);
            QVERIFY(r.at("categories").contains("weights"));
        }
        for (const char* key : {"peak_allocated_bytes", "peak_reserved_bytes", "device_used_bytes"})
            QCOMPARE(ranks[worst].at(key).get<std::uint64_t>(), j.at(key).get<std::uint64_t>());
        // One GPU: no ranks, as before.
        QVERIFY(!planJson({}).contains("ranks"));
        // The text plan names the layout and lists the stages, the worst marked.
        const CliResult text = runCli(words("plan --model meta-llama/Llama-3.1-8B --peft none --precision bf16 "
                                            "--gpu h100-sxm-80gb --gpus 8 --tp 2 --pp 2 --grad-accum 4"));
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        QVERIFY2(text.out.contains("tp 2 × pp 2 (1f1b) × dp 2"), text.out.constData());
        QVERIFY2(text.out.contains("  stage 1: 16 layers, 1 micro-batch in flight"), text.out.constData());
        QCOMPARE(text.out.count("(worst)"), qsizetype{1});
    }

    // Interleaved 1F1B (--vpp): "vpp" in "parallel" and each rank's chunk
    // layers; in-flight counts are chunk micro-batches. Llama 3.1 8B's 32
    // layers over pp 4 x vpp 2 = 8 chunks of 4; 8 micro-batches: rank r's
    // warm-up is 2 (3 - r) + (2 - 1) x 4 = 10, 8, 6, 4 chunk forwards
    // (Megatron-LM get_pp_rank_microbatches), and it holds one more.
    void interleavedPlan()
    {
        const QByteArray layout = "--model meta-llama/Llama-3.1-8B --peft none --precision bf16 "
                                  "--gpu h100-sxm-80gb --gpus 8 --tp 2 --pp 4 --vpp 2";
        const json j = planJson(words((layout + " --grad-accum 8").constData()));
        QVERIFY(j.is_object());
        QCOMPARE(j.at("parallel").at("vpp").get<int>(), 2);
        const json& ranks = j.at("ranks");
        QCOMPARE(ranks.size(), std::size_t{4});
        const int inFlight[] = {11, 9, 7, 5};
        for (std::size_t r = 0; r < ranks.size(); ++r) {
            QCOMPARE(ranks[r].at("chunk_layers"), json::array({4, 4}));
            QCOMPARE(ranks[r].at("layers").get<int>(), 8);
            QCOMPARE(ranks[r].at("in_flight_micro_batches").get<int>(), inFlight[r]);
        }
        const CliResult text = runCli(words(("plan " + layout + " --grad-accum 8").constData()));
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        QVERIFY2(text.out.contains("tp 2 × pp 4 (interleaved 1f1b, vpp 2) × dp 1"), text.out.constData());
        QVERIFY2(text.out.contains("  stage 0: 8 layers in 2 chunks (4 + 4), 11 chunk micro-batches in flight"),
                 text.out.constData());
        // 6 micro-batches do not fill groups of pp 4.
        const CliResult odd = runCli(words(("plan " + layout + " --grad-accum 6").constData()));
        QVERIFY2(odd.exitCode == 2, odd.describe().constData());
        QVERIFY2(odd.err.contains("train.grad_accum: 6 micro-batches do not divide by pp 4"),
                 odd.describe().constData());
    }

    // Context parallelism (--cp) under FSDP2: the layout in "parallel", one
    // rank, FSDP over dp x cp; a layout or sequence that does not divide is
    // refused naming the field and the numbers.
    void contextParallelPlan()
    {
        const json j = planJson(words("--model meta-llama/Llama-3.2-1B --peft none --precision bf16-mixed "
                                      "--seq-len 8192 --gpu h100-sxm-80gb --gpus 8 --sharding fsdp2 --cp 2"));
        QVERIFY(j.is_object());
        QCOMPARE(j.at("parallel").at("cp").get<int>(), 2);
        QCOMPARE(j.at("parallel").at("dp").get<int>(), 4);
        QCOMPARE(j.at("ranks").size(), std::size_t{1});
        // A layout without cp has no "cp" key, as before.
        const json tp = planJson(words("--model meta-llama/Llama-3.1-8B --peft none --precision bf16 "
                                       "--gpu h100-sxm-80gb --gpus 8 --tp 2 --pp 2 --grad-accum 4"));
        QVERIFY(!tp.at("parallel").contains("cp"));
        const CliResult text = runCli(words("plan --model meta-llama/Llama-3.2-1B --peft none --seq-len 8192 "
                                            "--gpu h100-sxm-80gb --gpus 8 --sharding fsdp2 --cp 2"));
        QVERIFY2(text.exitCode == 0, text.describe().constData());
        QVERIFY2(text.out.contains("tp 1 × pp 1 (1f1b) × cp 2 × dp 4"), text.out.constData());
        // Expert parallelism is named on the same line; no ep without experts.
        QVERIFY2(!text.out.contains(" · ep "), text.out.constData());
        const CliResult moe = runCli(words("plan --model mistralai/Mixtral-8x7B-v0.1 --peft none --weight-quant none "
                                           "--precision bf16-mixed --optimizer adamw --gpu h200 --gpus 16 --sharding zero1 --tp 2 --sp "
                                           "--ep 4 --etp 1 --seq-len 1024"));
        QVERIFY2(moe.exitCode == 0, moe.describe().constData());
        QVERIFY2(moe.out.contains("× dp 8 · ep 4 · etp 1"), moe.out.constData());
        const CliResult odd = runCli(words("plan --model meta-llama/Llama-3.2-1B --peft none --gpus 8 "
                                           "--sharding fsdp2 --cp 3"));
        QVERIFY2(odd.exitCode == 2, odd.describe().constData());
        QVERIFY2(odd.err.contains("hardware.parallel: tp 1 x pp 1 x cp 3 = 3 GPUs per model replica must divide "
                                  "hardware.count 8"),
                 odd.describe().constData());
        const CliResult seq = runCli(words("plan --model meta-llama/Llama-3.2-1B --peft none --gpus 8 "
                                           "--sharding fsdp2 --cp 8 --seq-len 1000"));
        QVERIFY2(seq.exitCode == 2, seq.describe().constData());
        QVERIFY2(seq.err.contains("train.seq_len: 1000 does not divide by 2 x cp = 16"), seq.describe().constData());
    }

    // A layout that does not divide is refused in one line naming the field and the numbers.
    void badLayoutNamesTheField()
    {
        const CliResult r = runCli(words("plan --model meta-llama/Llama-3.1-8B --peft none --gpus 6 --tp 4"));
        QVERIFY2(r.exitCode == 2, r.describe().constData());
        QVERIFY2(
            r.err.contains("hardware.parallel: tp 4 x pp 1 = 4 GPUs per model replica must divide hardware.count 6"),
            r.describe().constData());
        const CliResult kv = runCli(words("plan --model meta-llama/Llama-3.1-8B --peft none --gpus 16 --tp 16"));
        QVERIFY2(kv.exitCode == 2, kv.describe().constData());
        QVERIFY2(kv.err.contains("hardware.parallel.tp: 8 KV heads do not divide by tp 16"), kv.describe().constData());
    }
};

QTEST_GUILESS_MAIN(TestCliParallel)
#include "test_cli_parallel.moc"
