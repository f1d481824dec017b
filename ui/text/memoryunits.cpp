// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <QLocale>

namespace {

MemoryUnit s_unit = MemoryUnit::GiB;

double divisor(MemoryUnit unit) { return unit == MemoryUnit::GiB ? 1024.0 * 1024.0 * 1024.0 : 1e9; }

} // namespace

MemoryUnit MemoryUnits::current() { return s_unit; }

void MemoryUnits::setCurrent(MemoryUnit unit) { s_unit = unit; }

QString MemoryUnits::suffix(MemoryUnit unit) { return unit == MemoryUnit::GiB ? QStringLiteral("GiB") : QStringLiteral("GB"); }

double MemoryUnits::toUnit(double bytes) { return bytes / divisor(s_unit); }

double MemoryUnits::fromUnit(double value) { return value * divisor(s_unit); }

QString MemoryUnits::format(double bytes, int decimals)
{
    return QLocale().toString(toUnit(bytes), 'f', decimals) + QLatin1Char(' ') + suffix();
}

QString MemoryUnits::formatSigned(double bytes, int decimals)
{
    // U+2212 MINUS SIGN: a hyphen looks like a dash in proportional fonts.
    const QString magnitude = format(bytes < 0 ? -bytes : bytes, decimals);
    return (bytes < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + magnitude;
}

QString MemoryUnits::formatExact(std::uint64_t bytes)
{
    return QCoreApplication::translate("MemoryUnits", "%1 bytes").arg(QLocale().toString(static_cast<qulonglong>(bytes)));
}
