// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The one palette: a fixed color per memory category, used by every chart,
// legend and swatch, so "activations" is the same green everywhere. Tableau
// 10 hues: distinguishable for the common color-vision deficiencies and on a
// projector, and mid-luminance, so they read on a light and on a dark
// background alike (they do not change with the theme).
//
// The signal colors (capacity, verdict, peak marker) have a light-theme and
// a dark-theme variant: a deep red line vanishes on a dark chart. Theme
// (ui/style/theme.h) chooses the variant with setDark().
#include "plan/plan.h"

#include <QColor>

class Palette {
public:
    static QColor category(headroom::Category category);
    static QColor allocatorCache();  // reserved by the caching allocator beyond live tensors
    static QColor context();         // CUDA context, outside the allocator
    static QColor capacity();        // the GPU's memory line
    static QColor fits();            // verdict: fits
    static QColor outOfMemory();     // verdict: does not fit
    static QColor peakMarker();
    static QColor saving();          // ladder: what a step saved

    static void setDark(bool dark);
    static bool isDark();
    // A signal color of either variant as the current variant (other colors
    // unchanged): recolors what a chart drew before the theme changed.
    static QColor themed(const QColor& color);
};
