// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point: measurement file text (headroom.measurement/1; what is done with it and
// which oracles apply: fuzzinputs.cpp). scripts/fuzz.sh builds and runs it.
#include "fuzzinputs.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    headroom::fuzz::measurementInput(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
