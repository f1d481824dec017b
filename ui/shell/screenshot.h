// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// `headroom --screenshot FILE`: the main window rendered to a PNG without a
// display (offscreen platform), for documentation and for checking the
// layout in CI. Settings-independent: English or the given language, GiB,
// a fixed window size.
#include <QCoreApplication>
#include <QSize>
#include <QString>

struct ScreenshotRequest {
    QString output;        // .png path
    QString scenarioPath;  // empty: the teaching scenario
    QString view = QStringLiteral("breakdown");
    QString validationResult;  // a saved `headroom-cli validate --json` result shown in the Validate view
    QString language = QStringLiteral("en");
    QSize size{1440, 900};
};

class Screenshot {
    Q_DECLARE_TR_FUNCTIONS(Screenshot)

public:
    // An empty string on success, else one line saying what went wrong.
    static QString take(const ScreenshotRequest& request);
};
