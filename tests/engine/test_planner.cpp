// SPDX-License-Identifier: GPL-3.0-or-later
// The planner: the sweep against brute force, invariants, hand-derived
// formulas, bad input. The fit search and the ladder: test_fitandladder.cpp.
#include "model/catalog.h"
#include "model/genericmodel.h"
#include "model/modelhead.h"
#include "plan/planner.h"
#include "plan/planbuild.h"
#include "plan/sweep.h"

#include <QtTest>

#include <random>

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

// Device used less the caching allocator's cache: the tensors (allocated and
// managed) plus the context. The monotonicity checks below compare this: the
// simulated allocator's reserved bytes are not monotonic in the tensors (as
// PyTorch's are not): smaller or sharded requests can land in another pool or
// leave a remainder that no later request fits, and cost one more segment
// (e.g. GPT-2 on 64 GPUs: ZeRO-2's sharded gradients are small-pool requests,
// one 2 MiB segment more than ZeRO-1 with the same allocated peak).
Bytes usedWithoutAllocatorCache(const Plan& p) { return p.deviceUsedBytes - p.allocatorCacheBytes; }

Plan mustPlan(const Scenario& s)
{
    auto plan = makePlan(s);
    if (!plan)
        qFatal("plan failed: %s", plan.error().detail.c_str());
    return plan.value();
}

Bytes categoryAt(const Plan& p, Phase phase, Category c)
{
    for (std::size_t e = 0; e < p.events.size(); ++e)
        if (p.events[e].phase == phase)
            return p.timeline[e][static_cast<std::size_t>(c)];
    return 0;
}

Bytes sumRows(const Plan& p, LayerSet set, Category c)
{
    Bytes total = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == set && r.category == c && r.allocAt == Phase::LayerFwd && r.freeAt == Phase::LayerBwd)
            total += r.bytes;
    return total;
}

// A random scenario over every planner option (seeded: failures reproduce).
Scenario randomScenario(std::mt19937_64& rng)
{
    static const char* models[] = {"gpt2", "meta-llama/Llama-3.2-1B", "Qwen/Qwen2.5-0.5B", "mistralai/Mixtral-8x7B-v0.1",
                                   "google/gemma-2-2b", "microsoft/Phi-3-mini-4k-instruct", "EleutherAI/pythia-160m",
                                   "bert-base-uncased", "bigcode/octocoder", "meta-llama/Llama-3.1-70B"};
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    Scenario s = baseScenario(models[pick(10)]);
    s.profile = pick(2) ? Profile::Pytorch : Profile::Headroom;
    if (pick(5) == 0 && !s.model.encoder) {
        s.mode = Mode::Inference;
        s.inference.batch = 1 + pick(8);
        s.inference.promptTokens = 1 + pick(4096);
        s.inference.newTokens = pick(1024);
        s.inference.attention = static_cast<Attention>(pick(3));
        s.inference.weightQuant = static_cast<WeightQuant>(pick(4));
        s.inference.kvCacheDtype = static_cast<KvCacheDtype>(pick(5));
        return s;
    }
    TrainConfig& t = s.train;
    t.precision = static_cast<Precision>(pick(6));
    t.optimizer = static_cast<Optimizer>(pick(10));
    t.peft.method = static_cast<PeftMethod>(pick(3));
    if (t.optimizer == Optimizer::Galore)
        t.peft.method = PeftMethod::None;
    t.weightQuant = t.peft.method == PeftMethod::Qlora ? (pick(2) ? WeightQuant::Nf4 : WeightQuant::Nf4DoubleQuant)
                                                       : WeightQuant::None;
    t.peft.rank = 1u << pick(8);
    t.peft.dropout = pick(2) ? 0.05 : 0.0;
    if (pick(2))
        t.peft.targets = {"all-linear"};
    t.microBatch = 1 + pick(8);
    t.seqLen = 1 + pick(4096);
    t.gradAccum = 1 + pick(4);
    t.checkpointing = static_cast<Checkpointing>(pick(3));
    t.checkpointEvery = 1 + pick(5);
    t.attention = static_cast<Attention>(pick(3));
    t.chunkedCrossEntropy = pick(2);
    t.optimizerInBackward = pick(4) == 0;
    t.activationOffload = pick(4) == 0;
    s.hardware.count = 1u << pick(4);
    s.hardware.sharding = static_cast<Sharding>(pick(6));
    if (s.hardware.sharding == Sharding::Zero3 && t.weightQuant != WeightQuant::None)
        s.hardware.sharding = Sharding::Zero2;
    s.hardware.cpuOffload = pick(5) == 0;
    // Half the BERT scenarios fine-tune a classifier (no draw: the other
    // scenarios of a seed stay what they were).
    if (s.model.family == Family::Bert && t.microBatch % 2 == 0)
        setModelHead(s.model, ModelHead::SequenceClassification, 1 + t.seqLen % 5);
    return s;
}

} // namespace

class TestPlanner : public QObject {
    Q_OBJECT

private slots:
    // The sweep's difference arrays (O(1) per repeated row) must equal placing
    // every instance of every row on every event it lives through.
    void sweepMatchesBruteForce()
    {
        std::mt19937_64 rng(20261122);
        for (int k = 0; k < 400; ++k) {
            const Scenario s = randomScenario(rng);
            auto plan = makePlan(s);
            QVERIFY2(plan.ok(), plan.ok() ? "" : plan.error().detail.c_str());
            const auto reference = referenceTimeline(plan.value(), s.mode);
            QCOMPARE(plan->timeline.size(), reference.size());
            for (std::size_t e = 0; e < reference.size(); ++e)
                if (plan->timeline[e] != reference[e])
                    QFAIL(qPrintable(QStringLiteral("scenario %1 (%2): event %3 differs").arg(k).arg(QString::fromStdString(s.model.id)).arg(e)));
        }
    }

    // bitsandbytes 8-bit AdamW (optim/optimizer.py Optimizer2State.init_state):
    // Hugging Face Trainer registers nn.Embedding weights for 32-bit state, a
    // hand-written loop does not. Qwen2.5-0.5B ties its 151936 x 896 =
    // 136,134,656-element embedding: 32-bit state 8 n = 1,089,077,248 bytes;
    // 8-bit 2 n + 8 ceil(n / 256) = 272,269,312 + 4,254,208 = 276,523,520.
    // The difference, 812,553,728, is what bitsandbytes itself allocates on
    // the meta device (reference cases qwen2.5-0.5b-...-adamw-8bit[-custom]:
    // 812,553,216 after 512-byte rounding of each block).
    void adamw8bitEmbeddingStateFollowsTheLoop()
    {
        Scenario s = baseScenario("Qwen/Qwen2.5-0.5B");
        s.train.optimizer = Optimizer::AdamW8bit;
        const Bytes trainer = categoryAt(mustPlan(s), Phase::Load, Category::OptimizerState);
        s.train.loop = TrainingLoop::Custom;
        const Bytes custom = categoryAt(mustPlan(s), Phase::Load, Category::OptimizerState);
        QCOMPARE(trainer - custom, Bytes(812'553'728));
    }

    // Sliding-window layers at their window under sdpa save the float bias
    // of the mask (batch x seq x seq in the query's dtype) on kept sliding
    // layers only. Gemma 3 1B: 26 layers, full attention where l % 6 == 5 (4
    // layers), window 512. Pure bf16, b2 s1024: 2 x 1024 x 1024 x 2 B =
    // 4 MiB a layer on 22 layers; with every second layer checkpointed the
    // kept ones are the odd layers, of which 5, 11, 17 and 23 are full: 9.
    // Below the window there is no mask. One KV head: repeat_kv is a view.
    void slidingWindowMaskBias()
    {
        Scenario s = baseScenario("google/gemma-3-1b-pt");
        s.train.precision = Precision::Bf16;
        s.train.attention = Attention::Sdpa;
        s.train.microBatch = 2;
        s.train.seqLen = 1024;
        auto biasTotal = [](const Plan& p) {
            Bytes total = 0;
            for (const TensorRow& r : p.tensors)
                if (std::string(r.name) == "attn.mask_bias")
                    total += r.bytes * instanceCount(r, p);
            return total;
        };
        QCOMPARE(biasTotal(mustPlan(s)), Bytes(22) * 4 * MiB);
        s.train.checkpointing = Checkpointing::EveryK;
        s.train.checkpointEvery = 2;
        QCOMPARE(biasTotal(mustPlan(s)), Bytes(9) * 4 * MiB);
        s.train.checkpointing = Checkpointing::None;
        s.train.seqLen = 511;
        QCOMPARE(biasTotal(mustPlan(s)), Bytes(0));
        for (const TensorRow& r : mustPlan(s).tensors)
            QVERIFY(std::string(r.name) != "attn.kv_repeated");
    }

    void categoriesSumToPeak()
    {
        std::mt19937_64 rng(7);
        for (int k = 0; k < 200; ++k) {
            const Plan p = mustPlan(randomScenario(rng));
            Bytes sum = 0, maxTotal = 0;
            for (Bytes b : p.breakdown)
                sum += b;
            QCOMPARE(sum, p.peakBytes);
            for (const CategoryBytes& at : p.timeline) {
                Bytes total = 0;
                for (Bytes b : at)
                    total += b;
                maxTotal = std::max(maxTotal, total);
            }
            QCOMPARE(maxTotal, p.peakBytes);
            QVERIFY(p.peakReservedBytes >= p.peakAllocatedBytes);
            QVERIFY(p.deviceUsedBytes >= p.peakReservedBytes + p.contextBytes);
        }
    }

    void checkpointingAndFlashNeverRaise()
    {
        std::mt19937_64 rng(11);
        for (int k = 0; k < 200; ++k) {
            Scenario s = randomScenario(rng);
            if (s.mode != Mode::Train)
                continue;
            // Checkpointing turns use_cache off, and use_cache changes what a
            // fused-QKV layer saves (the cache copies the values, so the fused
            // output is not kept whole): compare at the same use_cache, the one
            // checkpointing forces.
            s.train.useCache = UseCache::Off;
            s.train.checkpointing = Checkpointing::None;
            const Bytes none = usedWithoutAllocatorCache(mustPlan(s));
            s.train.checkpointing = Checkpointing::Full;
            const Bytes full = usedWithoutAllocatorCache(mustPlan(s));
            s.train.checkpointing = Checkpointing::EveryK;
            s.train.checkpointEvery = 3;
            const Bytes everyThird = usedWithoutAllocatorCache(mustPlan(s));
            // A checkpointed layer holds its input while it is recomputed. When the
            // input is not itself saved without checkpointing (HF RMSNorm saves an
            // fp32 copy), the backward of the first layer holds one layer input
            // more than without checkpointing: the only way checkpointing can add.
            const Bytes slack = s.train.microBatch * s.train.seqLen * s.model.hidden * 4;  // fp32 at most
            const QString what = QStringLiteral("%1 %2 %3 peft %4 offload %5: none %6 full %7")
                                     .arg(QString::fromStdString(s.model.id), QString::fromLatin1(precisionName(s.train.precision)),
                                          QString::fromLatin1(optimizerName(s.train.optimizer)), QString::fromLatin1(peftMethodName(s.train.peft.method)))
                                     .arg(s.train.activationOffload).arg(none).arg(full);
            QVERIFY2(full <= none + slack, qPrintable(what));
            QVERIFY(everyThird <= none + slack);
            // Below a few dozen tokens eager's s x s score tensors are smaller than
            // the fused kernels' saved output (2 bytes per token and channel), so
            // fused attention can cost a few kilobytes more; from 64 tokens on it
            // never raises the peak.
            s.train.seqLen = std::max<std::uint64_t>(s.train.seqLen, 64);
            for (Checkpointing c : {Checkpointing::None, Checkpointing::Full}) {
                s.train.checkpointing = c;
                s.train.attention = Attention::Eager;
                const Bytes eager = usedWithoutAllocatorCache(mustPlan(s));
                s.train.attention = Attention::Sdpa;
                const Bytes sdpa = usedWithoutAllocatorCache(mustPlan(s));
                s.train.attention = Attention::Flash;
                const Bytes flash = usedWithoutAllocatorCache(mustPlan(s));
                QVERIFY(flash <= sdpa);
                QVERIFY(sdpa <= eager);
            }
        }
    }

    void moreBatchOrSequenceNeverLowers()
    {
        std::mt19937_64 rng(13);
        for (int k = 0; k < 200; ++k) {
            Scenario s = randomScenario(rng);
            const Bytes before = mustPlan(s).peakBytes;
            Scenario more = s;
            if (s.mode == Mode::Train) {
                more.train.microBatch += 1;
                QVERIFY(mustPlan(more).peakBytes >= before);
                more = s;
                more.train.seqLen += 1 + k;
                QVERIFY(mustPlan(more).peakBytes >= before);
            } else {
                more.inference.batch += 1;
                QVERIFY(mustPlan(more).peakBytes >= before);
                more = s;
                more.inference.newTokens += 1 + k;
                QVERIFY(mustPlan(more).peakBytes >= before);
            }
        }
    }

    void higherZeroStageNeverRaises()
    {
        for (const char* id : {"gpt2", "meta-llama/Llama-3.2-1B", "meta-llama/Llama-3.1-8B", "mistralai/Mixtral-8x7B-v0.1",
                               "bert-base-uncased", "EleutherAI/polyglot-ko-1.3b"})
            for (std::uint64_t gpus : {2u, 4u, 8u, 64u})
                for (Precision p : {Precision::Bf16Mixed, Precision::Fp16Mixed, Precision::Bf16, Precision::Fp32})
                    for (Optimizer o : {Optimizer::AdamW, Optimizer::Sgd, Optimizer::AdamW8bit}) {
                        Scenario s = baseScenario(id);
                        s.train.precision = p;
                        s.train.optimizer = o;
                        s.hardware.count = gpus;
                        Bytes previous = kSaturated;
                        for (Sharding z : {Sharding::Zero1, Sharding::Zero2, Sharding::Zero3}) {
                            s.hardware.sharding = z;
                            const Bytes used = usedWithoutAllocatorCache(mustPlan(s));
                            QVERIFY2(used <= previous, qPrintable(QStringLiteral("%1 x%2 %3 %4").arg(QString::fromLatin1(id)).arg(gpus).arg(QString::fromLatin1(precisionName(p))).arg(QString::fromLatin1(shardingName(z)))));
                            previous = used;
                        }
                    }
    }

    // ---- hand derivations ---------------------------------------------------

    void modelStateBytesPerParameter()
    {
        Scenario s = baseScenario("meta-llama/Llama-3.2-1B");
        const Bytes psi = buildParameterTable(s.model).totalElements();
        s.train.precision = Precision::Fp32;
        s.train.optimizer = Optimizer::AdamW;
        Plan p = mustPlan(s);
        // fp32 AdamW: 4 B weights, 8 B state (exp_avg + exp_avg_sq) per parameter.
        QCOMPARE(categoryAt(p, Phase::Load, Category::Weights), 4 * psi);
        QCOMPARE(categoryAt(p, Phase::Load, Category::OptimizerState), 8 * psi);
        // The step holds weights, fp32 gradients, states and the foreach temporary (4 B).
        QCOMPARE(categoryAt(p, Phase::OptimizerStep, Category::Gradients), 4 * psi);
        s.train.precision = Precision::Bf16;
        p = mustPlan(s);
        QCOMPARE(categoryAt(p, Phase::Load, Category::Weights), 2 * psi);
        QCOMPARE(categoryAt(p, Phase::Load, Category::OptimizerState), 4 * psi);
        s.train.optimizer = Optimizer::Sgd;
        QCOMPARE(categoryAt(mustPlan(s), Phase::Load, Category::OptimizerState), Bytes{0});
        s.train.optimizer = Optimizer::Lion;
        QCOMPARE(categoryAt(mustPlan(s), Phase::Load, Category::OptimizerState), 2 * psi);
    }

    // torch.optim's step implementations: foreach holds a parameter-sized
    // temporary per trainable tensor (4 B each in fp32), fused none, the
    // for-loop step the largest parameter's sqrt and quotient at once. Other
    // optimizers have their own step and refuse the setting.
    void optimizerImplementations()
    {
        Scenario s = baseScenario("meta-llama/Llama-3.2-1B");
        s.train.precision = Precision::Fp32;
        s.train.optimizer = Optimizer::AdamW;
        const ParameterTable table = buildParameterTable(s.model);
        const Bytes psi = table.totalElements();
        Bytes largest = 0;
        for (const auto* group : {&table.layer, &table.global})
            for (const ParamTensor& t : *group)
                largest = std::max(largest, t.elements());
        const auto temporaries = [&](OptimizerImpl impl) {
            s.train.optimizerImpl = impl;
            return categoryAt(mustPlan(s), Phase::OptimizerStep, Category::Temporaries);
        };
        QCOMPARE(temporaries(OptimizerImpl::Foreach), 4 * psi);
        QCOMPARE(temporaries(OptimizerImpl::Fused), Bytes{0});
        QCOMPARE(temporaries(OptimizerImpl::ForLoop), 2 * 4 * largest);
        s.train.optimizer = Optimizer::Lion;
        s.train.optimizerImpl = OptimizerImpl::Fused;
        auto refused = makePlan(s);
        QVERIFY(!refused);
        QVERIFY2(refused.error().detail.starts_with("train.optimizer_impl: fused applies to torch.optim's AdamW and SGD"),
                 refused.error().detail.c_str());
    }

    void parameterNamesFollowTransformers()
    {
        // The names PEFT and safetensors files use (transformers modelling files).
        const ParameterTable llama = buildParameterTable(baseScenario("meta-llama/Llama-3.1-8B").model);
        QCOMPARE(llama.global.front().name(), std::string("model.embed_tokens.weight"));
        QCOMPARE(llama.layer.front().name(), std::string("model.layers.{i}.self_attn.q_proj.weight"));
        const ParameterTable qwen = buildParameterTable(baseScenario("Qwen/Qwen2.5-0.5B").model);
        QCOMPARE(qwen.layer[1].name(), std::string("model.layers.{i}.self_attn.q_proj.bias"));
        const ParameterTable gpt2 = buildParameterTable(baseScenario("gpt2").model);
        QCOMPARE(gpt2.global[1].name(), std::string("transformer.wpe.weight"));
        QCOMPARE(gpt2.layer[2].name(), std::string("transformer.h.{i}.attn.c_attn.weight"));
        const ParameterTable bert = buildParameterTable(baseScenario("bert-base-uncased").model);
        QCOMPARE(bert.global.back().name(), std::string("cls.predictions.bias"));
        const ParameterTable mixtral = buildParameterTable(baseScenario("mistralai/Mixtral-8x7B-v0.1").model);
        QCOMPARE(mixtral.layer[5].name(), std::string("model.layers.{i}.block_sparse_moe.experts.{e}.w1.weight"));
    }

    void moeActiveParameters()
    {
        // Mixtral-8x7B, top-2 of 8 experts: per layer attention 2*4096^2 + 2*4096*1024,
        // router 4096*8, two norms 2*4096, two experts 2*3*4096*14336; x 32 layers, plus
        // embedding and lm_head 2*32000*4096 and the final norm: 12,879,925,248
        // (Mistral AI: "12.9B active parameters").
        const Plan p = mustPlan(baseScenario("mistralai/Mixtral-8x7B-v0.1"));
        QCOMPARE(p.activeParameters, Bytes{12'879'925'248});
        QCOMPARE(p.totalParameters, Bytes{46'702'792'704});
        const Plan dense = mustPlan(baseScenario("gpt2"));
        QCOMPARE(dense.activeParameters, dense.totalParameters);
    }

    void quantizedBytes()
    {
        // 4096 x 4096 = 16,777,216 elements.
        // NF4: 8,388,608 B of codes + 262,144 blocks of 64 x 4 B absmax = 9,437,184 (0.5625 B/param).
        QCOMPARE(detail::quantizedWeightBytes(WeightQuant::Nf4, 4096, 4096), Bytes{9'437'184});
        // Double quant: codes + 262,144 B of 8-bit absmax + 1,024 x 4 B second-level scales = 8,654,848.
        QCOMPARE(detail::quantizedWeightBytes(WeightQuant::Nf4DoubleQuant, 4096, 4096), Bytes{8'654'848});
        // LLM.int8: 1 B per element + one fp32 scale per output row.
        QCOMPARE(detail::quantizedWeightBytes(WeightQuant::Int8, 4096, 4096), Bytes{16'777'216 + 16'384});
    }

    void loraTrainableParameters()
    {
        // PEFT prints "trainable params: 4,194,304" for Llama-2-7b, r=8, q_proj+v_proj:
        // 32 layers x 2 modules x 8 x (4096 + 4096).
        Scenario s = baseScenario("meta-llama/Llama-2-7b-hf");
        s.train.peft.method = PeftMethod::Lora;
        s.train.peft.rank = 8;
        s.train.peft.targets = {"q_proj", "v_proj"};
        QCOMPARE(mustPlan(s).trainableParameters, Bytes{4'194'304});
        // Defaults follow PEFT's table: q_proj and v_proj for Llama.
        s.train.peft.targets = {};
        QCOMPARE(mustPlan(s).trainableParameters, Bytes{4'194'304});
        // all-linear on Llama-3.1-8B, r=16: per layer q (4096+4096), k (4096+1024), v (4096+1024),
        // o (4096+4096), gate/up (4096+14336) x2, down (14336+4096) = 81,920 x 16 = 1,310,720;
        // x 32 layers = 41,943,040, the figure PEFT's print_trainable_parameters shows.
        Scenario l = baseScenario("meta-llama/Llama-3.1-8B");
        l.train.peft.method = PeftMethod::Lora;
        l.train.peft.rank = 16;
        l.train.peft.targets = {"all-linear"};
        QCOMPARE(mustPlan(l).trainableParameters, Bytes{1'310'720ull * 32});
    }

    void logitsAndLoss()
    {
        // transformers ForCausalLMLoss: 16-bit logits (2) + fp32 upcast (4) + saved
        // log_softmax (4) in forward; saved log_softmax (4) + two fp32 gradients (8) in backward.
        Scenario s = baseScenario("meta-llama/Llama-3.2-1B");
        s.train.precision = Precision::Bf16;
        s.train.microBatch = 2;
        s.train.seqLen = 512;
        const Bytes TV = 2 * 512 * s.model.vocab;
        const Plan p = mustPlan(s);
        QCOMPARE(categoryAt(p, Phase::LossFwd, Category::Logits), 10 * TV);
        QCOMPARE(categoryAt(p, Phase::LossBwd, Category::Logits), 12 * TV);
        s.train.chunkedCrossEntropy = true;
        s.train.lossChunks = 8;
        QCOMPARE(categoryAt(mustPlan(s), Phase::LossBwd, Category::Logits), 12 * TV / 8);
    }

    // BertForSequenceClassification (modeling_bert.py): one row of num_labels
    // logits per sequence instead of tokens x vocab, and the pooler's saves in
    // the head.
    void bertSequenceClassificationHead()
    {
        Scenario s = baseScenario("bert-base-uncased");
        s.train.precision = Precision::Fp32;
        s.train.microBatch = 32;
        s.train.seqLen = 128;
        const Plan mlm = mustPlan(s);
        QVERIFY(!setModelHead(s.model, ModelHead::SequenceClassification, 3));
        const Plan cls = mustPlan(s);
        auto row = [](const Plan& p, const char* name) -> const TensorRow* {
            for (const TensorRow& r : p.tensors)
                if (r.name == std::string(name))
                    return &r;
            return nullptr;
        };
        // Masked LM, fp32: logits 32 x 128 x 30522 x 4 bytes.
        QVERIFY(row(mlm, "logits"));
        QCOMPARE(row(mlm, "logits")->bytes, Bytes{32} * 128 * 30522 * 4);
        // Classifier: 32 sequences x 3 labels x 4 bytes; log_softmax's fp32
        // output the same; the two fp32 gradients of the loss twice that.
        QVERIFY(row(cls, "logits"));
        QCOMPARE(row(cls, "logits")->bytes, Bytes{32 * 3 * 4});
        QCOMPARE(row(cls, "loss.log_softmax")->bytes, Bytes{32 * 3 * 4});
        QCOMPARE(row(cls, "loss.grad")->bytes, Bytes{2 * 32 * 3 * 4});
        QVERIFY(!row(cls, "head.transform_out"));  // no MLM transform
        // In one dtype the pooler's saved first-token view keeps the whole last
        // hidden state (32 x 128 x 768 x 4) until its backward; tanh saves 32 x 768 x 4.
        QVERIFY(row(cls, "head.last_hidden"));
        QCOMPARE(row(cls, "head.last_hidden")->bytes, Bytes{32} * 128 * 768 * 4);
        QCOMPARE(int(row(cls, "head.last_hidden")->freeAt), int(Phase::HeadBwd));
        QCOMPARE(row(cls, "head.pooler_tanh")->bytes, Bytes{32 * 768 * 4});
        QCOMPARE(row(cls, "head.dropout_mask")->bytes, Bytes{32 * 768});  // hidden_dropout_prob 0.1
        // Parameters: BertForSequenceClassification with 3 labels (test_hfconfig: 109,484,547).
        QCOMPARE(cls.totalParameters, Bytes{109484547});
        QVERIFY(cls.peakAllocatedBytes < mlm.peakAllocatedBytes);
        // Under autocast the pooler saves a 16-bit copy of the first tokens
        // (32 x 768 x 2) and the last hidden state dies with the forward.
        s.train.precision = Precision::Bf16Mixed;
        const Plan mixed = mustPlan(s);
        QCOMPARE(row(mixed, "head.pooler_in_copy")->bytes, Bytes{32 * 768 * 2});
        QCOMPARE(int(row(mixed, "head.last_hidden")->freeAt), int(Phase::LossFwd));
        // Inference: the logits are 32 x 3 in the served dtype.
        s.mode = Mode::Inference;
        s.inference.batch = 32;
        s.inference.promptTokens = 128;
        s.inference.precision = Precision::Bf16;
        const Plan served = mustPlan(s);
        QCOMPARE(row(served, "logits")->bytes, Bytes{32 * 3 * 2});
        // The headroom profile's step program runs the classifier
        // (runtime/step/bertheadstep.cpp): its own rows, no note that it does not.
        s.mode = Mode::Train;
        s.profile = Profile::Headroom;
        const Plan headroom = mustPlan(s);
        for (const std::string& note : headroom.notes)
            QVERIFY2(note.find("does not run this scenario") == std::string::npos, note.c_str());
        QCOMPARE(row(headroom, "head.pooled")->bytes, Bytes{32 * 768 * 2});       // bf16 mixed
        QCOMPARE(row(headroom, "head.classifier_in")->bytes, Bytes{32 * 768 * 2}); // dropout 0.1
        QCOMPARE(row(headroom, "logits")->bytes, Bytes{32 * 3 * 2});
    }

    void gpt2ActivationsMatchKorthikanti()
    {
        // GPT-2 eager, dropout 0.1, pure 16-bit, full fine-tune: 58 sbh + 5 as²b per
        // layer (memory-model.md §1, gelu_new saving four tensors), plus the fp32
        // mean and rstd of two LayerNorms (16 B per token).
        Scenario s = baseScenario("gpt2");
        s.train.precision = Precision::Bf16;
        s.train.attention = Attention::Eager;
        s.train.microBatch = 4;
        s.train.seqLen = 1024;
        s.train.useCache = UseCache::Off;
        const Bytes b = 4, sq = 1024, h = 768, a = 12, T = b * sq;
        const Plan p = mustPlan(s);
        QCOMPARE(sumRows(p, LayerSet::Plain, Category::Activations), 58 * T * h + 5 * a * sq * sq * b + 16 * T);
        // With use_cache (GPT-2's config default) the cache's torch.cat copies
        // keys and values (2 sbh each in bf16) and attention saves the copies;
        // the scores matmul copies the strided query view (2 sbh) and saves the
        // copy, so the fused c_attn output (6 sbh) dies: 58 + 4 + 2 - 6 = 58
        // (the accountant's gpt2 eager cases: a clone per layer, no c_attn output).
        s.train.useCache = UseCache::ConfigDefault;
        QCOMPARE(sumRows(mustPlan(s), LayerSet::Plain, Category::Activations),
                 58 * T * h + 5 * a * sq * sq * b + 16 * T);
    }

    void llamaActivationsItemised()
    {
        // HF Llama, pure bf16, flash, full fine-tune, per layer: two RMSNorms
        // (fp32 input 4, the normalised bf16 x that `weight * x` saves 2, and
        // the norm's output that the projections save 2, + fp32 rsqrt 4/token
        // each), q (2), k and v unexpanded (2g each), the attention output (2),
        // which the o_proj also saves without a copy (the flash output is laid
        // out batch x seq x heads x dim), gated MLP 8 sbi, fp32 logsumexp 4abs:
        // (20 + 4g) sbh + 8 sbi + 4 abs + 8 sb, memory-model.md §1's (20 + 4g)
        // sbh. The two terms that closed the earlier 2 sbh gap (the normalised x
        // and the shared o_proj input) come from the PyTorch reference
        // (tests/data/reference: the Qwen fp32 and Llama-family flash cases).
        Scenario s = baseScenario("meta-llama/Llama-3.1-8B");
        s.train.precision = Precision::Bf16;
        s.train.attention = Attention::Flash;
        s.train.microBatch = 1;
        s.train.seqLen = 4096;
        const Bytes T = 4096, h = 4096, i = 14336, a = 32, kvDim = 1024;
        const Bytes expected = 16 * T * h + 2 * T * h + 2 * 2 * T * kvDim + 2 * T * h + 8 * T * i + 4 * a * T + 8 * T;
        QCOMPARE(sumRows(mustPlan(s), LayerSet::Plain, Category::Activations), expected);
    }

    void kvCachePerToken()
    {
        // Llama-3-8B bf16: 2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B per token.
        Scenario s = baseScenario("meta-llama/Meta-Llama-3-8B");
        s.mode = Mode::Inference;
        s.inference.batch = 1;
        s.inference.promptTokens = 1000;
        s.inference.newTokens = 24;
        const Plan p = mustPlan(s);
        QCOMPARE(categoryAt(p, Phase::Decode, Category::KvCache), Bytes{131'072} * 1024);
    }

    void workspacesPerArchitecture()
    {
        Scenario s = baseScenario("gpt2");
        QCOMPARE(categoryAt(mustPlan(s), Phase::Load, Category::Workspace), 2 * 32 * MiB);  // sm_90, two handles
        s.hardware.gpu = "a100-80gb";
        QCOMPARE(categoryAt(mustPlan(s), Phase::Load, Category::Workspace), 2 * (8 * MiB + 128 * KiB));
    }

    void allocatorRounding()
    {
        QCOMPARE(allocatorBlockBytes(1), Bytes{512});
        QCOMPARE(allocatorBlockBytes(512), Bytes{512});
        QCOMPARE(allocatorBlockBytes(10 * MiB), 10 * MiB);
        QCOMPARE(allocatorBlockBytes(10 * MiB + 1), 12 * MiB);
    }

    // ---- bad input ----------------------------------------------------------

    void badInput_data()
    {
        QTest::addColumn<int>("which");
        QTest::addColumn<int>("code");
        const int invalid = int(ErrorCode::InvalidArgument), combo = int(ErrorCode::UnsupportedCombination);
        QTest::newRow("micro-batch 0") << 0 << invalid;
        QTest::newRow("micro-batch 2e9") << 1 << invalid;
        QTest::newRow("seq 0") << 2 << invalid;
        QTest::newRow("gpus 0") << 3 << invalid;
        QTest::newRow("unknown gpu") << 4 << int(ErrorCode::UnknownGpu);
        QTest::newRow("qlora without 4-bit") << 5 << combo;
        QTest::newRow("quantized full fine-tune") << 6 << combo;
        QTest::newRow("lora targets match nothing") << 7 << combo;
        QTest::newRow("galore with lora") << 8 << combo;
        QTest::newRow("accumulation 0") << 9 << invalid;
        QTest::newRow("gpus 2e6") << 10 << invalid;
    }
    void badInput()
    {
        QFETCH(int, which);
        QFETCH(int, code);
        Scenario s = baseScenario("meta-llama/Llama-3.2-1B");
        switch (which) {
        case 0: s.train.microBatch = 0; break;
        case 1: s.train.microBatch = 2'000'000'000; break;
        case 2: s.train.seqLen = 0; break;
        case 3: s.hardware.count = 0; break;
        case 4: s.hardware.gpu = "gtx-9999"; break;
        case 5: s.train.peft.method = PeftMethod::Qlora; s.train.weightQuant = WeightQuant::None; break;
        case 6: s.train.weightQuant = WeightQuant::Nf4; break;
        case 7: s.train.peft.method = PeftMethod::Lora; s.train.peft.targets = {"c_attn"}; break;
        case 8: s.train.peft.method = PeftMethod::Lora; s.train.optimizer = Optimizer::Galore; break;
        case 9: s.train.gradAccum = 0; break;
        case 10: s.hardware.count = 2'000'000; break;
        }
        auto plan = makePlan(s);
        QVERIFY(!plan.ok());
        QCOMPARE(int(plan.error().code), code);
        QVERIFY(!plan.error().detail.empty());
    }

    void absurdSizesNeverWrap()
    {
        // 10^9 x 10^9 tokens on the largest model: far beyond 2^64 bytes.
        Scenario s = baseScenario("meta-llama/Llama-3.1-405B");
        s.train.microBatch = 1'000'000'000;
        s.train.seqLen = 1'000'000'000;
        auto plan = makePlan(s);
        QVERIFY(!plan.ok());
        QCOMPARE(plan.error().code, ErrorCode::Overflow);
        // Large but representable: exact and huge, never wrapped.
        auto big = genericModelByParameters(1e13);
        QVERIFY(big.ok());
        Scenario g;
        g.model = big.value();
        g.hardware.gpu = "h100-sxm-80gb";
        g.train.precision = Precision::Fp32;
        auto gp = makePlan(g);
        QVERIFY(gp.ok());
        QVERIFY(gp->peakBytes > Bytes{160'000'000'000'000});  // > 16 B x 10^13 parameters
        QVERIFY(!gp->fits);
        QVERIFY(gp->marginBytes < 0);
    }
};

QTEST_APPLESS_MAIN(TestPlanner)
#include "test_planner.moc"
