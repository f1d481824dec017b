// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli as a user runs it (cli/clirun.h): the commands, their JSON on
// stdout with --json (engine/io/planjson.cpp) and the contract of `headroom-cli
// --help`: "0 done, 2 bad input or usage (one line on stderr)". The help texts
// themselves, and their agreement with the man pages: test_cli_help.cpp;
// tensor, pipeline and context-parallel layouts and the layout search:
// test_cli_parallel.cpp; compare and measurement files: test_cli_compare.cpp;
// bad input: test_cli_badinput.cpp.
#include "cli/clirun.h"

#include <nlohmann/json.hpp>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

using nlohmann::json;
using namespace clitest;

namespace {

// One field as JSON text, for failure messages.
std::string field(const json& j, const char* key)
{
    return j.is_object() && j.contains(key) ? j.at(key).dump() : std::string("(missing)");
}

// "fits" of a plan: 1 true, 0 false, -1 absent (the plan failed).
int fitsOf(const json& plan)
{
    if (!plan.is_object() || !plan.contains("fits") || !plan.at("fits").is_boolean())
        return -1;
    return plan.at("fits").get<bool>() ? 1 : 0;
}

// A string field, empty where absent.
std::string textAt(const json& j, const char* key)
{
    return j.is_object() && j.contains(key) && j.at(key).is_string() ? j.at(key).get<std::string>() : std::string();
}

// The scenario example from the issue, verbatim: QLoRA of Llama 3.1 8B on
// q_proj and v_proj, AdamW, micro-batch 2 x 2048 tokens, one RTX 4090.
const QByteArray kIssueScenario =
    R"({"schema":"headroom.scenario/1","model":{"preset":"meta-llama/Llama-3.1-8B"},)"
    R"("train":{"precision":"bf16-mixed","optimizer":"adamw","peft":{"method":"qlora","rank":16,"alpha":32,)"
    R"("targets":["q_proj","v_proj"]},"micro_batch":2,"seq_len":2048,"grad_accum":8,"checkpointing":"full",)"
    R"("attention":"flash"},"hardware":{"gpu":"rtx-4090","count":1,"sharding":"none"},"profile":"pytorch"})";

// A small GPT-2 (GPT2Config keys): n_embd 64, 2 layers, 4 heads, vocabulary
// 1000, 1024 learned positions, tied lm_head.
const QByteArray kSmallGpt2Config =
    R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 1000, "n_positions": 1024})";

// Tiny Llama: V 16, H 8, 2 heads of 4, 1 KV head, I 12, 1 layer, untied
// (LlamaConfig.tie_word_embeddings defaults to false).
const QByteArray kTinyLlamaConfig = R"({"model_type": "llama", "hidden_size": 8, "num_hidden_layers": 1,
    "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": 16, "intermediate_size": 12})";

// A .safetensors file (huggingface/safetensors README, "Format": 8-byte
// little-endian header length, JSON header, data) holding every tensor of
// kTinyLlamaConfig in BF16, laid out back to back, zero-filled.
QByteArray tinyLlamaSafetensors()
{
    const std::map<std::string, std::vector<std::uint64_t>> shapes{
        {"model.embed_tokens.weight", {16, 8}},
        {"model.layers.0.self_attn.q_proj.weight", {8, 8}},
        {"model.layers.0.self_attn.k_proj.weight", {4, 8}},
        {"model.layers.0.self_attn.v_proj.weight", {4, 8}},
        {"model.layers.0.self_attn.o_proj.weight", {8, 8}},
        {"model.layers.0.mlp.gate_proj.weight", {12, 8}},
        {"model.layers.0.mlp.up_proj.weight", {12, 8}},
        {"model.layers.0.mlp.down_proj.weight", {8, 12}},
        {"model.layers.0.input_layernorm.weight", {8}},
        {"model.layers.0.post_attention_layernorm.weight", {8}},
        {"model.norm.weight", {8}},
        {"lm_head.weight", {16, 8}},
    };
    json header = {{"__metadata__", {{"format", "pt"}}}};
    std::uint64_t offset = 0;
    for (const auto& [name, shape] : shapes) {
        std::uint64_t bytes = 2;  // BF16
        for (std::uint64_t d : shape)
            bytes *= d;
        header[name] = {{"dtype", "BF16"}, {"shape", shape}, {"data_offsets", {offset, offset + bytes}}};
        offset += bytes;
    }
    const QByteArray text = QByteArray::fromStdString(header.dump());
    const auto length = static_cast<quint64>(text.size());
    QByteArray out(8, '\0');
    for (int i = 0; i < 8; ++i)
        out[i] = char((length >> (8 * i)) & 0xff);
    return out + text + QByteArray(static_cast<qsizetype>(offset), '\0');
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir; // the scenario, config and model files the commands read
    QString path(const char* name) const { return m_dir.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY(QFile::exists(QStringLiteral(HEADROOM_CLI_PATH)));
        QVERIFY(writeFile(path("issue.headroom.json"), kIssueScenario));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("gpt2")));
        QVERIFY(writeFile(path("gpt2/config.json"), kSmallGpt2Config));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("tiny-llama")));
        QVERIFY(writeFile(path("tiny-llama/config.json"), kTinyLlamaConfig));
        QVERIFY(writeFile(path("tiny-llama/model.safetensors"), tinyLlamaSafetensors()));
    }

    void planNamesOverrides()
    {
        const CliResult plain = runCli(words("plan"));
        QVERIFY2(plain.exitCode == 0, plain.describe().constData());
        QVERIFY2(plain.out.contains("\nScenario: built-in default (meta-llama/Llama-3.1-8B qlora on rtx-4090)\n"),
                 plain.out.constData());
        QVERIFY(!plain.out.contains("your options set"));

        const CliResult r = runCli(words("plan --micro-batch 4"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        QVERIFY2(r.out.contains("Scenario: built-in default (meta-llama/Llama-3.1-8B qlora on rtx-4090); "
                                "your options set: micro-batch 4 (was 2)\n"),
                 r.out.constData());
        // defaultscenario.cpp: grad_accum 8 and full checkpointing, which a plain scenario lacks.
        const qsizetype kept = r.out.indexOf("  still from the scenario: ");
        QVERIFY2(kept > 0, r.out.constData());
        const QByteArray keptLine = r.out.mid(kept, r.out.indexOf('\n', kept) - kept);
        for (const char* setting : {"model meta-llama/Llama-3.1-8B", "grad-accum 8", "checkpointing full",
                                    "peft qlora", "weight-quant nf4-dq", "attention flash", "gpu rtx-4090"})
            QVERIFY2(keptLine.contains(setting), keptLine.constData());
        QVERIFY2(!keptLine.contains("micro-batch"), keptLine.constData());

        // JSON: scenario_origin, the same lists.
        const json j = planJson(words("--micro-batch 4 --grad-accum 1 --peft none"));
        QVERIFY(j.is_object() && j.contains("scenario_origin"));
        const json& origin = j.at("scenario_origin");
        QCOMPARE(textAt(origin, "base"), std::string("built-in"));
        std::map<std::string, std::string> set, was, fromScenario;
        for (const json& row : origin.at("overrides")) {
            set[row.at("option").get<std::string>()] = row.at("value").is_string() ? row.at("value").get<std::string>() : "";
            was[row.at("option").get<std::string>()] = row.at("scenario_value").is_string() ? row.at("scenario_value").get<std::string>() : "";
        }
        for (const json& row : origin.at("from_scenario"))
            fromScenario[row.at("option").get<std::string>()] = row.at("value").get<std::string>();
        QCOMPARE(set["micro-batch"], std::string("4"));
        QCOMPARE(was["micro-batch"], std::string("2"));
        QCOMPARE(set["grad-accum"], std::string("1"));
        QCOMPARE(set["peft"], std::string("none"));
        // Implied by --peft none (options.cpp): the NF4 base goes too.
        QCOMPARE(set["weight-quant"], std::string("none"));
        QCOMPARE(was["weight-quant"], std::string("nf4-dq"));
        QCOMPARE(fromScenario["checkpointing"], std::string("full"));
        QVERIFY(!fromScenario.count("grad-accum") && !fromScenario.count("micro-batch"));
        // Not applying without PEFT, so not listed.
        QVERIFY(!fromScenario.count("lora-rank") && !set.count("lora-rank"));

        // On top of a file: the file is the base.
        const json file = planJson(words("--scenario") << path("issue.headroom.json") << words("--seq-len 1024"));
        QVERIFY(file.is_object() && file.contains("scenario_origin"));
        QCOMPARE(textAt(file.at("scenario_origin"), "base"), std::string("file"));
        QCOMPARE(textAt(file.at("scenario_origin"), "file"), path("issue.headroom.json").toStdString());
    }

    void planDefaultJson()
    {
        const json j = planJson({});
        QVERIFY(j.is_object());
        for (const char* key : {"peak_bytes", "categories", "peak_event", "fits", "peak_allocated_bytes",
                                "peak_reserved_bytes", "device_used_bytes"})
            QVERIFY2(j.contains(key), key);
        QCOMPARE(textAt(j, "schema"), std::string("headroom.plan/1"));  // planjson.cpp
        QVERIFY(j.at("fits").is_boolean());
        QVERIFY(!textAt(j, "peak_event").empty());

        // The eight names of categoryName() in engine/plan/plan.cpp, and no others.
        const json& categories = j.at("categories");
        QVERIFY(categories.is_object());
        QCOMPARE(categories.size(), std::size_t(8));
        std::uint64_t sum = 0;
        for (const char* name : {"weights", "gradients", "optimizer-state", "activations", "logits", "temporaries",
                                 "kv-cache", "workspace"}) {
            const std::optional<std::uint64_t> bytes = unsignedAt(categories, name);
            QVERIFY2(bytes.has_value(), name);
            sum += *bytes;
        }
        // The breakdown is the live bytes at the peak event, so it adds up to the peak.
        const std::optional<std::uint64_t> peak = unsignedAt(j, "peak_bytes");
        QVERIFY(peak.has_value());
        QVERIFY(*peak > 0);
        QCOMPARE(sum, *peak);

        // Counters nest: nvidia-smi's used memory holds the allocator's
        // reserved pool (plus CUDA context), which holds the allocated bytes.
        const auto allocated = unsignedAt(j, "peak_allocated_bytes");
        const auto reserved = unsignedAt(j, "peak_reserved_bytes");
        const auto used = unsignedAt(j, "device_used_bytes");
        QVERIFY(allocated && reserved && used);
        QVERIFY(*allocated > 0);
        QVERIFY2(*used >= *reserved, j.dump().c_str());
        QVERIFY2(*reserved >= *allocated, j.dump().c_str());

        // The teaching scenario (engine/plan/defaultscenario.cpp): Llama 3.1 8B on an RTX 4090.
        QCOMPARE(textAt(j, "gpu"), std::string("rtx-4090"));
        // 8030261248: the transformers-measured count of Llama-3.1-8B in the preset catalog.
        QCOMPARE(countAt(j, "parameters"), std::uint64_t(8030261248ull));
        // 24210 MiB, "cuda_total_mib" of rtx-4090 in resources/catalog/gpus.json: what CUDA
        // can allocate (the nvidia-smi total of 24564 MiB less the driver's reserve).
        QCOMPARE(countAt(j, "capacity_bytes"), std::uint64_t(24210ull * 1024 * 1024));
        // LoRA r 16 on all-linear, 32 layers, hidden 4096, KV 1024, MLP 14336:
        // per layer r x (in + out): q, o 16*8192; k, v 16*5120; gate, up, down 16*18432
        // = 131072*2 + 81920*2 + 294912*3 = 1310720; x 32 = 41943040.
        QCOMPARE(countAt(j, "trainable_parameters"), std::uint64_t(41943040ull));
        // micro-batch 2 x seq 2048 (defaultscenario.cpp).
        QCOMPARE(countAt(j, "tokens_per_micro_batch"), std::uint64_t(4096ull));
    }

    void planTimelineAndTensors()
    {
        const json j = planJson(words("--timeline --tensors"));
        QVERIFY(j.is_object());
        QVERIFY(j.contains("timeline") && j.at("timeline").is_array() && !j.at("timeline").empty());
        QVERIFY(j.contains("tensors") && j.at("tensors").is_array() && !j.at("tensors").empty());
        // The peak event's timeline entry is the peak itself (planjson.cpp sums each event's categories).
        const json& timeline = j.at("timeline");
        const auto index = unsignedAt(j, "peak_event_index");
        QVERIFY(index.has_value() && *index < timeline.size());
        QCOMPARE(countAt(timeline.at(*index), "total_bytes"), countAt(j, "peak_bytes"));
        for (const json& event : timeline)
            QVERIFY(unsignedAt(event, "total_bytes") <= unsignedAt(j, "peak_bytes"));
        for (const json& row : j.at("tensors"))
            QVERIFY(row.contains("name") && row.contains("category") && unsignedAt(row, "bytes").has_value());
    }

    void planHuman()
    {
        const CliResult r = runCli(words("plan"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        // planReport() in app/cli/format.cpp ends its counters with "Verdict: ".
        QVERIFY2(r.out.contains("Verdict:"), r.out.constData());
        QVERIFY(r.err.isEmpty());
    }

    void planScenarioFile()
    {
        const QString file = path("issue.headroom.json");
        const json j = planJson(words("--scenario") << file);
        QVERIFY(j.is_object());
        // The file's choices are used, not the teaching scenario's: LoRA r 16
        // on q_proj and v_proj only, 32 layers: (16*(4096+4096) + 16*(4096+1024)) * 32 = 6815744.
        QCOMPARE(countAt(j, "trainable_parameters"), std::uint64_t(6815744ull));
        // "micro_batch": 2 x "seq_len": 2048 from the file.
        QCOMPARE(countAt(j, "tokens_per_micro_batch"), std::uint64_t(4096ull));

        // Flags override the file (options.h: "--scenario FILE, then every flag on top").
        const json bigger = planJson(words("--scenario") << file << words("--micro-batch 4"));
        QVERIFY(bigger.is_object());
        QCOMPARE(countAt(bigger, "tokens_per_micro_batch"), std::uint64_t(4u * 2048u));
        QVERIFY2(unsignedAt(bigger, "peak_bytes") > unsignedAt(j, "peak_bytes"),
                 (field(j, "peak_bytes") + " vs " + field(bigger, "peak_bytes")).c_str());
    }

    void planConfigFile()
    {
        const json j = planJson(words("--config") << path("gpt2/config.json"));
        QVERIFY(j.is_object());
        // GPT-2, H 64, V 1000, P 1024, 2 layers, tied head: wte 64000 + wpe 65536
        // + 2 x (ln_1 128 + c_attn 12288+192 + c_proj 4096+64 + ln_2 128
        //        + c_fc 16384+256 + mlp c_proj 16384+64) + ln_f 128 = 229632.
        QCOMPARE(countAt(j, "parameters"), std::uint64_t(229632ull));
        QVERIFY(countAt(j, "peak_bytes") > 0);
    }

    void planModelDir()
    {
        const json j = planJson(words("--model-dir") << path("tiny-llama"));
        QVERIFY(j.is_object());
        // kTinyLlamaConfig: embed 128 + q 64 + k 32 + v 32 + o 64 + gate, up, down 3 x 96
        // + 2 norms 16 + final norm 8 + lm_head 128 = 760 (also the shard's element count).
        QCOMPARE(countAt(j, "parameters"), std::uint64_t(760ull));
        QVERIFY(countAt(j, "peak_bytes") > 0);
    }

    void planGenericSize()
    {
        const json j = planJson(words("--size 13B"));
        QVERIFY(j.is_object());
        // genericModelByParameters() picks a Llama-like shape near 13e9; its
        // rounding to whole layers and a width grid keeps it within a few percent.
        const auto parameters = unsignedAt(j, "parameters");
        QVERIFY(parameters.has_value());
        const double ratio = static_cast<double>(*parameters) / 13e9;
        QVERIFY2(ratio > 0.95 && ratio < 1.05, field(j, "parameters").c_str());
    }

    void planClassifierHead()
    {
        // BertForSequenceClassification with 3 labels: 109,484,547 parameters
        // (test_hfconfig derives it; transformers on the meta device agrees).
        const QStringList base = words("--model bert-base-uncased --peft none --weight-quant none --precision fp32");
        const json cls = planJson(base + words("--head sequence-classification --num-labels 3"));
        QVERIFY(cls.is_object());
        QCOMPARE(unsignedAt(cls, "parameters").value_or(0), std::uint64_t(109484547));
        // The masked LM: 109,514,298.
        const json mlm = planJson(base);
        QCOMPARE(unsignedAt(mlm, "parameters").value_or(0), std::uint64_t(109514298));
        // The head travels in an exported scenario.
        const CliResult exported = runCli(words("export --format scenario-json --model bert-base-uncased "
                                                "--head sequence-classification --num-labels 3"));
        QVERIFY2(exported.exitCode == 0, exported.describe().constData());
        const json scenario = parseJson(exported.out);
        QCOMPARE(scenario.at("model"),
                 json({{"preset", "bert-base-uncased"}, {"head", "sequence-classification"}, {"num_labels", 3}}));
    }

    void fit()
    {
        const CliResult r = runCli(words("fit --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object());
        QVERIFY(j.contains("largest_micro_batch"));
        QVERIFY(j.contains("longest_sequence"));
        // The teaching scenario fits on its GPU (planDefaultJson), so both are found.
        const auto batch = unsignedAt(j, "largest_micro_batch");
        const auto seq = unsignedAt(j, "longest_sequence");
        QVERIFY2(batch && *batch >= 1, r.out.constData());
        QVERIFY2(seq && *seq >= 1, r.out.constData());
        // "Largest" means: that value fits and one more does not.
        const QString b = QString::number(*batch), b1 = QString::number(*batch + 1);
        const QString s = QString::number(*seq), s1 = QString::number(*seq + 1);
        QCOMPARE(fitsOf(planJson(words("--micro-batch") << b)), 1);
        QCOMPARE(fitsOf(planJson(words("--micro-batch") << b1)), 0);
        QCOMPARE(fitsOf(planJson(words("--seq-len") << s)), 1);
        QCOMPARE(fitsOf(planJson(words("--seq-len") << s1)), 0);
    }

    void suggest()
    {
        // The teaching scenario fits: nothing to suggest.
        const CliResult fits = runCli(words("suggest --json"));
        QVERIFY2(fits.exitCode == 0, fits.describe().constData());
        const json f = parseJson(fits.out);
        QVERIFY(f.is_object() && f.at("already_fits").get<bool>());
        QVERIFY(f.at("suggestions").empty());

        // Without checkpointing, with eager attention and micro-batch 8 it does not fit.
        const QStringList base = words("--checkpointing none --attention eager --micro-batch 8 --grad-accum 2");
        const CliResult r = runCli(words("suggest --json") + base);
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object() && !j.at("already_fits").get<bool>());
        QCOMPARE(fitsOf(planJson(base)), 0);
        const json& list = j.at("suggestions");
        QVERIFY(!list.empty());
        double previousCost = -1e9;
        std::string previousKind = "speed";
        int replayed = 0;
        for (const json& s : list) {
            QVERIFY(s.at("margin_bytes").get<std::int64_t>() >= 0);
            const std::string kind = s.at("kind").get<std::string>();
            const double cost = s.at("speed_cost").get<double>();
            if (kind == previousKind)
                QVERIFY2(cost >= previousCost, s.dump().c_str());  // cheapest first within a kind
            previousKind = kind;
            previousCost = cost;
            // Replay the suggestion with plan's own flags where every change has one: it fits,
            // at the device used the suggestion states.
            QStringList flags = base;
            bool replayable = true;
            for (const json& c : s.at("changes")) {
                const std::string id = c.at("id").get<std::string>();
                const QString value = QString::number(c.at("value").get<std::uint64_t>());
                if (id == "flash")
                    flags << words("--attention flash");
                else if (id == "checkpointing")
                    flags << words("--checkpointing full");
                else if (id == "chunked-ce")
                    flags << words("--chunked-ce");
                else if (id == "activation-offload")
                    flags << words("--activation-offload");
                else if (id == "micro-batch")  // 8 x 2 kept: accumulation 16 / value
                    flags << words("--micro-batch") << value << words("--grad-accum")
                          << QString::number(16 / c.at("value").get<std::uint64_t>());
                else
                    replayable = false;
            }
            if (!replayable)
                continue;
            const json plan = planJson(flags);
            QCOMPARE(fitsOf(plan), 1);
            QCOMPARE(unsignedAt(plan, "device_used_bytes"), unsignedAt(s, "device_used_bytes"));
            ++replayed;
        }
        QVERIFY(replayed > 0);
    }

    void ladder()
    {
        const CliResult r = runCli(words("ladder --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object() && j.contains("steps") && j.at("steps").is_array());
        QVERIFY(!j.at("steps").empty());
        for (const json& step : j.at("steps")) {
            const auto used = unsignedAt(step, "device_used_bytes");
            QVERIFY2(used && *used > 0, step.dump().c_str());
        }
    }

    void models()
    {
        const CliResult r = runCli(words("models --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_array());
        // The preset catalog holds 47 architectures (resources/catalog); 30 leaves room to prune.
        QVERIFY2(j.size() >= 30, std::to_string(j.size()).c_str());
        bool sawLlama = false;
        for (const json& m : j) {
            const auto parameters = unsignedAt(m, "parameters");
            QVERIFY2(parameters && *parameters > 0, m.dump().c_str());
            if (textAt(m, "id") == "meta-llama/Llama-3.1-8B") {
                sawLlama = true;
                QCOMPARE(*parameters, std::uint64_t(8030261248ull));  // as in planDefaultJson
            }
        }
        QVERIFY(sawLlama);
    }

    void gpus()
    {
        const CliResult r = runCli(words("gpus --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_array());
        // resources/catalog/gpus.json lists T4 through B200 (26 today).
        QVERIFY2(j.size() >= 20, std::to_string(j.size()).c_str());
        bool saw4090 = false;
        for (const json& g : j) {
            QVERIFY2(!textAt(g, "id").empty(), g.dump().c_str());
            if (textAt(g, "id") == "rtx-4090") {
                saw4090 = true;
                // "memory_mib": 24564 in resources/catalog/gpus.json.
                QCOMPARE(countAt(g, "memory_bytes"), std::uint64_t(24564ull * 1024 * 1024));
            }
        }
        QVERIFY(saw4090);
    }

    void bench()
    {
        // A small model: the default 70B bench takes 12 s of CPU, past runCli's
        // 30 s limit on a loaded 2-core machine; this checks the command, not speed.
        const CliResult r = runCli(words("bench --model Qwen/Qwen2.5-0.5B --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object());
        // Only presence and sign: timings vary by machine.
        QVERIFY(j.contains("plan_median_us") && j.at("plan_median_us").is_number());
        QVERIFY(j.at("plan_median_us").get<double>() > 0);
        QVERIFY(j.contains("plan_cpu_median_us") && j.at("plan_cpu_median_us").get<double>() > 0);
    }

    // teach seed-book (app/cli/teachcommand.cpp): the book's values beside
    // Headroom's on the same counter; the scenario of one row round-trips
    // through plan --scenario.
    void teach()
    {
        const CliResult table = runCli(words("teach seed-book"));
        QVERIFY2(table.exitCode == 0, table.describe().constData());
        QVERIFY(table.out.contains("batch-16"));
        QVERIFY(table.out.contains("12.164"));  // seed line 258

        const CliResult r = runCli(words("teach --json"));
        QVERIFY2(r.exitCode == 0, r.describe().constData());
        const json j = parseJson(r.out);
        QVERIFY(j.is_object());
        QCOMPARE(j.value("set", std::string()), std::string("seed-book"));
        const json& rows = j.at("experiments");
        QCOMPARE(rows.size(), std::size_t(16));
        for (const json& row : rows) {
            QCOMPARE(row.value("unit", std::string()), std::string("GiB"));
            QVERIFY(row.at("headroom_gib").is_number() && row.at("error_gib").is_number());
            QVERIFY(!row.value("explanation", std::string()).empty());
            QCOMPARE(row.at("scenario").value("schema", std::string()), std::string("headroom.scenario/1"));
            if (row.value("id", std::string()) == "checkpointing")
                QCOMPARE(row.at("book_gib").get<double>(), 10.290);  // seed line 336
        }

        const CliResult scenario = runCli(words("teach seed-book --scenario lora"));
        QVERIFY2(scenario.exitCode == 0, scenario.describe().constData());
        QVERIFY(writeFile(path("lora.headroom.json"), scenario.out));
        const json plan = planJson(words("--scenario") << path("lora.headroom.json"));
        QVERIFY(plan.is_object());
        // 8 x (2048 + 6144) per query_key_value x 24 layers (seed line 423: 1,572,864).
        QCOMPARE(countAt(plan, "trainable_parameters"), std::uint64_t(1572864u));

        QCOMPARE(runCli(words("teach no-such-set")).exitCode, 2);
        QCOMPARE(runCli(words("teach seed-book --scenario no-such-row")).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
