// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/screenshot.h"

#include "io/scenariofile.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "text/errortext.h"
#include "validate/validateview.h"

#include <QApplication>
#include <QPixmap>

QString Screenshot::take(const ScreenshotRequest& request)
{
    const auto view = MainWindow::viewFromName(request.view);
    if (!view)
        return tr("unknown view \"%1\": use breakdown, stages, timeline, ladder, sweep, validate, fit, compare or "
                  "search")
            .arg(request.view);
    if (!LanguageManager::languages().contains(request.language))
        return tr("unknown language \"%1\": use %2").arg(request.language, LanguageManager::languages().join(QStringLiteral(", ")));

    MainWindow window;
    window.languages()->setLanguage(request.language);
    window.setUnit(MemoryUnit::GiB);
    if (!request.scenarioPath.isEmpty()) {
        // Read directly rather than through openFile(): a screenshot leaves the recent-files list alone.
        auto scenario = headroom::readScenarioFile(request.scenarioPath.toStdString());
        if (!scenario)
            return tr("cannot read %1: %2").arg(request.scenarioPath, ErrorText::message(scenario.error()));
        window.setScenario(scenario.value());
    }
    if (!request.validationResult.isEmpty()) {
        const QString error = window.validateView()->loadReportFile(request.validationResult);
        if (!error.isEmpty())
            return error;
    }
    if (*view == MainWindow::View::Compare)
        window.pinExamples();  // an empty comparison shows nothing
    window.showView(*view);
    // The saved geometry may be maximized; a screenshot has its own fixed size.
    window.setWindowState(Qt::WindowNoState);
    window.resize(request.size);
    window.show();
    // Language changes and layouts arrive as posted events: let them all land.
    for (int i = 0; i < 5; ++i)
        QApplication::processEvents();
    window.waitForBackgroundWork();
    for (int i = 0; i < 3; ++i)
        QApplication::processEvents();
    const QPixmap pixmap = window.grab();
    if (pixmap.isNull() || !pixmap.save(request.output, "PNG"))
        return tr("cannot write %1").arg(request.output);
    return QString();
}
