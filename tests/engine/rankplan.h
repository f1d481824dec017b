// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Test helpers for tensor/pipeline-parallel layouts: the layout of a
// scenario, the plan of one of its stages as makePlan makes it before
// choosing the worst, and how a row reaches the allocator.
#include "plan/parallel.h"
#include "plan/planbuild.h"
#include "model/catalog.h"
#include "plan/planner.h"

#include <QtTest>

#include <utility>

namespace headroom::testing {

inline ParallelLayout layoutOrFail(const Scenario& sc)
{
    auto layout = parallelLayout(sc);
    if (!layout)
        qFatal("layout: %s", layout.error().detail.c_str());
    return layout.value();
}

// Mixtral 8x7B fully fine-tuned with AdamW in bf16 mixed precision on 8
// H100s, 4 micro-batches of 1 x 1024 tokens, flash attention: the
// mixture-of-experts layouts' tests set the sharding, checkpointing and
// parallel degrees.
inline Scenario mixtralFullFinetune(Sharding sharding, Checkpointing checkpointing)
{
    Scenario sc;
    sc.model = presetModel("mistralai/Mixtral-8x7B-v0.1").value();
    sc.train.peft.method = PeftMethod::None;
    sc.train.weightQuant = WeightQuant::None;
    sc.train.optimizer = Optimizer::AdamW;
    sc.train.precision = Precision::Bf16Mixed;
    sc.train.microBatch = 1;
    sc.train.seqLen = 1024;
    sc.train.gradAccum = 4;
    sc.train.checkpointing = checkpointing;
    sc.train.attention = Attention::Flash;
    sc.hardware.gpu = "h100-sxm-80gb";
    sc.hardware.count = 8;
    sc.hardware.sharding = sharding;
    return sc;
}

inline Plan stagePlan(const Scenario& sc, std::uint64_t stage)
{
    const ParallelLayout layout = layoutOrFail(sc);
    const ModelSpec model = rankModelSpec(sc.model, layout, stage);
    const ParameterTable table = rankParameterTable(buildParameterTable(sc.model), sc.model, layout, stage);
    const detail::RankShape shape{&layout, stage, &sc.model};
    auto plan = detail::planOneRank(sc, model, table, PlanOptions{}, &shape);
    if (!plan)
        qFatal("plan failed: %s", plan.error().detail.c_str());
    return plan.value();
}

// How many tensors a row reaches the allocator as (TensorRow::pieceBegin),
// and whether they add up to its bytes; {0, false} for a row of one tensor.
inline std::pair<std::uint64_t, bool> rowTensors(const Plan& p, const TensorRow* row)
{
    if (!row || row->pieceEnd <= row->pieceBegin)
        return {0, false};
    std::uint64_t count = 0;
    Bytes sum = 0;
    for (std::uint32_t k = row->pieceBegin; k < row->pieceEnd; ++k) {
        count += p.pieces[k].count;
        sum += p.pieces[k].bytes * p.pieces[k].count;
    }
    return {count, sum == row->bytes};
}

} // namespace headroom::testing
