// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli suggest [scenario options] [--json]
// "Make it fit": the engine's cheapest changes that make the scenario fit
// its GPU (engine/plan/makeitfit.h), ranked by estimated speed cost.
#include "commands.h"

#include "format.h"
#include "options.h"
#include "overrides.h"

#include "plan/makeitfit.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

namespace {

std::string percent(double cost)
{
    char text[16];
    std::snprintf(text, sizeof text, "%+.0f%%", cost * 100);
    return text;
}

nlohmann::json toJson(const MakeItFitResult& r)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const FitSuggestion& s : r.suggestions) {
        nlohmann::json changes = nlohmann::json::array();
        for (const FitChange& c : s.changes)
            changes.push_back({{"id", techniqueName(c.technique)},
                               {"value", c.value},
                               {"label", c.label},
                               {"reason", c.reason},
                               {"speed_cost", c.speedCost},
                               {"kind", changeKindName(c.kind)}});
        rows.push_back({{"label", s.label},
                        {"changes", changes},
                        {"device_used_bytes", s.deviceUsedBytes},
                        {"peak_allocated_bytes", s.peakAllocatedBytes},
                        {"margin_bytes", s.marginBytes},
                        {"speed_cost", s.speedCost},
                        {"kind", changeKindName(s.kind)}});
    }
    return {{"already_fits", r.alreadyFits},
            {"device_used_bytes", r.baseDeviceUsedBytes},
            {"margin_bytes", r.baseMarginBytes},
            {"capacity_bytes", r.capacityBytes},
            {"plans_evaluated", r.plansEvaluated},
            {"suggestions", rows}};
}

} // namespace

int runSuggest(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("suggest", args);
    if (o && !o->positional().empty())
        return fail(makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'"));
    if (!o)
        return fail(o.error());
    Scenario base;
    auto scenario = scenarioFromOptions(o.value(), &base);
    if (!scenario)
        return fail(scenario.error());
    auto result = makeItFit(scenario.value());
    if (!result)
        return fail(result.error());
    if (o->has("json")) {
        std::cout << toJson(result.value()).dump(2) << "\n";
        return 0;
    }
    const MakeItFitResult& r = result.value();
    std::cout << "Make it fit: " << scenario->model.id << " on " << scenario->hardware.gpu << "\n"
              << scenarioSummary(scenario.value()) << "\n"
              << originText(scenarioOrigin(o.value(), base, scenario.value()));
    if (r.alreadyFits) {
        std::cout << "It already fits (" << gib(static_cast<double>(r.baseMarginBytes)) << " to spare): nothing to change.\n";
        return 0;
    }
    std::cout << "Device used " << gib(static_cast<double>(r.baseDeviceUsedBytes)) << ", out of memory by "
              << gib(static_cast<double>(-r.baseMarginBytes)) << ".\n";
    if (r.suggestions.empty()) {
        std::cout << "No combination of up to three changes makes it fit (" << r.plansEvaluated
                  << " plans): a larger GPU, more GPUs or a smaller model.\n";
        return 0;
    }
    std::cout << "Cheapest changes that fit (estimated step time, device used, margin):\n";
    for (const FitSuggestion& s : r.suggestions) {
        std::cout << "  " << percent(s.speedCost) << "  " << gib(static_cast<double>(s.deviceUsedBytes)) << "  +"
                  << gib(static_cast<double>(s.marginBytes)) << "  " << s.label
                  << (s.kind == ChangeKind::Task ? "  [changes the task]" : s.kind == ChangeKind::Method ? "  [changes the method]" : "")
                  << "\n";
        for (const FitChange& c : s.changes)
            std::cout << "        " << c.reason << "\n";
    }
    return 0;
}

} // namespace headroom::cli
