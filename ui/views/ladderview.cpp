// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/ladderview.h"

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
#include <QTableWidget>
#include <QVBoxLayout>

using namespace headroom;

LadderView::LadderView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new LadderChart(this))
    , m_intro(new QLabel(this))
    , m_table(new QTableWidget(this))
    , m_apply(new QPushButton(this))
{
    m_intro->setWordWrap(true);
    m_table->setColumnCount(4);
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
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) {
        m_chart->setSelectedStep(row);
        m_apply->setEnabled(row >= 0 && row < static_cast<int>(m_steps.size()));
    });
    connect(m_apply, &QPushButton::clicked, this, [this] {
        const int row = m_table->currentRow();
        if (row >= 0 && row < static_cast<int>(m_steps.size()))
            emit applyScenario(m_steps[static_cast<std::size_t>(row)].scenario);
    });
    retranslate();
}

void LadderView::setLadder(const Result<std::vector<LadderStep>>& ladder)
{
    if (ladder) {
        m_steps = ladder.value();
        m_error.clear();
    } else {
        m_steps.clear();
        m_error = ErrorText::message(ladder.error());
    }
    m_chart->setSteps(m_steps);
    fillTable();
}

void LadderView::selectStep(int index)
{
    if (index >= 0 && index < m_table->rowCount())
        m_table->setCurrentCell(index, 0);
}

void LadderView::retranslate()
{
    m_table->setHorizontalHeaderLabels({tr("Step"), tr("Device used"), tr("Saving"), tr("Verdict")});
    m_apply->setText(tr("Apply this step"));
    m_apply->setToolTip(tr("Load the selected step's configuration into the panel"));
    fillTable();
}

void LadderView::refresh()
{
    m_chart->refresh();
    fillTable();
}

void LadderView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        retranslate();
    QWidget::changeEvent(event);
}

void LadderView::fillTable()
{
    m_intro->setText(m_error.isEmpty()
                         ? tr("Start from a naive full fine-tune of this model on this GPU, then add one technique at "
                              "a time. Each step keeps the ones before it.")
                         : m_error);
    const int current = m_table->currentRow();
    m_table->setRowCount(static_cast<int>(m_steps.size()));
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const LadderStep& step = m_steps[i];
        const auto row = static_cast<int>(i);
        auto* name = new QTableWidgetItem(DisplayNames::ladderStep(step.id, step.label));
        name->setToolTip(QString::fromStdString(step.label));
        m_table->setItem(row, 0, name);
        auto* used = new QTableWidgetItem(MemoryUnits::format(static_cast<double>(step.plan.deviceUsedBytes)));
        used->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 1, used);
        auto* saving = new QTableWidgetItem(i == 0                  ? QString()
                                            : step.savingBytes == 0 ? tr("no change")
                                                                    : MemoryUnits::formatSigned(-static_cast<double>(step.savingBytes)));
        saving->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 2, saving);
        auto* verdict = new QTableWidgetItem(step.plan.fits ? tr("fits") : tr("out of memory"));
        verdict->setForeground(step.plan.fits ? Palette::fits() : Palette::outOfMemory());
        m_table->setItem(row, 3, verdict);
    }
    if (current >= 0 && current < m_table->rowCount())
        m_table->setCurrentCell(current, 0);
}
