// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The main window: the configuration panel on the left, the verdict and the
// four views on the right, and the file, language and unit menus. Every
// input change re-plans at once (a plan takes microseconds); the ladder and
// the sweep, which plan dozens of variants, are rebuilt when their tab is shown.
#include "memoryunits.h"
#include "plan/plan.h"
#include "plan/scenario.h"

#include <QMainWindow>

#include <optional>

class BreakdownView;
class CompareView;
class ExportActions;
class MakeItFitView;
class PresentationView;
class LadderView;
class LanguageManager;
class QActionGroup;
class QCustomPlot;
class QMenu;
class QTabWidget;
class QTimer;
class RecentFiles;
class ScenarioPanel;
class SweepView;
class Theme;
class TimelineView;
class ValidateView;
class VerdictBar;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class View { Breakdown, Timeline, Ladder, Sweep, Validate, MakeItFit, Compare };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Replaces the configuration; the window is then unmodified.
    void setScenario(const headroom::Scenario& scenario);
    headroom::Scenario scenario() const;
    // Plans now instead of on the next turn of the event loop.
    void replanNow();
    const std::optional<headroom::Plan>& plan() const { return m_plan; }

    // File actions without dialogs: an empty string on success, else the
    // translated reason. openFile() leaves the window unchanged on failure.
    QString openFile(const QString& path);
    QString saveFile(const QString& path);
    // Open with the error shown in a message box (menu, recent files, command line).
    bool openFileInteractive(const QString& path);
    QString currentFile() const { return m_path; }

    void showView(View view);
    static std::optional<View> viewFromName(const QString& name);  // "breakdown", "timeline", "ladder", "sweep", "validate", "fit", "compare"
    QCustomPlot* currentChart() const;
    void setUnit(MemoryUnit unit);
    LanguageManager* languages() const { return m_languages; }
    ExportActions* exports() const { return m_exports; }
    Theme* theme() const { return m_theme; }

    ScenarioPanel* panel() const { return m_panel; }
    VerdictBar* verdict() const { return m_verdict; }
    BreakdownView* breakdownView() const { return m_breakdown; }
    TimelineView* timelineView() const { return m_timeline; }
    LadderView* ladderView() const { return m_ladder; }
    SweepView* sweepView() const { return m_sweep; }
    ValidateView* validateView() const { return m_validate; }

    // Make it fit, Compare and presentation mode (mainwindowplanning.cpp).
    MakeItFitView* makeItFitView() const { return m_makeItFit; }
    CompareView* compareView() const { return m_compare; }
    // Pins the current scenario: empty on success, else the translated reason.
    QString pinScenario();
    // Pins the scenario and three steps of its ladder (screenshots, demos).
    void pinExamples();
    void startPresentation();
    PresentationView* presentation() const { return m_presentation; }
    // Waits for work running off the UI thread (the sweep's), for screenshots and tests.
    bool waitForBackgroundWork(int timeoutMs = 60000);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void createMenus();
    void installExportsAndTheme();
    void retranslate();
    void scheduleReplan();
    void replan();
    void updateVisibleView();
    void onScenarioEdited();
    bool maybeSave();  // false: the user cancelled
    void newScenario();
    void openDialog();
    bool save();
    bool saveAs();
    void exportChart();
    void about();
    void openTeaching();  // Teaching > Seed book (TeachingDialog)
    void updateTitle();
    void readSettings();
    void writeSettings() const;
    // Make it fit, Compare and presentation mode (mainwindowplanning.cpp).
    void createPlanningViews();
    void createPlanningActions(QMenu* viewMenu);
    void retranslatePlanning();
    void refreshPlanningViews();  // unit changed

    ScenarioPanel* m_panel;
    VerdictBar* m_verdict;
    QTabWidget* m_tabs;
    BreakdownView* m_breakdown;
    TimelineView* m_timeline;
    LadderView* m_ladder;
    SweepView* m_sweep;
    ValidateView* m_validate;  // runs the step in a child process (issue 5)
    RecentFiles* m_recent;
    LanguageManager* m_languages;
    QTimer* m_replanTimer;

    QString m_path;
    std::optional<headroom::Plan> m_plan;
    headroom::Scenario m_planned;      // the scenario m_plan was made for
    bool m_timelineStale = true;       // replotted when its tab is shown
    bool m_ladderStale = true;         // rebuilt when its tab is shown
    bool m_sweepStale = true;
    // Make it fit, Compare and presentation mode.
    MakeItFitView* m_makeItFit = nullptr;
    CompareView* m_compare = nullptr;
    PresentationView* m_presentation = nullptr;
    bool m_makeItFitStale = true;
    QAction* m_pinAction = nullptr;
    QAction* m_presentAction = nullptr;

    // Menus and actions whose texts are re-translated.
    QMenu* m_fileMenu = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QMenu* m_languageMenu = nullptr;
    QMenu* m_unitMenu = nullptr;
    QMenu* m_teachingMenu = nullptr;
    QAction* m_seedBookAction = nullptr;
    QMenu* m_helpMenu = nullptr;
    QAction* m_newAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_saveAction = nullptr;
    QAction* m_saveAsAction = nullptr;
    QAction* m_exportAction = nullptr;
    QAction* m_quitAction = nullptr;
    QAction* m_aboutAction = nullptr;
    QActionGroup* m_languageGroup = nullptr;
    QActionGroup* m_unitGroup = nullptr;

    // Export As, Export Report, the Edit menu (ui/exportactions) and View → Theme (ui/theme).
    ExportActions* m_exports = nullptr;
    Theme* m_theme = nullptr;
};
