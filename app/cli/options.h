// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Command-line options: `--name value` or `--name=value`, and flags.
#include "core/result.h"
#include "plan/scenario.h"

#include <map>
#include <string>
#include <vector>

namespace headroom::cli {

class Options {
public:
    // Error InvalidArgument for an option not in `known`, or a value missing.
    static Result<Options> parse(const std::vector<std::string>& args, const std::vector<std::string>& valueOptions,
                                 const std::vector<std::string>& flagOptions);
    // The options of `command` in helptext.cpp's table; an unknown one points to `COMMAND --help`.
    static Result<Options> parseFor(const std::string& command, const std::vector<std::string>& args);
    bool has(const std::string& name) const { return m_values.count(name) > 0; }
    std::string value(const std::string& name) const;
    const std::vector<std::string>& positional() const { return m_positional; }

private:
    std::map<std::string, std::string> m_values;
    std::vector<std::string> m_positional;
};

// Every option that shapes a scenario (helptext.cpp's table).
const std::vector<std::string>& scenarioValueOptions();
const std::vector<std::string>& scenarioFlagOptions();

// The teaching scenario (or `start`, when given), or --scenario FILE, then
// every flag on top; `base`, when given, receives the scenario before the flags.
Result<Scenario> scenarioFromOptions(const Options& options, Scenario* base = nullptr, const Scenario* start = nullptr);

// The value of --<option> as a whole number in [low, high] (at most nine
// digits), or an InvalidArgument error that names the option and the range.
Result<std::uint64_t> wholeNumber(const std::string& option, const std::string& text, std::uint64_t low,
                                  std::uint64_t high);

} // namespace headroom::cli
