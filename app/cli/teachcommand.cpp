// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli teach [SET] [--json] [--scenario ID]
// A built-in teaching set (engine/io/teachingset.h): each published
// experiment's measured value beside Headroom's on the same counter, the
// error, and why they differ. --scenario ID prints that experiment's
// headroom.scenario/1 document instead, to open with `plan --scenario`.
#include "commands.h"

#include "format.h"
#include "options.h"

#include "io/scenariofile.h"
#include "io/teachingset.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

namespace {

std::string fixed(double value, const char* format)
{
    char text[32];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

nlohmann::json toJson(const TeachingSet& set, const std::vector<TeachingComparison>& rows)
{
    nlohmann::json experiments = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const TeachingComparison& c = rows[i];
        const TeachingExperiment& e = set.experiments[i];
        experiments.push_back({{"id", c.id},
                               {"title", c.title},
                               {"counter", teachingCounterName(c.counter)},
                               {"unit", "GiB"},
                               {"book_gib", c.bookGiB},
                               {"book_before_gib", e.bookBeforeGiB},
                               {"seed_line", e.seedLine},
                               {"headroom_gib", c.headroomGiB},
                               {"error_gib", c.errorGiB},
                               {"error_percent", c.errorPercent},
                               {"explanation", c.explanation},
                               {"plan_notes", c.planNotes},
                               {"scenario", scenarioToJson(e.scenario)}});
    }
    return {{"set", set.id},      {"title", set.title},        {"source", set.source}, {"notebook", set.notebook},
            {"setup", set.setup}, {"experiments", experiments}};
}

void printTable(const TeachingSet& set, const std::vector<TeachingComparison>& rows)
{
    std::cout << set.title << "\n" << set.source << "\nCode: " << set.notebook << "\n\n";
    for (const std::string& line : set.setup)
        std::cout << "  - " << line << "\n";
    std::cout << "\n";
    std::printf("%-22s %-21s %9s %9s %9s %8s\n", "experiment", "counter", "book", "Headroom", "error", "error");
    for (const TeachingComparison& c : rows)
        std::printf("%-22s %-21s %9s %9s %9s %8s\n", c.id.c_str(), teachingCounterName(c.counter),
                    fixed(c.bookGiB, "%.3f").c_str(), fixed(c.headroomGiB, "%.3f").c_str(),
                    fixed(c.errorGiB, "%+.3f").c_str(), fixed(c.errorPercent, "%+.1f%%").c_str());
    std::cout << "(GiB: the book prints memory_allocated() / 1024**3 and labels it \"GB\")\n\nWhy:\n";
    for (const TeachingComparison& c : rows)
        std::cout << "  " << c.id << ": " << c.explanation << "\n";
    std::cout.flush();
}

} // namespace

int runTeach(const std::vector<std::string>& args)
{
    auto options = Options::parseFor("teach", args);
    if (!options)
        return fail(options.error());
    const auto& positional = options->positional();
    if (positional.size() > 1)
        return fail(makeError(ErrorCode::InvalidArgument, "teach takes one set name (known: seed-book)"));
    const std::string id = positional.empty() ? std::string("seed-book") : positional[0];
    auto set = builtinTeachingSet(id);
    if (!set)
        return fail(set.error());

    if (options->has("scenario")) {
        const std::string wanted = options->value("scenario");
        for (const TeachingExperiment& e : set->experiments)
            if (e.id == wanted) {
                std::cout << scenarioToText(e.scenario);
                return 0;
            }
        return fail(makeError(ErrorCode::InvalidArgument, "--scenario: no experiment '" + wanted + "' in " + id));
    }

    auto rows = compareTeachingSet(*set);
    if (!rows)
        return fail(rows.error());
    if (options->has("json"))
        std::cout << toJson(*set, *rows).dump(2) << "\n";
    else
        printTable(*set, *rows);
    return 0;
}

} // namespace headroom::cli
