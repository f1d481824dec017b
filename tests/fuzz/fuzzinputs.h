// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What each fuzz target does with one input. The libFuzzer entry points
// (fuzz_*.cpp) and the regression test (tests/fuzz/test_fuzz_regressions.cpp)
// call the same functions, so a kept crashing input replays exactly.
// A function returns normally when the input was handled (parsed and
// planned, or refused with an Error); a bug aborts or trips a sanitizer.
#include <string_view>

namespace headroom::fuzz {

void hfconfigInput(std::string_view bytes);     // config.json text
void safetensorsInput(std::string_view bytes);  // a whole .safetensors file
void scenarioInput(std::string_view bytes);     // scenario file text
void measurementInput(std::string_view bytes);  // headroom.measurement/1 text
void hubInput(std::string_view bytes);          // the Hub's answers, scripted (fuzzhub.cpp)

} // namespace headroom::fuzz
