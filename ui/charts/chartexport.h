// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Saving a chart as PNG (at twice the screen resolution, or the screen's
// device pixel ratio where higher), PDF (vector), or SVG (vector, when Qt's
// Svg module was found at build time). Files are written atomically.
#include <QByteArray>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

class QCustomPlot;

class ChartExport {
    Q_DECLARE_TR_FUNCTIONS(ChartExport)

public:
    static QStringList suffixes();  // "png", "pdf" and, if built with it, "svg"
    static QString fileFilter();    // for QFileDialog
    // Chooses the format by the file's suffix. Returns an empty string on
    // success, else the translated reason.
    static QString save(QCustomPlot* plot, const QString& path);
    // The file's bytes for a suffix ("png", "pdf", "svg"); empty on failure.
    static QByteArray render(QCustomPlot* plot, const QString& suffix);
    static double pngScale(const QCustomPlot* plot);
};
