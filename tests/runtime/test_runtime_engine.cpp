// SPDX-License-Identifier: GPL-3.0-or-later
// The training-step engine: the tracking allocator, dtype conversions, and
// whole-model proofs on tiny Llama models (gradients by finite differences,
// checkpointing and accumulation equivalence, fp16 overflow skip, the loss
// falls on the bundled corpus, the step time).
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/trainer.h"
#include "runtime/stepflops.h"
#include "runtime/validate.h"
#include "plan/sweep.h"
#include "runtime/runtime_testmodels.h"

#include <QtTest>

#include <cmath>
#include <map>

using namespace headroom;
using namespace headroom::rt;

namespace {

std::vector<std::int32_t> corpusTokens(std::size_t count, std::uint64_t vocab, std::size_t offset = 0)
{
    const std::string& text = bundledCorpus();
    std::vector<std::int32_t> tokens(count);
    for (std::size_t i = 0; i < count; ++i)
        tokens[i] = static_cast<std::int32_t>(static_cast<unsigned char>(text[(offset + i) % text.size()]) % vocab);
    return tokens;
}

std::size_t eventCount(const Scenario& s) { return buildEvents(Mode::Train, s.model.layers).size(); }

using Gradients = std::vector<std::pair<std::string, std::vector<float>>>;

Gradients gradientsOf(const Scenario& s, const std::vector<std::int32_t>& tokens)
{
    TrackingAllocator allocator(eventCount(s));
    TrainerOptions options;
    options.captureGradients = true;
    CpuTrainer trainer(s, allocator, options);
    trainer.step(tokens);
    return trainer.capturedGradients();
}

// Largest |a - b| relative to the largest |a| over every gradient.
double relativeDifference(const Gradients& a, const Gradients& b)
{
    double worst = 0, scale = 0;
    for (std::size_t t = 0; t < a.size(); ++t)
        for (std::size_t i = 0; i < a[t].second.size(); ++i) {
            worst = std::max(worst, double(std::abs(a[t].second[i] - b[t].second[i])));
            scale = std::max(scale, double(std::abs(a[t].second[i])));
        }
    return worst / scale;
}

// B = 0 at initialisation (PEFT) would make A's gradient zero: give the
// adapters' B a fixed non-zero value for the gradient checks.
void randomiseAdapters(CpuTrainer& trainer)
{
    for (ParameterRef& p : trainer.parameters())
        if (p.name.find("lora_B") != std::string::npos)
            for (std::size_t i = 0; i < p.value->numel; ++i)
                p.value->f32()[i] = 0.05f * std::sin(float(i) + 1.0f);
}

// Central differences of the loss (fp32 storage, double accumulation in the
// kernels) against the analytic gradients of one step, on three elements of
// every trainable tensor: the first, the middle and the largest gradient.
void checkFiniteDifferences(Scenario s, std::size_t minimumChecked)
{
    s.train.optimizer = Optimizer::Sgd;
    s.train.microBatch = 2;
    s.train.seqLen = 6;
    const auto tokens = corpusTokens(2 * 7, s.model.vocab);
    TrackingAllocator first(eventCount(s));
    TrainerOptions options;
    options.captureGradients = true;
    CpuTrainer analytic(s, first, options);
    randomiseAdapters(analytic);
    analytic.step(tokens);
    const Gradients grads = analytic.capturedGradients();
    TrackingAllocator second(eventCount(s));
    CpuTrainer probe(s, second);
    randomiseAdapters(probe);
    std::map<std::string, Tensor*> values;
    for (ParameterRef& p : probe.parameters())
        values[p.name] = p.value;
    std::size_t checked = 0;
    double worst = 0; // largest |numeric - analytic| / tolerance
    for (const auto& [name, g] : grads) {
        QVERIFY2(values.count(name) == 1, name.c_str());
        Tensor* w = values.at(name);
        std::size_t largest = 0;
        for (std::size_t i = 0; i < g.size(); ++i)
            if (std::abs(g[i]) > std::abs(g[largest]))
                largest = i;
        for (std::size_t i : {std::size_t(0), g.size() / 2, largest}) {
            const float original = w->f32()[i];
            const float h = 1e-3f;
            w->f32()[i] = original + h;
            const double up = probe.loss(tokens);
            w->f32()[i] = original - h;
            const double down = probe.loss(tokens);
            w->f32()[i] = original;
            const double numeric = (up - down) / (2.0 * double(h));
            const double tolerance = 2e-3 * std::abs(numeric) + 2e-5;
            QVERIFY2(std::abs(numeric - double(g[i])) <= tolerance,
                     (name + "[" + std::to_string(i) + "]: analytic " + std::to_string(g[i]) + " numeric " +
                      std::to_string(numeric))
                         .c_str());
            worst = std::max(worst, std::abs(numeric - double(g[i])) / tolerance);
            ++checked;
        }
    }
    qInfo("%s, peft %s, quant %s, %s attention: %zu elements checked, worst error %.2f of the tolerance",
          familyName(s.model.family), peftMethodName(s.train.peft.method),
          weightQuantName(s.train.weightQuant), attentionName(s.train.attention), checked, worst);
    QVERIFY(checked >= minimumChecked);
}

} // namespace

class TestRuntimeEngine : public QObject {
    Q_OBJECT
private slots:
    void allocatorDefersFreesToTheEventEnd()
    {
        TrackingAllocator a(3);
        a.beginEvent(0);
        Buffer w = a.allocate("w", Category::Weights, 100);
        a.endEvent();
        a.beginEvent(1);
        {
            Buffer t = a.allocate("t", Category::Temporaries, 40);
            t.release();                                // freed only when the event ends...
            Buffer u = a.allocate("u", Category::Temporaries, 60);
            QCOMPARE(a.liveBytes(), Bytes(200));        // ...so t and u are both alive here
        }
        a.endEvent();
        QCOMPARE(a.liveBytes(), Bytes(100));
        a.beginEvent(2);
        a.endEvent();
        QCOMPARE(a.peakBytes(), Bytes(200));
        QCOMPARE(a.peakEvent(), std::size_t(1));
        QCOMPARE(a.peakCategories()[std::size_t(Category::Weights)], Bytes(100));
        QCOMPARE(a.peakCategories()[std::size_t(Category::Temporaries)], Bytes(100));
        QCOMPARE(categoryTotal(a.eventBytes()[1]), Bytes(200));
        QCOMPARE(categoryTotal(a.eventBytes()[2]), Bytes(100));
        QCOMPARE(a.eventTensors()[1].at("t"), Bytes(40));
        // Four allocations... three allocations and two frees were recorded.
        QCOMPARE(a.records().size(), std::size_t(5));
        QVERIFY(reinterpret_cast<std::uintptr_t>(w.data()) % 64 == 0);
    }

    void allocatorEnforcesCapacityAndInjectedFaults()
    {
        TrackingAllocator a(2);
        a.setEventLabels({"load", "forward layer 0"});
        a.setCapacity(1000);
        a.beginEvent(0);
        Buffer w = a.allocate("w", Category::Weights, 900);
        a.endEvent();
        a.beginEvent(1);
        try {
            Buffer x = a.allocate("x", Category::Activations, 200);
            QFAIL("an allocation beyond the capacity succeeded");
        } catch (const OutOfMemory& e) {
            QCOMPARE(e.event(), std::size_t(1));
            QVERIFY(std::string(e.what()).find("forward layer 0") != std::string::npos);
        }
        a.failFirstAllocationOf(Category::Activations);
        Buffer ok = a.allocate("t", Category::Temporaries, 10); // other categories still succeed
        QVERIFY_THROWS_EXCEPTION(OutOfMemory, a.allocate("x", Category::Activations, 1));
        Buffer again = a.allocate("x", Category::Activations, 1); // only the first is refused
        a.endEvent();
        QVERIFY_THROWS_EXCEPTION(std::logic_error, a.allocate("outside", Category::Weights, 1));
    }

    void halfPrecisionConversionsRoundToNearestEven()
    {
        // bf16 keeps the top 16 bits of an fp32. 1 + 2^-8 is halfway between
        // 1 (0x3f80) and 1 + 2^-7 (0x3f81): ties go to the even 0x3f80;
        // 1 + 3*2^-8 is halfway between 0x3f81 and 0x3f82: to the even 0x3f82.
        QCOMPARE(floatToBf16(1.0f), std::uint16_t(0x3f80));
        QCOMPARE(floatToBf16(1.0f + 0.00390625f), std::uint16_t(0x3f80));
        QCOMPARE(floatToBf16(1.0f + 3 * 0.00390625f), std::uint16_t(0x3f82));
        QCOMPARE(bf16ToFloat(0xc040), -3.0f);
        // fp16: 1 = 0x3c00; 65504 is the largest finite (0x7bff); 65520 rounds
        // to infinity; 2^-24 is the smallest subnormal (0x0001).
        QCOMPARE(floatToFp16(1.0f), std::uint16_t(0x3c00));
        QCOMPARE(floatToFp16(65504.0f), std::uint16_t(0x7bff));
        QCOMPARE(floatToFp16(65520.0f), std::uint16_t(0x7c00));
        QCOMPARE(floatToFp16(std::ldexp(1.0f, -24)), std::uint16_t(0x0001));
        QCOMPARE(fp16ToFloat(0x3555), 0.333251953125f); // 1/3 in fp16: 0x3555 = 2^-2 * (1 + 341/1024)
        for (float v : {0.1f, -2.5f, 1e-3f, 3000.0f, -6e-5f})
            QCOMPARE(fp16ToFloat(floatToFp16(v)), roundTo(DType::F16, v));
    }

    void wholeModelGradientsMatchFiniteDifferences()
    {
        // Every optional tensor (biases, untied head), both attention forms.
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            Scenario s = testing::tinyScenario(2);
            s.model.qkvBias = true;
            s.model.attnOutBias = true;
            s.train.attention = attention;
            checkFiniteDifferences(s, 3 * 25);
        }
        // GPT-2: LayerNorm with bias, learned positions, gelu_new, fused c_attn, untied head here.
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            Scenario s = testing::tinyScenario(2);
            s.model = testing::tinyGpt2(2);
            s.model.tieEmbeddings = false;
            s.train.attention = attention;
            checkFiniteDifferences(s, 3 * 27);
        }
        // Dropout (embedding, attention, residual): the masks are a fixed
        // function of (seed, step, micro-batch, layer, site), so the loss is a
        // smooth function of the weights and its gradient is exact.
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            Scenario s = testing::tinyScenario(2);
            s.model = testing::tinyGpt2(2);
            s.model.dropout = 0.2;
            s.train.attention = attention;
            checkFiniteDifferences(s, 3 * 26);
        }
        // GPT-NeoX: parallel residual, partial rotary, fused query_key_value,
        // untied embed_out; with dropout on every site.
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            Scenario s = testing::tinyScenario(2);
            s.model = testing::tinyNeoX(2);
            s.model.dropout = attention == Attention::Eager ? 0.0 : 0.2;
            s.train.attention = attention;
            checkFiniteDifferences(s, 3 * 27);
        }
    }

    void bertClassifierGradientsMatchFiniteDifferences()
    {
        // BertForSequenceClassification: post-LN layers, bidirectional
        // attention, token type and position embeddings under a LayerNorm, the
        // pooler's tanh on the first token and the classifier; with dropout on
        // every site (embedding, attention, both sublayers, the classifier's input).
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            for (double dropout : {0.0, 0.2}) {
                Scenario s = testing::tinyScenario(2);
                s.model = testing::tinyBert(2);
                s.model.dropout = dropout;
                s.train.attention = attention;
                // Per layer 16 tensors; word, position, token type embeddings,
                // their LayerNorm (2), pooler (2), classifier (2).
                checkFiniteDifferences(s, 3 * (2 * 16 + 9));
            }
        }
        // BertForMaskedLM: the transform (dense, GELU, LayerNorm) and the
        // decoder tied to the word embeddings, with its own bias.
        for (Attention attention : {Attention::Eager, Attention::Sdpa}) {
            Scenario s = testing::tinyScenario(2);
            s.model = testing::tinyBertMlm(2);
            s.model.dropout = attention == Attention::Eager ? 0.0 : 0.2;
            s.train.attention = attention;
            // Per layer 16; word, position, token type, LayerNorm (2), transform (2), its LayerNorm (2), decoder bias.
            checkFiniteDifferences(s, 3 * (2 * 16 + 10));
        }
    }

    void adapterGradientsMatchFiniteDifferences()
    {
        // LoRA on every linear over an fp32 base, and QLoRA over NF4 with double
        // quantization (the base dequantised on the fly is a fixed function of
        // its codes, so the adapters' gradients are exact derivatives too).
        for (WeightQuant quant : {WeightQuant::None, WeightQuant::Nf4DoubleQuant}) {
            Scenario s = testing::tinyScenario(2);
            s.train.peft.method = quant == WeightQuant::None ? PeftMethod::Lora : PeftMethod::Qlora;
            s.train.weightQuant = quant;
            s.train.peft.rank = 2;
            s.train.peft.alpha = 4;
            s.train.peft.dropout = 0;
            s.train.peft.targets = {"all-linear"};
            checkFiniteDifferences(s, 3 * 2 * 7 * 2);
        }
    }

    void modelFlopsFollowPalm()
    {
        // PaLM Appendix B: 6 N + 12 L H Q T per token, N the weights that
        // multiply activations. GPT-2 (tied head): per layer c_attn (3C x C),
        // c_proj (C x C), c_fc (I x C), mlp c_proj (C x I); the head V x C.
        Scenario s = testing::tinyScenario(3);
        s.model = testing::tinyGpt2(3, 16, 4, 32, 64, 32);
        s.train.microBatch = 2;
        s.train.seqLen = 8;
        s.train.gradAccum = 3;
        const double C = 16, I = 32, V = 64, L = 3, H = 4, Q = 4, T = 8;
        const double N = L * (3 * C * C + C * C + I * C + C * I) + V * C;
        QCOMPARE(rt::modelFlopsPerStep(s), (6 * N + 12 * L * H * Q * T) * (3 * 2 * T));
        // An untied head is a weight of its own; the count is the same.
        s.model.tieEmbeddings = false;
        QCOMPARE(rt::modelFlopsPerStep(s), (6 * N + 12 * L * H * Q * T) * (3 * 2 * T));
        // Llama: q, k, v, o and the gated MLP's three.
        s.model = testing::tinyLlama(2, 16, 4, 2, 24, 64);
        const double KD = 2 * 4, LL = 2, IL = 24;
        const double NL = LL * (C * C + 2 * KD * C + C * C + 3 * IL * C) + V * C;
        QCOMPARE(rt::modelFlopsPerStep(s), (6 * NL + 12 * LL * H * Q * T) * (3 * 2 * T));
    }

    void checkpointingGivesIdenticalGradients()
    {
        for (Precision precision : {Precision::Fp32, Precision::Bf16Mixed}) {
            for (Attention attention : {Attention::Eager, Attention::Flash}) {
              for (Family family : {Family::Llama, Family::Gpt2, Family::GptNeoX, Family::Bert}) {
                Scenario s = testing::tinyScenario(3);
                if (family == Family::Bert) {
                    // The recompute writes the layer's output again, and draws the forward's masks.
                    s.model = attention == Attention::Eager ? testing::tinyBert(3) : testing::tinyBertMlm(3);
                    s.model.dropout = 0.1;
                } else if (family == Family::Gpt2) {
                    // With dropout: the recompute draws the forward's masks.
                    s.model = testing::tinyGpt2(3);
                    s.model.dropout = 0.1;
                } else if (family == Family::GptNeoX) {
                    s.model = testing::tinyNeoX(3);
                    s.model.dropout = 0.1;
                }
                s.train.precision = precision;
                s.train.attention = attention;
                const auto tokens = corpusTokens(2 * 9, s.model.vocab);
                const Gradients none = gradientsOf(s, tokens);
                s.train.checkpointing = Checkpointing::Full;
                const Gradients full = gradientsOf(s, tokens);
                s.train.checkpointing = Checkpointing::EveryK;
                s.train.checkpointEvery = 2;
                const Gradients everyOther = gradientsOf(s, tokens);
                // The recompute runs the same kernels on the same inputs: bit for bit.
                QCOMPARE(full.size(), none.size());
                for (std::size_t t = 0; t < none.size(); ++t) {
                    QVERIFY2(full[t].second == none[t].second, full[t].first.c_str());
                    QVERIFY2(everyOther[t].second == none[t].second, everyOther[t].first.c_str());
                }
              }
            }
        }
    }

    void accumulationMatchesOneLargerBatch()
    {
        // k micro-batches of b sequences give the gradients of one batch of k*b:
        // every micro-batch has the same token count, so the mean of the
        // micro-batch means is the mean over all tokens. Only the summation
        // order differs: tolerance 1e-5 relative to the largest gradient (fp32).
        Scenario s = testing::tinyScenario(2);
        const auto tokens = corpusTokens(4 * 9, s.model.vocab, 100);
        s.train.microBatch = 4;
        s.train.gradAccum = 1;
        const Gradients one = gradientsOf(s, tokens);
        s.train.microBatch = 2;
        s.train.gradAccum = 2;
        const Gradients two = gradientsOf(s, tokens);
        s.train.microBatch = 1;
        s.train.gradAccum = 4;
        const Gradients four = gradientsOf(s, tokens);
        QVERIFY2(relativeDifference(one, two) < 1e-5, std::to_string(relativeDifference(one, two)).c_str());
        QVERIFY2(relativeDifference(one, four) < 1e-5, std::to_string(relativeDifference(one, four)).c_str());
    }

    void lomoIsSgdFusedIntoBackward()
    {
        // LOMO (arXiv:2306.09782) applies p -= lr * g inside backward, as soon as
        // each gradient is complete: the gradients are those of plain SGD (each
        // layer's backward reads only its own, not yet updated, weights), and so
        // is the update.
        Scenario s = testing::tinyScenario(3);
        s.model.tieEmbeddings = true;
        const auto tokens = corpusTokens(2 * 9, s.model.vocab);
        auto run = [&](Optimizer o, Gradients& grads) {
            s.train.optimizer = o;
            TrackingAllocator allocator(eventCount(s));
            TrainerOptions options;
            options.captureGradients = true;
            options.learningRate = 0.5f;
            CpuTrainer trainer(s, allocator, options);
            trainer.step(tokens);
            grads = trainer.capturedGradients();
            std::map<std::string, std::vector<float>> params;
            for (ParameterRef& p : trainer.parameters())
                params[p.name] = std::vector<float>(p.value->f32(), p.value->f32() + p.value->numel);
            return params;
        };
        Gradients sgdGrads, lomoGrads;
        const auto sgd = run(Optimizer::Sgd, sgdGrads);
        const auto lomo = run(Optimizer::Lomo, lomoGrads);
        std::map<std::string, std::vector<float>> a(sgdGrads.begin(), sgdGrads.end()), b(lomoGrads.begin(), lomoGrads.end());
        QCOMPARE(a.size(), std::size_t(3 * 9 + 2)); // 9 tensors per layer, embedding (tied head) and final norm
        QCOMPARE(b.size(), a.size());
        QVERIFY(a == b);
        double worst = 0;
        for (const auto& [name, values] : sgd)
            for (std::size_t i = 0; i < values.size(); ++i)
                worst = std::max(worst, double(std::abs(values[i] - lomo.at(name)[i])));
        QVERIFY2(worst <= 1e-7, std::to_string(worst).c_str());  // fp32 rounding of p - lr*g
    }

    void chunkedLossMatchesTheWholeLoss()
    {
        // Slicing the head and the loss changes only summation order (fp32):
        // 1e-5 relative to the largest gradient. Chunks that do not divide the
        // 18 tokens (4, 5) and more chunks than tokens (32: empty slices) included.
        for (Family family : {Family::Llama, Family::Gpt2}) {
            Scenario s = testing::tinyScenario(2);
            if (family == Family::Gpt2)
                s.model = testing::tinyGpt2(2);
            s.train.seqLen = 9;
            const auto tokens = corpusTokens(2 * 10, s.model.vocab, 7);
            const Gradients whole = gradientsOf(s, tokens);
            s.train.chunkedCrossEntropy = true;
            for (std::uint64_t chunks : {1, 4, 5, 32}) {
                s.train.lossChunks = chunks;
                const Gradients sliced = gradientsOf(s, tokens);
                QCOMPARE(sliced.size(), whole.size());
                QVERIFY2(relativeDifference(whole, sliced) < 1e-5, std::to_string(relativeDifference(whole, sliced)).c_str());
            }
        }
    }

    void fp16OverflowSkipsTheStep()
    {
        // A loss scale of 2^120 overflows fp16 activation gradients (max 65504):
        // GradScaler skips the update and halves the scale (torch/amp/grad_scaler.py).
        Scenario s = testing::tinyScenario(1);
        s.train.precision = Precision::Fp16Mixed;
        TrackingAllocator allocator(eventCount(s));
        TrainerOptions options;
        options.initialLossScale = std::ldexp(1.0f, 120);
        CpuTrainer trainer(s, allocator, options);
        std::vector<float> before;
        for (ParameterRef& p : trainer.parameters())
            for (std::size_t i = 0; i < p.value->numel; ++i)
                before.push_back(p.value->f32()[i]);
        const auto tokens = corpusTokens(trainer.tokensPerStep(), s.model.vocab);
        const StepResult first = trainer.step(tokens);
        QVERIFY(first.skipped);
        std::vector<float> after;
        for (ParameterRef& p : trainer.parameters())
            for (std::size_t i = 0; i < p.value->numel; ++i)
                after.push_back(p.value->f32()[i]);
        QVERIFY(before == after);
        const StepResult second = trainer.step(tokens);
        QCOMPARE(second.lossScale, std::ldexp(1.0f, 119));
    }

    void lossFallsOverThirtySteps()
    {
        // Byte-level language modelling of the bundled corpus, tiny Llama, AdamW.
        for (Precision precision : {Precision::Fp32, Precision::Bf16Mixed, Precision::Bf16}) {
            Scenario s = testing::tinyScenario(2);
            s.model = precision == Precision::Bf16 ? testing::tinyGpt2(2, 32, 4, 64, 128, 64)
                                                   : testing::tinyLlama(2, 32, 4, 2, 64, 128);
            s.train.precision = precision;
            s.train.microBatch = 4;
            s.train.seqLen = 32;
            s.train.attention = Attention::Sdpa;
            TrackingAllocator allocator(eventCount(s));
            TrainerOptions options;
            options.learningRate = 1e-2f;
            CpuTrainer trainer(s, allocator, options);
            std::vector<double> losses;
            for (std::size_t step = 0; step < 30; ++step)
                losses.push_back(trainer.step(corpusTokens(trainer.tokensPerStep(), 128, step * 997)).loss);
            // At initialisation the model is near uniform: ln(128) = 4.85.
            QVERIFY2(std::abs(losses.front() - std::log(128.0)) < 0.1, std::to_string(losses.front()).c_str());
            double lastFive = 0;
            for (std::size_t i = 25; i < 30; ++i)
                lastFive += losses[i] / 5;
            qInfo("%s %s: loss %.3f at step 1, %.3f mean of steps 26-30", familyName(s.model.family), precisionName(precision), losses.front(), lastFive);
            QVERIFY2(lastFive < losses.front() - 1.0, std::to_string(lastFive).c_str());
        }
    }

    void tinyModelStepTime()
    {
        // Not a pass/fail number: the step time of a small model on this
        // machine, printed for the record (both cores: parallelFor).
        Scenario s = testing::tinyScenario(4);
        s.model = testing::tinyLlama(4, 128, 8, 4, 344, 256);
        s.train.microBatch = 4;
        s.train.seqLen = 128;
        s.train.attention = Attention::Sdpa;
        s.train.precision = Precision::Bf16Mixed;
        auto backend = makeCpuBackend();
        RunOptions options;
        options.steps = 3;
        auto r = runValidation(s, *backend, options);
        QVERIFY(r.ok());
        QCOMPARE(r->measured.status, std::string("ok"));
        QVERIFY(planMeasurementDifferences(r->plan, r->measured).empty());
        qInfo("tiny model step (4 layers, hidden 128, 512 tokens, bf16-mixed, AdamW) on %s: %.3f s, %.0f tokens/s",
              r->measured.device.c_str(), r->measured.stepSeconds, r->measured.tokensPerSecond);
        QVERIFY(r->measured.stepSeconds > 0);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeEngine)
#include "test_runtime_engine.moc"
