// SPDX-License-Identifier: GPL-3.0-or-later
// NF4 and 8-bit blockwise quantization (engine/runtime/cpu/nf4.h, blockquant.h):
// the code tables, nearest-code rounding, packing, and the error bounds.
//
// Every error bound below comes from one argument: a block stores absmax =
// max|x| and, per value, the code c nearest to s = x/absmax, with s in the
// map's domain ([−1, 1], or [0, 1] for the unsigned map). If every point of
// the domain lies within w of some code (w = worstScaledError(map): half the
// largest gap between adjacent codes, or the distance from an end of the
// domain to the outermost code), then |x − c·absmax| = absmax·|s − c| <= absmax·w.
// fp32 adds the rounding of s = x·(1/absmax) (two roundings, < 2^−23
// relative) and of c·absmax (2^−24): we allow absmax·(w + 2^−21).
#include "runtime/cpu/blockquant.h"
#include "runtime/cpu/nf4.h"
#include "runtime/cpu/parallel.h"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

using namespace headroom::cpu;

namespace {

std::uint32_t seedFor(const std::string& name)
{
    std::uint32_t seed = 20240611u;
    if (const char* text = std::getenv("HEADROOM_TEST_SEED"))
        seed = static_cast<std::uint32_t>(std::strtoul(text, nullptr, 10));
    for (char c : name)
        seed = seed * 31u + static_cast<unsigned char>(c);
    qInfo("%s: seed %u", name.c_str(), seed);
    return seed;
}

std::vector<float> normals(std::uint32_t seed, std::size_t n, double stddev)
{
    std::mt19937 engine(seed);
    std::normal_distribution<double> distribution(0.0, stddev);
    std::vector<float> values(n);
    for (float& v : values)
        v = static_cast<float>(distribution(engine));
    return values;
}

constexpr double kRoundingAllowance = 1.0 / double(1 << 21); // 2^−21, see the top of the file

// The NF4 values as printed in bitsandbytes/functional.py get_4bit_type("nf4")
// (bitsandbytes-foundation/bitsandbytes), and in QLoRA Appendix E.
constexpr double kBitsandbytesNf4[16] = {
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
    -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
    0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
    0.7229568362236023, 1.0};

// Standard normal quantile by bisection on Φ(x) = erfc(−x/√2)/2 (double precision).
double normalQuantile(double p)
{
    double lo = -10.0, hi = 10.0;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

} // namespace

class TestRuntimeQuant : public QObject {
    Q_OBJECT

private slots:
    void nf4CodesEqualTheTable()
    {
        for (std::size_t i = 0; i < 16; ++i)
            QCOMPARE(kNf4Codes[i], static_cast<float>(kBitsandbytesNf4[i]));
        QVERIFY(std::is_sorted(kNf4Codes.begin(), kNf4Codes.end()));
        QCOMPARE(kNf4Codes[7], 0.0f);
    }

    void nf4CodesFollowFromNormalQuantiles()
    {
        // bitsandbytes create_normal_map(offset=0.9677083, use_extra_value=True):
        // 8 positive quantiles Φ⁻¹ at linspace(offset, 0.5, 9)[:-1], 7 negative ones
        // at linspace(offset, 0.5, 8)[:-1], a zero, sorted and divided by the largest.
        // bnb evaluates the linspace in fp32, so agreement is to ~1e-6, not bitwise.
        const double offset = 0.9677083;
        std::vector<double> values = {0.0};
        for (int i = 0; i < 8; ++i)
            values.push_back(normalQuantile(offset + (0.5 - offset) * i / 8.0));
        for (int i = 0; i < 7; ++i)
            values.push_back(-normalQuantile(offset + (0.5 - offset) * i / 7.0));
        std::sort(values.begin(), values.end());
        const double largest = values.back();
        for (std::size_t i = 0; i < 16; ++i)
            QVERIFY2(std::fabs(values[i] / largest - double(kNf4Codes[i])) < 2e-6,
                     qPrintable(QString::number(i) + QStringLiteral(": ") + QString::number(values[i] / largest)));
    }

    void nf4IndexIsNearestWithTiesDown()
    {
        for (std::size_t i = 0; i < 16; ++i)
            QCOMPARE(nf4Index(kNf4Codes[i]), std::uint8_t(i));
        for (std::size_t i = 0; i + 1 < 16; ++i) {
            const float midpoint = (kNf4Codes[i] + kNf4Codes[i + 1]) / 2.0f;
            QCOMPARE(nf4Index(midpoint), std::uint8_t(i)); // tie: torch.bucketize puts it below
            QCOMPARE(nf4Index(std::nextafter(midpoint, 2.0f)), std::uint8_t(i + 1));
        }
    }

    void nf4PacksHighNibbleFirst()
    {
        // [1, −1, 0.6]: absmax 1, indices 15, 0, and 0.6 → 0.5626 (13); the odd
        // element's partner is a zero (index 7).
        const std::vector<float> x = {1.0f, -1.0f, 0.6f};
        std::vector<std::uint8_t> packed(2);
        std::vector<float> absmax(1);
        nf4Quantize(packed.data(), absmax.data(), x.data(), x.size());
        QCOMPARE(absmax[0], 1.0f);
        QCOMPARE(packed[0], std::uint8_t(0xF0));
        QCOMPARE(packed[1], std::uint8_t(0xD7));
        std::vector<float> back(3);
        nf4Dequantize(back.data(), packed.data(), absmax.data(), x.size());
        QCOMPARE(back, (std::vector<float>{1.0f, -1.0f, kNf4Codes[13]}));
    }

    void nf4RoundTripErrorIsBounded()
    {
        // w = half the largest gap between adjacent NF4 codes (−1 to −0.696: 0.1519).
        const double w = worstScaledError(kNf4Codes);
        QVERIFY(std::fabs(w - (1.0 - 0.6961928009986877) / 2.0) < 1e-7);
        const std::size_t n = 64 * 37 + 5; // a short last block
        std::vector<float> x = normals(seedFor("nf4 round trip"), n, 0.02);
        x[100] = 0.5f; // an outlier: its block has a large absmax
        const std::size_t blocks = (n + 63) / 64;
        std::vector<std::uint8_t> packed((n + 1) / 2);
        std::vector<float> absmax(blocks);
        nf4Quantize(packed.data(), absmax.data(), x.data(), n);
        std::vector<float> back(n);
        nf4Dequantize(back.data(), packed.data(), absmax.data(), n);
        double worstSeen = 0.0;
        for (std::size_t i = 0; i < n; ++i) {
            const double a = absmax[i / 64];
            QVERIFY(a >= std::fabs(x[i]));
            const double error = std::fabs(double(x[i]) - double(back[i]));
            QVERIFY2(error <= a * (w + kRoundingAllowance), qPrintable(QString::number(i)));
            worstSeen = std::max(worstSeen, error / a);
        }
        qInfo("NF4: worst error %.4f of absmax, bound %.4f", worstSeen, w);
        // The element that sets a block's absmax comes back exactly (code ±1).
        QCOMPARE(back[100], 0.5f);

        // Same bits with 1 and 3 threads.
        setThreadCount(3);
        setMinWorkPerThread(1);
        std::vector<std::uint8_t> packedThreaded((n + 1) / 2);
        std::vector<float> absmaxThreaded(blocks);
        nf4Quantize(packedThreaded.data(), absmaxThreaded.data(), x.data(), n);
        setThreadCount(0);
        setMinWorkPerThread(0);
        QCOMPARE(packedThreaded, packed);
        QCOMPARE(absmaxThreaded, absmax);
    }

    void nf4DoubleQuantizationErrorIsBounded()
    {
        // 1000 blocks of 64 weights: 1000 absmax values, stored as 8-bit signed
        // dynamic codes of absmax − mean in 4 blocks of 256 (QLoRA §3, "Double
        // Quantization"). Bound on each absmax: absmax2 of its block · w8, w8 the
        // signed dynamic map's worst scaled error (0.00703: half the 0.0140625 gap
        // of its top decade), plus rounding of the offset add.
        const std::size_t blocks = 1000;
        const std::size_t n = blocks * 64;
        std::vector<float> x = normals(seedFor("nf4 double quant"), n, 0.02);
        std::vector<std::uint8_t> packed(n / 2);
        std::vector<float> absmax(blocks);
        nf4Quantize(packed.data(), absmax.data(), x.data(), n);

        const std::size_t blocks2 = (blocks + 255) / 256;
        std::vector<std::uint8_t> codes(blocks);
        std::vector<float> absmax2(blocks2);
        float offset = 0.0f;
        nf4DoubleQuantizeAbsmax(codes.data(), absmax2.data(), offset, absmax.data(), blocks);
        double mean = 0.0;
        for (float a : absmax)
            mean += a;
        QVERIFY(std::fabs(offset - mean / double(blocks)) < 1e-7 * offset);
        std::vector<float> restored(blocks);
        nf4DoubleDequantizeAbsmax(restored.data(), codes.data(), absmax2.data(), offset, blocks);

        const double w8 = worstScaledError(dynamicMapSigned());
        QVERIFY(std::fabs(w8 - 0.0140625 / 2.0) < 1e-7);
        for (std::size_t b = 0; b < blocks; ++b) {
            const double bound = double(absmax2[b / 256]) * (w8 + kRoundingAllowance) + 2e-7 * offset;
            QVERIFY2(std::fabs(double(restored[b]) - double(absmax[b])) <= bound, qPrintable(QString::number(b)));
        }
        // Weights through the double-quantized absmax: |x − c·absmax'| <=
        // absmax·w4 + |c|·|absmax − absmax'| with |c| <= 1.
        std::vector<float> back(n);
        nf4Dequantize(back.data(), packed.data(), restored.data(), n);
        const double w4 = worstScaledError(kNf4Codes);
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t b = i / 64;
            const double absmaxError = std::fabs(double(restored[b]) - double(absmax[b]));
            const double bound = double(absmax[b]) * (w4 + kRoundingAllowance) + absmaxError * (1 + 1e-6);
            QVERIFY2(std::fabs(double(x[i]) - double(back[i])) <= bound, qPrintable(QString::number(i)));
        }
        // QLoRA §3: 8 + 32/256 bits of absmax per 64 weights: 0.127 bits per weight.
        QVERIFY(std::fabs((8.0 + 32.0 / 256.0) / 64.0 - 0.127) < 1e-3);
    }

    void dynamicMapsFollowBitsandbytes()
    {
        // Signed: per decade 10^(i−6), i = 0..6, 2^i values (midpoints of 2^i
        // equal intervals of [0.1, 1]), both signs; then 0 and 1.
        const QuantMap& s = dynamicMapSigned();
        QVERIFY(std::is_sorted(s.begin(), s.end()));
        QVERIFY(std::adjacent_find(s.begin(), s.end()) == s.end()); // no repeated code
        QCOMPARE(s[127], 0.0f);
        QCOMPARE(s[255], 1.0f);
        QCOMPARE(s[0], -0.99296875f);           // −(0.1 + 127.5·0.9/128)
        QCOMPARE(s[128], 0.55e-6f);             // 10^−6 · (0.1 + 1)/2
        QCOMPARE(s[254], 0.99296875f);
        QCOMPARE(s[191], 0.10703125f);          // 0.1 + 0.5·0.9/64, first of the top decade
        QCOMPARE(s[190], 0.09859375f);          // 0.1 · (0.1 + 31.5·0.9/32)
        for (int i = 0; i < 7; ++i) {
            const double lo = 0.1 * std::pow(10.0, i - 6), hi = std::pow(10.0, i - 6);
            const auto count = std::count_if(s.begin(), s.end(), [&](float v) { return v > lo && v < hi; });
            QCOMPARE(std::size_t(count), std::size_t(1) << i);
        }
        // Unsigned: twice as many values per decade, no negatives.
        const QuantMap& u = dynamicMapUnsigned();
        QVERIFY(std::is_sorted(u.begin(), u.end()));
        QVERIFY(std::adjacent_find(u.begin(), u.end()) == u.end());
        QCOMPARE(u[0], 0.0f);
        QCOMPARE(u[255], 1.0f);
        QCOMPARE(u[1], 0.325e-6f); // 10^−6 · (0.1 + 0.5·0.9/2)
        QCOMPARE(u[254], 0.99648438f); // 0.1 + 127.5·0.9/128
        QVERIFY(std::fabs(worstScaledError(u) - 0.9 / 128.0 / 2.0) < 1e-8); // top decade gap 0.9/128, halved
        QCOMPARE(createDynamicMap(true), s);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, createDynamicMap(true, 8, 8));
    }

    void nearestCodeMatchesBruteForce()
    {
        std::mt19937 engine(seedFor("nearest code"));
        std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
        const QuantMap& map = dynamicMapSigned();
        for (int trial = 0; trial < 20000; ++trial) {
            // Half the draws near zero, where the map is dense.
            float x = uniform(engine);
            if (trial % 2)
                x *= 1e-4f;
            std::size_t best = 0;
            for (std::size_t i = 1; i < map.size(); ++i) {
                if (std::fabs(map[i] - x) < std::fabs(map[best] - x))
                    best = i; // first minimum: ties go to the lower code
            }
            const std::uint8_t code = nearestCode(map, x);
            // The boundaries are fp32 midpoints, as in bnb, which can sit half an
            // ulp off the exact midpoint: within an ulp of a tie either code will do.
            const double slack = std::ldexp(std::fabs(double(x)), -23);
            QVERIFY2(code == best
                         || std::fabs(double(map[code]) - x) <= std::fabs(double(map[best]) - x) + slack,
                     qPrintable(QString::number(double(x), 'g', 9)));
        }
    }

    void blockwiseStateErrorIsBounded()
    {
        // 8-bit optimizer states in blocks of 256 (bnb default): a first moment
        // (signed, mixed magnitudes) and a second moment (positive, squared
        // gradients). Bound per value: absmax of its block · w(map) (top of the file).
        const std::size_t n = 256 * 9 + 77;
        std::vector<float> m = normals(seedFor("8-bit states m"), n, 1e-3);
        std::vector<float> v(n);
        const std::vector<float> g = normals(seedFor("8-bit states g"), n, 1e-2);
        for (std::size_t i = 0; i < n; ++i) {
            v[i] = g[i] * g[i];
            if (i % 97 == 0) { // a few large values set some blocks' absmax
                m[i] *= 50.0f;
                v[i] *= 50.0f;
            }
        }
        for (const auto& [values, map, name] :
             {std::tuple{&m, &dynamicMapSigned(), "signed"}, std::tuple{&v, &dynamicMapUnsigned(), "unsigned"}}) {
            const std::size_t blocks = (n + kStateBlockSize - 1) / kStateBlockSize;
            std::vector<std::uint8_t> codes(n);
            std::vector<float> absmax(blocks);
            quantizeBlockwise(codes.data(), absmax.data(), values->data(), n, *map);
            std::vector<float> back(n);
            dequantizeBlockwise(back.data(), codes.data(), absmax.data(), n, *map);
            const double w = worstScaledError(*map);
            for (std::size_t i = 0; i < n; ++i) {
                const double a = absmax[i / kStateBlockSize];
                const double error = std::fabs(double((*values)[i]) - double(back[i]));
                QVERIFY2(error <= a * (w + kRoundingAllowance), qPrintable(QString::fromLatin1(name)));
            }
        }
        // An all-zero block stays zero (absmax 0).
        std::vector<float> zeros(300, 0.0f), back(300, 1.0f);
        std::vector<std::uint8_t> codes(300);
        std::vector<float> absmax(2);
        quantizeBlockwise(codes.data(), absmax.data(), zeros.data(), 300, dynamicMapSigned());
        dequantizeBlockwise(back.data(), codes.data(), absmax.data(), 300, dynamicMapSigned());
        QCOMPARE(back, zeros);
    }
};

QTEST_APPLESS_MAIN(TestRuntimeQuant)
#include "test_runtime_quant.moc"
