// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Every text of `headroom-cli --help` and `headroom-cli COMMAND --help`, and
// the option names the commands parse, in one table (helptext.cpp), so that
// what the help lists is what the parser accepts. docs/man/headroom-cli.1
// says the same at length; tests/cli/test_cli.cpp checks they name the same options.
#include "plan/scenario.h"

#include <string>
#include <vector>

namespace headroom::cli {

// One option: --name VALUE (value empty: a flag).
struct OptionHelp {
    std::string name;
    std::string value;
    std::string text;  // what it does, with its default
};

// One scenario option. `setting` is the scenario setting it changes (the
// four model sources all change "model"); `get` reads that setting from a
// scenario ("" when the setting does not apply there, e.g. --lora-rank
// without PEFT); the override line of plan (overrides.h) and the defaults in
// the help both come from it.
struct ScenarioOptionHelp {
    OptionHelp option;
    std::string group;
    std::string setting;                     // empty: none of its own (--scenario)
    std::string (*get)(const Scenario&) = nullptr;
    std::string fixedDefault;                // shown instead of get(built-in scenario) when set
};

struct CommandHelp {
    std::string name;
    std::string synopsis;     // after "headroom-cli NAME "
    std::string summary;      // one line, for the command list
    std::string description;  // a few sentences
    bool scenario = false;    // takes the scenario options
    std::vector<OptionHelp> options;  // its own options
    std::string example;      // one command line
};

const std::vector<ScenarioOptionHelp>& scenarioOptionTable();
const std::vector<CommandHelp>& commandTable();
const CommandHelp* findCommand(const std::string& name);

// Option names for Options::parse: the command's own (and, for a planning
// command, the scenario options too).
std::vector<std::string> commandValueOptions(const std::string& command);
std::vector<std::string> commandFlagOptions(const std::string& command);

std::string overviewHelp();                         // headroom-cli --help
std::string commandHelp(const CommandHelp& command);  // headroom-cli COMMAND --help

// True when args (after the command) hold --help or -h.
bool asksForHelp(const std::vector<std::string>& args);

} // namespace headroom::cli
