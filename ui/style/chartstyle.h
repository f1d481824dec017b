// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One look for every chart: the widget's font, quiet grid, no frame, a
// memory axis labelled in the current unit. Colors come from the plot's
// QPalette and ui/style/palette.h, so a theme change restyles a chart in place.
#include <QVector>

class QCPAxis;
class QCPAxisRect;
class QCPBars;
class QCPItemText;
class QCustomPlot;
class QPalette;
class QString;

class ChartStyle {
public:
    static void apply(QCustomPlot* plot);
    static void applyToAxisRect(QCustomPlot* plot, QCPAxisRect* rect);
    // After the application palette changed from `before`: every color the
    // chart took from `before` (background, text, grid, separators) or from
    // a signal color of the other theme (Palette::themed) becomes the
    // current one: axes, items, plottables and legend. Replots.
    static void restyle(QCustomPlot* plot, const QPalette& before);
    // Crisp on high-DPI screens: raster painting at the device pixel ratio
    // (no OpenGL, whose offscreen buffer QCustomPlot does not scale) and
    // cached labels. Called by apply().
    static void setRenderingHints(QCustomPlot* plot);
    // "Memory (GiB)".
    static QString memoryAxisLabel();
    // Value axis from 0 to a bit above `top` (in the current unit), so the
    // capacity label and the tallest bar both fit.
    static void setMemoryRange(QCPAxis* axis, double topInUnit);
    // A message centred in the rect, shown instead of data ("No plan").
    static QCPItemText* addCenteredMessage(QCustomPlot* plot, QCPAxisRect* rect);
    static QString noPlanMessage();
    // `count` bar plottables of `width` on the plot's x and y axes, each
    // stacked on the one before without a gap and not selectable: a stacked
    // bar chart's layers, bottom to top.
    static QVector<QCPBars*> addStackedBars(QCustomPlot* plot, int count, double width);
};
