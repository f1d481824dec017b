// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A number as people write it in a message or an argument: "1.25", "4",
// "1e-06" (printf's %g: six significant digits, no trailing zeros).
#include <cstdio>
#include <string>

namespace headroom {

inline std::string shortDecimal(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace headroom
