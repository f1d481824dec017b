// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Test helpers over a plan's tensor table: a plan that must succeed, and a
// row's bytes by name.
#include "plan/planner.h"

#include <QtTest>

#include <cstring>

namespace headroom::testing {

inline Plan planOrFail(const Scenario& sc)
{
    auto plan = makePlan(sc);
    if (!plan)
        qFatal("plan failed: %s", plan.error().detail.c_str());
    return plan.value();
}

inline const TensorRow* findRow(const Plan& p, const char* name)
{
    for (const TensorRow& r : p.tensors)
        if (std::strcmp(r.name, name) == 0)
            return &r;
    return nullptr;
}

// The row named `name` made for the layers of `band` (a model with dense
// layers: planner.cpp's merged table, TensorRow::band).
inline const TensorRow* findBanded(const Plan& p, const char* name, LayerBand band)
{
    for (const TensorRow& r : p.tensors)
        if (std::strcmp(r.name, name) == 0 && r.band == band)
            return &r;
    return nullptr;
}

// The bytes per instance of the row named `name`; 0 when there is none.
inline Bytes rowBytes(const Plan& p, const char* name)
{
    const TensorRow* r = findRow(p, name);
    return r ? r->bytes : 0;
}

// Bytes of one category alive at `phase`: the rows whose lifetime spans it.
inline Bytes categoryBytesAt(const Plan& p, Category category, Phase phase)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.category == category && r.allocAt <= phase && r.freeAt >= phase)
            sum += r.bytes;
    return sum;
}

// What a checkpointed layer holds from its forward to its backward.
inline Bytes heldPerLayer(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == LayerSet::Checkpointed && r.allocAt == Phase::LayerFwd && r.freeAt == Phase::LayerBwd)
            sum += r.bytes;
    return sum;
}

// What a checkpointed layer's recompute makes during its backward.
inline Bytes recomputedPerLayer(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors)
        if (r.layers == LayerSet::Checkpointed && r.allocAt == Phase::LayerBwd && r.freeAt == Phase::LayerBwd)
            sum += r.bytes;
    return sum;
}

// Whether the row named `name` is made by a checkpointed layer's recompute.
inline bool recomputed(const Plan& p, const char* name)
{
    for (const TensorRow& r : p.tensors)
        if (std::strcmp(r.name, name) == 0 && r.layers == LayerSet::Checkpointed && r.allocAt == Phase::LayerBwd)
            return true;
    return false;
}

// Weights, gradients and optimizer state a rank keeps for the run (made at
// load), every layer's counted.
inline Bytes modelStateBytes(const Plan& p)
{
    Bytes sum = 0;
    for (const TensorRow& r : p.tensors) {
        const bool state = r.category == Category::Weights || r.category == Category::Gradients ||
                           r.category == Category::OptimizerState;
        if (state && r.allocAt == Phase::Load)
            sum += r.layers == LayerSet::All ? r.bytes * p.layers : r.bytes;
    }
    return sum;
}

} // namespace headroom::testing
