// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// How byte counts are shown: binary GiB (PyTorch's counters, nvidia-smi's MiB)
// or decimal GB (GPU datasheets). An app-wide display preference, like
// QLocale::setDefault(): the main window sets it, every view reads it.
#include <QString>

#include <cstdint>

enum class MemoryUnit { GiB, GB };

class MemoryUnits {
public:
    static MemoryUnit current();
    static void setCurrent(MemoryUnit unit);

    static QString suffix(MemoryUnit unit = current());  // "GiB" / "GB"
    static double toUnit(double bytes);                   // bytes in the current unit
    static double fromUnit(double value);                 // the inverse, for chart coordinates
    // "3.20 GiB" with the default locale's separators.
    static QString format(double bytes, int decimals = 2);
    // "+1.25 GiB" / "−5.10 GiB": savings and deltas.
    static QString formatSigned(double bytes, int decimals = 2);
    // "2,211,840,000 bytes": the exact figure, for tooltips.
    static QString formatExact(std::uint64_t bytes);
};
