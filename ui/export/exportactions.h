// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File → Export As: every engine exporter (engine/io/exporters.h) through a
// save dialog, written atomically (engine/io/atomicfile.h); File → Export
// Report (PDF, ui/reportwriter.h); Edit → Copy: the plan as Markdown or
// text, the current chart as an image. The texts are the engine's; this
// class only chooses files and moves bytes.
#include "io/exporters.h"

#include <QObject>
#include <QString>

#include <vector>

class MainWindow;
class QAction;
class QMenu;

class ExportActions : public QObject {
    Q_OBJECT

public:
    // Adds its actions to `fileMenu` (before `before`) and an Edit menu
    // before `beforeMenu` in the window's menu bar.
    ExportActions(MainWindow* window, QMenu* fileMenu, QAction* before, QMenu* beforeMenu);

    // Without dialogs: an empty string on success, else the translated reason.
    static QString exportTo(const headroom::Scenario& scenario, const headroom::Plan& plan,
                            headroom::ExportFormat format, const QString& path);
    static QString formatTitle(headroom::ExportFormat format);  // "DeepSpeed config (JSON)"
    static QString fileFilter(headroom::ExportFormat format);   // "DeepSpeed config (*.json)"
    static QString defaultFileName(headroom::ExportFormat format, const QString& base);  // "base-ds_config.json"

    // The clipboard actions, without menus (tests call them).
    QString copyMarkdown();  // the engine's Markdown report
    QString copyText();      // a plain-text summary: verdict and breakdown
    QString copyChart();     // the current chart as an image

    // The plan of the window, replanned now; an empty string or the reason there is none.
    QString currentPlan(headroom::Scenario& scenario, headroom::Plan& plan) const;

    void retranslate();

private:
    void exportDialog(headroom::ExportFormat format);
    void reportDialog();
    void report(const QString& error, const QString& path, const QString& failureTitle);
    QString baseName() const;

    MainWindow* m_window;
    QMenu* m_exportMenu;
    QMenu* m_editMenu;
    QAction* m_reportAction;
    QAction* m_copyMarkdownAction;
    QAction* m_copyTextAction;
    QAction* m_copyChartAction;
    std::vector<std::pair<headroom::ExportFormat, QAction*>> m_formatActions;
};
