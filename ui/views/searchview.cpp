// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/searchview.h"

#include "document/plandocument.h"
#include "models/layoutsearchmodel.h"
#include "text/errortext.h"
#include "text/searchtext.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

namespace {

QLabel* noteLabel(QWidget* parent)
{
    auto* label = new QLabel(parent);
    label->setWordWrap(true);
    label->setForegroundRole(QPalette::PlaceholderText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

// Why there is no search: the engine's reason, translated. Where the
// phrase table knows the detail it says everything (the code's one-line
// summary, "A value is out of range.", would only blur it).
QString refusal(const Error& error)
{
    const QString known = ErrorText::knownDetail(error.detail);
    return known.isEmpty() ? ErrorText::message(error) : known;
}

} // namespace

SearchView::SearchView(PlanDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_headline(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(this))
    , m_again(new QPushButton(this))
    , m_model(new LayoutSearchModel(this))
    , m_table(new QTableView(this))
    , m_why(new QLabel(this))
    , m_counts(noteLabel(this))
    , m_assumptions(noteLabel(this))
    , m_apply(new QPushButton(this))
{
    m_headline->setWordWrap(true);
    m_headline->setObjectName(QStringLiteral("searchHeadline"));
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bigger = m_headline->font();
    bigger.setPointSizeF(bigger.pointSizeF() * 1.15);
    m_headline->setFont(bigger);
    m_why->setWordWrap(true);
    m_why->setObjectName(QStringLiteral("searchWhy"));
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setTextVisible(true);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As wide as its columns and as tall as its ten rows, so the explanation
    // sits right under them; it scrolls when the window is smaller.
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Maximum);
    m_apply->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->addWidget(m_headline);
    auto* running = new QHBoxLayout;
    running->addWidget(m_progress, 1);
    running->addWidget(m_cancel);
    running->addWidget(m_again);
    running->addStretch(0);
    layout->addLayout(running);
    layout->addWidget(m_table, 0, Qt::AlignLeft);
    auto* underTable = new QHBoxLayout;
    underTable->addWidget(m_why, 1);
    underTable->addWidget(m_apply, 0, Qt::AlignTop);
    layout->addLayout(underTable);
    layout->addWidget(m_counts);
    layout->addWidget(m_assumptions);
    layout->addStretch(1);

    connect(m_cancel, &QPushButton::clicked, this, &SearchView::cancel);
    connect(m_again, &QPushButton::clicked, this, &SearchView::searchAgain);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const QModelIndexList rows = m_table->selectionModel()->selectedRows();
        if (!rows.isEmpty())
            applyRow(rows.constFirst().row());
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SearchView::updateApply);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SearchView::updateApply);
    connect(m_document, &PlanDocument::searchProgress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_document, &PlanDocument::searchReady, this, &SearchView::showOutcome);
    // A new plan: the running search is for the old scenario and never arrives.
    connect(m_document, &PlanDocument::planChanged, this, [this] {
        m_progress->setVisible(false);
        m_cancel->setVisible(false);
    });
    retranslate();
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    m_again->setVisible(false);
    showTable(false);
}

void SearchView::showCurrent()
{
    m_document->requestSearch();
    if (m_document->search())
        showOutcome();
    else
        showRunning();
}

bool SearchView::waitForResult(int timeoutMs) { return m_document->waitForSearch(timeoutMs); }

void SearchView::cancel()
{
    // The engine stops after the shape it is on; what it found then arrives as searchReady.
    m_cancel->setEnabled(false);
    m_document->cancelSearch();
}

void SearchView::searchAgain()
{
    m_document->requestSearch(true);
    showRunning();
}

void SearchView::applyRow(int row)
{
    const auto& layouts = m_model->layouts();
    if (row < 0 || row >= static_cast<int>(layouts.size()))
        return;
    // The document's scenario with the row's layout: an edit like any other (undo, modified, replanned).
    emit applyScenario(applyLayout(m_document->scenario(), layouts[static_cast<std::size_t>(row)]));
}

QString SearchView::headline() const { return m_headline->text(); }

QString SearchView::why() const { return m_why->text(); }

QString SearchView::details() const { return m_counts->text() + QLatin1Char('\n') + m_assumptions->text(); }

void SearchView::refresh()
{
    retranslate();
    if (!m_document->search())
        return;
    // The same rows in the new language or unit: the user's choice of row stays.
    const QModelIndexList selected = m_table->selectionModel()->selectedRows();
    showOutcome();
    if (!selected.isEmpty())
        m_table->selectRow(selected.constFirst().row());
}

void SearchView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QWidget::changeEvent(event);
}

void SearchView::retranslate()
{
    m_cancel->setText(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the search and show the best of the layouts evaluated so far"));
    m_again->setText(tr("Search again"));
    m_apply->setText(tr("Apply selected layout"));
    m_apply->setToolTip(tr("Set the scenario's tensor, pipeline and data parallelism, sharding, micro-batch, "
                           "accumulation and checkpointing to the selected row (Edit ▸ Undo takes it back)"));
    //: progress of the layout search: %v shapes done of %m
    m_progress->setFormat(tr("%v of %m tensor × pipeline shapes"));
    m_model->refresh();
}

void SearchView::showRunning()
{
    const Scenario& s = m_document->scenario();
    const GpuSpec* gpu = lookupGpu(s.hardware.gpu);
    m_headline->setText(tr("Searching the layouts of %1 × %2…")
                            .arg(QLocale().toString(static_cast<qulonglong>(s.hardware.count)),
                                 QString::fromStdString(gpu ? gpu->name : s.hardware.gpu)));
    m_progress->setRange(0, 0); // busy until the first shape is done
    m_progress->setVisible(true);
    m_cancel->setVisible(true);
    m_cancel->setEnabled(true);
    m_again->setVisible(false);
    m_model->setLayouts({}, 0);
    showTable(false);
    m_why->clear();
    m_counts->clear();
    m_assumptions->clear();
    m_assumptions->setToolTip(QString());
}

void SearchView::showTable(bool shown)
{
    // No empty grid under a message or a progress bar.
    m_table->setVisible(shown);
    m_apply->setVisible(shown);
}

void SearchView::showOutcome()
{
    const auto& outcome = m_document->search();
    if (!outcome)
        return;
    m_progress->setVisible(false);
    m_cancel->setVisible(false);
    m_why->clear();
    m_counts->clear();
    m_assumptions->clear();
    if (!outcome->result) {
        m_headline->setText(outcome->error ? refusal(*outcome->error) : QString());
        m_again->setVisible(false);
        m_model->setLayouts({}, 0);
        showTable(false);
        return;
    }
    const LayoutSearchResult& r = *outcome->result;
    m_again->setVisible(r.cancelled);
    QString headline = SearchText::headline(r, outcome->scenario.train.seqLen);
    if (r.gpus == 1)
        headline += QLatin1Char(' ') + tr("With one GPU only the micro-batch and checkpointing vary: set more GPUs "
                                          "in the panel to search tensor, pipeline and data parallelism.");
    m_model->setLayouts(r.layouts, r.gpu.usableBytes());
    showTable(!r.layouts.empty());
    markCurrentLayout();
    if (m_model->currentRow() >= 0)
        headline += QLatin1Char(' ') + tr("The scenario's layout now is #%1, in bold.").arg(m_model->currentRow() + 1);
    m_headline->setText(headline);
    if (!r.layouts.empty())
        m_table->selectRow(0); // Apply takes the best unless another row is chosen
    if (r.layouts.size() >= 2)
        m_why->setText(SearchText::whyBest(r.layouts[0], r.layouts[1]));
    else if (r.layouts.size() == 1)
        m_why->setText(tr("Only one layout fits."));
    QString counts = SearchText::counts(r);
    if (const QString common = SearchText::commonRefusal(r); !common.isEmpty())
        counts += QLatin1Char('\n') + common;
    m_counts->setText(counts);
    m_assumptions->setText(SearchText::assumptions(r));
    m_assumptions->setToolTip(SearchText::linkSource(r));
}

void SearchView::markCurrentLayout()
{
    // The row whose settings the scenario has now: bold, so an Apply shows where it landed.
    const Scenario& s = m_document->scenario();
    const auto& layouts = m_model->layouts();
    int current = -1;
    for (std::size_t k = 0; k < layouts.size() && current < 0; ++k) {
        const LayoutCandidate& c = layouts[k];
        if (c.tp == s.hardware.parallel.tp && c.sp == s.hardware.parallel.sp && c.pp == s.hardware.parallel.pp &&
            s.hardware.parallel.vpp == c.vpp && s.hardware.parallel.dpReplicate == c.dpReplicate &&
            s.hardware.parallel.cp == c.cp && c.tp * c.pp * c.cp * c.dp == s.hardware.count &&
            c.sharding == s.hardware.sharding && c.microBatch == s.train.microBatch &&
            c.gradAccum == s.train.gradAccum && c.checkpointing == s.train.checkpointing)
            current = static_cast<int>(k);
    }
    m_model->setCurrentRow(current);
}

void SearchView::updateApply() { m_apply->setEnabled(m_table->selectionModel()->hasSelection()); }
