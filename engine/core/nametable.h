// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Stable names for enum values, as a constexpr table of {value, name} pairs:
// the scenario's enums, the export formats, the teaching counters.
#include <array>
#include <string>
#include <utility>

namespace headroom {

template <class E, std::size_t N>
const char* nameOf(const std::array<std::pair<E, const char*>, N>& table, E value, const char* unknown = "?")
{
    for (const auto& [e, name] : table)
        if (e == value)
            return name;
    return unknown;
}

// false (and `out` untouched) for a name the table does not hold.
template <class E, std::size_t N>
bool parseName(const std::array<std::pair<E, const char*>, N>& table, const std::string& s, E& out)
{
    for (const auto& [e, name] : table)
        if (s == name) {
            out = e;
            return true;
        }
    return false;
}

} // namespace headroom
