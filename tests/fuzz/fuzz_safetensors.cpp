// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point: the bytes of a .safetensors file (what is done with it and
// which oracles apply: fuzzinputs.cpp). scripts/fuzz.sh builds and runs it.
#include "fuzzinputs.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    headroom::fuzz::safetensorsInput(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
