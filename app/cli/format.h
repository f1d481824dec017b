// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include "core/result.h"
#include "plan/plan.h"

#include <string>

namespace headroom::cli {

std::string gib(double bytes);                  // "12.34 GiB"
std::string scenarioSummary(const Scenario& s); // one line: mode, precision, PEFT, batch...
// `origin`: lines printed under the header (overrides.h originText()).
std::string planReport(const Scenario& s, const Plan& plan, bool withTensors, const std::string& origin = "");
std::string verdict(const Plan& plan);          // "fits, 3.20 GiB to spare" / "out of memory by 5.10 GiB"
int fail(const Error& error);                   // prints "headroom-cli: <code>: <detail>", returns 2

} // namespace headroom::cli
