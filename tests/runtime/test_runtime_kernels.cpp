// SPDX-License-Identifier: GPL-3.0-or-later
// CPU reference kernels (engine/runtime/cpu): every backward against central
// finite differences of the forward, forward values against known results,
// the two attention forms against each other, chunked against plain
// cross-entropy, and the same bits for every thread count.
//
// How a gradient check works (checkGradients):
// - inputs are random normals rounded to fp32 (so the fp32 and fp64 kernels
//   see the same numbers), from a std::mt19937 seeded per check; the seed is
//   printed, and HEADROOM_TEST_SEED changes the base seed;
// - L = sum(out · R) for a random R; the fp64 instantiation of the backward,
//   fed R as dout, must match (L(x + h) − L(x − h)) / 2h of the fp64 forward
//   (h = 1e-6: truncation error ~h² ≈ 1e-12, rounding error ~1e-16·|L|/h ≈ 1e-10)
//   within 1e-6 of the largest gradient of that input;
// - the fp32 kernels (forward and backward) must match the fp64 ones within
//   1e-5 of the largest value of each tensor (fp32 rounding of inputs to each
//   step, 6e-8 relative, times the few roundings of saved values);
// - the fp32 kernels run with 1 and 3 threads must agree bit for bit.
#include "runtime/cpu/activations.h"
#include "runtime/cpu/attention.h"
#include "runtime/cpu/crossentropy.h"
#include "runtime/cpu/dropout.h"
#include "runtime/cpu/embedding.h"
#include "runtime/cpu/flashattention.h"
#include "runtime/cpu/layernorm.h"
#include "runtime/cpu/matmul.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/rmsnorm.h"
#include "runtime/cpu/rope.h"
#include "runtime/cpu/rowbroadcast.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace headroom::cpu;

namespace {

template <typename Real>
using Tensors = std::vector<std::vector<Real>>;

std::uint32_t baseSeed()
{
    if (const char* text = std::getenv("HEADROOM_TEST_SEED"))
        return static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
    return 20240611u;
}

// A seed per check, from the base seed and the check's name.
std::uint32_t seedFor(const std::string& name)
{
    std::uint32_t seed = baseSeed();
    for (char c : name)
        seed = seed * 31u + static_cast<unsigned char>(c);
    return seed;
}

class Random {
public:
    explicit Random(std::uint32_t seed)
        : m_engine(seed)
    {
    }

    // Normal values rounded to fp32.
    std::vector<double> normal(std::size_t n, double mean = 0.0, double stddev = 1.0)
    {
        std::normal_distribution<double> distribution(mean, stddev);
        std::vector<double> values(n);
        for (double& value : values)
            value = double(static_cast<float>(distribution(m_engine)));
        return values;
    }

    std::int32_t integer(std::int32_t lo, std::int32_t hi) // [lo, hi]
    {
        return std::uniform_int_distribution<std::int32_t>(lo, hi)(m_engine);
    }

    std::size_t index(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(m_engine); }

private:
    std::mt19937 m_engine;
};

template <typename To, typename From>
std::vector<To> convert(const std::vector<From>& values)
{
    std::vector<To> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = static_cast<To>(values[i]);
    return out;
}

template <typename To, typename From>
Tensors<To> convertAll(const Tensors<From>& tensors)
{
    Tensors<To> out;
    for (const auto& t : tensors)
        out.push_back(convert<To>(t));
    return out;
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

template <typename Real>
double maxAbs(const std::vector<Real>& values)
{
    double m = 0.0;
    for (Real v : values)
        m = std::max(m, std::fabs(double(v)));
    return m;
}

// |actual − expected| <= tolerance · max|expected| elementwise; names the first miss.
template <typename A, typename E>
bool closeToScale(const std::vector<A>& actual, const std::vector<E>& expected, double tolerance, std::string& where)
{
    if (actual.size() != expected.size()) {
        where = "sizes differ";
        return false;
    }
    const double bound = tolerance * std::max(maxAbs(expected), 1e-30);
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double diff = std::fabs(double(actual[i]) - double(expected[i]));
        if (!(diff <= bound)) {
            where = "element " + std::to_string(i) + ": " + number(double(actual[i])) + " vs "
                    + number(double(expected[i])) + " (bound " + number(bound) + ")";
            return false;
        }
    }
    return true;
}

struct Tolerance {
    double finiteDifference = 1e-6;
    double fp32 = 1e-5;
};

// The runner of every gradient check. An Op provides
//   Tensors<double> inputs(Random&)                                   differentiable inputs
//   template <Real> std::vector<Real> forward(const Tensors<Real>&)   its output
//   template <Real> Tensors<Real> backward(const Tensors<Real>&, const std::vector<Real>& dout)
// (backward runs the forward itself for what it saves, and starts from zeroed gradients).
template <typename Op>
void checkGradients(const Op& op, const std::string& name, Tolerance tolerance = {})
{
    const std::uint32_t seed = seedFor(name);
    qInfo("%s: seed %u", name.c_str(), seed);
    Random random(seed);
    const Tensors<double> inputs = op.inputs(random);
    const std::vector<double> out = op.template forward<double>(inputs);
    const std::vector<double> dout = random.normal(out.size());
    const Tensors<double> analytic = op.template backward<double>(inputs, dout);
    QCOMPARE(analytic.size(), inputs.size());

    const auto loss = [&](const Tensors<double>& in) {
        const std::vector<double> o = op.template forward<double>(in);
        double sum = 0.0;
        for (std::size_t i = 0; i < o.size(); ++i)
            sum += o[i] * dout[i];
        return sum;
    };
    constexpr double h = 1e-6;
    constexpr std::size_t kMaxChecked = 40;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const std::size_t n = inputs[k].size();
        std::vector<std::size_t> indices;
        if (n <= kMaxChecked) {
            for (std::size_t i = 0; i < n; ++i)
                indices.push_back(i);
        } else {
            for (std::size_t j = 0; j < kMaxChecked; ++j)
                indices.push_back(random.index(n));
        }
        const double scale = std::max(maxAbs(analytic[k]), 1e-12);
        for (std::size_t i : indices) {
            Tensors<double> plus = inputs;
            Tensors<double> minus = inputs;
            plus[k][i] += h;
            minus[k][i] -= h;
            const double numeric = (loss(plus) - loss(minus)) / (2.0 * h);
            const double diff = std::fabs(numeric - analytic[k][i]);
            const std::string message = name + ": input " + std::to_string(k) + " element " + std::to_string(i)
                                        + ": analytic " + number(analytic[k][i]) + ", numeric " + number(numeric);
            QVERIFY2(diff <= tolerance.finiteDifference * scale, message.c_str());
        }
    }

    // fp32 kernels against fp64, with one thread and with three.
    const Tensors<float> inputsF = convertAll<float>(inputs);
    const std::vector<float> doutF = convert<float>(dout);
    setThreadCount(1);
    const std::vector<float> outF = op.template forward<float>(inputsF);
    const Tensors<float> gradF = op.template backward<float>(inputsF, doutF);
    setThreadCount(3);
    setMinWorkPerThread(1);
    const std::vector<float> outThreaded = op.template forward<float>(inputsF);
    const Tensors<float> gradThreaded = op.template backward<float>(inputsF, doutF);
    setThreadCount(0);
    setMinWorkPerThread(0);
    QVERIFY2(outF == outThreaded, (name + ": forward differs between 1 and 3 threads").c_str());
    QVERIFY2(gradF == gradThreaded, (name + ": backward differs between 1 and 3 threads").c_str());
    std::string where;
    QVERIFY2(closeToScale(outF, out, tolerance.fp32, where), (name + ": fp32 forward, " + where).c_str());
    for (std::size_t k = 0; k < inputs.size(); ++k)
        QVERIFY2(closeToScale(gradF[k], analytic[k], tolerance.fp32, where),
                 (name + ": fp32 gradient of input " + std::to_string(k) + ", " + where).c_str());
}

// ---- the ops under test, each with its shapes ----

struct MatmulOp {
    std::size_t rows, C, OC;
    bool withBias;
    Tensors<double> inputs(Random& r) const { return {r.normal(rows * C), r.normal(OC * C), r.normal(OC)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(rows * OC);
        matmulForward(out.data(), in[0].data(), in[1].data(), withBias ? in[2].data() : nullptr, rows, C, OC);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        Tensors<Real> d = {std::vector<Real>(rows * C), std::vector<Real>(OC * C), std::vector<Real>(OC)};
        matmulBackward(d[0].data(), d[1].data(), withBias ? d[2].data() : nullptr, dout.data(), in[0].data(),
                       in[1].data(), rows, C, OC);
        return d;
    }
};

struct EmbeddingOp {
    std::size_t B, T, C, V;
    std::vector<std::int32_t> tokens; // (B,T), with repeats
    Tensors<double> inputs(Random& r) const { return {r.normal(V * C), r.normal(T * C)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(B * T * C);
        embeddingForward(out.data(), tokens.data(), in[0].data(), in[1].data(), B, T, C, V);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>&, const std::vector<Real>& dout) const
    {
        Tensors<Real> d = {std::vector<Real>(V * C), std::vector<Real>(T * C)};
        embeddingBackward(d[0].data(), d[1].data(), dout.data(), tokens.data(), B, T, C, V);
        return d;
    }
};

struct RmsnormOp {
    std::size_t N, C;
    double eps;
    Tensors<double> inputs(Random& r) const { return {r.normal(N * C, 0.3, 1.0), r.normal(C, 1.0, 0.2)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(N * C), rstd(N);
        rmsnormForward(out.data(), rstd.data(), in[0].data(), in[1].data(), N, C, eps);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        std::vector<Real> out(N * C), rstd(N);
        rmsnormForward(out.data(), rstd.data(), in[0].data(), in[1].data(), N, C, eps);
        Tensors<Real> d = {std::vector<Real>(N * C), std::vector<Real>(C)};
        rmsnormBackward(d[0].data(), d[1].data(), dout.data(), in[0].data(), in[1].data(), rstd.data(), N, C);
        return d;
    }
};

struct LayernormOp {
    std::size_t N, C;
    double eps;
    bool withBias = true;
    Tensors<double> inputs(Random& r) const
    {
        return {r.normal(N * C, 0.5, 1.5), r.normal(C, 1.0, 0.2), r.normal(C, 0.0, 0.2)};
    }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(N * C), mean(N), rstd(N);
        layernormForward(out.data(), mean.data(), rstd.data(), in[0].data(), in[1].data(),
                         withBias ? in[2].data() : nullptr, N, C, eps);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        std::vector<Real> out(N * C), mean(N), rstd(N);
        layernormForward(out.data(), mean.data(), rstd.data(), in[0].data(), in[1].data(),
                         withBias ? in[2].data() : nullptr, N, C, eps);
        Tensors<Real> d = {std::vector<Real>(N * C), std::vector<Real>(C), std::vector<Real>(C)};
        layernormBackward(d[0].data(), d[1].data(), withBias ? d[2].data() : nullptr, dout.data(), in[0].data(),
                          in[1].data(), mean.data(), rstd.data(), N, C);
        return d;
    }
};

struct RopeOp {
    std::size_t B, T, NH, HD, rotaryDim;
    double theta;
    Tensors<double> inputs(Random& r) const { return {r.normal(B * T * NH * HD)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> cos(T * rotaryDim / 2), sin(T * rotaryDim / 2), out(in[0].size());
        ropeTable(cos.data(), sin.data(), T, rotaryDim, theta);
        ropeForward(out.data(), in[0].data(), cos.data(), sin.data(), B, T, NH, HD, rotaryDim);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        std::vector<Real> cos(T * rotaryDim / 2), sin(T * rotaryDim / 2);
        ropeTable(cos.data(), sin.data(), T, rotaryDim, theta);
        Tensors<Real> d = {std::vector<Real>(in[0].size())};
        ropeBackward(d[0].data(), dout.data(), cos.data(), sin.data(), B, T, NH, HD, rotaryDim);
        return d;
    }
};

enum class Activation { Silu, Gelu, GeluTanh };

struct ActivationOp {
    Activation kind;
    std::size_t n;
    Tensors<double> inputs(Random& r) const { return {r.normal(n, 0.0, 2.0)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(n);
        switch (kind) {
        case Activation::Silu: siluForward(out.data(), in[0].data(), n); break;
        case Activation::Gelu: geluForward(out.data(), in[0].data(), n); break;
        case Activation::GeluTanh: geluTanhForward(out.data(), in[0].data(), n); break;
        }
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        Tensors<Real> d = {std::vector<Real>(n)};
        switch (kind) {
        case Activation::Silu: siluBackward(d[0].data(), dout.data(), in[0].data(), n); break;
        case Activation::Gelu: geluBackward(d[0].data(), dout.data(), in[0].data(), n); break;
        case Activation::GeluTanh: geluTanhBackward(d[0].data(), dout.data(), in[0].data(), n); break;
        }
        return d;
    }
};

// tanh, whose backward reads the forward's output (BERT's pooler).
struct TanhOp {
    std::size_t n;
    Tensors<double> inputs(Random& r) const { return {r.normal(n, 0.0, 1.5)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(n);
        tanhForward(out.data(), in[0].data(), n);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        const std::vector<Real> out = forward(in);
        Tensors<Real> d = {std::vector<Real>(n)};
        tanhBackward(d[0].data(), dout.data(), out.data(), n);
        return d;
    }
};

// out = x + row on every row (BERT's token type embedding), backward: column sums.
struct RowBroadcastOp {
    std::size_t rows, C;
    Tensors<double> inputs(Random& r) const { return {r.normal(rows * C), r.normal(C)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out = in[0];
        addRowToRows(out.data(), in[1].data(), rows, C);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>&, const std::vector<Real>& dout) const
    {
        Tensors<Real> d = {dout, std::vector<Real>(C)};
        sumRowsInto(d[1].data(), dout.data(), rows, C);
        return d;
    }
};

struct SwigluOp {
    std::size_t n;
    Tensors<double> inputs(Random& r) const { return {r.normal(n, 0.0, 2.0), r.normal(n)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(n);
        swigluForward(out.data(), in[0].data(), in[1].data(), n);
        return out;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        Tensors<Real> d = {std::vector<Real>(n), std::vector<Real>(n)};
        swigluBackward(d[0].data(), d[1].data(), dout.data(), in[0].data(), in[1].data(), n);
        return d;
    }
};

struct AttentionOp {
    AttentionShape shape;
    bool memoryEfficient;
    std::size_t keyTile = kDefaultKeyTile;
    std::size_t qSize() const { return shape.B * shape.T * shape.NH * shape.HD; }
    std::size_t kvSize() const { return shape.B * shape.T * shape.NKV * shape.HD; }
    std::size_t scores() const { return shape.B * shape.NH * shape.T * shape.T; }
    Tensors<double> inputs(Random& r) const { return {r.normal(qSize()), r.normal(kvSize()), r.normal(kvSize())}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> out(qSize()), dropped;
        std::vector<std::uint8_t> mask;
        runForward(out, in, mask, dropped);
        return out;
    }
    // out, plus what the form saves: probabilities (B,NH,T,T) or logsumexp
    // (B,NH,T); with dropout, eager attention's mask and dropped probabilities.
    template <typename Real>
    std::vector<Real> runForward(std::vector<Real>& out, const Tensors<Real>& in, std::vector<std::uint8_t>& mask,
                                 std::vector<Real>& dropped) const
    {
        const double scale = defaultAttentionScale(shape.HD);
        if (memoryEfficient) {
            std::vector<Real> lse(shape.B * shape.NH * shape.T);
            flashAttentionForward(out.data(), lse.data(), in[0].data(), in[1].data(), in[2].data(), shape, scale,
                                  keyTile);
            return lse;
        }
        std::vector<Real> att(scores());
        if (shape.dropout > 0) {
            mask.assign(scores(), 0);
            dropped.assign(scores(), Real(0));
        }
        attentionForward(out.data(), att.data(), in[0].data(), in[1].data(), in[2].data(), shape, scale,
                         mask.empty() ? nullptr : mask.data(), dropped.empty() ? nullptr : dropped.data());
        return att;
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        const double scale = defaultAttentionScale(shape.HD);
        std::vector<Real> out(qSize()), dropped;
        std::vector<std::uint8_t> mask;
        const std::vector<Real> saved = runForward(out, in, mask, dropped);
        Tensors<Real> d = {std::vector<Real>(qSize()), std::vector<Real>(kvSize()), std::vector<Real>(kvSize())};
        if (memoryEfficient)
            flashAttentionBackward(d[0].data(), d[1].data(), d[2].data(), dout.data(), out.data(), saved.data(),
                                   in[0].data(), in[1].data(), in[2].data(), shape, scale, keyTile);
        else
            attentionBackward(d[0].data(), d[1].data(), d[2].data(), dout.data(), saved.data(), in[0].data(),
                              in[1].data(), in[2].data(), shape, scale, mask.empty() ? nullptr : mask.data(),
                              dropped.empty() ? nullptr : dropped.data());
        return d;
    }
};

// An encoder's attention shape: not causal.
AttentionShape bidirectional(AttentionShape shape)
{
    shape.causal = false;
    return shape;
}

// An attention shape with dropout p drawn from a fixed stream.
AttentionShape withDropout(AttentionShape shape, float p, std::uint64_t stream)
{
    shape.dropout = p;
    shape.dropoutStream = stream;
    return shape;
}

struct CrossEntropyOp {
    std::size_t N, V;
    std::vector<std::int32_t> targets;
    std::size_t chunks = 1;
    Tensors<double> inputs(Random& r) const { return {r.normal(N * V, 0.0, 2.0)}; }
    template <typename Real>
    std::vector<Real> forward(const Tensors<Real>& in) const
    {
        std::vector<Real> lse(N);
        return {static_cast<Real>(crossEntropyForwardChunked(lse.data(), in[0].data(), targets.data(), N, V, chunks))};
    }
    template <typename Real>
    Tensors<Real> backward(const Tensors<Real>& in, const std::vector<Real>& dout) const
    {
        std::vector<Real> lse(N);
        crossEntropyForwardChunked(lse.data(), in[0].data(), targets.data(), N, V, chunks);
        Tensors<Real> d = {std::vector<Real>(N * V)};
        crossEntropyBackwardChunked(d[0].data(), in[0].data(), lse.data(), targets.data(), N, V, chunks,
                                    double(dout[0]));
        return d;
    }
};

std::vector<std::int32_t> randomTargets(std::uint32_t seed, std::size_t N, std::int32_t V, std::size_t ignored)
{
    Random r(seed);
    std::vector<std::int32_t> targets(N);
    for (auto& t : targets)
        t = r.integer(0, V - 1);
    for (std::size_t i = 0; i < ignored; ++i)
        targets[r.index(N)] = kIgnoreIndex;
    return targets;
}

} // namespace

class TestRuntimeKernels : public QObject {
    Q_OBJECT

private slots:
    void matmulGradients()
    {
        checkGradients(MatmulOp{5, 7, 6, true}, "matmul");
        checkGradients(MatmulOp{4, 3, 9, false}, "matmul without bias");
    }

    void matmulValues()
    {
        // [1 2; 3 4] · [[1 0], [1 1], [0 2]]ᵀ + [0.5, 0, −1]
        const std::vector<float> inp = {1, 2, 3, 4};
        const std::vector<float> weight = {1, 0, 1, 1, 0, 2};
        const std::vector<float> bias = {0.5f, 0, -1};
        std::vector<float> out(6);
        matmulForward(out.data(), inp.data(), weight.data(), bias.data(), 2, 2, 3);
        QCOMPARE(out, (std::vector<float>{1.5f, 3, 3, 3.5f, 7, 7}));
        // Gradients accumulate into what is there.
        std::vector<float> dbias = {10, 10, 10};
        const std::vector<float> dout(6, 1.0f);
        matmulBackward<float>(nullptr, nullptr, dbias.data(), dout.data(), inp.data(), weight.data(), 2, 2, 3);
        QCOMPARE(dbias, (std::vector<float>{12, 12, 12}));
    }

    void embeddingGradients()
    {
        // Token 3 appears three times, so its row sums three gradients.
        checkGradients(EmbeddingOp{2, 5, 4, 6, {3, 1, 3, 0, 5, 2, 3, 1, 4, 4}}, "embedding");
    }

    void embeddingValuesAndRange()
    {
        const std::vector<float> wte = {1, 2, 3, 4, 5, 6}; // V 3, C 2
        const std::vector<float> wpe = {10, 20, 30, 40};   // T 2
        const std::vector<std::int32_t> tokens = {2, 0};
        std::vector<float> out(4);
        embeddingForward(out.data(), tokens.data(), wte.data(), wpe.data(), 1, 2, 2, 3);
        QCOMPARE(out, (std::vector<float>{15, 26, 31, 42}));
        embeddingForward<float>(out.data(), tokens.data(), wte.data(), nullptr, 1, 2, 2, 3);
        QCOMPARE(out, (std::vector<float>{5, 6, 1, 2}));
        const std::vector<std::int32_t> bad = {3, 0};
        QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                                 embeddingForward(out.data(), bad.data(), wte.data(), wpe.data(), 1, 2, 2, 3));
    }

    void rmsnormGradients() { checkGradients(RmsnormOp{6, 10, 1e-5}, "rmsnorm"); }

    void rmsnormValues()
    {
        // HF LlamaRMSNorm: x · rsqrt(mean(x²) + eps) · w; mean(x²) of 1, 2, 3, 4 is 7.5.
        const std::vector<float> x = {1, 2, 3, 4};
        const std::vector<float> w = {1, 1, 2, 0.5f};
        std::vector<float> out(4), rstd(1);
        rmsnormForward(out.data(), rstd.data(), x.data(), w.data(), 1, 4, 1e-6);
        const double r = 1.0 / std::sqrt(7.5 + 1e-6);
        QCOMPARE(rstd[0], float(r));
        QCOMPARE(out, (std::vector<float>{float(r), float(2 * r), float(6 * r), float(2 * r)}));
    }

    void layernormGradients()
    {
        checkGradients(LayernormOp{6, 10, 1e-5}, "layernorm");
    }

    void layernormValues()
    {
        // Unit weight, zero bias: each row comes out with mean 0 and variance 1/(1 + eps/var).
        Random random(seedFor("layernorm values"));
        const std::size_t N = 3, C = 16;
        const auto x = convert<float>(random.normal(N * C, 2.0, 3.0));
        const std::vector<float> w(C, 1.0f), b(C, 0.0f);
        std::vector<float> out(N * C), mean(N), rstd(N);
        layernormForward(out.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), N, C, 1e-5);
        for (std::size_t n = 0; n < N; ++n) {
            double sum = 0, sumSquares = 0, xSum = 0;
            for (std::size_t c = 0; c < C; ++c) {
                sum += out[n * C + c];
                sumSquares += double(out[n * C + c]) * out[n * C + c];
                xSum += x[n * C + c];
            }
            QVERIFY(std::fabs(sum / C) < 1e-6);
            QVERIFY(std::fabs(sumSquares / C - 1.0) < 1e-4);
            QVERIFY(std::fabs(mean[n] - xSum / C) < 1e-6);
        }
        // Bias-free LayerNorm takes a null bias.
        checkGradients(LayernormOp{2, 5, 1e-5, false}, "layernorm without bias");
    }

    void ropeGradients()
    {
        checkGradients(RopeOp{2, 5, 3, 8, 8, 10000.0}, "rope");
        checkGradients(RopeOp{1, 6, 2, 16, rotaryDimension(16, 0.25), 10000.0}, "rope partial (GPT-NeoX)");
        checkGradients(RopeOp{1, 4, 2, 8, 8, 500000.0}, "rope theta 5e5 (Llama 3)");
    }

    void ropeValues()
    {
        // HF rotate_half with HD 6, rotary 4 (partial): pairs (0, 2) at θ0 = 1 and
        // (1, 3) at θ1 = theta^(−2/4); elements 4, 5 pass through.
        const std::size_t T = 3, HD = 6, rot = 4;
        const double theta = 100.0;
        std::vector<double> cos(T * rot / 2), sin(T * rot / 2);
        ropeTable(cos.data(), sin.data(), T, rot, theta);
        const std::vector<double> x = {1, 2, 3, 4, 5, 6};
        std::vector<double> inp;
        for (std::size_t t = 0; t < T; ++t)
            inp.insert(inp.end(), x.begin(), x.end());
        std::vector<double> out(inp.size());
        ropeForward(out.data(), inp.data(), cos.data(), sin.data(), 1, T, 1, HD, rot);
        for (std::size_t t = 0; t < T; ++t) {
            const double a0 = double(t), a1 = double(t) / std::sqrt(theta);
            const double* y = out.data() + t * HD;
            QVERIFY(std::fabs(y[0] - (1 * std::cos(a0) - 3 * std::sin(a0))) < 1e-12);
            QVERIFY(std::fabs(y[2] - (3 * std::cos(a0) + 1 * std::sin(a0))) < 1e-12);
            QVERIFY(std::fabs(y[1] - (2 * std::cos(a1) - 4 * std::sin(a1))) < 1e-12);
            QVERIFY(std::fabs(y[3] - (4 * std::cos(a1) + 2 * std::sin(a1))) < 1e-12);
            QCOMPARE(y[4], 5.0);
            QCOMPARE(y[5], 6.0);
        }
        // In place gives the same.
        std::vector<double> inPlace = inp;
        ropeForward(inPlace.data(), inPlace.data(), cos.data(), sin.data(), 1, T, 1, HD, rot);
        QCOMPARE(inPlace, out);
        QCOMPARE(rotaryDimension(64, 0.25), std::size_t(16));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 ropeForward(out.data(), inp.data(), cos.data(), sin.data(), 1, T, 1, HD, 3));
    }

    void activationGradients()
    {
        checkGradients(ActivationOp{Activation::Silu, 40}, "silu");
        checkGradients(ActivationOp{Activation::Gelu, 40}, "gelu");
        checkGradients(ActivationOp{Activation::GeluTanh, 40}, "gelu tanh");
        checkGradients(SwigluOp{40}, "swiglu");
        checkGradients(TanhOp{40}, "tanh (BERT pooler)");
    }

    void tanhAndRowBroadcastValues()
    {
        const std::vector<double> x = {-2.0, 0.0, 0.5};
        std::vector<double> y(3), dx = {1.0, 1.0, 1.0};
        tanhForward(y.data(), x.data(), 3);
        for (std::size_t i = 0; i < 3; ++i)
            QCOMPARE(y[i], std::tanh(x[i]));
        const std::vector<double> dy = {2.0, 3.0, 4.0};
        tanhBackward(dx.data(), dy.data(), y.data(), 3); // adds dy·(1 − y²)
        QVERIFY(std::fabs(dx[1] - 4.0) < 1e-15);
        QVERIFY(std::fabs(dx[2] - (1.0 + 4.0 * (1.0 - std::tanh(0.5) * std::tanh(0.5)))) < 1e-15);
        // rows x C = 3 x 2: every row gets the row; the column sums accumulate.
        std::vector<double> m = {1, 2, 3, 4, 5, 6};
        const std::vector<double> row = {10, 20};
        addRowToRows(m.data(), row.data(), 3, 2);
        QCOMPARE(m, (std::vector<double>{11, 22, 13, 24, 15, 26}));
        std::vector<double> sums = {1, 1};
        sumRowsInto(sums.data(), m.data(), 3, 2);
        QCOMPARE(sums, (std::vector<double>{40, 73}));
        checkGradients(RowBroadcastOp{7, 5}, "row broadcast (BERT token type)");
    }

    void activationValues()
    {
        const std::vector<double> x = {-3.0, -1.0, 0.0, 1.0, 2.5};
        std::vector<double> y(x.size());
        siluForward(y.data(), x.data(), x.size());
        for (std::size_t i = 0; i < x.size(); ++i)
            QVERIFY(std::fabs(y[i] - x[i] / (1 + std::exp(-x[i]))) < 1e-15);
        geluForward(y.data(), x.data(), x.size());
        QVERIFY(std::fabs(y[3] - 0.8413447460685429) < 1e-15); // Φ(1)
        QVERIFY(std::fabs(y[1] + 0.15865525393145707) < 1e-15);
        geluTanhForward(y.data(), x.data(), x.size());
        QVERIFY(std::fabs(y[3] - 0.8411919906082768) < 1e-15); // 0.5·(1 + tanh(√(2/π)·1.044715))
        QCOMPARE(y[2], 0.0);
    }

    void attentionGradients()
    {
        checkGradients(AttentionOp{{2, 5, 4, 2, 4}, false}, "attention eager, GQA");
        checkGradients(AttentionOp{{2, 5, 4, 2, 4}, true, 2}, "attention memory-efficient, GQA, tile 2");
        checkGradients(AttentionOp{{1, 6, 3, 3, 4}, true, 4}, "attention memory-efficient, MHA, tile 4");
        checkGradients(AttentionOp{{1, 6, 2, 1, 4}, false}, "attention eager, MQA");
        // With attention dropout the mask is a fixed function of the stream, so
        // the output is differentiable in q, k, v like any other.
        checkGradients(AttentionOp{withDropout({2, 5, 4, 2, 4}, 0.3f, 77), false}, "attention eager, dropout 0.3");
        checkGradients(AttentionOp{withDropout({2, 5, 4, 2, 4}, 0.3f, 77), true, 2},
                       "attention memory-efficient, dropout 0.3, tile 2");
        // An encoder's bidirectional attention (BERT): every key for every query.
        checkGradients(AttentionOp{bidirectional({2, 5, 4, 4, 4}), false}, "attention eager, bidirectional");
        checkGradients(AttentionOp{bidirectional({2, 5, 4, 4, 4}), true, 2},
                       "attention memory-efficient, bidirectional, tile 2");
        checkGradients(AttentionOp{withDropout(bidirectional({1, 6, 2, 2, 4}), 0.3f, 78), true, 4},
                       "attention memory-efficient, bidirectional, dropout 0.3, tile 4");
    }

    void bidirectionalAttentionSeesEveryKey()
    {
        // With equal keys every score is equal: each query's output is the mean of
        // all values (bidirectional), or of the values up to it (causal).
        Random random(seedFor("bidirectional values"));
        AttentionShape shape{1, 5, 2, 2, 4};
        const AttentionOp causalOp{shape, false};
        Tensors<double> in = causalOp.inputs(random);
        for (std::size_t t = 0; t < 5; ++t)
            for (std::size_t i = 0; i < 2 * 4; ++i)
                in[1][t * 8 + i] = in[1][i];
        for (bool memoryEfficient : {false, true}) {
            const std::vector<double> causal = AttentionOp{shape, memoryEfficient, 2}.forward(in);
            const std::vector<double> all = AttentionOp{bidirectional(shape), memoryEfficient, 2}.forward(in);
            for (std::size_t t = 0; t < 5; ++t)
                for (std::size_t h = 0; h < 2; ++h)
                    for (std::size_t i = 0; i < 4; ++i) {
                        double meanAll = 0, meanPrefix = 0;
                        for (std::size_t s = 0; s < 5; ++s) {
                            meanAll += in[2][(s * 2 + h) * 4 + i] / 5.0;
                            if (s <= t)
                                meanPrefix += in[2][(s * 2 + h) * 4 + i] / double(t + 1);
                        }
                        const std::size_t o = (t * 2 + h) * 4 + i;
                        QVERIFY(std::fabs(all[o] - meanAll) < 1e-12);
                        QVERIFY(std::fabs(causal[o] - meanPrefix) < 1e-12);
                    }
        }
    }

    void dropoutDrawsAndScales()
    {
        // The fraction dropped is p within 5 standard deviations of a binomial
        // count (sqrt(n p (1 - p))); kept elements are scaled by 1/(1 - p) and the
        // backward passes the gradient through the same mask.
        for (float p : {0.1f, 0.5f}) {
            const std::size_t n = 200000;
            std::vector<float> x(n, 2.0f), dx(n, 0.0f), dy(n, 3.0f);
            std::vector<std::uint8_t> mask(n, 7);
            dropoutForward(x.data(), mask.data(), n, p, dropoutStream(1, 2, 3, 4, 5));
            std::size_t dropped = 0;
            for (std::size_t i = 0; i < n; ++i) {
                QVERIFY(mask[i] == 0 || mask[i] == 1);
                dropped += mask[i] == 0 ? 1 : 0;
                QCOMPARE(x[i], mask[i] ? 2.0f * (1.0f / (1.0f - p)) : 0.0f);
            }
            const double expected = double(n) * p, sd = std::sqrt(double(n) * p * (1.0 - p));
            QVERIFY2(std::fabs(double(dropped) - expected) < 5 * sd, std::to_string(dropped).c_str());
            dropoutBackward(dx.data(), dy.data(), mask.data(), n, p);
            for (std::size_t i = 0; i < n; ++i)
                QCOMPARE(dx[i], mask[i] ? 3.0f * (1.0f / (1.0f - p)) : 0.0f);
            // The mask alone (a checkpointed recompute) is the same draw.
            std::vector<std::uint8_t> again(n, 7);
            dropoutForward(nullptr, again.data(), n, p, dropoutStream(1, 2, 3, 4, 5));
            QVERIFY(again == mask);
            // Another site draws another mask: about p(1 - p) · 2 of the elements differ.
            dropoutForward(nullptr, again.data(), n, p, dropoutStream(1, 2, 3, 4, 6));
            std::size_t differ = 0;
            for (std::size_t i = 0; i < n; ++i)
                differ += again[i] != mask[i] ? 1 : 0;
            const double expectDiffer = 2.0 * double(n) * p * (1.0 - p);
            QVERIFY2(std::fabs(double(differ) - expectDiffer) < 5 * std::sqrt(expectDiffer), std::to_string(differ).c_str());
        }
        QCOMPARE(dropoutThreshold(0.0f), 0u);
        QCOMPARE(dropoutThreshold(0.5f), 0x80000000u);
        // Attention dropout is applied: the first query sees only the first key
        // (P = 1), so its output is v_0 / (1 - p) where the draw keeps it, else 0.
        Random random(seedFor("attention dropout values"));
        const float p = 0.5f;
        const AttentionShape shape = withDropout({1, 6, 8, 2, 4}, p, 99);
        for (bool memoryEfficient : {false, true}) {
            const AttentionOp op{shape, memoryEfficient, 2};
            const Tensors<double> in = op.inputs(random);
            const std::vector<double> out = op.forward(in);
            std::size_t kept = 0;
            for (std::size_t h = 0; h < 8; ++h) {
                const bool keep = dropoutKeep(99, h * 6 * 6, dropoutThreshold(p));
                kept += keep ? 1 : 0;
                for (std::size_t i = 0; i < 4; ++i)
                    QCOMPARE(out[h * 4 + i], keep ? in[2][(h / 4) * 4 + i] * double(dropoutScale(p)) : 0.0);
            }
            QVERIFY(kept > 0 && kept < 8); // this stream drops some heads' first row and keeps others
        }
    }

    void attentionFormsAgree()
    {
        // Eager and memory-efficient: same function, so outputs and gradients agree
        // to 1e-5 relative (here elementwise, with a floor of 1e-7 of the tensor's
        // largest value for elements that cancel to near zero).
        const std::vector<std::pair<AttentionShape, std::size_t>> cases = {
            {{2, 33, 4, 2, 16}, 8}, {{1, 17, 3, 1, 8}, 5}, {{2, 12, 2, 2, 8}, 64}, {{1, 40, 8, 2, 4}, 1}};
        std::vector<std::pair<AttentionShape, std::size_t>> all = cases;
        // With dropout both forms draw the same mask from the stream (dropoutrng.h).
        for (const auto& [shape, tile] : cases)
            all.emplace_back(withDropout(shape, 0.2f, 1234 + shape.T), tile);
        // And bidirectional (BERT), with and without dropout.
        for (const auto& [shape, tile] : cases) {
            all.emplace_back(bidirectional(shape), tile);
            all.emplace_back(withDropout(bidirectional(shape), 0.2f, 4321 + shape.T), tile);
        }
        for (const auto& [shape, tile] : all) {
            const std::string name = "attention forms T " + std::to_string(shape.T) + " tile " + std::to_string(tile) +
                                     (shape.dropout > 0 ? " dropout" : "") + (shape.causal ? "" : " bidirectional");
            const std::uint32_t seed = seedFor(name);
            qInfo("%s: seed %u", name.c_str(), seed);
            Random random(seed);
            const AttentionOp eager{shape, false};
            const AttentionOp flash{shape, true, tile};
            const Tensors<float> in = convertAll<float>(eager.inputs(random));
            const std::vector<float> dout = convert<float>(random.normal(eager.qSize()));
            const auto agree = [](const std::vector<float>& a, const std::vector<float>& b) {
                const double floor = 1e-7 * maxAbs(b);
                for (std::size_t i = 0; i < a.size(); ++i) {
                    if (std::fabs(double(a[i]) - double(b[i])) > 1e-5 * std::fabs(double(b[i])) + floor)
                        return false;
                }
                return a.size() == b.size();
            };
            QVERIFY2(agree(flash.forward(in), eager.forward(in)), (name + ": outputs").c_str());
            const Tensors<float> gradFlash = flash.backward(in, dout);
            const Tensors<float> gradEager = eager.backward(in, dout);
            for (std::size_t k = 0; k < 3; ++k)
                QVERIFY2(agree(gradFlash[k], gradEager[k]), (name + ": gradient " + std::to_string(k)).c_str());
        }
    }

    void attentionValuesAndGqa()
    {
        // The first query sees only the first key: its output is v_0.
        Random random(seedFor("attention values"));
        const AttentionShape grouped{1, 6, 4, 2, 8};
        const AttentionOp op{grouped, false};
        const Tensors<double> in = op.inputs(random);
        const std::vector<double> out = op.forward(in);
        for (std::size_t h = 0; h < 4; ++h)
            for (std::size_t i = 0; i < 8; ++i)
                QCOMPARE(out[h * 8 + i], in[2][(h / 2) * 8 + i]);
        // GQA = MHA on K/V repeated per query head (HF repeat_kv: head h reads KV head h / 2).
        const AttentionShape expanded{1, 6, 4, 4, 8};
        Tensors<double> expandedIn = {in[0], std::vector<double>(6 * 4 * 8), std::vector<double>(6 * 4 * 8)};
        for (std::size_t t = 0; t < 6; ++t)
            for (std::size_t h = 0; h < 4; ++h)
                for (std::size_t i = 0; i < 8; ++i)
                    for (std::size_t k = 1; k < 3; ++k)
                        expandedIn[k][(t * 4 + h) * 8 + i] = in[k][(t * 2 + h / 2) * 8 + i];
        for (bool memoryEfficient : {false, true}) {
            const AttentionOp g{grouped, memoryEfficient, 3};
            const AttentionOp e{expanded, memoryEfficient, 3};
            QCOMPARE(g.forward(in), e.forward(expandedIn));
            const std::vector<double> dout = random.normal(out.size());
            const Tensors<double> dg = g.backward(in, dout);
            const Tensors<double> de = e.backward(expandedIn, dout);
            std::string where;
            QVERIFY2(closeToScale(dg[0], de[0], 1e-12, where), where.c_str());
            for (std::size_t k = 1; k < 3; ++k) { // grouped dk/dv = sum over the heads sharing them
                std::vector<double> summed(6 * 2 * 8, 0.0);
                for (std::size_t t = 0; t < 6; ++t)
                    for (std::size_t h = 0; h < 4; ++h)
                        for (std::size_t i = 0; i < 8; ++i)
                            summed[(t * 2 + h / 2) * 8 + i] += de[k][(t * 4 + h) * 8 + i];
                QVERIFY2(closeToScale(dg[k], summed, 1e-12, where), where.c_str());
            }
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, checkAttentionShape({1, 4, 4, 3, 8}));
    }

    void crossEntropyGradients()
    {
        checkGradients(CrossEntropyOp{7, 11, randomTargets(seedFor("ce targets"), 7, 11, 2)}, "cross-entropy");
        checkGradients(CrossEntropyOp{7, 11, randomTargets(seedFor("ce targets"), 7, 11, 2), 3},
                       "cross-entropy, 3 chunks");
    }

    void crossEntropyValues()
    {
        // Uniform logits: every row costs log V. Ignored rows count for nothing.
        const std::size_t N = 4, V = 8;
        const std::vector<float> logits(N * V, 0.25f);
        const std::vector<std::int32_t> targets = {1, kIgnoreIndex, 7, 0};
        std::vector<float> lse(N);
        const double loss = crossEntropyForward(lse.data(), logits.data(), targets.data(), N, V);
        QVERIFY(std::fabs(loss - std::log(8.0)) < 1e-7);
        std::vector<float> dlogits(N * V);
        crossEntropyBackward(dlogits.data(), logits.data(), lse.data(), targets.data(), N, V);
        for (std::size_t v = 0; v < V; ++v) {
            QCOMPARE(dlogits[1 * V + v], 0.0f); // ignored row
            const float expected = (1.0f / 8.0f - (v == 1 ? 1.0f : 0.0f)) / 3.0f;
            QVERIFY(std::fabs(dlogits[v] - expected) < 1e-7f);
        }
        // All ignored: NaN loss, as torch's mean over no elements; no gradient.
        const std::vector<std::int32_t> none(N, kIgnoreIndex);
        QVERIFY(std::isnan(crossEntropyForward(lse.data(), logits.data(), none.data(), N, V)));
        std::vector<float> zero(N * V, 0.0f);
        crossEntropyBackward(zero.data(), logits.data(), lse.data(), none.data(), N, V);
        QCOMPARE(zero, std::vector<float>(N * V, 0.0f));
        const std::vector<std::int32_t> bad = {1, 8, 0, 0};
        QVERIFY_THROWS_EXCEPTION(std::out_of_range,
                                 crossEntropyForward(lse.data(), logits.data(), bad.data(), N, V));
        // Large logits do not overflow: log-sum-exp subtracts the row maximum.
        std::vector<float> large(N * V, 0.0f);
        large[1] = 1000.0f;
        const std::vector<std::int32_t> first = {1, 1, 1, 1};
        QVERIFY(std::isfinite(crossEntropyForward(lse.data(), large.data(), first.data(), N, V)));
    }

    void crossEntropyChunkedIsIdentical()
    {
        const std::size_t N = 37, V = 50;
        const std::string name = "cross-entropy chunked";
        qInfo("%s: seed %u", name.c_str(), seedFor(name));
        Random random(seedFor(name));
        const std::vector<float> logits = convert<float>(random.normal(N * V, 0.0, 3.0));
        const std::vector<std::int32_t> targets = randomTargets(seedFor(name) + 1, N, std::int32_t(V), 5);
        std::vector<float> lse(N);
        const double plain = crossEntropyForward(lse.data(), logits.data(), targets.data(), N, V);
        std::vector<float> dplain(N * V, 0.0f);
        crossEntropyBackward(dplain.data(), logits.data(), lse.data(), targets.data(), N, V, 0.7);
        for (std::size_t chunks : {std::size_t(1), std::size_t(2), std::size_t(5), std::size_t(37), std::size_t(64)}) {
            std::vector<float> chunkLse(N);
            const double chunked =
                crossEntropyForwardChunked(chunkLse.data(), logits.data(), targets.data(), N, V, chunks);
            QCOMPARE(chunked, plain); // same arithmetic in the same order: identical
            QCOMPARE(chunkLse, lse);
            std::vector<float> dchunked(N * V, 0.0f);
            crossEntropyBackwardChunked(dchunked.data(), logits.data(), chunkLse.data(), targets.data(), N, V,
                                        chunks, 0.7);
            QCOMPARE(dchunked, dplain);
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 crossEntropyForwardChunked(lse.data(), logits.data(), targets.data(), N, V, 0));
    }

    void parallelForCoversEveryItemOnce()
    {
        setThreadCount(3);
        setMinWorkPerThread(1);
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(7), std::size_t(100)}) {
            std::vector<int> hits(n, 0);
            parallelFor(n, 1, [&](std::size_t i) { ++hits[i]; });
            QCOMPARE(hits, std::vector<int>(n, 1));
        }
        setThreadCount(0);
        setMinWorkPerThread(0);
        QVERIFY(threadCount() >= 1);
        QCOMPARE(plannedThreads(10, 1), std::size_t(1)); // tiny loops stay serial
    }
};

QTEST_APPLESS_MAIN(TestRuntimeKernels)
#include "test_runtime_kernels.moc"
