// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The main window: the configuration panel on the left, the verdict and the
// views on the right, and the file, language and unit menus. The scenario,
// its file and its plan live in the PlanDocument (ui/document): the panel
// writes edits into it, the verdict and the breakdown follow every plan (a
// plan takes microseconds), and the views that plan dozens of variants (the
// ladder, the sweep, make it fit) or draw many graphs (the timeline), and the
// stages, catch up with the document's revision when their tab is shown.
#include "plan/plan.h"
#include "plan/scenario.h"
#include "text/memoryunits.h"

#include <QHash>
#include <QMainWindow>

#include <cstdint>
#include <optional>

class BreakdownView;
class CompareView;
class ExportActions;
class MakeItFitView;
class PlanDocument;
class PresentationView;
class LadderView;
class LanguageManager;
class QActionGroup;
class QCustomPlot;
class QMenu;
class QTabWidget;
class RecentFiles;
class ScenarioPanel;
class SearchView;
class StagesView;
class SweepView;
class Theme;
class TimelineView;
class ValidateView;
class VerdictBar;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    enum class View { Breakdown, Stages, Timeline, Ladder, Sweep, Validate, MakeItFit, Compare, Search };

    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    PlanDocument* document() const { return m_document; }
    // Replaces the configuration; the window is then unmodified.
    void setScenario(const headroom::Scenario& scenario);
    headroom::Scenario scenario() const;
    // Plans now instead of on the next turn of the event loop.
    void replanNow();
    // File > Open from Hugging Face Hub (inputs/hubdialog.h): the fetched
    // model into the scenario, the rest kept, as one undo step.
    void openFromHub();
    const std::optional<headroom::Plan>& plan() const;

    // File actions without dialogs: an empty string on success, else the
    // translated reason. openFile() leaves the window unchanged on failure.
    QString openFile(const QString& path);
    QString saveFile(const QString& path);
    // Open with the error shown in a message box (menu, recent files, command line).
    bool openFileInteractive(const QString& path);
    QString currentFile() const;

    void showView(View view);
    // "breakdown", "stages", "timeline", "ladder", "sweep", "validate", "fit", "compare", "search"
    static std::optional<View> viewFromName(const QString& name);
    QCustomPlot* currentChart() const;
    void setUnit(MemoryUnit unit);
    LanguageManager* languages() const { return m_languages; }
    ExportActions* exports() const { return m_exports; }
    Theme* theme() const { return m_theme; }

    ScenarioPanel* panel() const { return m_panel; }
    VerdictBar* verdict() const { return m_verdict; }
    BreakdownView* breakdownView() const { return m_breakdown; }
    StagesView* stagesView() const { return m_stages; }
    TimelineView* timelineView() const { return m_timeline; }
    LadderView* ladderView() const { return m_ladder; }
    SweepView* sweepView() const { return m_sweep; }
    ValidateView* validateView() const { return m_validate; }

    // Make it fit, Compare, Search and presentation mode (mainwindowplanning.cpp).
    MakeItFitView* makeItFitView() const { return m_makeItFit; }
    SearchView* searchView() const { return m_search; }
    CompareView* compareView() const { return m_compare; }
    // Pins the current scenario: empty on success, else the translated reason.
    QString pinScenario();
    // Pins the scenario and three steps of its ladder (screenshots, demos).
    void pinExamples();
    void startPresentation();
    PresentationView* presentation() const { return m_presentation; }
    // Waits for work running off the UI thread (the sweep's, the search's), for screenshots and tests.
    bool waitForBackgroundWork(int timeoutMs = 60000);

protected:
    void closeEvent(QCloseEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    void createMenus();
    void installExportsAndTheme();
    void retranslate();
    void showPlan();          // the document planned: verdict, breakdown, then the view on screen
    void updateVisibleView(); // the tab on screen catches up with the document
    // An edit from a view (a ladder step, a suggestion): into the document, planned now.
    void applyEdit(const headroom::Scenario& scenario);
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
    // Make it fit, Compare, Search and presentation mode (mainwindowplanning.cpp).
    void createPlanningViews();
    void createPlanningActions(QMenu* viewMenu);
    void retranslatePlanning();
    void refreshPlanningViews();  // unit changed

    // First: the views below are built on it.
    PlanDocument* m_document;
    ScenarioPanel* m_panel;
    VerdictBar* m_verdict;
    QTabWidget* m_tabs;
    BreakdownView* m_breakdown;
    StagesView* m_stages; // the pipeline stages side by side (issue 15)
    TimelineView* m_timeline;
    LadderView* m_ladder;
    SweepView* m_sweep;
    ValidateView* m_validate;  // runs the step in a child process (issue 5)
    RecentFiles* m_recent;
    LanguageManager* m_languages;
    // The document revision each lazily updated view last showed.
    QHash<const QWidget*, std::uint64_t> m_shownRevision;
    // Make it fit, Compare, Search and presentation mode.
    MakeItFitView* m_makeItFit = nullptr;
    SearchView* m_search = nullptr;
    CompareView* m_compare = nullptr;
    PresentationView* m_presentation = nullptr;
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
    QAction* m_undoAction = nullptr;
    QAction* m_redoAction = nullptr;
    QAction* m_newAction = nullptr;
    QAction* m_openAction = nullptr;
    QAction* m_hubAction = nullptr;
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
