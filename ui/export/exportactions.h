// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// File → Export As: every engine exporter (engine/io/exporters.h) through a
// save dialog, written atomically (engine/io/atomicfile.h); File → Export
// Report (PDF, ui/export/reportwriter.h); Edit → Copy: the plan as Markdown or
// text, the current chart as an image. The texts are the engine's; this
// class only chooses files and moves bytes.
#include "io/exporters.h"

#include <QObject>
#include <QString>

#include <functional>
#include <vector>

class PlanDocument;
class QAction;
class QCustomPlot;
class QMainWindow;
class QMenu;

class ExportActions : public QObject {
    Q_OBJECT

public:
    // The chart on screen, for Copy Chart (the window knows which view is shown).
    using ChartSource = std::function<QCustomPlot*()>;

    // Exports `document`'s plan. Adds its actions to `fileMenu` (before
    // `before`) and an Edit menu before `beforeMenu` in the window's menu bar.
    ExportActions(QMainWindow* window, PlanDocument* document, ChartSource chart, QMenu* fileMenu, QAction* before,
                  QMenu* beforeMenu);
    QMenu* editMenu() const { return m_editMenu; }

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

    // The document's plan, planned now; an empty string or the reason there is none.
    QString currentPlan(headroom::Scenario& scenario, headroom::Plan& plan) const;

    void retranslate();

private:
    void exportDialog(headroom::ExportFormat format);
    void reportDialog();
    void report(const QString& error, const QString& path, const QString& failureTitle);
    QString baseName() const;

    QMainWindow* m_window;
    PlanDocument* m_document;
    ChartSource m_chart;
    QMenu* m_exportMenu;
    QMenu* m_editMenu;
    QAction* m_reportAction;
    QAction* m_copyMarkdownAction;
    QAction* m_copyTextAction;
    QAction* m_copyChartAction;
    std::vector<std::pair<headroom::ExportFormat, QAction*>> m_formatActions;
};
