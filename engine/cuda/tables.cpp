// SPDX-License-Identifier: GPL-3.0-or-later
#include "cuda/tables.h"

#include "runtime/cpu/blockquant.h"
#include "runtime/cpu/nf4.h"

#include <algorithm>

namespace headroom::cuda {

void fillQuantTables(float* out)
{
    std::copy(cpu::dynamicMapSigned().begin(), cpu::dynamicMapSigned().end(), out + kSignedMapOffset);
    std::copy(cpu::dynamicMapUnsigned().begin(), cpu::dynamicMapUnsigned().end(), out + kUnsignedMapOffset);
    std::copy(cpu::kNf4Codes.begin(), cpu::kNf4Codes.end(), out + kNf4Offset);
}

} // namespace headroom::cuda
