// SPDX-License-Identifier: GPL-3.0-or-later
// The counter-based initial values (runtime/initvalues.h): the moments of the
// draws within six standard errors of the distribution's own (the bounds are
// derived below, not tuned), the same bits for any thread count, and streams
// that do not repeat each other.
#include "runtime/cpu/parallel.h"
#include "runtime/initvalues.h"

#include <QtTest>

#include <cmath>
#include <vector>

using namespace headroom;

namespace {

constexpr std::size_t kCount = 1'000'001; // odd: the last Box-Muller pair is half used

struct Moments {
    double mean = 0, variance = 0;
};

Moments momentsOf(const std::vector<float>& v)
{
    Moments m;
    for (float x : v)
        m.mean += x;
    m.mean /= static_cast<double>(v.size());
    for (float x : v)
        m.variance += (x - m.mean) * (x - m.mean);
    m.variance /= static_cast<double>(v.size() - 1);
    return m;
}

} // namespace

class TestRuntimeInitValues : public QObject {
    Q_OBJECT

private slots:
    void cleanup()
    {
        cpu::setThreadCount(0);
        cpu::setMinWorkPerThread(0);
    }

    void normalHasItsMoments()
    {
        const float sigma = 0.02f;
        std::vector<float> v(kCount);
        rt::fillNormal(v, 7, 3, sigma);
        const Moments m = momentsOf(v);
        const double n = static_cast<double>(kCount);
        // Standard error of the mean: sigma / sqrt(n).
        QVERIFY2(std::fabs(m.mean) < 6 * sigma / std::sqrt(n), qPrintable(QString::number(m.mean)));
        // Of the sample variance, relative: sqrt(2 / (n - 1)) for a normal.
        const double relative = m.variance / (double(sigma) * sigma) - 1;
        QVERIFY2(std::fabs(relative) < 6 * std::sqrt(2 / (n - 1)), qPrintable(QString::number(relative)));
        // A normal, not just any law with that variance: P(|z| < 1) = erf(1/sqrt 2) = 0.682689,
        // standard error sqrt(p (1 - p) / n).
        std::size_t inside = 0;
        for (float x : v)
            inside += std::fabs(x) < sigma;
        const double p = std::erf(1 / std::sqrt(2.0));
        const double fraction = static_cast<double>(inside) / n;
        QVERIFY2(std::fabs(fraction - p) < 6 * std::sqrt(p * (1 - p) / n), qPrintable(QString::number(fraction)));
        for (float x : v)
            QVERIFY(std::isfinite(x));
    }

    void uniformHasItsMoments()
    {
        const float bound = 0.125f;
        std::vector<float> v(kCount);
        rt::fillUniform(v, 7, 4, bound);
        for (float x : v)
            QVERIFY(x >= -bound && x < bound);
        const Moments m = momentsOf(v);
        const double n = static_cast<double>(kCount);
        const double variance = double(bound) * bound / 3; // of U(-b, b)
        QVERIFY(std::fabs(m.mean) < 6 * std::sqrt(variance / n));
        // Relative standard error of the sample variance: sqrt((kurtosis - 1) / n), kurtosis 9/5.
        QVERIFY(std::fabs(m.variance / variance - 1) < 6 * std::sqrt(0.8 / n));
    }

    void sameBitsForAnyThreadCount()
    {
        std::vector<float> one(kCount), four(kCount);
        cpu::setThreadCount(1);
        rt::fillNormal(one, 11, 5, 1.0f);
        cpu::setThreadCount(4);
        cpu::setMinWorkPerThread(1);
        rt::fillNormal(four, 11, 5, 1.0f);
        QCOMPARE(cpu::plannedThreads(kCount / 2, 40), std::size_t{4});
        QVERIFY(one == four);
    }

    void streamsAndSeedsDiffer()
    {
        // Uncorrelated: |r| under six standard errors (1 / sqrt n) between any two.
        std::vector<std::vector<float>> draws;
        for (auto [seed, stream] : {std::pair{1, 1}, {1, 2}, {2, 1}}) {
            draws.emplace_back(kCount);
            rt::fillNormal(draws.back(), seed, stream, 1.0f);
        }
        for (std::size_t a = 0; a < draws.size(); ++a)
            for (std::size_t b = a + 1; b < draws.size(); ++b) {
                double r = 0;
                for (std::size_t i = 0; i < kCount; ++i)
                    r += double(draws[a][i]) * draws[b][i];
                r /= static_cast<double>(kCount);
                QVERIFY2(std::fabs(r) < 6 / std::sqrt(double(kCount)), qPrintable(QString::number(r)));
            }
        QVERIFY(rt::randomBits(1, 1, 0) != rt::randomBits(1, 1, 1));
    }
};

QTEST_APPLESS_MAIN(TestRuntimeInitValues)
#include "test_runtime_initvalues.moc"
