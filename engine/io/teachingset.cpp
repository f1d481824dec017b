// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/teachingset.h"

#include "core/nametable.h"
#include "io/scenariofile.h"
#include "plan/planner.h"
#include "plan/sweep.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <utility>

namespace headroom {

namespace catalogdata {
extern const char* const kSeedBookJson; // resources/teaching/seed-book-ch5.json (engine/embedcatalog.cmake)
} // namespace catalogdata

namespace {

using nlohmann::json;

constexpr std::array<std::pair<TeachingCounter, const char*>, 4> kCounterNames{{
    {TeachingCounter::AllocatedAfterLoad, "allocated-after-load"},
    {TeachingCounter::AllocatedAfterStep, "allocated-after-step"},
    {TeachingCounter::OptimizerState, "optimizer-state"},
    {TeachingCounter::Gradients, "gradients"},
}};

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Error fieldError(const std::string& where, const std::string& what)
{
    return makeError(ErrorCode::MissingField, where + ": " + what);
}

// A required string member, or an error naming it.
bool readString(const json& node, const char* key, const std::string& where, std::string& out, Error& error)
{
    const auto it = node.find(key);
    if (it == node.end() || !it->is_string()) {
        error = fieldError(where + "." + key, "must be a string");
        return false;
    }
    out = it->get<std::string>();
    return true;
}

Result<TeachingExperiment> experimentFromJson(const json& node, const std::string& where)
{
    if (!node.is_object())
        return fieldError(where, "must be an object");
    TeachingExperiment e;
    Error error{ErrorCode::MissingField, {}};
    std::string counter;
    if (!readString(node, "id", where, e.id, error) || !readString(node, "title", where, e.title, error) ||
        !readString(node, "counter", where, counter, error) || !readString(node, "note", where, e.note, error))
        return error;
    if (!parseTeachingCounter(counter, e.counter))
        return makeError(ErrorCode::InvalidArgument, where + ".counter: unknown counter '" + counter + "'");
    const auto book = node.find("book_gib");
    if (book == node.end() || !book->is_number() || book->get<double>() < 0)
        return fieldError(where + ".book_gib", "must be a number of GiB, zero or more");
    e.bookGiB = book->get<double>();
    const auto line = node.find("seed_line");
    if (line == node.end() || !line->is_number_integer() || line->get<int>() < 1)
        return fieldError(where + ".seed_line", "must be the source line the value is printed on");
    e.seedLine = line->get<int>();
    if (const auto before = node.find("book_before_gib"); before != node.end()) {
        if (!before->is_number() || before->get<double>() < 0)
            return fieldError(where + ".book_before_gib", "must be a number of GiB, zero or more");
        e.bookBeforeGiB = before->get<double>();
    }
    if (const auto beforeLine = node.find("before_seed_line"); beforeLine != node.end()) {
        if (!beforeLine->is_number_integer() || beforeLine->get<int>() < 1)
            return fieldError(where + ".before_seed_line", "must be a source line");
        e.beforeSeedLine = beforeLine->get<int>();
    }
    const auto scenario = node.find("scenario");
    if (scenario == node.end())
        return fieldError(where + ".scenario", "must be a headroom.scenario/1 document");
    Result<Scenario> parsed = scenarioFromJson(*scenario);
    if (!parsed)
        return makeError(parsed.error().code, where + ".scenario: " + parsed.error().detail);
    e.scenario = std::move(parsed).value();
    return e;
}

// What Headroom sums for each counter, in the words the explanation uses.
const char* counterExplanation(TeachingCounter c)
{
    switch (c) {
    case TeachingCounter::AllocatedAfterLoad:
        return "Counter: torch.cuda.memory_allocated() after loading. Headroom counts its weight rows "
               "(parameters only) and adds the book's own reading before loading.";
    case TeachingCounter::AllocatedAfterStep:
        return "Counter: torch.cuda.memory_allocated() after the first optimizer.step(), before zero_grad(). "
               "Headroom counts every tensor alive at the end of its optimizer-step event (weights, gradients, "
               "optimizer states, the outputs the custom loop keeps), without the step's own temporaries, "
               "and adds the book's own reading before the experiment (cuBLAS workspaces, earlier cells).";
    case TeachingCounter::OptimizerState:
        return "Counter: the optimizer's state tensors, summed by the book's estimate_memory_of_optimizer. "
               "Headroom counts its optimizer-state rows.";
    case TeachingCounter::Gradients:
        return "Counter: param.grad summed by the book's estimate_memory_of_gradients. Headroom counts its "
               "gradient rows.";
    }
    return "";
}

} // namespace

const char* teachingCounterName(TeachingCounter c) { return nameOf(kCounterNames, c, ""); }

bool parseTeachingCounter(const std::string& s, TeachingCounter& out) { return parseName(kCounterNames, s, out); }

Result<TeachingSet> teachingSetFromText(std::string_view text)
{
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded())
        return makeError(ErrorCode::MalformedJson, "teaching set: not valid JSON");
    if (!doc.is_object() || doc.value("schema", std::string()) != "headroom.teaching/1")
        return fieldError("schema", "must be \"headroom.teaching/1\"");
    TeachingSet set;
    Error error{ErrorCode::MissingField, {}};
    if (!readString(doc, "id", "", set.id, error) || !readString(doc, "title", "", set.title, error) ||
        !readString(doc, "source", "", set.source, error) || !readString(doc, "notebook", "", set.notebook, error))
        return error;
    if (const auto setup = doc.find("setup"); setup != doc.end() && setup->is_array())
        for (const json& line : *setup)
            if (line.is_string())
                set.setup.push_back(line.get<std::string>());
    const auto experiments = doc.find("experiments");
    if (experiments == doc.end() || !experiments->is_array() || experiments->empty())
        return fieldError("experiments", "must be a non-empty array");
    for (std::size_t i = 0; i < experiments->size(); ++i) {
        Result<TeachingExperiment> e = experimentFromJson((*experiments)[i], "experiments[" + std::to_string(i) + "]");
        if (!e)
            return e.error();
        set.experiments.push_back(std::move(e).value());
    }
    return set;
}

std::vector<std::string> builtinTeachingSetIds() { return {"seed-book"}; }

Result<TeachingSet> builtinTeachingSet(const std::string& id)
{
    if (id == "seed-book")
        return teachingSetFromText(catalogdata::kSeedBookJson);
    return makeError(ErrorCode::InvalidArgument, "unknown teaching set '" + id + "' (known: seed-book)");
}

Bytes teachingCounterBytes(const Plan& plan, TeachingCounter counter)
{
    Bytes total = 0;
    for (const TensorRow& row : plan.tensors) {
        if (row.managed)
            continue; // cudaMallocManaged: outside memory_allocated()
        bool counted = false;
        switch (counter) {
        case TeachingCounter::AllocatedAfterLoad:
            counted = row.category == Category::Weights && row.allocAt == Phase::Load;
            break;
        case TeachingCounter::AllocatedAfterStep:
            // Alive through the step and past it; rows born in the step event
            // are its temporaries (foreach buffers), gone when step() returns.
            counted = row.freeAt == Phase::OptimizerStep && row.allocAt != Phase::OptimizerStep &&
                      row.category != Category::Workspace && row.category != Category::Temporaries;
            break;
        case TeachingCounter::OptimizerState: counted = row.category == Category::OptimizerState; break;
        case TeachingCounter::Gradients: counted = row.category == Category::Gradients; break;
        }
        if (counted)
            total = satAdd(total, satMul(row.bytes, instanceCount(row, plan)));
    }
    return total;
}

Result<std::vector<TeachingComparison>> compareTeachingSet(const TeachingSet& set)
{
    std::vector<TeachingComparison> out;
    out.reserve(set.experiments.size());
    for (const TeachingExperiment& e : set.experiments) {
        Result<Plan> plan = makePlan(e.scenario);
        if (!plan)
            return makeError(plan.error().code, e.id + ": " + plan.error().detail);
        TeachingComparison c;
        c.id = e.id;
        c.title = e.title;
        c.counter = e.counter;
        c.bookGiB = e.bookGiB;
        c.headroomGiB = e.bookBeforeGiB + static_cast<double>(teachingCounterBytes(*plan, e.counter)) / kGiB;
        c.errorGiB = c.headroomGiB - c.bookGiB;
        c.errorPercent = c.bookGiB > 0 ? 100.0 * c.errorGiB / c.bookGiB : 0.0;
        c.explanation = e.note + " " + counterExplanation(e.counter);
        c.planNotes = plan->notes;
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace headroom
