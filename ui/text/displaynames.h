// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every engine enum as a translated, human name. The engine's own names
// (precisionName()...) are stable identifiers for files and the CLI; these
// are what a user reads.
#include "plan/plan.h"
#include "plan/scenario.h"
#include "plan/techniques.h"

#include <QCoreApplication>
#include <QString>

class DisplayNames {
    Q_DECLARE_TR_FUNCTIONS(DisplayNames)

public:
    static QString category(headroom::Category category);
    // One sentence: what the category holds and why it is on the GPU.
    static QString categoryDescription(headroom::Category category);

    static QString mode(headroom::Mode mode);
    static QString precision(headroom::Precision precision);
    static QString weightQuant(headroom::WeightQuant quant);
    static QString optimizer(headroom::Optimizer optimizer);
    static QString peftMethod(headroom::PeftMethod method);
    static QString checkpointing(headroom::Checkpointing checkpointing);
    static QString attention(headroom::Attention attention);
    static QString trainingLoop(headroom::TrainingLoop loop);
    static QString useCache(headroom::UseCache useCache);
    static QString modelHead(headroom::ModelHead head);
    static QString sharding(headroom::Sharding sharding);
    static QString profile(headroom::Profile profile);
    static QString profileDescription(headroom::Profile profile);
    static QString kvCacheDtype(headroom::KvCacheDtype dtype);

    static QString phase(headroom::Phase phase);
    // The translated form of headroom::eventLabel(): "forward layer 12".
    static QString event(const headroom::Event& event);
    static QString layerSet(headroom::LayerSet set);

    // A technique-ladder step by id (ladder.h); the engine's label when unknown.
    static QString ladderStep(headroom::TechniqueId id, const std::string& engineLabel);

    // "8.03 B", "124 M": parameter counts.
    static QString parameterCount(double parameters);
};
