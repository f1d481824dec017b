// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli: the planner from the command line.
#include "commands.h"
#include "helptext.h"

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

// Exit status of an exception: not expected (every input error is a Result),
// and distinct from 3, which validate and devices give when CUDA is unavailable.
constexpr int kInternalError = 4;

} // namespace

int main(int argc, char** argv)
{
    try {
        std::vector<std::string> args(argv + 1, argv + argc);
        using namespace headroom::cli;
        if (args.empty()) {
            std::cout << overviewHelp();
            return 2;
        }
        if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
            // `help COMMAND` and `--help COMMAND`: that command's help.
            if (args.size() == 1) {
                std::cout << overviewHelp();
                return 0;
            }
            const CommandHelp* help = findCommand(args[1]);
            if (!help || args.size() > 2) {
                std::cerr << "headroom-cli: invalid-argument: no command '" << args[1]
                          << "' (see headroom-cli --help)\n";
                return 2;
            }
            std::cout << commandHelp(*help);
            return 0;
        }
        if (args[0] == "--version") {
            std::cout << "headroom-cli " << HEADROOM_VERSION << "\n";
            return 0;
        }
        const std::string command = args[0];
        args.erase(args.begin());
        if (const CommandHelp* help = findCommand(command); help && asksForHelp(args)) {
            std::cout << commandHelp(*help);
            return 0;
        }
        if (command == "plan") return runPlan(args);
        if (command == "fit") return runFit(args);
        if (command == "ladder") return runLadder(args);
        if (command == "models") return runModels(args);
        if (command == "gpus") return runGpus(args);
        if (command == "bench") return runBench(args);
        if (command == "export") return runExport(args);
        if (command == "validate") return runValidate(args);
        if (command == "suggest") return runSuggest(args);
        if (command == "search") return runSearch(args);
        if (command == "devices") return runDevices(args);
        if (command == "replay") return runReplay(args);
        if (command == "teach") return runTeach(args);
        if (command == "compare") return runCompare(args);
        std::cerr << "headroom-cli: invalid-argument: unknown command '" << command << "' (see headroom-cli --help)\n";
        return 2;
    } catch (const std::exception& e) {
        // Not expected: every input error is a Result. Still never a crash.
        std::cerr << "headroom-cli: internal-error: " << e.what() << "\n";
        return kInternalError;
    }
}
