// SPDX-License-Identifier: GPL-3.0-or-later
#include "style/palette.h"

#include <array>
#include <utility>

using headroom::Category;

namespace {

bool g_dark = false;

// {light, dark}: the dark variants are the same hues lightened until they
// keep about the light variants' contrast against a #1E1E1E chart background.
constexpr std::pair<QRgb, QRgb> kCapacity{0xFFB71C1C, 0xFFFF6E6E};
constexpr std::pair<QRgb, QRgb> kFits{0xFF2E7D32, 0xFF7BD17F};
constexpr std::pair<QRgb, QRgb> kOutOfMemory{0xFFC62828, 0xFFFF7A7A};
constexpr std::pair<QRgb, QRgb> kPeakMarker{0xFF333333, 0xFFD8D8D8};
constexpr std::pair<QRgb, QRgb> kSaving{0xFF9E9E9E, 0xFF9E9E9E};

QColor pick(const std::pair<QRgb, QRgb>& variants) { return QColor::fromRgb(g_dark ? variants.second : variants.first); }

} // namespace

QColor Palette::category(Category category)
{
    switch (category) {
    case Category::Weights: return QColor(0x4E, 0x79, 0xA7);        // blue
    case Category::Gradients: return QColor(0xF2, 0x8E, 0x2B);      // orange
    case Category::OptimizerState: return QColor(0xE1, 0x57, 0x59); // red
    case Category::Activations: return QColor(0x59, 0xA1, 0x4F);    // green
    case Category::Logits: return QColor(0xED, 0xC9, 0x48);         // yellow
    case Category::Temporaries: return QColor(0xB0, 0x7A, 0xA1);    // purple
    case Category::KvCache: return QColor(0x76, 0xB7, 0xB2);        // teal
    case Category::Workspace: return QColor(0x9C, 0x75, 0x5F);      // brown
    }
    return Qt::gray;
}

QColor Palette::allocatorCache() { return QColor(0xBA, 0xB0, 0xAC); }

QColor Palette::context() { return QColor(0x79, 0x70, 0x6E); }

QColor Palette::capacity() { return pick(kCapacity); }

QColor Palette::fits() { return pick(kFits); }

QColor Palette::outOfMemory() { return pick(kOutOfMemory); }

QColor Palette::peakMarker() { return pick(kPeakMarker); }

QColor Palette::saving() { return pick(kSaving); }

void Palette::setDark(bool dark) { g_dark = dark; }

bool Palette::isDark() { return g_dark; }

QColor Palette::themed(const QColor& color)
{
    const QRgb rgb = color.rgb();  // alpha aside: grids and fills keep theirs
    for (const auto& variants : std::array{kCapacity, kFits, kOutOfMemory, kPeakMarker, kSaving})
        if (rgb == variants.first || rgb == variants.second) {
            QColor result = pick(variants);
            result.setAlpha(color.alpha());
            return result;
        }
    return color;
}
