// SPDX-License-Identifier: GPL-3.0-or-later
// Per-row lifetimes (the GUI's Explain panel): summing bytes x live instances
// over the rows must give the plan's timeline at every event.
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"
#include "plan/tensorlifetime.h"

#include <QtTest>

using namespace headroom;

namespace {

Scenario scenarioFor(const char* preset, Mode mode, Checkpointing checkpointing, std::uint64_t every)
{
    Scenario s;
    s.model = presetModel(preset).value();
    s.mode = mode;
    s.train.checkpointing = checkpointing;
    s.train.checkpointEvery = every;
    s.hardware.gpu = "h100-sxm-80gb";
    return s;
}

} // namespace

class TestTensorLifetime : public QObject {
    Q_OBJECT

private slots:
    void rowsSumToTheTimeline_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("teaching QLoRA") << 0;
        QTest::newRow("gpt2 every 3rd layer checkpointed") << 1;
        QTest::newRow("llama 1B no checkpointing") << 2;
        QTest::newRow("qwen inference") << 3;
        QTest::newRow("llama 1B pure bf16, every 2nd layer checkpointed (a scripted forward)") << 4;
    }

    void rowsSumToTheTimeline()
    {
        QFETCH(int, which);
        Scenario s;
        switch (which) {
        case 0: s = teachingScenario().value(); break;
        case 1: s = scenarioFor("gpt2", Mode::Train, Checkpointing::EveryK, 3); break;
        case 2: s = scenarioFor("meta-llama/Llama-3.2-1B", Mode::Train, Checkpointing::None, 1); break;
        case 4:
            s = scenarioFor("meta-llama/Llama-3.2-1B", Mode::Train, Checkpointing::EveryK, 2);
            s.train.precision = Precision::Bf16;
            break;
        default: s = scenarioFor("Qwen/Qwen2.5-0.5B", Mode::Inference, Checkpointing::None, 1); break;
        }
        const auto plan = makePlan(s);
        QVERIFY(plan.ok());
        const Plan& p = plan.value();
        QCOMPARE(planMode(p), s.mode);
        for (std::size_t e = 0; e < p.events.size(); ++e) {
            CategoryBytes sum{};
            for (const TensorRow& row : p.tensors) {
                QVERIFY(rowInstancesLiveAt(p, row, e) <= rowInstances(p, row));
                sum[static_cast<std::size_t>(row.category)] += rowBytesLiveAt(p, row, e);
            }
            QVERIFY2(sum == p.timeline[e], qPrintable(QString::fromStdString(eventLabel(p.events[e]))));
        }
    }

    void instancesFollowTheLayerSets()
    {
        const Plan p = makePlan(scenarioFor("gpt2", Mode::Train, Checkpointing::EveryK, 5)).value();
        QCOMPARE(p.layers, 12u);
        TensorRow row{"x", "", Category::Activations, 1, Phase::LayerFwd, Phase::LayerBwd, LayerSet::Global};
        QCOMPARE(rowInstances(p, row), 1u);
        row.layers = LayerSet::All;
        QCOMPARE(rowInstances(p, row), 12u);
        row.layers = LayerSet::Checkpointed;  // layers 0, 5, 10
        QCOMPARE(rowInstances(p, row), 3u);
        row.layers = LayerSet::Plain;
        QCOMPARE(rowInstances(p, row), 9u);
        QCOMPARE(rowInstancesLiveAt(p, row, p.events.size()), 0u);
    }
};

QTEST_GUILESS_MAIN(TestTensorLifetime)
#include "test_tensorlifetime.moc"
