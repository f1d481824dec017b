// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/ladderview.h"

#include "models/laddermodel.h"

#include "charts/ladderchart.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

LadderView::LadderView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new LadderChart(this))
    , m_intro(new QLabel(this))
    , m_model(new LadderModel(this))
    , m_table(new QTableView(this))
    , m_apply(new QPushButton(this))
{
    m_intro->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_apply->setEnabled(false);

    // The chart gets the full width (its step names and savings need it);
    // the table with the apply button sits below.
    auto* below = new QWidget(this);
    auto* belowLayout = new QVBoxLayout(below);
    belowLayout->setContentsMargins(8, 4, 8, 8);
    belowLayout->addWidget(m_intro);
    auto* tableRow = new QHBoxLayout;
    tableRow->addWidget(m_table, 1);
    tableRow->addWidget(m_apply, 0, Qt::AlignBottom);
    belowLayout->addLayout(tableRow, 1);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(below);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_chart, &LadderChart::stepClicked, this, &LadderView::selectStep);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                const int row = current.isValid() ? current.row() : -1;
                m_chart->setSelectedStep(row);
                m_apply->setEnabled(row >= 0 && row < m_model->rowCount());
            });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -1;
        if (row >= 0 && row < m_model->rowCount())
            emit applyScenario(m_model->steps()[static_cast<std::size_t>(row)].scenario);
    });
    retranslate();
}

void LadderView::setLadder(const Result<std::vector<LadderStep>>& ladder)
{
    const int current = m_table->currentIndex().isValid() ? m_table->currentIndex().row() : -1;
    if (ladder) {
        m_model->setSteps(ladder.value());
        m_error.clear();
    } else {
        m_model->setSteps({});
        m_error = ErrorText::message(ladder.error());
    }
    m_chart->setSteps(m_model->steps());
    showIntro();
    selectStep(current);
}

void LadderView::selectStep(int index)
{
    if (index >= 0 && index < m_model->rowCount())
        m_table->setCurrentIndex(m_model->index(index, 0));
}

void LadderView::retranslate()
{
    m_apply->setText(tr("Apply this step"));
    m_apply->setToolTip(tr("Load the selected step's configuration into the panel"));
    m_model->refresh();
    showIntro();
}

void LadderView::refresh()
{
    m_chart->refresh();
    m_model->refresh();
}

void LadderView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void LadderView::showIntro()
{
    m_intro->setText(m_error.isEmpty()
                         ? tr("Start from a naive full fine-tune of this model on this GPU, then add one technique at "
                              "a time. Each step keeps the ones before it.")
                         : m_error);
}

const std::vector<LadderStep>& LadderView::steps() const { return m_model->steps(); }
