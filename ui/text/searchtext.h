// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The Search tab's sentences (engine/plan/layoutsearch.h put into words):
// a layout in one line, why the best beats the runner-up (from the
// engine's compareLayouts), the search's counts and its stated assumptions.
// Every number is an engine field; this file only formats and translates.
#include "plan/layoutsearch.h"

#include <QCoreApplication>
#include <QString>

class SearchText {
    Q_DECLARE_TR_FUNCTIONS(SearchText)

public:
    // "812.4 ms", "1.23 s".
    static QString seconds(double seconds);
    // "41.2 %": a fraction as a percentage.
    static QString percent(double fraction, int decimals = 1);
    // "ZeRO-1", "DDP"; "–" for none (one data-parallel replica: nothing to shard).
    static QString shortSharding(headroom::Sharding sharding);
    // "off", "every layer", "selective (ops)"; DisplayNames has the longer form.
    static QString shortCheckpointing(headroom::Checkpointing checkpointing);
    static QString stepTerm(headroom::StepTerm term);
    // "tp 2 (SP) × pp 1 × dp 8, ZeRO-1, micro-batch 2 × 4, checkpointing off".
    static QString layout(const headroom::LayoutCandidate& layout);
    // Why #1 comes before #2: what differs between them, by how much #1's
    // step is shorter and the term that makes the difference.
    static QString whyBest(const headroom::LayoutCandidate& best, const headroom::LayoutCandidate& runnerUp);
    // The settings in which two layouts differ: "micro-batch 4 against 2, ...".
    static QString differences(const headroom::LayoutCandidate& first, const headroom::LayoutCandidate& second);
    // "Evaluated: 402 layouts · refused by the planner: 0 · ...".
    static QString counts(const headroom::LayoutSearchResult& result);
    // GPUs per node, the fraction of the peak, no overlap, the links.
    static QString assumptions(const headroom::LayoutSearchResult& result);
    // Where the link speeds come from (the engine's citation).
    static QString linkSource(const headroom::LayoutSearchResult& result);
    // The line above the table: what was searched, or why nothing is listed.
    static QString headline(const headroom::LayoutSearchResult& result, std::uint64_t seqLen);
    // The planner's most frequent refusal, translated where ErrorText knows it.
    static QString commonRefusal(const headroom::LayoutSearchResult& result);
};
