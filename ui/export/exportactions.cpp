// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportactions.h"

#include "charts/devicestack.h"
#include "document/plandocument.h"
#include "export/reportwriter.h"
#include "io/atomicfile.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QFileInfo>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QStatusBar>
#include <QWindow>
#include <qcustomplot.h>

#include <algorithm>

using namespace headroom;

ExportActions::ExportActions(QMainWindow* window, PlanDocument* document, ChartSource chart, QMenu* fileMenu,
                             QAction* before, QMenu* beforeMenu)
    : QObject(window)
    , m_window(window)
    , m_document(document)
    , m_chart(std::move(chart))
    , m_exportMenu(new QMenu(window))
    , m_editMenu(new QMenu(window))
    , m_reportAction(new QAction(this))
    , m_copyMarkdownAction(new QAction(this))
    , m_copyTextAction(new QAction(this))
    , m_copyChartAction(new QAction(this))
{
    for (ExportFormat format : allExportFormats()) {
        QAction* action = m_exportMenu->addAction(QString());
        connect(action, &QAction::triggered, this, [this, format] { exportDialog(format); });
        m_formatActions.emplace_back(format, action);
    }
    fileMenu->insertMenu(before, m_exportMenu);
    fileMenu->insertAction(before, m_reportAction);
    m_reportAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(m_reportAction, &QAction::triggered, this, &ExportActions::reportDialog);

    m_editMenu->addAction(m_copyMarkdownAction);
    m_editMenu->addAction(m_copyTextAction);
    m_editMenu->addAction(m_copyChartAction);
    m_copyMarkdownAction->setShortcut(QKeySequence::Copy);
    m_copyChartAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_copyMarkdownAction, &QAction::triggered, this, [this] { report(copyMarkdown(), {}, tr("Cannot copy")); });
    connect(m_copyTextAction, &QAction::triggered, this, [this] { report(copyText(), {}, tr("Cannot copy")); });
    connect(m_copyChartAction, &QAction::triggered, this, [this] { report(copyChart(), {}, tr("Cannot copy")); });
    window->menuBar()->insertMenu(beforeMenu->menuAction(), m_editMenu);
    retranslate();
}

QString ExportActions::formatTitle(ExportFormat format)
{
    switch (format) {
    case ExportFormat::HfPython: return tr("Hugging Face &training script (Python)…");
    case ExportFormat::DeepSpeedJson: return tr("&DeepSpeed config (JSON)…");
    case ExportFormat::AccelerateFsdpYaml: return tr("&accelerate FSDP config (YAML)…");
    case ExportFormat::MegatronArgs: return tr("M&egatron-LM arguments (shell)…");
    case ExportFormat::TorchtitanToml: return tr("torchtitan &job file (TOML)…");
    case ExportFormat::Markdown: return tr("&Markdown report…");
    case ExportFormat::Csv: return tr("&Timeline (CSV)…");
    case ExportFormat::PlanJson: return tr("&Plan (JSON)…");
    case ExportFormat::ScenarioJson: return tr("&Scenario (JSON)…");
    }
    return QString::fromLatin1(exportFormatName(format));
}

QString ExportActions::fileFilter(ExportFormat format)
{
    switch (format) {
    case ExportFormat::HfPython: return tr("Python script (*.py)");
    case ExportFormat::DeepSpeedJson: return tr("DeepSpeed config (*.json)");
    case ExportFormat::AccelerateFsdpYaml: return tr("accelerate config (*.yaml *.yml)");
    case ExportFormat::MegatronArgs: return tr("Shell script (*.sh)");
    case ExportFormat::TorchtitanToml: return tr("torchtitan job file (*.toml)");
    case ExportFormat::Markdown: return tr("Markdown (*.md)");
    case ExportFormat::Csv: return tr("CSV table (*.csv)");
    case ExportFormat::PlanJson: return tr("JSON (*.json)");
    case ExportFormat::ScenarioJson: return tr("Headroom scenarios (*.headroom.json)");
    }
    return QString();
}

QString ExportActions::defaultFileName(ExportFormat format, const QString& base)
{
    // The names the tools look for by default where they have one (ds_config.json
    // in DeepSpeed's examples, accelerate's default_config.yaml).
    switch (format) {
    case ExportFormat::HfPython: return base + QStringLiteral("-train.py");
    case ExportFormat::DeepSpeedJson: return base + QStringLiteral("-ds_config.json");
    case ExportFormat::AccelerateFsdpYaml: return base + QStringLiteral("-accelerate_fsdp.yaml");
    case ExportFormat::MegatronArgs: return base + QStringLiteral("-megatron_args.sh");
    case ExportFormat::TorchtitanToml: return base + QStringLiteral("-torchtitan.toml");
    case ExportFormat::Markdown: return base + QStringLiteral("-plan.md");
    case ExportFormat::Csv: return base + QStringLiteral("-timeline.csv");
    case ExportFormat::PlanJson: return base + QStringLiteral("-plan.json");
    case ExportFormat::ScenarioJson: return base + QStringLiteral(".headroom.json");
    }
    return base;
}

QString ExportActions::exportTo(const Scenario& scenario, const Plan& plan, ExportFormat format, const QString& path)
{
    auto text = exportPlan(scenario, plan, format);
    if (!text)
        return tr("Cannot export %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(text.error()));
    auto written = writeFileAtomically(path.toStdString(), text.value());
    if (!written)
        return tr("Cannot write %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(written.error()));
    return QString();
}

QString ExportActions::currentPlan(Scenario& scenario, Plan& plan) const
{
    m_document->planNow();
    if (!m_document->plan())
        //: %1 is the reason the planner gave
        return tr("There is no plan to export. %1")
            .arg(m_document->problem() ? ErrorText::message(*m_document->problem()) : QString());
    scenario = m_document->scenario();
    plan = *m_document->plan();
    return QString();
}

QString ExportActions::copyMarkdown()
{
    Scenario scenario;
    Plan plan;
    if (QString error = currentPlan(scenario, plan); !error.isEmpty())
        return error;
    auto text = exportPlan(scenario, plan, ExportFormat::Markdown);
    if (!text)
        return ErrorText::message(text.error());
    auto* mime = new QMimeData;
    const QString markdown = QString::fromStdString(text.value());
    mime->setText(markdown);  // pastes as Markdown source into editors, chats and issues
    mime->setData(QStringLiteral("text/markdown"), markdown.toUtf8());
    QApplication::clipboard()->setMimeData(mime);
    return QString();
}

QString ExportActions::copyText()
{
    Scenario scenario;
    Plan plan;
    if (QString error = currentPlan(scenario, plan); !error.isEmpty())
        return error;
    // The verdict and the breakdown as aligned text: pastes readably into a
    // terminal or an e-mail. Every number is one of the plan's.
    QStringList lines;
    lines << tr("%1 on %2 × %3").arg(QString::fromStdString(scenario.model.id), QString::fromStdString(plan.gpu.name))
                 .arg(scenario.hardware.count);
    lines << (plan.fits ? tr("Fits, %1 to spare").arg(MemoryUnits::format(static_cast<double>(plan.marginBytes)))
                        : tr("Out of memory by %1").arg(MemoryUnits::format(-static_cast<double>(plan.marginBytes))));
    lines << QString();
    const QVector<DeviceSegment> segments = DeviceStack::segments(plan);
    int width = 0;
    for (const DeviceSegment& segment : segments)
        width = std::max(width, static_cast<int>(segment.title().size()));
    for (const DeviceSegment& segment : segments)
        if (segment.bytes > 0)
            lines << segment.title().leftJustified(width + 2) + MemoryUnits::format(segment.bytes).rightJustified(12);
    const QString deviceUsed = tr("Device used (nvidia-smi)");
    const QString capacity = tr("Capacity");
    lines << QString();
    lines << deviceUsed.leftJustified(width + 2) +
                 MemoryUnits::format(static_cast<double>(plan.deviceUsedBytes)).rightJustified(12);
    lines << capacity.leftJustified(width + 2) + MemoryUnits::format(static_cast<double>(plan.capacityBytes)).rightJustified(12);
    QApplication::clipboard()->setText(lines.join(QLatin1Char('\n')) + QLatin1Char('\n'));
    return QString();
}

QString ExportActions::copyChart()
{
    QCustomPlot* chart = m_chart();
    if (!chart)
        return tr("There is no chart in this view.");
    // At least twice the chart's size, more on a high-DPI screen: crisp when pasted into slides.
    const qreal ratio = std::max<qreal>(2.0, chart->devicePixelRatioF());
    const QPixmap pixmap = chart->toPixmap(chart->width(), chart->height(), ratio);
    if (pixmap.isNull())
        return tr("The chart could not be drawn.");
    QApplication::clipboard()->setImage(pixmap.toImage());
    return QString();
}

QString ExportActions::baseName() const
{
    const QString path = m_document->path();
    if (path.isEmpty())
        return QStringLiteral("headroom");
    QString base = QFileInfo(path).fileName();
    if (base.endsWith(QLatin1String(".headroom.json")))
        base.chop(14);
    else
        base = QFileInfo(path).completeBaseName();
    return base;
}

void ExportActions::exportDialog(ExportFormat format)
{
    Scenario scenario;
    Plan plan;
    if (QString error = currentPlan(scenario, plan); !error.isEmpty()) {
        report(error, {}, tr("Cannot export"));
        return;
    }
    const QString folder = m_document->path().isEmpty() ? QString() : QFileInfo(m_document->path()).absolutePath();
    const QString suggested = (folder.isEmpty() ? QString() : folder + QLatin1Char('/')) + defaultFileName(format, baseName());
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export"), suggested, fileFilter(format));
    if (path.isEmpty())
        return;
    report(exportTo(scenario, plan, format, path), path, tr("Cannot export"));
}

void ExportActions::reportDialog()
{
    Scenario scenario;
    Plan plan;
    if (QString error = currentPlan(scenario, plan); !error.isEmpty()) {
        report(error, {}, tr("Cannot export report"));
        return;
    }
    const QString folder = m_document->path().isEmpty() ? QString() : QFileInfo(m_document->path()).absolutePath();
    const QString suggested = (folder.isEmpty() ? QString() : folder + QLatin1Char('/')) + baseName() + QStringLiteral("-report.pdf");
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export report"), suggested, tr("PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QApplication::setOverrideCursor(Qt::WaitCursor);  // the fit searches plan a few hundred variants
    const QString error = ReportWriter::write(scenario, plan, path);
    QApplication::restoreOverrideCursor();
    report(error, path, tr("Cannot export report"));
}

void ExportActions::report(const QString& error, const QString& path, const QString& failureTitle)
{
    if (!error.isEmpty())
        QMessageBox::warning(m_window, failureTitle, error);
    else if (!path.isEmpty())
        m_window->statusBar()->showMessage(tr("Saved %1").arg(QFileInfo(path).fileName()), 4000);
    else
        m_window->statusBar()->showMessage(tr("Copied"), 3000);
}

void ExportActions::retranslate()
{
    m_exportMenu->setTitle(tr("Export &As"));
    for (const auto& [format, action] : m_formatActions)
        action->setText(formatTitle(format));
    m_reportAction->setText(tr("Export &Report (PDF)…"));
    m_reportAction->setStatusTip(tr("A printable report: the scenario, the verdict, the charts, the formulas with their sources and the recommendations"));
    m_editMenu->setTitle(tr("&Edit"));
    m_copyMarkdownAction->setText(tr("&Copy Plan as Markdown"));
    m_copyTextAction->setText(tr("Copy Plan as &Text"));
    m_copyChartAction->setText(tr("Copy C&hart as Image"));
}
