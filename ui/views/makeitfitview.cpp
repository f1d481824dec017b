// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/makeitfitview.h"

#include "models/suggestionmodel.h"

#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

MakeItFitView::MakeItFitView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_model(new SuggestionModel(this))
    , m_table(new QTableView(this))
    , m_undo(new QPushButton(this))
    , m_note(new QLabel(this))
{
    m_summary->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("makeItFitSummary"));
    QFont bigger = m_summary->font();
    bigger.setPointSizeF(bigger.pointSizeF() * 1.15);
    m_summary->setFont(bigger);
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() * 2);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(SuggestionModel::Change, QHeaderView::Stretch);
    m_undo->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_note, 1);
    bottom->addWidget(m_undo, 0, Qt::AlignTop);
    layout->addLayout(bottom);

    connect(m_undo, &QPushButton::clicked, this, [this] {
        if (!m_beforeApply)
            return;
        const Scenario previous = *m_beforeApply;
        m_beforeApply.reset();
        m_undo->setEnabled(false);
        emit applyScenario(previous);
    });
    fill();
}

void MakeItFitView::setSuggestions(const Scenario& scenario, const Result<MakeItFitResult>& result)
{
    m_scenario = scenario;
    if (result) {
        m_result = result.value();
        m_error.clear();
    } else {
        m_result.reset();
        m_error = ErrorText::message(result.error());
    }
    fill();
}

void MakeItFitView::applySuggestion(int index)
{
    if (!m_result || index < 0 || index >= static_cast<int>(m_result->suggestions.size()))
        return;
    m_beforeApply = m_scenario;
    m_undo->setEnabled(true);
    emit applyScenario(m_result->suggestions[static_cast<std::size_t>(index)].scenario);
}

QString MakeItFitView::summary() const { return m_summary->text(); }

void MakeItFitView::refresh() { fill(); }

void MakeItFitView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        fill();
    QWidget::changeEvent(event);
}

void MakeItFitView::fill()
{
    m_undo->setText(tr("Undo apply"));
    m_undo->setToolTip(tr("Return the panel to the configuration before the last applied change"));
    m_note->setText(tr("Step-time costs are estimates from published measurements (hover a change for its "
                       "reason); memory comes from the planner. Changes marked \"method\" train differently, "
                       "\"task\" changes what is trained."));
    const bool suggestions = m_result && !m_result->alreadyFits && !m_result->suggestions.empty();
    m_model->setSuggestions(suggestions ? m_result->suggestions : std::vector<FitSuggestion>{});
    if (!m_result) {
        m_summary->setText(m_error.isEmpty() ? tr("No scenario yet.") : m_error);
        return;
    }
    const MakeItFitResult& r = *m_result;
    if (r.alreadyFits) {
        m_summary->setText(tr("It already fits, with %1 to spare: nothing to change.")
                               .arg(MemoryUnits::format(static_cast<double>(r.baseMarginBytes))));
        return;
    }
    if (r.suggestions.empty()) {
        m_summary->setText(tr("Out of memory by %1, and no combination of up to three changes makes it fit: "
                              "a larger GPU, more GPUs or a smaller model.")
                               .arg(MemoryUnits::format(static_cast<double>(-r.baseMarginBytes))));
        return;
    }
    m_summary->setText(tr("Out of memory by %1. The cheapest changes that make it fit, by estimated step time:")
                           .arg(MemoryUnits::format(static_cast<double>(-r.baseMarginBytes))));
    for (int row = 0; row < m_model->rowCount(); ++row) {
        auto* apply = new QPushButton(tr("Apply"));
        apply->setToolTip(tr("Load this configuration into the panel"));
        connect(apply, &QPushButton::clicked, this, [this, row] { applySuggestion(row); });
        m_table->setIndexWidget(m_model->index(row, SuggestionModel::Apply), apply);
    }
    m_table->scrollToTop();
}
