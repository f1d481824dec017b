// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point: the Hub's answers to one model import, scripted (the
// format and the oracles: fuzzhub.cpp). scripts/fuzz.sh builds and runs it.
#include "fuzzinputs.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    headroom::fuzz::hubInput(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
