// SPDX-License-Identifier: GPL-3.0-or-later
// Absurd sizes (issue 6): 10^15 parameters, sequence 10^9, batch 10^9, 10^6
// GPUs, grad accumulation 10^9, LoRA rank 10^9, huge vocabularies, and
// values at the 2^63 / 2^64 boundaries. Every one must end in either a clear
// error that names the field, or a plan whose numbers are exact: checked
// against an independent computation in 128-bit integers here (exact for any
// product of two 64-bit numbers), and never wrapped around: growing a size
// never lowers the peak.
#include "core/checkedmath.h"
#include "io/scenariofile.h"
#include "model/genericmodel.h"
#include "model/hfconfig.h"
#include "plan/planner.h"

#include <nlohmann/json.hpp>

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace headroom;
using nlohmann::json;

namespace {

using U128 = UInt128;
__extension__ using Int128 = __int128;

constexpr std::uint64_t kBillion = 1'000'000'000;
constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kMax63 = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

QByteArray text(U128 v)
{
    std::string s;
    do {
        s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
        v /= 10;
    } while (v != 0);
    return QByteArray::fromStdString(s);
}

// A Llama config.json (LlamaConfig keys) with the given sizes.
std::string llamaConfig(std::uint64_t hidden, std::uint64_t layers, std::uint64_t heads, std::uint64_t kvHeads,
                        std::uint64_t intermediate, std::uint64_t vocab)
{
    return json{{"model_type", "llama"},        {"hidden_size", hidden},       {"num_hidden_layers", layers},
                {"num_attention_heads", heads}, {"num_key_value_heads", kvHeads}, {"intermediate_size", intermediate},
                {"vocab_size", vocab}}
        .dump();
}

// LlamaForCausalLM's parameters, written out from modeling_llama.py without
// the planner's parameter table: embed_tokens (V x h); per layer q_proj
// (h -> heads*d), k_proj and v_proj (h -> kv*d), o_proj (heads*d -> h),
// gate/up (h -> i), down (i -> h), two RMSNorm weights (h); final norm (h);
// lm_head (h -> V) unless tied. No biases (attention_bias, mlp_bias false).
U128 llamaParameters(const ModelSpec& m)
{
    const U128 h = m.hidden, q = U128{m.heads} * m.headDim, kv = U128{m.kvHeads} * m.headDim;
    const U128 perLayer = h * q + 2 * h * kv + q * h + 3 * h * m.intermediate + 2 * h;
    return U128{m.vocab} * h + U128{m.layers} * perLayer + h + (m.tieEmbeddings ? 0 : h * m.vocab);
}

Scenario scenarioFor(const ModelSpec& model)
{
    Scenario s;
    s.model = model;
    s.hardware.gpu = "h100-sxm-80gb";
    return s;
}

// Fp32 weights trained by plain SGD on one GPU: weights are 4 bytes per
// parameter and nothing else is a weight; gradients are 4 bytes per parameter
// at the optimizer step; SGD keeps no state (memory-model.md §3, §4).
Scenario fp32Sgd(const ModelSpec& model)
{
    Scenario s = scenarioFor(model);
    s.train.precision = Precision::Fp32;
    s.train.optimizer = Optimizer::Sgd;
    s.train.attention = Attention::Flash;
    s.train.checkpointing = Checkpointing::Full;
    return s;
}

std::size_t eventOf(const Plan& plan, Phase phase)
{
    for (std::size_t e = 0; e < plan.events.size(); ++e)
        if (plan.events[e].phase == phase)
            return e;
    return plan.events.size();
}

Bytes at(const Plan& plan, Phase phase, Category c)
{
    const std::size_t e = eventOf(plan, phase);
    return e < plan.timeline.size() ? plan.timeline[e][static_cast<std::size_t>(c)] : 0;
}

// What every accepted plan must satisfy whatever its inputs: the peak is the
// largest event total and equals its breakdown, counters are ordered, and
// nothing is near the 2^64 edge (the sweep refuses tables past 2^62 bytes,
// so a value above that is a wrapped one).
void checkInvariants(const Plan& plan, const QByteArray& label)
{
    U128 peak = 0;
    for (const CategoryBytes& event : plan.timeline) {
        U128 total = 0;
        for (Bytes b : event) {
            QVERIFY2(b < (Bytes{1} << 62), label + ": a category passes 2^62 bytes: " + text(b));
            total += b;
        }
        peak = std::max(peak, total);
    }
    U128 breakdown = 0;
    for (Bytes b : plan.breakdown)
        breakdown += b;
    QVERIFY2(peak == plan.peakBytes, label + ": peak " + text(plan.peakBytes) + " vs " + text(peak));
    QVERIFY2(breakdown == plan.peakBytes, label);
    QVERIFY2(plan.peakAllocatedBytes <= plan.peakBytes, label);
    QVERIFY2(plan.peakReservedBytes >= plan.peakAllocatedBytes, label);
    QVERIFY2(plan.deviceUsedBytes >= plan.peakReservedBytes, label);
    QVERIFY2(plan.totalParameters != kSaturated, label);
    QVERIFY2(plan.activeParameters <= plan.totalParameters, label);
    QVERIFY2(static_cast<Int128>(plan.marginBytes)
                 == static_cast<Int128>(plan.capacityBytes) - static_cast<Int128>(plan.deviceUsedBytes),
             label);
}

// An error must be one of the two that mean "too big / out of range", name
// what is wrong in one line, and (when `field` is given) name the field.
void checkError(const Error& e, const QByteArray& label, const char* field = nullptr)
{
    QVERIFY2(e.code == ErrorCode::InvalidArgument || e.code == ErrorCode::Overflow,
             label + ": unexpected error " + errorCodeName(e.code) + ": " + QByteArray::fromStdString(e.detail));
    QVERIFY2(!e.detail.empty() && e.detail.find('\n') == std::string::npos, label + ": " + e.detail.c_str());
    if (field)
        QVERIFY2(e.detail.find(field) != std::string::npos,
                 label + ": the error does not name " + field + ": " + QByteArray::fromStdString(e.detail));
}

ModelSpec fromConfig(const std::string& config)
{
    Result<ModelSpec> spec = modelSpecFromHfConfigText(config);
    if (!spec)
        qFatal("config did not import: %s", spec.error().detail.c_str());
    return spec.value();
}

ModelSpec smallLlama() { return fromConfig(llamaConfig(256, 4, 8, 2, 704, 1000)); }

} // namespace

class TestAbsurdSizes : public QObject {
    Q_OBJECT

private slots:
    // 10^15 parameters by size: the generic model stops at 10^13 with a
    // message naming the size; 10^13 itself plans with exact numbers.
    void parametersBySize()
    {
        for (const char* size : {"1000T", "1e15", "1000000000000000", "18446744073709551616", "1e308"}) {
            const auto spec = genericModelBySize(size);
            QVERIFY2(!spec, size);
            checkError(spec.error(), size, "model size");
        }
        const auto scenario = scenarioFromText(R"({"schema": "headroom.scenario/1", "model": {"size": 1e15}})");
        QVERIFY(!scenario);
        checkError(scenario.error(), "scenario size 1e15", "model");

        const auto spec = genericModelBySize("10000B");
        QVERIFY(spec);
        const Result<Plan> plan = makePlan(fp32Sgd(spec.value()));
        QVERIFY2(plan, plan ? "" : plan.error().detail.c_str());
        checkInvariants(plan.value(), "10000B");
        const U128 params = llamaParameters(spec.value());
        QVERIFY(params > U128{9'000'000'000'000});  // within one layer of 10^13 (genericmodel.cpp)
        QCOMPARE(text(plan->totalParameters), text(params));
        QCOMPARE(text(at(plan.value(), Phase::Load, Category::Weights)), text(4 * params));
        QCOMPARE(text(at(plan.value(), Phase::OptimizerStep, Category::Gradients)), text(4 * params));
    }

    // A config.json at 1.8 x 10^16 parameters: 2^20 hidden, 2^10 layers,
    // 2^22 MLP width. Weights, gradients (and with AdamW two fp32 states)
    // are exact multiples of the parameter count, far beyond any GPU.
    void hugeConfigJsonIsExact()
    {
        const ModelSpec m = fromConfig(llamaConfig(1u << 20, 1u << 10, 1u << 13, 1u << 10, 1u << 22, 1u << 17));
        const U128 params = llamaParameters(m);
        QVERIFY(params > U128{10'000'000'000'000'000});
        const Result<Plan> sgd = makePlan(fp32Sgd(m));
        QVERIFY2(sgd, sgd ? "" : sgd.error().detail.c_str());
        checkInvariants(sgd.value(), "huge sgd");
        QCOMPARE(text(sgd->totalParameters), text(params));
        QCOMPARE(text(at(sgd.value(), Phase::Load, Category::Weights)), text(4 * params));
        QCOMPARE(text(at(sgd.value(), Phase::OptimizerStep, Category::Gradients)), text(4 * params));
        QVERIFY(!sgd->fits);
        QVERIFY(sgd->marginBytes < 0);

        Scenario adam = fp32Sgd(m);
        adam.train.optimizer = Optimizer::AdamW;  // exp_avg + exp_avg_sq, fp32 (torch/optim/adamw.py)
        const Result<Plan> adamPlan = makePlan(adam);
        QVERIFY2(adamPlan, adamPlan ? "" : adamPlan.error().detail.c_str());
        checkInvariants(adamPlan.value(), "huge adamw");
        QCOMPARE(text(at(adamPlan.value(), Phase::Load, Category::OptimizerState)), text(8 * params));
        QVERIFY(adamPlan->peakBytes >= sgd->peakBytes);
    }

    // At the importer's limits (2^24 hidden, 2^16 layers) the parameter count
    // passes 2^64: the plan is an Overflow error, not a wrapped count.
    void configPastSixtyFourBits()
    {
        const ModelSpec m = fromConfig(llamaConfig(1u << 24, 1u << 16, 1u << 17, 1u << 17, 1u << 24, 1u << 24));
        QVERIFY(llamaParameters(m) > U128{kMax64});
        const Result<Plan> plan = makePlan(fp32Sgd(m));
        QVERIFY(!plan);
        checkError(plan.error(), "2^24 hidden x 2^16 layers");
        QCOMPARE(plan.error().code, ErrorCode::Overflow);
    }

    // Sizes past the importer's limits, negative, fractional or beyond 2^64
    // are refused with the key named.
    void configFieldBounds()
    {
        const std::string base = llamaConfig(256, 4, 8, 2, 704, 1000);
        for (const char* key : {"hidden_size", "num_hidden_layers", "vocab_size", "intermediate_size"}) {
            for (const json& value : {json(kMax64), json(kMax63), json(-1), json(1e15), json(18446744073709551616.0),
                                      json(1ull << 25), json(2.5)}) {
                json config = json::parse(base);
                config[key] = value;
                const auto spec = modelSpecFromHfConfig(config);
                const QByteArray label = QByteArray(key) + "=" + QByteArray::fromStdString(value.dump());
                QVERIFY2(!spec, label);
                checkError(spec.error(), label, key);
            }
        }
    }

    // Huge vocabulary: 2^24 (the importer's limit) plans exactly; the logits
    // of one 2048-token sequence alone are 2048 x 2^24 x 2 bytes at least.
    void hugeVocabulary()
    {
        const ModelSpec m = fromConfig(llamaConfig(256, 4, 8, 2, 704, 1u << 24));
        const Result<Plan> plan = makePlan(fp32Sgd(m));
        QVERIFY2(plan, plan ? "" : plan.error().detail.c_str());
        checkInvariants(plan.value(), "vocab 2^24");
        QCOMPARE(text(plan->totalParameters), text(llamaParameters(m)));
        Bytes logits = 0;
        for (const CategoryBytes& e : plan->timeline)
            logits = std::max(logits, e[static_cast<std::size_t>(Category::Logits)]);
        QVERIFY2(U128{logits} >= U128{2048} * (1u << 24) * 2, text(logits));
    }

    // Sequence, micro-batch and accumulation of 10^9, alone and together.
    void billionTokens_data()
    {
        QTest::addColumn<quint64>("batch");
        QTest::addColumn<quint64>("seq");
        QTest::addColumn<quint64>("accum");
        QTest::newRow("seq 1e9") << quint64(1) << quint64(kBillion) << quint64(1);
        QTest::newRow("batch 1e9") << quint64(kBillion) << quint64(128) << quint64(1);
        QTest::newRow("accum 1e9") << quint64(1) << quint64(128) << quint64(kBillion);
        QTest::newRow("batch x seq 1e18") << quint64(kBillion) << quint64(kBillion) << quint64(kBillion);
    }
    void billionTokens()
    {
        QFETCH(quint64, batch);
        QFETCH(quint64, seq);
        QFETCH(quint64, accum);
        const ModelSpec m = smallLlama();
        for (const Attention attention : {Attention::Flash, Attention::Eager}) {
            Scenario s = scenarioFor(m);
            s.train.microBatch = batch;
            s.train.seqLen = seq;
            s.train.gradAccum = accum;
            s.train.attention = attention;
            const QByteArray label = QByteArray(QTest::currentDataTag()) + " " + attentionName(attention);
            const Result<Plan> plan = makePlan(s);
            if (!plan) {
                checkError(plan.error(), label);
                continue;
            }
            checkInvariants(plan.value(), label);
            QCOMPARE(plan->tokensPerMicroBatch, Bytes{batch * seq});
            // The logits of the micro-batch (T x V at 2 bytes at least) are
            // alive at the loss: the peak cannot be below them and the weights.
            const U128 floor = U128{batch} * seq * m.vocab * 2 + at(plan.value(), Phase::Load, Category::Weights);
            QVERIFY2(U128{plan->peakBytes} >= floor, label + ": " + text(plan->peakBytes) + " < " + text(floor));
        }
    }

    // Inference with a 10^9-token prompt and 10^9 sequences: the KV cache is
    // exactly layers x 2 x kv heads x head dim x tokens x batch x bytes
    // (memory-model.md §8), or the plan is an Overflow error.
    void kvCacheIsExact_data()
    {
        QTest::addColumn<quint64>("batch");
        QTest::addColumn<quint64>("prompt");
        QTest::addColumn<quint64>("fresh");
        QTest::newRow("prompt 1e9") << quint64(1) << quint64(kBillion) << quint64(kBillion);
        QTest::newRow("batch 1e9") << quint64(kBillion) << quint64(16) << quint64(16);
        QTest::newRow("both 1e9") << quint64(kBillion) << quint64(kBillion) << quint64(0);
        QTest::newRow("2^20 x 2^20") << quint64(1 << 20) << quint64(1 << 20) << quint64(1 << 20);
    }
    void kvCacheIsExact()
    {
        QFETCH(quint64, batch);
        QFETCH(quint64, prompt);
        QFETCH(quint64, fresh);
        const ModelSpec m = smallLlama();
        Scenario s = scenarioFor(m);
        s.mode = Mode::Inference;
        s.inference.batch = batch;
        s.inference.promptTokens = prompt;
        s.inference.newTokens = fresh;
        s.inference.kvCacheDtype = KvCacheDtype::Fp8;
        const Result<Plan> plan = makePlan(s);
        const U128 cache = U128{m.layers} * 2 * m.kvHeads * m.headDim * (U128{prompt} + fresh) * batch * 1;
        if (!plan) {
            checkError(plan.error(), QTest::currentDataTag());
            QVERIFY2(cache >= U128{1} << 62 || U128{batch} * prompt * m.vocab >= U128{1} << 62,
                     "refused although the cache fits: " + text(cache));
            return;
        }
        checkInvariants(plan.value(), QTest::currentDataTag());
        QCOMPARE(text(at(plan.value(), Phase::Decode, Category::KvCache)), text(cache));
    }

    // Prefill of an encoder whose q/k/v width passes 2^64 bytes while
    // everything else stays small (10^6-wide heads over 10^13 tokens): the
    // layer's temporaries hold at least q, k and v (T x (heads + 2 kv) x
    // head dim x 2 bytes), so the plan must show at least that, or refuse.
    // Found here: qkv + scores wrapped around to a small number.
    void prefillTemporariesNotWrapped()
    {
        const auto scenario = scenarioFromText(R"({"schema": "headroom.scenario/1",
            "model": {"spec": {"family": "llama", "layers": 1, "hidden": 1, "heads": 1, "kv_heads": 1,
                               "head_dim": 1000000, "intermediate": 1, "vocab": 1, "encoder": true}},
            "mode": "inference",
            "inference": {"batch": 1000000000, "prompt_tokens": 10000, "new_tokens": 0, "attention": "eager"}})");
        QVERIFY2(scenario, scenario ? "" : scenario.error().detail.c_str());
        const Result<Plan> plan = makePlan(scenario.value());
        const U128 tokens = U128{kBillion} * 10000, qkv = tokens * (1 + 2) * 1'000'000 * 2;
        if (!plan) {
            checkError(plan.error(), "wide heads");
            QCOMPARE(plan.error().code, ErrorCode::Overflow);
            return;
        }
        checkInvariants(plan.value(), "wide heads");
        Bytes temporaries = 0;
        for (const CategoryBytes& e : plan->timeline)
            temporaries = std::max(temporaries, e[static_cast<std::size_t>(Category::Temporaries)]);
        QVERIFY2(U128{temporaries} >= qkv, "temporaries " + text(temporaries) + " < q/k/v " + text(qkv));
    }

    // Bounds of every count in a scenario file: just inside is accepted (and
    // plans or overflows cleanly), just outside and at 2^63 / 2^64 the error
    // names the field.
    void scenarioFieldBounds_data()
    {
        QTest::addColumn<QString>("section");
        QTest::addColumn<QString>("field");
        QTest::addColumn<quint64>("limit");
        QTest::newRow("micro_batch") << "train" << "micro_batch" << quint64(kBillion);
        QTest::newRow("seq_len") << "train" << "seq_len" << quint64(kBillion);
        QTest::newRow("grad_accum") << "train" << "grad_accum" << quint64(kBillion);
        QTest::newRow("gpus") << "hardware" << "count" << quint64(1'000'000);
        QTest::newRow("batch") << "inference" << "batch" << quint64(kBillion);
        QTest::newRow("prompt_tokens") << "inference" << "prompt_tokens" << quint64(kBillion);
        QTest::newRow("new_tokens") << "inference" << "new_tokens" << quint64(kBillion);
    }
    void scenarioFieldBounds()
    {
        QFETCH(QString, section);
        QFETCH(QString, field);
        QFETCH(quint64, limit);
        const std::string sec = section.toStdString(), key = field.toStdString(), path = sec + "." + key;
        auto document = [&](const json& value) {
            json d = {{"schema", kScenarioSchema},
                      {"model", {{"config", json::parse(llamaConfig(256, 4, 8, 2, 704, 1000))}}},
                      {"mode", sec == "inference" ? "inference" : "train"}};
            d[sec][key] = value;
            return d.dump();
        };
        const Result<Scenario> inside = scenarioFromText(document(limit));
        QVERIFY2(inside, inside ? "" : inside.error().detail.c_str());
        const Result<Plan> plan = makePlan(inside.value());
        if (plan)
            checkInvariants(plan.value(), QByteArray::fromStdString(path));
        else
            checkError(plan.error(), QByteArray::fromStdString(path));
        for (const json& value : {json(limit + 1), json(kMax63), json(kMax64), json(18446744073709551616.0),
                                  json(-1), json(-9223372036854775807LL - 1), json(1e9 + 0.5)}) {
            const Result<Scenario> outside = scenarioFromText(document(value));
            const QByteArray label = QByteArray::fromStdString(path + "=" + value.dump());
            QVERIFY2(!outside, label);
            checkError(outside.error(), label, path.c_str());
        }
        // The same bound holds for a Scenario built in code (the GUI's path).
        Scenario s = inside.value();
        for (const std::uint64_t value : std::initializer_list<std::uint64_t>{limit + 1, kMax63, kMax64}) {
            std::uint64_t* target = key == "micro_batch" ? &s.train.microBatch
                                  : key == "seq_len"     ? &s.train.seqLen
                                  : key == "grad_accum"  ? &s.train.gradAccum
                                  : key == "count"       ? &s.hardware.count
                                  : key == "batch"       ? &s.inference.batch
                                  : key == "prompt_tokens" ? &s.inference.promptTokens
                                                           : &s.inference.newTokens;
            const std::uint64_t kept = *target;
            *target = value;
            const Result<Plan> refused = makePlan(s);
            *target = kept;
            QVERIFY2(!refused, QByteArray::fromStdString(path) + "=" + text(value));
            checkError(refused.error(), QByteArray::fromStdString(path), path.c_str());
        }
    }

    // 10^6 GPUs with ZeRO-3: accepted; more GPUs never raise the peak, and
    // the sharded weights are at least the unsharded ones / GPUs.
    void millionGpus()
    {
        const ModelSpec m = fromConfig(llamaConfig(8192, 80, 64, 8, 28672, 128256));  // Llama-3-70B's shape
        Bytes previous = kSaturated;
        for (const std::uint64_t gpus : {1ull, 8ull, 1000ull, 65536ull, 1'000'000ull}) {
            Scenario s = scenarioFor(m);
            s.hardware.count = gpus;
            s.hardware.sharding = Sharding::Zero3;
            s.train.checkpointing = Checkpointing::Full;
            const QByteArray label = "gpus " + text(gpus);
            const Result<Plan> plan = makePlan(s);
            QVERIFY2(plan, label + ": " + (plan ? "" : plan.error().detail.c_str()));
            checkInvariants(plan.value(), label);
            QVERIFY2(plan->peakBytes <= previous, label + ": " + text(plan->peakBytes) + " > " + text(previous));
            previous = plan->peakBytes;
            QVERIFY(U128{at(plan.value(), Phase::Load, Category::Weights)} * gpus >= llamaParameters(m) * 2);
        }
    }

    // LoRA rank 10^9 is refused naming the rank; the largest accepted rank
    // (65536) gives exactly rank x (in + out) trainable parameters per target.
    void loraRank()
    {
        const ModelSpec m = smallLlama();
        Scenario s = scenarioFor(m);
        s.train.peft.method = PeftMethod::Lora;
        s.train.peft.targets = {"all-linear"};
        s.train.peft.rank = kBillion;
        const Result<Plan> refused = makePlan(s);
        QVERIFY(!refused);
        checkError(refused.error(), "rank 1e9", "train.peft.rank");
        const auto fromFile = scenarioFromText(
            R"({"schema": "headroom.scenario/1", "model": {"size": "7B"}, "train": {"peft": {"method": "lora", "rank": 1000000000}}})");
        QVERIFY(!fromFile);
        checkError(fromFile.error(), "rank 1e9 in a file", "train.peft.rank");

        s.train.peft.rank = 65536;
        const Result<Plan> plan = makePlan(s);
        QVERIFY2(plan, plan ? "" : plan.error().detail.c_str());
        checkInvariants(plan.value(), "rank 65536");
        // all-linear: q, k, v, o, gate, up, down; A is r x in, B is out x r.
        const U128 h = m.hidden, q = U128{m.heads} * m.headDim, kv = U128{m.kvHeads} * m.headDim, i = m.intermediate;
        const U128 perLayer = (h + q) + 2 * (h + kv) + (q + h) + 2 * (h + i) + (i + h);
        QCOMPARE(text(plan->trainableParameters), text(U128{65536} * perLayer * m.layers));
    }

    // Seeded random scenarios at the extremes: every one plans with the
    // invariants or fails cleanly, and doubling (or maximising) one size
    // never lowers the peak nor turns an overflow into a plan.
    void randomExtremesAreMonotonic()
    {
        std::mt19937_64 rng(20261122);
        const std::vector<ModelSpec> models = {
            smallLlama(), fromConfig(llamaConfig(16384, 126, 128, 8, 53248, 128256)),
            fromConfig(llamaConfig(1u << 16, 1u << 12, 512, 512, 1u << 18, 1u << 20)),
            genericModelBySize("1T").value()};
        auto pick = [&](std::initializer_list<std::uint64_t> values) {
            return *(values.begin() + rng() % values.size());
        };
        auto extreme = [&]() -> std::uint64_t {
            switch (rng() % 4) {
            case 0: return pick({1, 2, 3, 255, 256, 257});
            case 1: return (std::uint64_t{1} << (1 + rng() % 29)) - pick({0, 1}) + pick({0, 1});
            case 2: return kBillion - rng() % 3;
            default: return 1 + rng() % kBillion;
            }
        };
        int planned = 0, refused = 0;
        for (int round = 0; round < 300; ++round) {
            Scenario s = scenarioFor(models[rng() % models.size()]);
            s.train.precision = static_cast<Precision>(rng() % 6);
            s.train.optimizer = static_cast<Optimizer>(rng() % 10);
            s.train.checkpointing = static_cast<Checkpointing>(rng() % 3);
            s.train.checkpointEvery = 1 + rng() % 7;
            s.train.attention = static_cast<Attention>(rng() % 3);
            s.train.microBatch = std::max<std::uint64_t>(1, extreme());
            s.train.seqLen = std::max<std::uint64_t>(1, extreme());
            s.train.gradAccum = std::max<std::uint64_t>(1, extreme());
            s.hardware.count = pick({1, 2, 8, 1'000'000});
            s.hardware.sharding = static_cast<Sharding>(rng() % 6);
            const QByteArray label = "round " + QByteArray::number(round);
            const Result<Plan> plan = makePlan(s);
            if (!plan) {
                ++refused;
                checkError(plan.error(), label);
                if (QTest::currentTestFailed())
                    return;
                continue;
            }
            ++planned;
            checkInvariants(plan.value(), label);
            if (QTest::currentTestFailed())
                return;
            // Grow one size: doubled, or to its maximum.
            Scenario grown = s;
            const int which = static_cast<int>(rng() % 3);
            std::uint64_t& size = which == 0 ? grown.train.microBatch : which == 1 ? grown.train.seqLen : grown.train.gradAccum;
            size = rng() % 2 ? std::min(kBillion, 2 * size) : kBillion;
            const Result<Plan> larger = makePlan(grown);
            const QByteArray what = label + " growing " + (which == 0 ? "micro_batch" : which == 1 ? "seq_len" : "grad_accum")
                                    + " to " + text(size);
            if (!larger) {
                checkError(larger.error(), what);
                QVERIFY2(larger.error().code == ErrorCode::Overflow, what);
                continue;
            }
            QVERIFY2(larger->peakBytes >= plan->peakBytes, what + ": " + text(larger->peakBytes) + " < " + text(plan->peakBytes));
            // Device used adds the allocator's fragmentation estimate, which
            // scales with what comes and goes (sweep.cpp): accumulation turns
            // gradients persistent and may lower it, so only batch and
            // sequence are held to it (fitsearch.h's binary searches rely on it).
            if (which != 2)
                QVERIFY2(larger->deviceUsedBytes >= plan->deviceUsedBytes,
                         what + ": " + text(larger->deviceUsedBytes) + " < " + text(plan->deviceUsedBytes));
        }
        // Both outcomes occurred: the extremes reach past 2^62 and stay under it.
        QVERIFY2(planned > 30 && refused > 30, QByteArray::number(planned) + " planned, " + QByteArray::number(refused) + " refused");
    }

    // The command line: huge sizes give exit 2 and one line on stderr, or a
    // plan (exit 0) whose JSON numbers are the exact ones.
    void commandLine()
    {
        auto run = [](const QStringList& args) {
            QProcess p;
            p.start(QStringLiteral(HEADROOM_CLI_PATH), args);
            const bool done = p.waitForFinished(60000);
            return std::tuple{done && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                              p.readAllStandardOutput(), p.readAllStandardError()};
        };
        auto refusedOneLine = [&](const QStringList& args, const char* mustName) {
            const auto [code, out, err] = run(args);
            const QByteArray label = args.join(QLatin1Char(' ')).toUtf8();
            QVERIFY2(code == 2, label + ": exit " + QByteArray::number(code) + " " + err);
            QVERIFY2(err.count('\n') == 1 && err.endsWith('\n'), label + ": stderr " + err);
            QVERIFY2(err.contains(mustName), label + ": " + err);
        };
        const QStringList base{QStringLiteral("plan"), QStringLiteral("--size"), QStringLiteral("1B"), QStringLiteral("--peft"),
                               QStringLiteral("none"), QStringLiteral("--optimizer"), QStringLiteral("adamw")};
        refusedOneLine(base + QStringList{QStringLiteral("--seq-len"), QStringLiteral("1000000001")}, "seq_len");
        refusedOneLine(base + QStringList{QStringLiteral("--micro-batch"), QStringLiteral("9223372036854775807")}, "micro_batch");
        refusedOneLine(base + QStringList{QStringLiteral("--micro-batch"), QStringLiteral("18446744073709551616")}, "micro-batch");
        refusedOneLine(base + QStringList{QStringLiteral("--micro-batch"), QStringLiteral("-1")}, "micro-batch");
        refusedOneLine(base + QStringList{QStringLiteral("--gpus"), QStringLiteral("1000001")}, "hardware.count");
        refusedOneLine(base + QStringList{QStringLiteral("--lora-rank"), QStringLiteral("1000000000"), QStringLiteral("--peft"),
                                          QStringLiteral("lora")},
                       "rank");
        refusedOneLine({QStringLiteral("plan"), QStringLiteral("--size"), QStringLiteral("1000T")}, "model size");
        // 10^9 x 10^9 tokens: past 2^62 bytes, an overflow error.
        refusedOneLine(base + QStringList{QStringLiteral("--seq-len"), QStringLiteral("1000000000"), QStringLiteral("--micro-batch"),
                                          QStringLiteral("1000000000")},
                       "overflow");

        // A config.json of 1.8 x 10^16 parameters plans, with exact numbers.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string config = llamaConfig(1u << 20, 1u << 10, 1u << 13, 1u << 10, 1u << 22, 1u << 17);
        QFile file(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(QByteArray::fromStdString(config));
        file.close();
        const auto [code, out, err] =
            run({QStringLiteral("plan"), QStringLiteral("--config"), file.fileName(), QStringLiteral("--peft"), QStringLiteral("none"),
                 QStringLiteral("--precision"), QStringLiteral("fp32"), QStringLiteral("--optimizer"), QStringLiteral("sgd"),
                 QStringLiteral("--gpus"), QStringLiteral("1000000"), QStringLiteral("--json")});
        QVERIFY2(code == 0, err);
        const json plan = json::parse(out.toStdString());
        const U128 params = llamaParameters(fromConfig(config));
        QCOMPARE(text(plan.at("parameters").get<std::uint64_t>()), text(params));
        // Without sharding each of the 10^6 GPUs holds all fp32 weights.
        QCOMPARE(text(plan.at("categories").at("weights").get<std::uint64_t>()), text(4 * params));
    }
};

QTEST_GUILESS_MAIN(TestAbsurdSizes)
#include "test_absurd_sizes.moc"
