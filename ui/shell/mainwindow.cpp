// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/mainwindow.h"

#include "charts/breakdownchart.h"
#include "charts/chartexport.h"
#include "charts/ladderchart.h"
#include "charts/stageschart.h"
#include "charts/timelineview.h"
#include "document/plandocument.h"
#include "export/exportactions.h"
#include "inputs/hubdialog.h"
#include "inputs/scenariopanel.h"
#include "io/scenariofile.h"
#include "plan/defaultscenario.h"
#include "shell/languagemanager.h"
#include "shell/recentfiles.h"
#include "style/theme.h"
#include "text/errortext.h"
#include "validate/measurementpanel.h"
#include "validate/validateview.h"
#include "views/breakdownview.h"
#include "views/compareview.h"
#include "views/ladderview.h"
#include "views/makeitfitview.h"
#include "views/searchview.h"
#include "views/stagesview.h"
#include "views/sweepview.h"
#include "views/verdictbar.h"

#include <QAction>
#include <QActionGroup>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>
#include <QVBoxLayout>

using namespace headroom;

namespace {

const QString kScenarioSuffix = QStringLiteral(".headroom.json");

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_document(new PlanDocument(this))
    , m_panel(new ScenarioPanel)
    , m_verdict(new VerdictBar)
    , m_tabs(new QTabWidget)
    , m_breakdown(new BreakdownView)
    , m_stages(new StagesView)
    , m_timeline(new TimelineView)
    , m_ladder(new LadderView)
    , m_sweep(new SweepView(m_document))
    , m_validate(new ValidateView)
    , m_recent(new RecentFiles(this))
    , m_languages(new LanguageManager(this))
{
    // The panel scrolls vertically; its width stays that of its widest row.
    auto* scroll = new QScrollArea;
    scroll->setWidget(m_panel);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setMinimumWidth(m_panel->sizeHint().width() + 24);

    m_tabs->addTab(m_breakdown, QString());
    m_tabs->addTab(m_stages, QString());
    m_tabs->addTab(m_timeline, QString());
    m_tabs->addTab(m_ladder, QString());
    m_tabs->addTab(m_sweep, QString());
    m_tabs->addTab(m_validate, QString());
    createPlanningViews(); // Make it fit, Compare and Search tabs
    m_tabs->setDocumentMode(true);

    auto* right = new QWidget;
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->setSpacing(0);
    rightLayout->addWidget(m_verdict);
    rightLayout->addWidget(m_tabs, 1);

    auto* splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(scroll);
    splitter->addWidget(right);
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    setCentralWidget(splitter);

    // The panel writes edits into the document; the document's scenario
    // comes back to the panel only when it changed under it (undo, open).
    connect(m_panel, &ScenarioPanel::scenarioChanged, m_document, &PlanDocument::edit);
    connect(m_document, &PlanDocument::scenarioReplaced, m_panel, &ScenarioPanel::setScenario);
    connect(m_document, &PlanDocument::planChanged, this, &MainWindow::showPlan);
    connect(m_document, &PlanDocument::modifiedChanged, this, &QWidget::setWindowModified);
    connect(m_document, &PlanDocument::pathChanged, this, &MainWindow::updateTitle);
    connect(m_tabs, &QTabWidget::currentChanged, this, &MainWindow::updateVisibleView);
    connect(m_ladder, &LadderView::applyScenario, this, [this](const Scenario& s) {
        applyEdit(s);
        showView(View::Breakdown);
    });
    m_validate->measurementPanel()->setDocument(m_document);
    connect(m_validate->measurementPanel(), &MeasurementPanel::scenarioRequested, this, [this](const Scenario& s) {
        if (!maybeSave())
            return;
        m_document->reset(s);  // a new, unsaved scenario, as File > New
        showView(View::Breakdown);
    });
    connect(m_recent, &RecentFiles::openRequested, this, [this](const QString& path) {
        if (maybeSave())
            openFileInteractive(path);
    });

    createMenus();
    installExportsAndTheme();
    readSettings();
    retranslate();
    auto teaching = teachingScenario();
    m_document->reset(teaching ? teaching.value() : m_panel->scenario());
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus()
{
    m_fileMenu = menuBar()->addMenu(QString());
    // Undo and redo go at the top of the Edit menu (ExportActions makes it).
    m_undoAction = m_document->undoStack()->createUndoAction(this);
    m_undoAction->setShortcut(QKeySequence::Undo);
    m_redoAction = m_document->undoStack()->createRedoAction(this);
    m_redoAction->setShortcut(QKeySequence::Redo);
    m_newAction = m_fileMenu->addAction(QString(), this, [this] {
        if (maybeSave())
            newScenario();
    });
    m_newAction->setShortcut(QKeySequence::New);
    m_openAction = m_fileMenu->addAction(QString(), this, [this] {
        if (maybeSave())
            openDialog();
    });
    m_openAction->setShortcut(QKeySequence::Open);
    m_hubAction = m_fileMenu->addAction(QString(), this, &MainWindow::openFromHub);
    m_recentMenu = m_fileMenu->addMenu(QString());
    m_recent->attach(m_recentMenu);
    m_fileMenu->addSeparator();
    m_saveAction = m_fileMenu->addAction(QString(), this, &MainWindow::save);
    m_saveAction->setShortcut(QKeySequence::Save);
    m_saveAsAction = m_fileMenu->addAction(QString(), this, &MainWindow::saveAs);
    m_saveAsAction->setShortcut(QKeySequence::SaveAs);
    m_fileMenu->addSeparator();
    m_exportAction = m_fileMenu->addAction(QString(), this, &MainWindow::exportChart);
    m_exportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_fileMenu->addSeparator();
    m_quitAction = m_fileMenu->addAction(QString(), this, &QWidget::close);
    m_quitAction->setShortcut(QKeySequence::Quit);

    m_viewMenu = menuBar()->addMenu(QString());
    m_languageMenu = m_viewMenu->addMenu(QString());
    m_languageGroup = new QActionGroup(this);
    for (const QString& code : LanguageManager::languages()) {
        QAction* action = m_languageMenu->addAction(LanguageManager::nativeName(code));
        action->setCheckable(true);
        action->setData(code);
        m_languageGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] {
            if (m_languages->setLanguage(code))
                QSettings().setValue(QStringLiteral("language"), code);
        });
    }
    connect(m_languages, &LanguageManager::languageChanged, this, [this](const QString& code) {
        for (QAction* action : m_languageGroup->actions())
            action->setChecked(action->data().toString() == code);
    });
    createPlanningActions(m_viewMenu);  // Pin, presentation mode
    m_unitMenu = m_viewMenu->addMenu(QString());
    m_unitGroup = new QActionGroup(this);
    for (MemoryUnit unit : {MemoryUnit::GiB, MemoryUnit::GB}) {
        QAction* action = m_unitMenu->addAction(QString());
        action->setCheckable(true);
        action->setData(static_cast<int>(unit));
        m_unitGroup->addAction(action);
        connect(action, &QAction::triggered, this, [this, unit] {
            setUnit(unit);
            QSettings().setValue(QStringLiteral("unit"), MemoryUnits::suffix(unit));
        });
    }

    m_teachingMenu = menuBar()->addMenu(QString());
    m_seedBookAction = m_teachingMenu->addAction(QString(), this, &MainWindow::openTeaching);

    m_helpMenu = menuBar()->addMenu(QString());
    m_aboutAction = m_helpMenu->addAction(QString(), this, &MainWindow::about);
}

void MainWindow::installExportsAndTheme()
{
    // Inserted before the separator above Quit; the Edit menu before View.
    const QList<QAction*> fileActions = m_fileMenu->actions();
    QAction* beforeQuit = fileActions.value(fileActions.indexOf(m_exportAction) + 1, m_quitAction);
    m_exports = new ExportActions(
        this, m_document, [this] { return currentChart(); }, m_fileMenu, beforeQuit, m_viewMenu);
    QMenu* edit = m_exports->editMenu();
    QAction* firstCopy = edit->actions().value(0);
    edit->insertAction(firstCopy, m_undoAction);
    edit->insertAction(firstCopy, m_redoAction);
    edit->insertSeparator(firstCopy);
    m_theme = new Theme(this);
    m_theme->addMenu(m_viewMenu);
    connect(m_languages, &LanguageManager::languageChanged, this, [this] {
        m_exports->retranslate();
        m_theme->retranslate();
    });
    // Views and the verdict take their colors when they draw: redraw them all.
    connect(m_theme, &Theme::themeChanged, this, [this] { setUnit(MemoryUnits::current()); });
    if (const QString warning = m_theme->restore(); !warning.isEmpty())
        statusBar()->showMessage(warning, 10000);
}

void MainWindow::retranslate()
{
    m_fileMenu->setTitle(tr("&File"));
    m_newAction->setText(tr("&New (teaching scenario)"));
    m_newAction->setStatusTip(tr("Llama 3.1 8B, QLoRA, on one RTX 4090: the study notes' exercise"));
    m_openAction->setText(tr("&Open…"));
    m_hubAction->setText(tr("Open from Hugging Face &Hub…"));
    m_hubAction->setStatusTip(
        tr("Plan a model from the Hugging Face Hub: config.json and the safetensors headers, not the weights"));
    m_recentMenu->setTitle(tr("Open &Recent"));
    m_saveAction->setText(tr("&Save"));
    m_saveAsAction->setText(tr("Save &As…"));
    m_exportAction->setText(tr("&Export Chart…"));
    m_exportAction->setStatusTip(tr("Save the chart of the current view as %1")
                                     .arg(ChartExport::suffixes().join(QStringLiteral(", ")).toUpper()));
    m_quitAction->setText(tr("&Quit"));
    m_viewMenu->setTitle(tr("&View"));
    m_languageMenu->setTitle(tr("&Language"));
    m_unitMenu->setTitle(tr("Memory &Unit"));
    const QList<QAction*> units = m_unitGroup->actions();
    units[0]->setText(tr("GiB (binary, as PyTorch and nvidia-smi count)"));
    units[1]->setText(tr("GB (decimal, as datasheets print)"));
    m_teachingMenu->setTitle(tr("&Teaching"));
    m_seedBookAction->setText(tr("&Seed book: polyglot-ko-1.3b experiment…"));
    m_seedBookAction->setStatusTip(tr("The book's measured GPU memory beside Headroom's plan of each experiment"));
    m_helpMenu->setTitle(tr("&Help"));
    m_aboutAction->setText(tr("&About Headroom"));
    m_tabs->setTabText(static_cast<int>(View::Breakdown), tr("Breakdown"));
    m_tabs->setTabText(static_cast<int>(View::Timeline), tr("Timeline"));
    m_tabs->setTabText(static_cast<int>(View::Ladder), tr("Ladder"));
    m_tabs->setTabText(static_cast<int>(View::Sweep), tr("Sweep"));
    m_tabs->setTabToolTip(static_cast<int>(View::Breakdown), tr("What the GPU holds at the peak, and where each number comes from"));
    m_tabs->setTabText(static_cast<int>(View::Stages), tr("Stages"));
    m_tabs->setTabToolTip(static_cast<int>(View::Stages),
                          tr("Each pipeline stage's memory side by side, and which stage is the worst"));
    m_tabs->setTabToolTip(static_cast<int>(View::Timeline), tr("Memory through one step, event by event"));
    m_tabs->setTabToolTip(static_cast<int>(View::Ladder), tr("Techniques applied one after another, with the saving of each"));
    m_tabs->setTabToolTip(static_cast<int>(View::Sweep), tr("Memory against micro-batch and sequence length"));
    // Validate tab (issue 5).
    m_tabs->setTabText(static_cast<int>(View::Validate), tr("Validate"));
    m_tabs->setTabToolTip(static_cast<int>(View::Validate), tr("Run the step for real in a separate process and compare measured with planned"));
    retranslatePlanning();
    updateTitle();
}

void MainWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QMainWindow::changeEvent(event);
}

void MainWindow::readSettings()
{
    const QSettings settings;
    setUnit(settings.value(QStringLiteral("unit")).toString() == QLatin1String("GB") ? MemoryUnit::GB : MemoryUnit::GiB);
    const QString language = settings.value(QStringLiteral("language"), LanguageManager::systemLanguage()).toString();
    if (!m_languages->setLanguage(language))
        m_languages->setLanguage(QStringLiteral("en"));
    // First start: a size that shows the panel, the verdict and a chart at once.
    if (!restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray()))
        resize(1440, 900);
}

void MainWindow::writeSettings() const { QSettings().setValue(QStringLiteral("geometry"), saveGeometry()); }

void MainWindow::setUnit(MemoryUnit unit)
{
    MemoryUnits::setCurrent(unit);
    for (QAction* action : m_unitGroup->actions())
        action->setChecked(action->data().toInt() == static_cast<int>(unit));
    m_panel->refreshUnits();
    m_verdict->refresh();
    m_breakdown->refresh();
    m_stages->refresh();
    m_timeline->refresh();
    m_ladder->refresh();
    m_sweep->refresh();
    m_validate->refresh();
    refreshPlanningViews();
}

void MainWindow::setScenario(const Scenario& scenario) { m_document->reset(scenario, m_document->path()); }

Scenario MainWindow::scenario() const { return m_document->scenario(); }

const std::optional<Plan>& MainWindow::plan() const { return m_document->plan(); }

QString MainWindow::currentFile() const { return m_document->path(); }

void MainWindow::replanNow() { m_document->planNow(); }

void MainWindow::applyEdit(const Scenario& scenario)
{
    // Not from the panel, so the panel shows it; one undo step of its own.
    m_panel->setScenario(scenario);
    m_document->edit(scenario);
    m_document->planNow();
}

void MainWindow::showPlan()
{
    const Scenario& planned = m_document->scenario();
    if (const auto& plan = m_document->plan()) {
        m_panel->showProblem(QString());
        m_verdict->setPlan(planned, *plan);
        m_breakdown->setPlan(*plan);
    } else {
        // Never silently ignored: the reason is shown by the inputs and in place of the verdict.
        const QString message = m_document->problem() ? ErrorText::message(*m_document->problem()) : QString();
        m_panel->showProblem(message);
        m_verdict->setProblem(message);
        m_breakdown->clearPlan();
    }
    // Validate tab: a Run measures the scenario as it is now, valid or not (the child says what is wrong).
    m_validate->setScenario(planned);
    updateVisibleView();
}

void MainWindow::updateVisibleView()
{
    // The timeline (~100 graphs for an 80-layer model) replots only when it
    // is shown: replotting it hidden doubled the edit-to-replot latency
    // (bench_ui); the ladder, sweep, make it fit and search plan dozens to
    // thousands of variants; the stages have no need to follow edits unseen.
    QWidget* current = m_tabs->currentWidget();
    if (current != m_stages && current != m_timeline && current != m_ladder && current != m_sweep &&
        current != m_makeItFit && current != m_search)
        return;
    const std::uint64_t revision = m_document->revision();
    auto shown = m_shownRevision.find(current);
    if (shown != m_shownRevision.end() && shown.value() == revision)
        return;
    m_shownRevision.insert(current, revision);
    const Scenario& planned = m_document->scenario();
    if (current == m_stages) {
        if (const auto& plan = m_document->plan())
            m_stages->setPlan(*plan);
        else
            m_stages->clearPlan();
    } else if (current == m_timeline) {
        if (const auto& plan = m_document->plan())
            m_timeline->setPlan(*plan);
        else
            m_timeline->clearPlan();
    } else if (current == m_ladder) {
        m_ladder->setLadder(m_document->ladder());
    } else if (current == m_sweep) {
        m_sweep->showCurrent();
    } else if (current == m_search) {
        m_search->showCurrent();
    } else {
        m_makeItFit->setSuggestions(planned, m_document->suggestions());
    }
}

void MainWindow::showView(View view) { m_tabs->setCurrentIndex(static_cast<int>(view)); }

std::optional<MainWindow::View> MainWindow::viewFromName(const QString& name)
{
    const QString key = name.toLower();
    if (key == QLatin1String("breakdown"))
        return View::Breakdown;
    if (key == QLatin1String("stages"))
        return View::Stages;
    if (key == QLatin1String("timeline"))
        return View::Timeline;
    if (key == QLatin1String("ladder"))
        return View::Ladder;
    if (key == QLatin1String("sweep"))
        return View::Sweep;
    if (key == QLatin1String("validate"))
        return View::Validate;
    if (key == QLatin1String("fit") || key == QLatin1String("makeitfit"))
        return View::MakeItFit;
    if (key == QLatin1String("compare"))
        return View::Compare;
    if (key == QLatin1String("search"))
        return View::Search;
    return std::nullopt;
}

QCustomPlot* MainWindow::currentChart() const
{
    switch (static_cast<View>(m_tabs->currentIndex())) {
    case View::Breakdown: return m_breakdown->chart();
    // Without stages the tab shows a sentence, no chart: the breakdown's is the plan's.
    case View::Stages:
        if (m_stages->showsStages())
            return m_stages->chart();
        return m_breakdown->chart();
    case View::Timeline: return m_timeline;
    case View::Ladder: return m_ladder->chart();
    case View::Sweep: return m_sweep;
    case View::Validate: return m_validate->barsChart();
    case View::MakeItFit: return m_breakdown->chart();
    case View::Compare: return m_compare->chart();
    case View::Search: return m_breakdown->chart(); // a table, no chart of its own
    }
    return m_breakdown->chart();
}

QString MainWindow::openFile(const QString& path)
{
    auto scenario = readScenarioFile(path.toStdString());
    if (!scenario)
        return tr("Cannot open %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(scenario.error()));
    m_document->reset(scenario.value(), QFileInfo(path).absoluteFilePath());
    m_recent->add(m_document->path());
    return QString();
}

bool MainWindow::openFileInteractive(const QString& path)
{
    const QString error = openFile(path);
    if (error.isEmpty())
        return true;
    QMessageBox::warning(this, tr("Cannot open scenario"), error);
    return false;
}

QString MainWindow::saveFile(const QString& path)
{
    auto written = writeScenarioFile(m_document->scenario(), path.toStdString());
    if (!written)
        return tr("Cannot save %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(written.error()));
    m_document->markSaved(QFileInfo(path).absoluteFilePath());
    m_recent->add(m_document->path());
    return QString();
}

void MainWindow::newScenario()
{
    auto teaching = teachingScenario();
    if (!teaching)
        return;
    m_document->reset(teaching.value());
}

void MainWindow::openDialog()
{
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open scenario"), QFileInfo(m_document->path()).absolutePath(),
                                     tr("Headroom scenarios (*.headroom.json *.json);;All files (*)"));
    if (!path.isEmpty())
        openFileInteractive(path);
}

void MainWindow::openFromHub()
{
    HubDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted || !dialog.model())
        return;
    // The model into the scenario, the rest of the setup kept: one undo step.
    Scenario s = m_document->scenario();
    s.model = dialog.model()->model.spec;
    applyEdit(s);
    statusBar()->showMessage(dialog.summary(), 15000);
}

bool MainWindow::save()
{
    if (m_document->path().isEmpty())
        return saveAs();
    const QString error = saveFile(m_document->path());
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Cannot save scenario"), error);
    return error.isEmpty();
}

bool MainWindow::saveAs()
{
    const QString current = m_document->path();
    const QString suggested = current.isEmpty() ? QStringLiteral("scenario") + kScenarioSuffix : current;
    QString path = QFileDialog::getSaveFileName(this, tr("Save scenario"), suggested,
                                                tr("Headroom scenarios (*.headroom.json)"));
    if (path.isEmpty())
        return false;
    if (!path.endsWith(QLatin1String(".json")))
        path += kScenarioSuffix;
    const QString error = saveFile(path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Cannot save scenario"), error);
    return error.isEmpty();
}

bool MainWindow::maybeSave()
{
    if (!isWindowModified()) // the document's flag (modifiedChanged)
        return true;
    const auto answer = QMessageBox::warning(this, tr("Unsaved changes"),
                                             tr("The scenario has been modified. Save the changes?"),
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    writeSettings();
    event->accept();
}

void MainWindow::exportChart()
{
    const QString current = m_document->path();
    const QString base = current.isEmpty() ? QStringLiteral("headroom") : QFileInfo(current).completeBaseName();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"),
                                                      base + QLatin1Char('-') + m_tabs->tabText(m_tabs->currentIndex()).toLower() +
                                                          QStringLiteral(".png"),
                                                      ChartExport::fileFilter());
    if (path.isEmpty())
        return;
    const QString error = ChartExport::save(currentChart(), path);
    if (!error.isEmpty())
        QMessageBox::warning(this, tr("Cannot export chart"), error);
    else
        statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 4000);
}

void MainWindow::updateTitle()
{
    const QString current = m_document->path();
    const QString name = current.isEmpty() ? tr("Untitled") : QFileInfo(current).fileName();
    //: window title: file name, then the application
    setWindowTitle(tr("%1[*] — Headroom").arg(name));
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Headroom"),
                       tr("<h3>Headroom %1</h3><p>Will this training run fit on my GPU, and what should I change so "
                          "that it does?</p><p>Every number comes from one tensor table: each tensor a step creates, "
                          "with its size, its lifetime and the source of its formula.</p><p>GPL-3.0-or-later. Charts by "
                          "QCustomPlot (GPL-3.0).</p>")
                           .arg(QStringLiteral(HEADROOM_VERSION)));
}
