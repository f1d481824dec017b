// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <string>
#include <vector>

namespace headroom::cli {

// Each returns the process exit status: 0 done, 2 bad input (one line on stderr).
int runPlan(const std::vector<std::string>& args);
int runFit(const std::vector<std::string>& args);
int runLadder(const std::vector<std::string>& args);
int runModels(const std::vector<std::string>& args);
int runGpus(const std::vector<std::string>& args);
int runBench(const std::vector<std::string>& args);
// export --format NAME [scenario options] [--output FILE] (exportcommand.cpp)
int runExport(const std::vector<std::string>& args);
// validate [--backend cpu|cuda] [scenario options] [--steps N] [--json] [--progress] [--trace FILE]
//          [--timeout-s N] [--inject-fault crash|hang|oom] (validatecommand.cpp; VALIDATE-PROTOCOL.md)
int runValidate(const std::vector<std::string>& args);
// suggest [scenario options] [--json]: cheapest changes that make it fit (suggestcommand.cpp)
int runSuggest(const std::vector<std::string>& args);
// search [scenario options] [--gpus-per-node N] [--top N] [--json]: the best parallel layouts (searchcommand.cpp)
int runSearch(const std::vector<std::string>& args);
// devices [--json] [--measure-context]: CUDA devices, or exit 3 (devicescommand.cpp)
int runDevices(const std::vector<std::string>& args);
// replay TRACE [--json]: an allocation trace through the caching allocator simulation (replaycommand.cpp)
int runReplay(const std::vector<std::string>& args);
// teach [seed-book] [--json] [--scenario ID]: a published experiment beside Headroom (teachcommand.cpp)
int runTeach(const std::vector<std::string>& args);
// compare MEASUREMENT [scenario options] [--json]: a real run's headroom.measurement/1 beside the plan (comparecommand.cpp)
int runCompare(const std::vector<std::string>& args);

} // namespace headroom::cli
