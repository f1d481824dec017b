// SPDX-License-Identifier: GPL-3.0-or-later
// Validation of a model too large for the backend: the same configuration
// runs with fewer layers, twice, and is extrapolated per layer
// (runtime/extrapolation.h). The step program's memory is affine in the
// layer count for each event kind, so the extrapolated peak and categories
// must equal the full model's plan to the byte; the full model itself is
// also run here (it is small) to check the extrapolated step against it.
#include "runtime/validate.h"
#include "runtime/runtime_testmodels.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::Scenario)

namespace {

Scenario sixLayers()
{
    Scenario s = testing::tinyScenario(6);
    s.train.seqLen = 12;
    return s;
}

// A CPU backend that says it holds less than the scenario needs.
class SmallBackend : public rt::Backend {
public:
    explicit SmallBackend(Bytes capacity) : m_capacity(capacity), m_cpu(rt::makeCpuBackend()) {}
    std::string name() const override { return "small-device"; }
    std::string device() const override { return m_cpu->device(); }
    std::string unsupported(const Scenario& s) const override { return m_cpu->unsupported(s); }
    rt::Measurement run(const Scenario& s, const rt::RunOptions& o) override
    {
        layersRun.push_back(s.model.layers);
        return m_cpu->run(s, o);
    }
    Bytes capacityBytes() const override { return m_capacity; }
    std::vector<std::uint64_t> layersRun;

private:
    Bytes m_capacity;
    std::unique_ptr<rt::Backend> m_cpu;
};

} // namespace

class TestRuntimeExtrapolation : public QObject {
    Q_OBJECT

private slots:
    void extrapolatedPeakEqualsThePlan_data()
    {
        QTest::addColumn<Scenario>("scenario");
        QTest::newRow("llama fp32 eager adamw") << sixLayers();
        Scenario s = sixLayers();
        s.train.precision = Precision::Bf16Mixed;
        s.train.attention = Attention::Sdpa;
        s.train.checkpointing = Checkpointing::Full;
        QTest::newRow("llama bf16 mixed fused checkpointed") << s;
        s = sixLayers();
        s.train.gradAccum = 2;
        s.train.chunkedCrossEntropy = true;
        s.train.lossChunks = 3;
        s.train.optimizer = Optimizer::Lion;
        QTest::newRow("llama accumulation chunked loss lion") << s;
        s = sixLayers();
        s.train.peft.method = PeftMethod::Lora;
        s.train.peft.rank = 4;
        s.train.peft.alpha = 8;
        s.train.peft.targets = {"all-linear"};
        QTest::newRow("llama lora") << s;
        s = sixLayers();
        s.model = testing::tinyGpt2(6);
        s.train.optimizer = Optimizer::Lomo;
        QTest::newRow("gpt2 lomo") << s;
    }

    void extrapolatedPeakEqualsThePlan()
    {
        QFETCH(Scenario, scenario);
        rt::RunOptions options;
        options.steps = 2;
        options.maxLayers = 4;
        auto backend = rt::makeCpuBackend();
        auto r = rt::runValidation(scenario, *backend, options);
        QVERIFY2(r.ok(), r ? "" : r.error().detail.c_str());
        QVERIFY(r->extrapolation.used);
        QCOMPARE(r->extrapolation.smallLayers, std::uint64_t(2));
        QCOMPARE(r->extrapolation.largeLayers, std::uint64_t(4));
        QCOMPARE(r->extrapolation.fullLayers, std::uint64_t(6));
        QCOMPARE(r->measured.status, std::string("ok"));
        // The full plan (6 layers) against the measured 2- and 4-layer runs, extrapolated.
        QCOMPARE(r->measured.peakBytes, r->plan.peakBytes);
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            QCOMPARE(r->measured.peakCategories[c], r->plan.breakdown[c]);
        QVERIFY(rt::planMeasurementDifferences(r->plan, r->measured).empty());
        // And against the real 6-layer run.
        auto full = rt::runValidation(scenario, *backend, [] {
            rt::RunOptions o;
            o.steps = 2;
            return o;
        }());
        QVERIFY(full.ok() && !full->extrapolation.used);
        QCOMPARE(r->measured.peakBytes, full->measured.peakBytes);
        // Said so, in the JSON and the table.
        const nlohmann::json j = rt::validationJson(r.value());
        QCOMPARE(j.at("extrapolated").get<bool>(), true);
        QCOMPARE(j.at("extrapolation").at("runs").size(), std::size_t(2));
        QVERIFY(rt::validationTable(r.value()).find("extrapolated per layer from runs with 2 and 4 of 6 layers") !=
                std::string::npos);
    }

    void aBackendTooSmallForTheModelRunsFewerLayers()
    {
        const Scenario s = sixLayers();
        auto plan = rt::headroomPlan(s);
        QVERIFY(plan.ok());
        SmallBackend backend(plan->peakBytes - 1); // one byte short of the full model
        rt::RunOptions options;
        options.steps = 1;
        auto r = rt::runValidation(s, backend, options);
        QVERIFY2(r.ok(), r ? "" : r.error().detail.c_str());
        QVERIFY(r->extrapolation.used);
        // The most layers that fit (5), then half of that.
        QCOMPARE(backend.layersRun, (std::vector<std::uint64_t>{2, 5}));
        QCOMPARE(r->measured.peakBytes, r->plan.peakBytes);
        QVERIFY(r->extrapolation.reason.find("more than the small-device backend holds") != std::string::npos);
    }

    void aModelThatFitsIsNotExtrapolated()
    {
        const Scenario s = sixLayers();
        SmallBackend backend(0);
        auto r = rt::runValidation(s, backend, {});
        QVERIFY(r.ok());
        QVERIFY(!r->extrapolation.used);
        QCOMPARE(backend.layersRun, (std::vector<std::uint64_t>{6}));
        QCOMPARE(rt::validationJson(r.value()).at("extrapolated").get<bool>(), false);
    }

    void theCpuBackendExtrapolatesFromTwoLayers()
    {
        // Over the CPU backend's limit by its layer count alone (200 narrow
        // layers at 1024 tokens, eager attention): validated on 1 and 2 layers
        // and extrapolated, within seconds, and the result says so. Exact, as
        // for a device: the peak and categories equal the 400-layer plan.
        Scenario s = testing::tinyScenario(200);
        s.model = testing::tinyLlama(200, 32, 4, 4, 64, 64);
        s.train.seqLen = 1024;
        s.train.microBatch = 2;
        s.train.attention = Attention::Eager;
        auto full = rt::headroomPlan(s);
        QVERIFY(full.ok());
        QVERIFY(full->peakBytes > rt::kCpuBackendByteLimit);
        auto backend = rt::makeCpuBackend();
        rt::RunOptions options;
        options.steps = 1;
        auto r = rt::runValidation(s, *backend, options);
        QVERIFY2(r.ok(), r.ok() ? "" : r.error().detail.c_str());
        QVERIFY(r->extrapolation.used);
        QCOMPARE(r->extrapolation.smallLayers, std::uint64_t(1));
        QCOMPARE(r->extrapolation.largeLayers, std::uint64_t(2));
        QVERIFY(r->extrapolation.reason.find("more than the cpu backend holds") != std::string::npos);
        QCOMPARE(r->measured.peakBytes, full->peakBytes);
        for (std::size_t c = 0; c < kCategoryCount; ++c)
            QCOMPARE(r->measured.peakCategories[c], full->breakdown[c]);
        QCOMPARE(rt::validationJson(r.value()).at("extrapolated").get<bool>(), true);
    }

    void theCpuBackendRefusesAModelWhoseTwoLayersDoNotFit()
    {
        // A wide model at long sequences: two layers alone are over the limit.
        Scenario s = sixLayers();
        s.model = testing::tinyLlama(4, 1024, 8, 8, 4096, 32000);
        s.train.seqLen = 4096;
        s.train.microBatch = 4;
        Scenario two = s;
        two.model.layers = 2;
        auto twoPlan = rt::headroomPlan(two);
        QVERIFY(twoPlan.ok());
        QVERIFY(twoPlan->peakBytes > rt::kCpuBackendByteLimit);
        auto backend = rt::makeCpuBackend();
        auto r = rt::runValidation(s, *backend, {});
        QVERIFY(!r.ok());
        QVERIFY2(r.error().detail.find("small models only") != std::string::npos, r.error().detail.c_str());
        QVERIFY(r.error().detail.find("two layers of it need") != std::string::npos);
    }

    void everyKCheckpointingIsNotExtrapolated()
    {
        Scenario s = sixLayers();
        s.train.checkpointing = Checkpointing::EveryK;
        s.train.checkpointEvery = 2;
        rt::RunOptions options;
        options.maxLayers = 4;
        auto backend = rt::makeCpuBackend();
        auto r = rt::runValidation(s, *backend, options);
        QVERIFY(!r.ok());
        QVERIFY(r.error().detail.find("every-k checkpointing is not implemented") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestRuntimeExtrapolation)
#include "test_runtime_extrapolation.moc"
