// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli export --format NAME [scenario options] [--output FILE]
// The scenario and its plan through one of the engine's exporters
// (engine/io/exporters.h), to stdout or atomically to FILE.
#include "commands.h"

#include "format.h"
#include "options.h"

#include "io/atomicfile.h"
#include "io/exporters.h"
#include "plan/planner.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace headroom::cli {

namespace {

// Scenario options plus the command's own; no positional arguments.
Result<Options> parseExportCommand(const std::vector<std::string>& args)
{
    auto o = Options::parseFor("export", args);
    if (o && !o->positional().empty())
        return makeError(ErrorCode::InvalidArgument, "unexpected argument '" + o->positional().front() + "'");
    return o;
}

std::string formatList()
{
    std::string names;
    for (ExportFormat f : allExportFormats()) {
        if (!names.empty())
            names += ", ";
        names += exportFormatName(f);
    }
    return names;
}

} // namespace

int runExport(const std::vector<std::string>& args)
{
    auto o = parseExportCommand(args);
    if (!o)
        return fail(o.error());
    ExportFormat format{};
    if (!o->has("format"))
        return fail(makeError(ErrorCode::InvalidArgument, "export needs --format (" + formatList() + ")"));
    if (!parseExportFormat(o->value("format"), format))
        return fail(makeError(ErrorCode::InvalidArgument,
                              "unknown export format '" + o->value("format") + "' (formats: " + formatList() + ")"));
    if (o->has("output") && o->value("output").empty())
        return fail(makeError(ErrorCode::InvalidArgument, "--output needs a file name"));
    auto scenario = scenarioFromOptions(o.value());
    if (!scenario)
        return fail(scenario.error());
    auto plan = makePlan(scenario.value());
    if (!plan)
        return fail(plan.error());
    auto text = exportPlan(scenario.value(), plan.value(), format);
    if (!text)
        return fail(text.error());
    if (!o->has("output")) {
        std::cout << text.value() << std::flush;
        return std::cout ? 0 : fail(makeError(ErrorCode::IoError, "writing to stdout failed"));
    }
    auto written = writeFileAtomically(o->value("output"), text.value());
    if (!written)
        return fail(written.error());
    return 0;
}

} // namespace headroom::cli
