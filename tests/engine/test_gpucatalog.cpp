// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled-in GPU catalog (resources/catalog/gpus.json): every entry
// parses, the capability flags follow the compute-capability rules rather
// than per-card constants, and lookups are exact but case-insensitive.
#include "plan/gpucatalog.h"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <cctype>
#include <set>
#include <string>

namespace headroom::catalogdata {
extern const char* const kGpusJson;
}

using namespace headroom;

namespace {

bool isLowerDashId(const std::string& id)
{
    // "rtx-4090", "h100-sxm-80gb": lowercase alphanumerics joined by single dashes.
    if (id.empty() || id.front() == '-' || id.back() == '-')
        return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const char c = id[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '-' && id[i - 1] != '-');
        if (!ok)
            return false;
    }
    return true;
}

int computeCapability(const GpuSpec& gpu) { return gpu.computeMajor * 10 + gpu.computeMinor; }

} // namespace

class TestGpuCatalog : public QObject {
    Q_OBJECT

private slots:
    void catalogIsLargeEnough()
    {
        QVERIFY2(gpuCatalog().size() >= 20, "the catalog should list at least 20 GPUs");
    }

    void idsAreUniqueAndWellFormed()
    {
        std::set<std::string> ids;
        std::set<std::string> names;
        for (const auto& gpu : gpuCatalog()) {
            QVERIFY2(isLowerDashId(gpu.id), gpu.id.c_str());
            QVERIFY2(ids.insert(gpu.id).second, ("duplicate id " + gpu.id).c_str());
            QVERIFY2(!gpu.name.empty(), gpu.id.c_str());
            QVERIFY2(names.insert(gpu.name).second, ("duplicate name " + gpu.name).c_str());
        }
    }

    void memoryIsPlausible()
    {
        for (const auto& gpu : gpuCatalog()) {
            QVERIFY2(gpu.memoryBytes > 4 * GiB, gpu.id.c_str());
            QVERIFY2(gpu.memoryBytes < 200 * GiB, gpu.id.c_str());
            // Whole MiB: the figures are nvidia-smi's MiB totals.
            QVERIFY2(gpu.memoryBytes % MiB == 0, gpu.id.c_str());
            QVERIFY2(!gpu.memorySource.empty(), gpu.id.c_str());
        }
    }

    void capabilityFlagsFollowComputeCapability()
    {
        // NVIDIA's CUDA GPUs table: bf16 arithmetic from sm_80 (Ampere), fp8
        // tensor cores from sm_89 (Ada) on. A rule, not a per-card list.
        for (const auto& gpu : gpuCatalog()) {
            const int cc = computeCapability(gpu);
            QVERIFY2(gpu.computeMajor >= 7 && gpu.computeMinor >= 0 && gpu.computeMinor <= 9, gpu.id.c_str());
            QVERIFY2(gpu.bf16 == (cc >= 80), gpu.id.c_str());
            QVERIFY2(gpu.fp8 == (cc >= 89), gpu.id.c_str());
            QVERIFY2(!gpu.fp8 || gpu.bf16, gpu.id.c_str());
        }
    }

    void datasheetFiguresAreSane()
    {
        for (const auto& gpu : gpuCatalog()) {
            QVERIFY2(gpu.memoryBandwidthGBs > 100 && gpu.memoryBandwidthGBs < 20000, gpu.id.c_str());
            QVERIFY2(gpu.denseBf16Tflops >= 0 && gpu.denseBf16Tflops < 10000, gpu.id.c_str());
        }
    }

    void cudaTotalsAreBelowTheNvidiaSmiTotal()
    {
        // Where the catalog records what CUDA reports, it is the nvidia-smi
        // total less the driver's reserved framebuffer: smaller, by well under
        // a GiB.
        const auto doc = nlohmann::json::parse(catalogdata::kGpusJson);
        int withCudaTotal = 0;
        for (const auto& entry : doc.at("gpus")) {
            if (!entry.contains("cuda_total_mib"))
                continue;
            ++withCudaTotal;
            const auto total = entry.at("memory_mib").get<std::uint64_t>();
            const auto cuda = entry.at("cuda_total_mib").get<std::uint64_t>();
            const std::string id = entry.at("id").get<std::string>();
            QVERIFY2(cuda < total, id.c_str());
            QVERIFY2(total - cuda < 1024, id.c_str());
            QVERIFY2(!entry.value("cuda_total_source", std::string()).empty(), id.c_str());
        }
        QVERIFY(withCudaTotal > 0);
    }

    void requiredGpusArePresent()
    {
        for (const char* id : {"t4", "v100-16gb", "v100-32gb", "rtx-2080-ti", "rtx-3060-12gb", "rtx-3080-10gb",
                               "rtx-3090", "rtx-4060-ti-16gb", "rtx-4070", "rtx-4080", "rtx-4090", "rtx-5090", "a10g",
                               "a10", "l4", "l40s", "rtx-a6000", "rtx-6000-ada", "a100-40gb", "a100-80gb",
                               "h100-pcie-80gb", "h100-sxm-80gb", "h100-nvl-94gb", "h200", "b200"})
            QVERIFY2(findGpu(id).ok(), id);
    }

    void knownDriverTotals_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<quint64>("mib");
        // nvidia-smi memory.total figures, each sourced in gpus.json.
        QTest::newRow("rtx-4090") << QStringLiteral("rtx-4090") << quint64(24564);
        QTest::newRow("a10g") << QStringLiteral("a10g") << quint64(23028);
        QTest::newRow("l4") << QStringLiteral("l4") << quint64(23034);
        QTest::newRow("t4") << QStringLiteral("t4") << quint64(15360);
        QTest::newRow("h100-sxm-80gb") << QStringLiteral("h100-sxm-80gb") << quint64(81559);
        QTest::newRow("a100-80gb") << QStringLiteral("a100-80gb") << quint64(81920);
        QTest::newRow("h200") << QStringLiteral("h200") << quint64(143771);
    }

    void knownDriverTotals()
    {
        QFETCH(QString, id);
        QFETCH(quint64, mib);
        const auto gpu = findGpu(id.toStdString());
        QVERIFY(gpu.ok());
        QCOMPARE(quint64(gpu->memoryBytes), mib * MiB);
    }

    void lookupParsesComputeCapability()
    {
        const auto ada = findGpu("rtx-4090");
        QVERIFY(ada.ok());
        QCOMPARE(ada->computeMajor, 8);
        QCOMPARE(ada->computeMinor, 9);
        QVERIFY(ada->bf16 && ada->fp8);
        QCOMPARE(ada->denseBf16Tflops, 165.2);

        const auto turing = findGpu("t4");
        QVERIFY(turing.ok());
        QCOMPARE(turing->computeMajor, 7);
        QCOMPARE(turing->computeMinor, 5);
        QVERIFY(!turing->bf16 && !turing->fp8);

        const auto blackwell = findGpu("rtx-5090");
        QVERIFY(blackwell.ok());
        QCOMPARE(blackwell->computeMajor, 12);  // two-digit major
        QCOMPARE(blackwell->computeMinor, 0);
    }

    void lookupIsCaseInsensitiveButExact()
    {
        const auto upper = findGpu("H100-SXM-80GB");
        QVERIFY(upper.ok());
        QCOMPARE(upper->id, std::string("h100-sxm-80gb"));
        QVERIFY(findGpu("Rtx-4090").ok());
        // Exact: no trimming, no prefix matching, no fuzzy names.
        QVERIFY(!findGpu(" rtx-4090").ok());
        QVERIFY(!findGpu("rtx-409").ok());
        QVERIFY(!findGpu("4090").ok());
        QVERIFY(!findGpu("").ok());
    }

    void unknownIdNamesTheId()
    {
        const auto missing = findGpu("rtx-9090");
        QVERIFY(!missing.ok());
        QCOMPARE(missing.error().code, ErrorCode::UnknownGpu);
        QVERIFY(missing.error().detail.find("rtx-9090") != std::string::npos);
        // ... and lists what would have been accepted.
        QVERIFY(missing.error().detail.find("rtx-4090") != std::string::npos);
    }

    void catalogIsParsedOnce()
    {
        QCOMPARE(&gpuCatalog(), &gpuCatalog());
    }
};

QTEST_APPLESS_MAIN(TestGpuCatalog)
#include "test_gpucatalog.moc"
