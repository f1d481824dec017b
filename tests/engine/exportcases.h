// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Shared by the exporter tests: the three scenarios they export, the
// exported text, and the verdict line a plan prints.
#include "io/exporters.h"
#include "plan/defaultscenario.h"
#include "plan/planner.h"

#include <QtCore/QString>
#include <QtTest/QtTest>

#include <string>

namespace headroom::testing {

// The three scenarios the brief names: the teaching scenario (QLoRA on one
// RTX 4090), a ZeRO-3 full fine-tune and an FSDP one on 8 H100s.
enum Case { Teaching = 0, Zero3 = 1, Fsdp = 2 };

inline Scenario scenarioFor(int which)
{
    Scenario s = teachingScenario().value();
    if (which == Teaching)
        return s;
    TrainConfig& t = s.train;
    t.peft.method = PeftMethod::None;
    t.peft.targets.clear();
    t.weightQuant = WeightQuant::None;
    t.optimizer = Optimizer::AdamW;
    t.microBatch = which == Zero3 ? 4 : 1;
    t.gradAccum = which == Zero3 ? 2 : 16;
    s.hardware.gpu = "h100-sxm-80gb";
    s.hardware.count = 8;
    s.hardware.sharding = which == Zero3 ? Sharding::Zero3 : Sharding::Fsdp;
    s.hardware.cpuOffload = which == Fsdp;
    return s;
}

inline const char* caseName(int which) { return which == Teaching ? "teaching" : which == Zero3 ? "zero3" : "fsdp"; }

inline void addCases()
{
    QTest::addColumn<int>("which");
    for (int which : {Teaching, Zero3, Fsdp})
        QTest::newRow(caseName(which)) << which;
}

// The exported text, or the error's detail with a marker for QVERIFY2.
struct Exported {
    bool ok = false;
    std::string text;
};

inline Exported exportAs(const Scenario& s, const Plan& plan, ExportFormat format)
{
    auto r = exportPlan(s, plan, format);
    if (!r)
        return {false, std::string(errorCodeName(r.error().code)) + ": " + r.error().detail};
    return {true, r.value()};
}

inline bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// "15.61" for bytes, as QString::number writes it: always the C locale.
inline std::string gib(double bytes) { return QString::number(bytes / (1024.0 * 1024.0 * 1024.0), 'f', 2).toStdString(); }

inline std::string expectedVerdict(const Plan& plan)
{
    const double margin = static_cast<double>(plan.marginBytes);
    return plan.fits ? "fits, " + gib(margin) + " GiB to spare" : "out of memory by " + gib(-margin) + " GiB";
}

} // namespace headroom::testing
