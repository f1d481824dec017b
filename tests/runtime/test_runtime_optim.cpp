// SPDX-License-Identifier: GPL-3.0-or-later
// Optimizer updates and loss scaling (engine/runtime/cpu): each optimizer
// against a reference written here as a plain per-element loop in double,
// for a few steps with fresh gradients, within 1e-6 relative on the
// parameters. Parameters start at magnitudes in [0.5, 1.5] so a relative
// comparison is meaningful for every element; states (which pass near zero)
// are compared within 1e-6 of their largest magnitude. The kernels keep
// their states in fp32 and the references in double, which is where the
// ~1e-7 differences come from.
#include "runtime/cpu/adafactor.h"
#include "runtime/cpu/adamw.h"
#include "runtime/cpu/adamw8bit.h"
#include "runtime/cpu/gradscaler.h"
#include "runtime/cpu/lion.h"
#include "runtime/cpu/parallel.h"
#include "runtime/cpu/sgd.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace headroom::cpu;

namespace {

class Random {
public:
    explicit Random(const std::string& name)
    {
        std::uint32_t seed = 20240611u;
        if (const char* text = std::getenv("HEADROOM_TEST_SEED"))
            seed = static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
        for (char c : name)
            seed = seed * 31u + static_cast<unsigned char>(c);
        qInfo("%s: seed %u", name.c_str(), seed);
        m_engine.seed(seed);
    }

    std::vector<float> gradient(std::size_t n, double stddev = 1.0)
    {
        std::normal_distribution<double> distribution(0.0, stddev);
        std::vector<float> values(n);
        for (float& v : values)
            v = static_cast<float>(distribution(m_engine));
        return values;
    }

    // ±[0.5, 1.5]
    std::vector<float> parameter(std::size_t n)
    {
        std::uniform_real_distribution<double> magnitude(0.5, 1.5);
        std::bernoulli_distribution negative(0.5);
        std::vector<float> values(n);
        for (float& v : values)
            v = static_cast<float>(negative(m_engine) ? -magnitude(m_engine) : magnitude(m_engine));
        return values;
    }

private:
    std::mt19937 m_engine;
};

std::vector<double> widen(const std::vector<float>& values)
{
    return {values.begin(), values.end()};
}

std::string number(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value);
    return text;
}

// |actual − expected| <= 1e-6·|expected| for every element.
bool relativelyClose(const std::vector<float>& actual, const std::vector<double>& expected, std::string& where,
                     double tolerance = 1e-6)
{
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (!(std::fabs(double(actual[i]) - expected[i]) <= tolerance * std::fabs(expected[i]))) {
            where = "element " + std::to_string(i) + ": " + number(actual[i]) + " vs " + number(expected[i]);
            return false;
        }
    }
    return actual.size() == expected.size();
}

// |actual − expected| <= 1e-6·max|expected|, for states that cross zero.
bool closeToScale(const std::vector<float>& actual, const std::vector<double>& expected, std::string& where)
{
    double scale = 0.0;
    for (double e : expected)
        scale = std::max(scale, std::fabs(e));
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (!(std::fabs(double(actual[i]) - expected[i]) <= 1e-6 * scale)) {
            where = "element " + std::to_string(i) + ": " + number(actual[i]) + " vs " + number(expected[i]);
            return false;
        }
    }
    return actual.size() == expected.size();
}

constexpr int kSteps = 5;

} // namespace

class TestRuntimeOptim : public QObject {
    Q_OBJECT

private slots:
    void sgdMatchesReference_data()
    {
        QTest::addColumn<float>("momentum");
        QTest::addColumn<float>("weightDecay");
        QTest::newRow("plain") << 0.0f << 0.0f;
        QTest::newRow("weight decay") << 0.0f << 0.01f;
        QTest::newRow("momentum") << 0.9f << 0.0f;
        QTest::newRow("momentum and weight decay") << 0.9f << 0.05f;
    }

    void sgdMatchesReference()
    {
        QFETCH(float, momentum);
        QFETCH(float, weightDecay);
        Random random(std::string("sgd ") + QTest::currentDataTag());
        const std::size_t n = 300;
        const SgdConfig config{0.005f, momentum, weightDecay}; // small enough that no parameter nears zero
        std::vector<float> param = random.parameter(n);
        std::vector<float> buffer(n, 0.0f);
        std::vector<double> p = widen(param), buf(n, 0.0);
        for (int step = 1; step <= kSteps; ++step) {
            const std::vector<float> grad = random.gradient(n);
            sgdStep(param, grad, buffer, step, config);
            // torch.optim.SGD, dampening 0, nesterov False
            for (std::size_t i = 0; i < n; ++i) {
                double d = double(grad[i]) + double(weightDecay) * p[i];
                if (momentum != 0.0f) {
                    buf[i] = step == 1 ? d : double(momentum) * buf[i] + d;
                    d = buf[i];
                }
                p[i] -= double(config.lr) * d;
            }
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), where.c_str());
            if (momentum != 0.0f)
                QVERIFY2(closeToScale(buffer, buf, where), where.c_str());
        }
    }

    void adamwMatchesReference()
    {
        Random random("adamw");
        const std::size_t n = 300;
        const AdamWConfig config{0.01f, 0.9f, 0.999f, 1e-8f, 0.1f};
        std::vector<float> param = random.parameter(n), m(n, 0.0f), v(n, 0.0f);
        std::vector<double> p = widen(param), mRef(n, 0.0), vRef(n, 0.0);
        for (int step = 1; step <= kSteps; ++step) {
            const std::vector<float> grad = random.gradient(n, 0.1);
            adamwStep(param, grad, m, v, step, config);
            const double b1 = config.beta1, b2 = config.beta2, lr = config.lr;
            for (std::size_t i = 0; i < n; ++i) {
                const double g = grad[i];
                p[i] *= 1.0 - lr * double(config.weightDecay); // decoupled (Loshchilov & Hutter)
                mRef[i] = b1 * mRef[i] + (1.0 - b1) * g;
                vRef[i] = b2 * vRef[i] + (1.0 - b2) * g * g;
                const double mHat = mRef[i] / (1.0 - std::pow(b1, step));
                const double vHat = vRef[i] / (1.0 - std::pow(b2, step));
                p[i] -= lr * mHat / (std::sqrt(vHat) + double(config.eps));
            }
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), where.c_str());
            QVERIFY2(closeToScale(m, mRef, where), where.c_str());
            QVERIFY2(closeToScale(v, vRef, where), where.c_str());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, adamwStep(param, std::vector<float>(n), m, v, 0, config));
    }

    void lionMatchesReference()
    {
        Random random("lion");
        const std::size_t n = 300;
        const LionConfig config{1e-3f, 0.9f, 0.99f, 0.1f};
        std::vector<float> param = random.parameter(n), m(n, 0.0f);
        std::vector<double> p = widen(param), mRef(n, 0.0);
        for (int step = 1; step <= kSteps; ++step) {
            const std::vector<float> grad = random.gradient(n);
            lionStep(param, grad, m, config);
            for (std::size_t i = 0; i < n; ++i) {
                const double g = grad[i];
                const double c = double(config.beta1) * mRef[i] + (1.0 - double(config.beta1)) * g;
                const double sign = c > 0 ? 1.0 : (c < 0 ? -1.0 : 0.0);
                p[i] = p[i] * (1.0 - double(config.lr) * double(config.weightDecay)) - double(config.lr) * sign;
                mRef[i] = double(config.beta2) * mRef[i] + (1.0 - double(config.beta2)) * g;
            }
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), where.c_str());
            QVERIFY2(closeToScale(m, mRef, where), where.c_str());
        }
        // sign(0) = 0: a zero gradient on a zero state moves nothing but the decay.
        std::vector<float> one = {1.0f}, zeroState = {0.0f};
        lionStep(one, std::vector<float>{0.0f}, zeroState, LionConfig{0.1f, 0.9f, 0.99f, 0.0f});
        QCOMPARE(one[0], 1.0f);
    }

    void adafactorMatchesReference_data()
    {
        QTest::addColumn<bool>("factored");
        QTest::addColumn<bool>("firstMoment");
        QTest::addColumn<float>("weightDecay");
        QTest::addColumn<float>("gradientScale");
        QTest::newRow("factored") << true << false << 0.0f << 1.0f;
        QTest::newRow("factored, beta1, decay") << true << true << 0.01f << 1.0f;
        QTest::newRow("factored, small gradients") << true << false << 0.0f << 1e-3f;
        QTest::newRow("not factored") << false << false << 0.0f << 1.0f;
        QTest::newRow("not factored, beta1, decay") << false << true << 0.01f << 1.0f;
    }

    void adafactorMatchesReference()
    {
        QFETCH(bool, factored);
        QFETCH(bool, firstMoment);
        QFETCH(float, weightDecay);
        QFETCH(float, gradientScale);
        Random random(std::string("adafactor ") + QTest::currentDataTag());
        const std::size_t rows = 7, cols = 5, n = rows * cols;
        AdafactorConfig config;
        config.lr = 0.01f;
        config.weightDecay = weightDecay;
        if (firstMoment)
            config.beta1 = 0.9f;
        std::vector<float> param = random.parameter(n);
        std::vector<float> rowState(rows, 0.0f), colState(cols, 0.0f), fullState(n, 0.0f);
        std::vector<float> expAvg(firstMoment ? n : 0, 0.0f);
        std::vector<double> p = widen(param), R(rows, 0.0), C(cols, 0.0), V(n, 0.0), M(n, 0.0);
        for (int step = 1; step <= kSteps; ++step) {
            const std::vector<float> grad = random.gradient(n, gradientScale);
            if (factored)
                adafactorStepFactored(param, grad, rows, cols, rowState, colState, expAvg, step, config);
            else
                adafactorStepUnfactored(param, grad, fullState, expAvg, step, config);

            // HF transformers Adafactor.step, relative_step=False, scale_parameter=False.
            const double beta2t = 1.0 - std::pow(double(step), double(config.decayRate));
            const double eps1 = double(config.eps1);
            std::vector<double> update(n);
            if (factored) {
                for (std::size_t r = 0; r < rows; ++r) {
                    double mean = 0.0;
                    for (std::size_t c = 0; c < cols; ++c)
                        mean += (double(grad[r * cols + c]) * grad[r * cols + c] + eps1) / double(cols);
                    R[r] = beta2t * R[r] + (1.0 - beta2t) * mean;
                }
                for (std::size_t c = 0; c < cols; ++c) {
                    double mean = 0.0;
                    for (std::size_t r = 0; r < rows; ++r)
                        mean += (double(grad[r * cols + c]) * grad[r * cols + c] + eps1) / double(rows);
                    C[c] = beta2t * C[c] + (1.0 - beta2t) * mean;
                }
                double rowMean = 0.0;
                for (double x : R)
                    rowMean += x / double(rows);
                for (std::size_t r = 0; r < rows; ++r)
                    for (std::size_t c = 0; c < cols; ++c)
                        update[r * cols + c] = grad[r * cols + c] / std::sqrt(R[r] / rowMean) / std::sqrt(C[c]);
            } else {
                for (std::size_t i = 0; i < n; ++i) {
                    V[i] = beta2t * V[i] + (1.0 - beta2t) * (double(grad[i]) * grad[i] + eps1);
                    update[i] = grad[i] / std::sqrt(V[i]);
                }
            }
            double sumSquares = 0.0;
            for (double u : update)
                sumSquares += u * u;
            const double rms = std::sqrt(sumSquares / double(n));
            const double divisor = std::max(rms / double(config.clipThreshold), 1.0);
            for (std::size_t i = 0; i < n; ++i) {
                double u = update[i] / divisor * double(config.lr);
                if (firstMoment) {
                    M[i] = 0.9 * M[i] + 0.1 * u;
                    u = M[i];
                }
                p[i] = p[i] - double(weightDecay) * double(config.lr) * p[i] - u;
            }
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), (std::to_string(step) + ": " + where).c_str());
            if (factored) {
                QVERIFY2(closeToScale(rowState, R, where), where.c_str());
                QVERIFY2(closeToScale(colState, C, where), where.c_str());
            } else {
                QVERIFY2(closeToScale(fullState, V, where), where.c_str());
            }
            if (firstMoment)
                QVERIFY2(closeToScale(expAvg, M, where), where.c_str());
        }
    }

    void adafactorIsThreadCountIndependent()
    {
        Random random("adafactor threads");
        const std::size_t rows = 64, cols = 48;
        const std::vector<float> start = random.parameter(rows * cols);
        const std::vector<float> grad = random.gradient(rows * cols);
        const auto run = [&](std::size_t threads) {
            setThreadCount(threads);
            setMinWorkPerThread(1);
            std::vector<float> param = start, rowState(rows, 0.0f), colState(cols, 0.0f);
            for (int step = 1; step <= 3; ++step)
                adafactorStepFactored(param, grad, rows, cols, rowState, colState, {}, step, AdafactorConfig{});
            setThreadCount(0);
            setMinWorkPerThread(0);
            return param;
        };
        QCOMPARE(run(3), run(1));
    }

    void adamw8bitMatchesReference()
    {
        // Each step is checked against a double reference started from the
        // kernel's own quantized state: dequantise, AdamW update, requantise.
        // The parameter must match within 1e-6 relative, the new absmax of each
        // block must be max|state| of the reference, and each new code must be a
        // nearest code of state/absmax (up to 1e-6 for near-ties).
        Random random("adamw 8-bit");
        const std::size_t n = 256 * 4 + 100; // a short last block
        const std::size_t blocks = adamw8bitBlocks(n);
        QCOMPARE(blocks, std::size_t(5));
        const AdamWConfig config{0.01f, 0.9f, 0.999f, 1e-8f, 0.1f};
        std::vector<float> param = random.parameter(n);
        std::vector<std::uint8_t> mCodes(n), vCodes(n);
        std::vector<float> mAbsmax(blocks), vAbsmax(blocks);
        const AdamW8bitState state{mCodes, mAbsmax, vCodes, vAbsmax};
        adamw8bitInit(state, n);
        const QuantMap& signedMap = dynamicMapSigned();
        const QuantMap& unsignedMap = dynamicMapUnsigned();
        for (std::size_t i = 0; i < n; ++i) {
            QCOMPARE(signedMap[mCodes[i]], 0.0f);
            QCOMPARE(unsignedMap[vCodes[i]], 0.0f);
        }
        const auto isNearest = [](const QuantMap& map, std::uint8_t code, double scaled) {
            double best = std::numeric_limits<double>::infinity();
            for (float c : map)
                best = std::min(best, std::fabs(double(c) - scaled));
            return std::fabs(double(map[code]) - scaled) <= best + 1e-6;
        };
        for (int step = 1; step <= kSteps; ++step) {
            std::vector<float> grad = random.gradient(n, 0.1);
            grad[7] *= 30.0f; // an outlier block
            std::vector<double> p = widen(param), mNew(n), vNew(n);
            const double b1 = config.beta1, b2 = config.beta2, lr = config.lr;
            for (std::size_t i = 0; i < n; ++i) {
                const double mOld = double(signedMap[mCodes[i]]) * mAbsmax[i / 256];
                const double vOld = double(unsignedMap[vCodes[i]]) * vAbsmax[i / 256];
                mNew[i] = b1 * mOld + (1 - b1) * grad[i];
                vNew[i] = b2 * vOld + (1 - b2) * double(grad[i]) * grad[i];
                const double mHat = mNew[i] / (1 - std::pow(b1, step));
                const double vHat = vNew[i] / (1 - std::pow(b2, step));
                p[i] = p[i] * (1 - lr * double(config.weightDecay)) - lr * mHat / (std::sqrt(vHat) + double(config.eps));
            }
            adamw8bitStep(param, grad, state, step, config);
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), (std::to_string(step) + ": " + where).c_str());
            for (std::size_t b = 0; b < blocks; ++b) {
                double mMax = 0.0, vMax = 0.0;
                for (std::size_t i = b * 256; i < std::min(n, (b + 1) * 256); ++i) {
                    mMax = std::max(mMax, std::fabs(mNew[i]));
                    vMax = std::max(vMax, std::fabs(vNew[i]));
                }
                QVERIFY(std::fabs(mAbsmax[b] - mMax) <= 1e-6 * mMax);
                QVERIFY(std::fabs(vAbsmax[b] - vMax) <= 1e-6 * vMax);
            }
            for (std::size_t i = 0; i < n; ++i) {
                QVERIFY2(isNearest(signedMap, mCodes[i], mNew[i] / mAbsmax[i / 256]), qPrintable(QString::number(i)));
                QVERIFY2(isNearest(unsignedMap, vCodes[i], vNew[i] / vAbsmax[i / 256]), qPrintable(QString::number(i)));
            }
        }
        // Same bits with 1 and 3 threads.
        const std::vector<float> grad = random.gradient(n);
        const auto run = [&](std::size_t threads) {
            setThreadCount(threads);
            setMinWorkPerThread(1);
            std::vector<float> p = param, ma = mAbsmax, va = vAbsmax;
            std::vector<std::uint8_t> mc = mCodes, vc = vCodes;
            adamw8bitStep(p, grad, AdamW8bitState{mc, ma, vc, va}, kSteps + 1, config);
            setThreadCount(0);
            setMinWorkPerThread(0);
            return std::tuple{p, ma, va, mc, vc};
        };
        QVERIFY(run(1) == run(3));
    }

    void lomoMatchesReference()
    {
        Random random("lomo");
        const std::size_t n = 200;
        LomoConfig config;
        config.lr = 0.02f;
        config.weightDecay = 0.1f;
        config.lossScale = 1024.0f;
        config.clipValue = 1.5f;
        std::vector<float> param = random.parameter(n);
        std::vector<double> p = widen(param);
        for (int step = 1; step <= kSteps; ++step) {
            std::vector<float> grad = random.gradient(n, 1024.0); // scaled by the loss scale
            // First backward: the global norm of the unscaled gradient, for the clip coefficient.
            const double norm = std::sqrt(gradSquaredNorm(grad, config.lossScale));
            config.clipCoefficient = lomoClipCoefficient(norm, 5.0);
            double refSquares = 0.0;
            for (float g : grad)
                refSquares += (double(g) / 1024.0) * (double(g) / 1024.0);
            QVERIFY(std::fabs(norm * norm - refSquares) <= 1e-12 * refSquares);
            QVERIFY(config.clipCoefficient <= 1.0f);
            for (std::size_t i = 0; i < n; ++i) {
                double g = double(grad[i]) / double(config.lossScale);
                g = std::clamp(g, -1.5, 1.5);
                g *= double(config.clipCoefficient);
                p[i] = p[i] * (1.0 - double(config.lr) * double(config.weightDecay)) - double(config.lr) * g;
            }
            lomoFusedUpdate(param, grad, config);
            std::string where;
            QVERIFY2(relativelyClose(param, p, where), where.c_str());
            QCOMPARE(grad, std::vector<float>(n, 0.0f)); // consumed
        }
        QCOMPARE(lomoClipCoefficient(1.0, 5.0), 1.0f);
        QVERIFY(std::fabs(lomoClipCoefficient(10.0, 5.0) - 0.5f) < 1e-6f);
    }

    void gradScalerScalesAndUnscales()
    {
        GradScaler scaler;
        QCOMPARE(scaler.scale(), 65536.0f);
        QCOMPARE(scaler.scaleLoss(1.5f), 98304.0f);
        std::vector<float> values = {1.0f, -2.0f};
        scaler.scaleInPlace(values);
        QCOMPARE(values, (std::vector<float>{65536.0f, -131072.0f}));
        QVERIFY(!scaler.unscale(values));
        QCOMPARE(values, (std::vector<float>{1.0f, -2.0f}));
        QVERIFY(!hasNonFinite(values));
        values.push_back(std::numeric_limits<float>::quiet_NaN());
        QVERIFY(hasNonFinite(values));
    }

    void gradScalerSkipsOnOverflow()
    {
        GradScaler scaler;
        int optimizerSteps = 0;
        std::vector<float> grads = {65536.0f, std::numeric_limits<float>::infinity(), 3.0f};
        QVERIFY(!scaler.step(grads, [&] { ++optimizerSteps; }));
        QCOMPARE(optimizerSteps, 0);          // skipped
        QCOMPARE(scaler.scale(), 32768.0f);   // backoff 0.5
        QCOMPARE(scaler.growthTracker(), std::int64_t(0));

        grads = {32768.0f, 0.0f, -16384.0f};
        QVERIFY(scaler.step(grads, [&] { ++optimizerSteps; }));
        QCOMPARE(optimizerSteps, 1);
        QCOMPARE(grads, (std::vector<float>{1.0f, 0.0f, -0.5f}));
        QCOMPARE(scaler.growthTracker(), std::int64_t(1));

        std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
        QVERIFY(!scaler.step(nan, [&] { ++optimizerSteps; }));
        QCOMPARE(optimizerSteps, 1);
        QCOMPARE(scaler.scale(), 16384.0f);
        QCOMPARE(scaler.growthTracker(), std::int64_t(0)); // an overflow restarts the count
    }

    void gradScalerGrowsEvery2000CleanSteps()
    {
        GradScaler scaler;
        for (int i = 0; i < 1999; ++i)
            scaler.update(false);
        QCOMPARE(scaler.scale(), 65536.0f);
        QCOMPARE(scaler.growthTracker(), std::int64_t(1999));
        scaler.update(false);
        QCOMPARE(scaler.scale(), 131072.0f); // growth 2.0
        QCOMPARE(scaler.growthTracker(), std::int64_t(0));
        for (int i = 0; i < 1000; ++i)
            scaler.update(false);
        scaler.update(true);
        for (int i = 0; i < 1999; ++i)
            scaler.update(false);
        QCOMPARE(scaler.scale(), 65536.0f); // backed off, not yet regrown
        scaler.update(false);
        QCOMPARE(scaler.scale(), 131072.0f);

        // Growth that would overflow fp32 is not applied.
        GradScaler::Config config;
        config.initScale = 3e38f;
        config.growthInterval = 1;
        GradScaler large(config);
        large.update(false);
        QCOMPARE(large.scale(), 3e38f);
    }
};

QTEST_APPLESS_MAIN(TestRuntimeOptim)
#include "test_runtime_optim.moc"
