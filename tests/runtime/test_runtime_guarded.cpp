// SPDX-License-Identifier: GPL-3.0-or-later
// The step program never touches tensor memory itself: it must run unchanged
// when the tracking allocator hands out memory the host cannot read, as a
// GPU's is. Here every buffer is host memory mapped PROT_NONE, and the memory
// opens only for the duration of each Ops call (a wrapper around the CPU
// Ops). A read or write of a buffer anywhere else in the program faults at
// once, and this test crashes. The runs must also give the same losses and
// the same measured bytes as the ordinary CPU backend, so the wrapper and the
// Storage hook change nothing else.
#include "runtime/cpu/trainer.h"
#include "plan/sweep.h"
#include "runtime/runtime_testmodels.h"

#include <QtTest>

#include <sys/mman.h>
#include <unistd.h>

#include <map>

using namespace headroom;
using namespace headroom::rt;

Q_DECLARE_METATYPE(headroom::Scenario)

namespace {

// Host memory the program cannot touch: whole pages, PROT_NONE unless opened.
class GuardedStorage final : public Storage {
public:
    explicit GuardedStorage(Bytes budget = 0) : m_budget(budget) {}
    ~GuardedStorage() override
    {
        for (auto& [data, bytes] : m_blocks)
            munmap(data, bytes);
    }
    std::byte* allocate(Bytes bytes) override
    {
        if (m_budget > 0 && m_used + bytes > m_budget)
            return nullptr;
        const Bytes mapped = pages(bytes);
        void* p = mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return nullptr;
        auto* data = static_cast<std::byte*>(p);
        m_blocks[data] = mapped;
        m_used += bytes;
        if (m_open)
            mprotect(data, mapped, PROT_READ | PROT_WRITE);
        return data;
    }
    void free(std::byte* data, Bytes bytes) override
    {
        munmap(data, m_blocks.at(data));
        m_blocks.erase(data);
        m_used -= bytes;
    }
    std::string lastError() const override { return "guarded storage exhausted"; }

    void open(bool on)
    {
        m_open = on;
        for (auto& [data, bytes] : m_blocks)
            if (mprotect(data, bytes, on ? PROT_READ | PROT_WRITE : PROT_NONE) != 0)
                qFatal("mprotect failed");
    }
    std::size_t blocks() const { return m_blocks.size(); }

private:
    static Bytes pages(Bytes bytes)
    {
        const auto page = static_cast<Bytes>(sysconf(_SC_PAGESIZE));
        return std::max<Bytes>(page, (bytes + page - 1) / page * page);
    }
    std::map<std::byte*, Bytes> m_blocks;
    Bytes m_budget = 0;
    Bytes m_used = 0;
    bool m_open = false;
};

// The CPU Ops, with the guarded memory open only inside each call.
class GuardedOps final : public Ops {
public:
    GuardedOps(Ops& inner, GuardedStorage& storage) : m_inner(inner), m_storage(storage) {}
    std::string name() const override { return "guarded-cpu"; }
    std::size_t calls() const { return m_calls; }

private:
    // Opens the memory for one call of the inner Ops.
    template <typename F>
    auto call(F&& f)
    {
        ++m_calls;
        m_storage.open(true);
        struct Close {
            GuardedStorage& s;
            ~Close() { s.open(false); }
        } close{m_storage};
        return f();
    }

public:

    void upload(At dst, std::span<const float> values) override { call([&] { m_inner.upload(dst, values); }); }
    void uploadRaw(const Tensor& dst, const void* bytes, Bytes count) override
    {
        call([&] { m_inner.uploadRaw(dst, bytes, count); });
    }
    std::vector<float> download(const Tensor& t) override { return call([&] { return m_inner.download(t); }); }
    void zero(At dst, std::size_t n) override { call([&] { m_inner.zero(dst, n); }); }
    void cast(const Tensor& dst, const Tensor& src) override { call([&] { m_inner.cast(dst, src); }); }
    void addInPlace(const Tensor& y, const Tensor& x, std::size_t n) override
    {
        call([&] { m_inner.addInPlace(y, x, n); });
    }
    void ropeTable(const Tensor& c, const Tensor& s, std::size_t T, std::size_t HD, double theta) override
    {
        call([&] { m_inner.ropeTable(c, s, T, HD, theta); });
    }
    void embeddingForward(const Tensor& out, const Tensor& tokens, const Tensor& wte, At wpe, std::size_t B,
                          std::size_t T, std::size_t C, std::size_t V) override
    {
        call([&] { m_inner.embeddingForward(out, tokens, wte, wpe, B, T, C, V); });
    }
    void embeddingBackward(At dwte, At dwpe, const Tensor& dout, const Tensor& tokens, std::size_t B, std::size_t T,
                           std::size_t C, std::size_t V) override
    {
        call([&] { m_inner.embeddingBackward(dwte, dwpe, dout, tokens, B, T, C, V); });
    }
    void rmsnormForward(const Tensor& out, const Tensor& rstd, const Tensor& inp, const Tensor& w, std::size_t N,
                        std::size_t C, double eps) override
    {
        call([&] { m_inner.rmsnormForward(out, rstd, inp, w, N, C, eps); });
    }
    void rmsnormBackward(const Tensor& dinp, const Tensor& dw, const Tensor& dout, const Tensor& inp, const Tensor& w,
                         const Tensor& rstd, std::size_t N, std::size_t C) override
    {
        call([&] { m_inner.rmsnormBackward(dinp, dw, dout, inp, w, rstd, N, C); });
    }
    void layernormForward(const Tensor& out, const Tensor& stats, const Tensor& inp, const Tensor& w, At b,
                          std::size_t N, std::size_t C, double eps) override
    {
        call([&] { m_inner.layernormForward(out, stats, inp, w, b, N, C, eps); });
    }
    void layernormBackward(const Tensor& dinp, const Tensor& dw, At db, const Tensor& dout, const Tensor& inp,
                           const Tensor& w, const Tensor& stats, std::size_t N, std::size_t C) override
    {
        call([&] { m_inner.layernormBackward(dinp, dw, db, dout, inp, w, stats, N, C); });
    }
    void matmulForward(At out, At inp, At w, At b, std::size_t rows, std::size_t C, std::size_t OC) override
    {
        call([&] { m_inner.matmulForward(out, inp, w, b, rows, C, OC); });
    }
    void matmulBackward(At dinp, At dw, At db, At dout, At inp, At w, std::size_t rows, std::size_t C,
                        std::size_t OC) override
    {
        call([&] { m_inner.matmulBackward(dinp, dw, db, dout, inp, w, rows, C, OC); });
    }
    void ropeForward(const Tensor& x, const Tensor& c, const Tensor& s, std::size_t B, std::size_t T, std::size_t NH,
                     std::size_t HD, std::size_t rotaryDim) override
    {
        call([&] { m_inner.ropeForward(x, c, s, B, T, NH, HD, rotaryDim); });
    }
    void ropeBackward(const Tensor& dinp, const Tensor& dout, const Tensor& c, const Tensor& s, std::size_t B,
                      std::size_t T, std::size_t NH, std::size_t HD, std::size_t rotaryDim) override
    {
        call([&] { m_inner.ropeBackward(dinp, dout, c, s, B, T, NH, HD, rotaryDim); });
    }
    void attentionForward(const Tensor& out, const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v,
                          const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        call([&] { m_inner.attentionForward(out, probs, q, k, v, shape, scale, mask, dropped); });
    }
    void attentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                           const Tensor& probs, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& dprobs,
                           const cpu::AttentionShape& shape, double scale, At mask, At dropped) override
    {
        QCOMPARE_GE(dprobs.numel, shape.B * shape.NH * shape.T * shape.T);
        call([&] { m_inner.attentionBackward(dq, dk, dv, dout, probs, q, k, v, dprobs, shape, scale, mask, dropped); });
    }
    void dropoutForward(At x, const Tensor& mask, std::size_t n, float p, std::uint64_t stream) override
    {
        QCOMPARE(mask.dtype, DType::U8);
        call([&] { m_inner.dropoutForward(x, mask, n, p, stream); });
    }
    void dropoutBackward(const Tensor& dst, const Tensor& src, const Tensor& mask, std::size_t n, float p) override
    {
        call([&] { m_inner.dropoutBackward(dst, src, mask, n, p); });
    }
    void flashAttentionForward(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                               const cpu::AttentionShape& shape, double scale) override
    {
        call([&] { m_inner.flashAttentionForward(out, lse, q, k, v, shape, scale); });
    }
    void flashAttentionBackward(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& dout,
                                const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k, const Tensor& v,
                                const Tensor& delta, const cpu::AttentionShape& shape, double scale) override
    {
        QCOMPARE(delta.dtype, DType::F32);
        QCOMPARE_GE(delta.numel, shape.B * shape.NH * shape.T);
        call([&] { m_inner.flashAttentionBackward(dq, dk, dv, dout, out, lse, q, k, v, delta, shape, scale); });
    }
    void swigluForward(const Tensor& out, const Tensor& g, const Tensor& u, std::size_t n) override
    {
        call([&] { m_inner.swigluForward(out, g, u, n); });
    }
    void swigluBackward(const Tensor& dg, const Tensor& du, const Tensor& dout, const Tensor& g, const Tensor& u,
                        std::size_t n) override
    {
        call([&] { m_inner.swigluBackward(dg, du, dout, g, u, n); });
    }
    void geluForward(const Tensor& out, const Tensor& inp, std::size_t n, bool tanh) override
    {
        call([&] { m_inner.geluForward(out, inp, n, tanh); });
    }
    void geluBackward(const Tensor& dinp, const Tensor& dout, const Tensor& inp, std::size_t n, bool tanh) override
    {
        call([&] { m_inner.geluBackward(dinp, dout, inp, n, tanh); });
    }
    void tanhForward(const Tensor& out, const Tensor& inp, std::size_t n) override
    {
        call([&] { m_inner.tanhForward(out, inp, n); });
    }
    void tanhBackward(const Tensor& dinp, const Tensor& dout, const Tensor& out, std::size_t n) override
    {
        call([&] { m_inner.tanhBackward(dinp, dout, out, n); });
    }
    void addRowToRows(const Tensor& out, At row, std::size_t rows, std::size_t C) override
    {
        call([&] { m_inner.addRowToRows(out, row, rows, C); });
    }
    void sumRowsInto(At drow, const Tensor& dout, std::size_t rows, std::size_t C) override
    {
        call([&] { m_inner.sumRowsInto(drow, dout, rows, C); });
    }
    void loraForward(const Tensor& saved, At y, const Tensor& x, const Tensor& A, const Tensor& B, std::size_t rows,
                     std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        call([&] { m_inner.loraForward(saved, y, x, A, B, rows, in, r, out, scale); });
    }
    void loraBackward(const Tensor& dx, const Tensor& dA, const Tensor& dB, const Tensor& dy, const Tensor& x,
                      const Tensor& saved, const Tensor& A, const Tensor& B, const Tensor& dSaved, std::size_t rows,
                      std::size_t in, std::size_t r, std::size_t out, float scale) override
    {
        call([&] { m_inner.loraBackward(dx, dA, dB, dy, x, saved, A, B, dSaved, rows, in, r, out, scale); });
    }
    double crossEntropyForward(At lse, At logits, At targets, std::size_t rows, std::size_t V) override
    {
        return call([&] { return m_inner.crossEntropyForward(lse, logits, targets, rows, V); });
    }
    void crossEntropyBackward(At dlogits, At logits, At lse, At targets, std::size_t rows, std::size_t V,
                              double dloss) override
    {
        call([&] { m_inner.crossEntropyBackward(dlogits, logits, lse, targets, rows, V, dloss); });
    }
    void nf4Dequantize(const Tensor& out, const Tensor& packed, const Tensor& absmax, std::size_t n) override
    {
        call([&] { m_inner.nf4Dequantize(out, packed, absmax, n); });
    }
    void nf4DequantizeDouble(const Tensor& out, const Tensor& packed, const Tensor& codes, const Tensor& absmax2,
                             const Tensor& offset, std::size_t n) override
    {
        call([&] { m_inner.nf4DequantizeDouble(out, packed, codes, absmax2, offset, n); });
    }
    void sgdStep(const Tensor& p, const Tensor& g, At m, std::int64_t step, const cpu::SgdConfig& c) override
    {
        call([&] { m_inner.sgdStep(p, g, m, step, c); });
    }
    void adamwStep(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, std::int64_t step,
                   const cpu::AdamWConfig& c) override
    {
        call([&] { m_inner.adamwStep(p, g, m, v, step, c); });
    }
    void adamw8bitInit(const Tensor& m, const Tensor& ma, const Tensor& v, const Tensor& va) override
    {
        call([&] { m_inner.adamw8bitInit(m, ma, v, va); });
    }
    void adamw8bitStep(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& ma, const Tensor& v,
                       const Tensor& va, std::int64_t step, const cpu::AdamWConfig& c) override
    {
        call([&] { m_inner.adamw8bitStep(p, g, m, ma, v, va, step, c); });
    }
    void lionStep(const Tensor& p, const Tensor& g, const Tensor& m, const cpu::LionConfig& c) override
    {
        call([&] { m_inner.lionStep(p, g, m, c); });
    }
    void adafactorStepFactored(const Tensor& p, const Tensor& g, std::size_t rows, std::size_t cols, const Tensor& r,
                               const Tensor& c, std::int64_t step, const cpu::AdafactorConfig& config) override
    {
        call([&] { m_inner.adafactorStepFactored(p, g, rows, cols, r, c, step, config); });
    }
    void adafactorStepUnfactored(const Tensor& p, const Tensor& g, const Tensor& v, std::int64_t step,
                                 const cpu::AdafactorConfig& c) override
    {
        call([&] { m_inner.adafactorStepUnfactored(p, g, v, step, c); });
    }
    void lomoUpdate(const Tensor& p, const Tensor& g, const cpu::LomoConfig& c) override
    {
        call([&] { m_inner.lomoUpdate(p, g, c); });
    }
    void startLossScaling(const cpu::GradScaler::Config& c) override { m_inner.startLossScaling(c); }
    float lossScale() override { return m_inner.lossScale(); }
    void unscale(const Tensor& grad) override { call([&] { m_inner.unscale(grad); }); }
    bool finishUnscale() override { return m_inner.finishUnscale(); }

private:
    Ops& m_inner;
    GuardedStorage& m_storage;
    std::size_t m_calls = 0;
};

std::vector<std::int32_t> tokens(std::size_t count, std::uint64_t vocab)
{
    std::vector<std::int32_t> t(count);
    for (std::size_t i = 0; i < count; ++i)
        t[i] = static_cast<std::int32_t>((i * 7 + 3) % vocab);
    return t;
}

struct Run {
    std::vector<double> losses;
    Bytes peak = 0;
    std::vector<CategoryBytes> events;
};

Run runSteps(const Scenario& s, Storage* storage, Ops& ops)
{
    Run r;
    TrackingAllocator allocator(buildEvents(Mode::Train, s.model.layers).size());
    allocator.setStorage(storage);
    {
        Trainer trainer(s, allocator, ops);
        const auto t = tokens(trainer.tokensPerStep(), s.model.vocab);
        for (int step = 0; step < 2; ++step)
            r.losses.push_back(trainer.step(t).loss);
    }
    r.peak = allocator.peakBytes();
    r.events = allocator.eventBytes();
    return r;
}

} // namespace

class TestRuntimeGuarded : public QObject {
    Q_OBJECT

private slots:
    void programNeverTouchesMemory_data()
    {
        QTest::addColumn<Scenario>("scenario");
        using testing::tinyGpt2;
        using testing::tinyScenario;
        auto add = [](const char* name, Scenario s) { QTest::newRow(name) << s; };
        add("llama fp32 eager adamw", tinyScenario());
        {
            Scenario s = tinyScenario();
            s.train.precision = Precision::Bf16Mixed;
            s.train.attention = Attention::Sdpa;
            s.train.checkpointing = Checkpointing::Full;
            add("llama bf16 mixed fused checkpointed", s);
        }
        {
            Scenario s = tinyScenario();
            s.train.precision = Precision::Fp16Mixed;
            s.train.gradAccum = 2;
            s.train.optimizer = Optimizer::Lion;
            add("llama fp16 mixed accumulation lion", s);
        }
        {
            Scenario s = tinyScenario();
            s.train.precision = Precision::Bf16;
            s.train.optimizer = Optimizer::Adafactor;
            s.train.chunkedCrossEntropy = true;
            s.train.lossChunks = 3;
            add("llama pure bf16 adafactor chunked loss", s);
        }
        {
            Scenario s = tinyScenario();
            s.model.hidden = 64; // 8-bit state needs tensors of 4096 elements or more
            s.model.headDim = 16;
            s.model.intermediate = 96;
            s.train.optimizer = Optimizer::AdamW8bit;
            add("llama adamw 8-bit", s);
        }
        {
            Scenario s = tinyScenario();
            s.train.optimizer = Optimizer::Lomo;
            add("llama lomo", s);
        }
        {
            Scenario s = tinyScenario();
            s.train.optimizer = Optimizer::SgdMomentum;
            s.train.peft.method = PeftMethod::Lora;
            s.train.peft.rank = 4;
            s.train.peft.alpha = 8;
            s.train.peft.targets = {"q_proj", "v_proj", "down_proj"};
            add("llama lora sgd momentum", s);
        }
        {
            Scenario s = tinyScenario();
            s.model.hidden = 64;
            s.model.headDim = 16;
            s.model.intermediate = 128;
            s.train.precision = Precision::Bf16Mixed;
            s.train.attention = Attention::Sdpa;
            s.train.peft.method = PeftMethod::Qlora;
            s.train.peft.rank = 4;
            s.train.peft.alpha = 16;
            s.train.peft.targets = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};
            s.train.weightQuant = WeightQuant::Nf4DoubleQuant;
            add("llama qlora double quant", s);
        }
        {
            Scenario s = tinyScenario();
            s.model = tinyGpt2();
            add("gpt2 fp32 eager", s);
        }
        {
            Scenario s = tinyScenario();
            s.model = tinyGpt2();
            s.train.precision = Precision::Bf16Mixed;
            s.train.attention = Attention::Sdpa;
            s.train.checkpointing = Checkpointing::Full;
            s.train.optimizer = Optimizer::Sgd;
            add("gpt2 bf16 mixed fused checkpointed sgd", s);
        }
        {
            Scenario s = tinyScenario();
            s.model = tinyGpt2();
            s.model.dropout = 0.1;
            add("gpt2 fp32 eager dropout", s);
            s.train.attention = Attention::Flash;
            s.train.precision = Precision::Bf16Mixed;
            s.train.checkpointing = Checkpointing::Full;
            add("gpt2 bf16 mixed fused dropout checkpointed", s);
        }
        {
            Scenario s = tinyScenario();
            s.model = testing::tinyNeoX();
            s.model.dropout = 0.1;
            add("neox fp32 eager dropout", s);
            s.train.attention = Attention::Sdpa;
            s.train.precision = Precision::Bf16Mixed;
            s.train.checkpointing = Checkpointing::EveryK;
            s.train.checkpointEvery = 2;
            add("neox bf16 mixed fused dropout every-2", s);
        }
        {
            // BERT classifier: the pooler's one-row matmuls read and write at row b·T.
            Scenario s = tinyScenario();
            s.model = testing::tinyBert();
            s.model.dropout = 0.1;
            add("bert classifier fp32 eager dropout", s);
            s.train.attention = Attention::Flash;
            s.train.precision = Precision::Bf16Mixed;
            s.train.checkpointing = Checkpointing::Full;
            add("bert classifier bf16 mixed fused dropout checkpointed", s);
            s.model = testing::tinyBertMlm();
            s.model.dropout = 0.1;
            add("bert masked lm bf16 mixed fused dropout checkpointed", s);
        }
    }

    void programNeverTouchesMemory()
    {
        QFETCH(Scenario, scenario);
        const std::string gap = programUnsupported(scenario);
        QVERIFY2(gap.empty(), gap.c_str());

        auto plainOps = makeCpuOps();
        const Run plain = runSteps(scenario, nullptr, *plainOps);

        GuardedStorage storage;
        auto innerOps = makeCpuOps();
        GuardedOps guarded(*innerOps, storage);
        const Run run = runSteps(scenario, &storage, guarded);

        QVERIFY(guarded.calls() > 0);
        QCOMPARE(storage.blocks(), std::size_t(0)); // every buffer went back to the Storage
        // The same arithmetic on the same values: the losses are identical.
        QCOMPARE(run.losses, plain.losses);
        QCOMPARE(run.peak, plain.peak);
        QVERIFY(run.events == plain.events);
    }

    void storageExhaustedIsOutOfMemory()
    {
        Scenario s = testing::tinyScenario();
        auto plainOps = makeCpuOps();
        const Run plain = runSteps(s, nullptr, *plainOps);

        // A budget of half the planned peak: the Storage says no part-way through the step.
        GuardedStorage storage(plain.peak / 2);
        auto innerOps = makeCpuOps();
        GuardedOps guarded(*innerOps, storage);
        try {
            runSteps(s, &storage, guarded);
            QFAIL("no OutOfMemory");
        } catch (const OutOfMemory& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("guarded storage exhausted") != std::string::npos, e.what());
        }
        QCOMPARE(storage.blocks(), std::size_t(0)); // nothing leaked on the way out
    }
};

QTEST_GUILESS_MAIN(TestRuntimeGuarded)
#include "test_runtime_guarded.moc"
