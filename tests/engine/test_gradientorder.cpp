// SPDX-License-Identifier: GPL-3.0-or-later
// When a layer's gradients exist. PyTorch recomputes a checkpointed layer
// before its backward makes any of the layer's gradients, so they are counted
// from the event after its backward (RuntimeProfile::gradientsAfterRecompute,
// TensorRow::madeAtEventEnd); a kept layer's, and Headroom's own engine's,
// from its backward. The reference cases this fixed (llama4-text-tiny and
// deepseek-v3-tiny checkpointed, tests/reference) are checked by
// test_reference; here, the bookkeeping.
#include "model/catalog.h"
#include "plan/planner.h"
#include "plan/sweep.h"
#include "plan/tensorlifetime.h"

#include "planrows.h"

#include <QtTest>

using namespace headroom;
using headroom::testing::planOrFail;

namespace {

Scenario llama(Checkpointing checkpointing, std::uint64_t every = 1)
{
    Scenario s;
    s.model = presetModel("meta-llama/Llama-3.2-1B").value();
    s.train.precision = Precision::Bf16Mixed;
    s.train.microBatch = 1;
    s.train.seqLen = 1024;
    s.train.checkpointing = checkpointing;
    s.train.checkpointEvery = every;
    s.hardware.gpu = "h100-sxm-80gb";
    return s;
}

Bytes gradientsAt(const Plan& p, Phase phase, std::int64_t layer)
{
    return p.timeline[eventIndex(Mode::Train, phase, layer, p.layers)][static_cast<std::size_t>(Category::Gradients)];
}

// The bytes of one layer's gradients: every grads.layer row is the same tensors.
Bytes layerGradients(const Plan& p)
{
    Bytes bytes = 0;
    for (const TensorRow& r : p.tensors)
        if (std::strcmp(r.name, "grads.layer") == 0) {
            if (bytes != 0 && r.bytes != bytes)
                qFatal("grads.layer rows differ");
            bytes = r.bytes;
        }
    return bytes;
}

} // namespace

class TestGradientOrder : public QObject {
    Q_OBJECT

private slots:
    // Llama 3.2 1B: 16 layers of 60,821,504 parameters (transformers'
    // num_parameters over a layer), fp32 gradients under bf16 mixed.
    void aCheckpointedLayersGradientsFollowItsBackward()
    {
        const Plan p = planOrFail(llama(Checkpointing::Full));
        const auto L = static_cast<std::int64_t>(p.layers);
        const Bytes g = layerGradients(p);
        QCOMPARE(g, Bytes(60'821'504) * 4);
        const Bytes head = gradientsAt(p, Phase::HeadBwd, -1);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, L - 1), head);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, L - 2), head + g);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 0), head + Bytes(L - 1) * g);
        // Layer 0's come with the embedding's backward.
        QVERIFY(gradientsAt(p, Phase::EmbedBwd, -1) >= head + Bytes(L) * g);
    }

    void aKeptLayersGradientsComeWithItsBackward()
    {
        const Plan p = planOrFail(llama(Checkpointing::None));
        const auto L = static_cast<std::int64_t>(p.layers);
        const Bytes g = layerGradients(p);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, L - 1), gradientsAt(p, Phase::HeadBwd, -1) + g);
        for (const TensorRow& r : p.tensors)
            QVERIFY(!r.madeAtEventEnd);
    }

    // Every second layer checkpointed (l % 2 == 0): layer 15 is kept, 14 is not.
    void everyOtherLayerMixesBoth()
    {
        const Plan p = planOrFail(llama(Checkpointing::EveryK, 2));
        const Bytes g = layerGradients(p);
        const Bytes head = gradientsAt(p, Phase::HeadBwd, -1);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 15), head + g);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 14), head + g);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 13), head + 3 * g);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 12), head + 3 * g);
        // The sweep's strided difference arrays against the brute force, and
        // the Explain panel's per-row lifetimes against the timeline.
        const auto reference = referenceTimeline(p, Mode::Train);
        for (std::size_t e = 0; e < p.events.size(); ++e) {
            QVERIFY(p.timeline[e] == reference[e]);
            Bytes gradients = 0;
            for (const TensorRow& r : p.tensors)
                if (r.category == Category::Gradients)
                    gradients += rowBytesLiveAt(p, r, e);
            QCOMPARE(gradients, p.timeline[e][static_cast<std::size_t>(Category::Gradients)]);
        }
    }

    // Headroom's engine makes a layer's gradients when its backward starts
    // (runtime/step/trainer.cpp), recomputed or not.
    void headroomsEngineMakesThemFirst()
    {
        Scenario s = llama(Checkpointing::Full);
        s.profile = Profile::Headroom;
        const Plan p = planOrFail(s);
        const auto L = static_cast<std::int64_t>(p.layers);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, L - 1), gradientsAt(p, Phase::HeadBwd, -1) + layerGradients(p));
    }

    // Accumulated gradients live from the step's first micro-batch on: the
    // table's micro-batch has every layer's resident, and no layer's
    // backward adds any.
    void accumulatedGradientsAreResident()
    {
        Scenario s = llama(Checkpointing::Full);
        s.train.gradAccum = 4;
        const Plan p = planOrFail(s);
        const auto L = static_cast<std::int64_t>(p.layers);
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, L - 1), gradientsAt(p, Phase::HeadBwd, -1));
        QCOMPARE(gradientsAt(p, Phase::LayerBwd, 0), gradientsAt(p, Phase::HeadBwd, -1));
        QVERIFY(gradientsAt(p, Phase::Load, -1) >= Bytes(L) * layerGradients(p));
        for (const TensorRow& r : p.tensors)
            QVERIFY(!r.madeAtEventEnd);
    }
};

QTEST_APPLESS_MAIN(TestGradientOrder)
#include "test_gradientorder.moc"
