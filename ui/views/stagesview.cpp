// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/stagesview.h"

#include "charts/stageschart.h"
#include "models/stagesmodel.h"

#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QStackedWidget>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

using namespace headroom;

StagesView::StagesView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new StagesChart(this))
    , m_model(new StagesModel(this))
    , m_table(new QTableView(this))
    , m_summary(new QLabel(this))
    , m_single(new QLabel(this))
    , m_pages(new QStackedWidget(this))
{
    m_summary->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

    // The chart gets the full width (a bar per stage); the table sits below.
    auto* below = new QWidget(this);
    auto* belowLayout = new QVBoxLayout(below);
    belowLayout->setContentsMargins(8, 4, 8, 8);
    belowLayout->addWidget(m_summary);
    belowLayout->addWidget(m_table, 1);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(below);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 1);
    splitter->setChildrenCollapsible(false);

    m_single->setWordWrap(true);
    m_single->setAlignment(Qt::AlignCenter);
    m_single->setForegroundRole(QPalette::PlaceholderText);
    m_single->setMargin(32);
    QFont large = m_single->font();
    large.setPointSizeF(large.pointSizeF() * 1.2);
    m_single->setFont(large);

    m_pages->addWidget(splitter);
    m_pages->addWidget(m_single);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_pages);
    clearPlan();
}

void StagesView::setPlan(const Plan& plan)
{
    m_tp = plan.tensorParallel;
    m_pp = plan.pipelineParallel;
    m_dp = plan.dataParallel;
    m_cp = plan.contextParallel;
    m_ep = plan.expertParallel;
    m_etp = plan.expertTensorParallel;
    m_vpp = plan.virtualStages;
    m_worstStage = plan.worstRank < plan.ranks.size() ? plan.ranks[plan.worstRank].stage : 0;
    m_shown = plan.ranks.empty() ? Shown::SingleGpu : Shown::Stages;
    m_chart->setPlan(plan);
    m_model->setPlan(plan);
    retranslate();
}

void StagesView::clearPlan()
{
    m_shown = Shown::NoPlan;
    m_chart->clearPlan();
    m_model->clear();
    retranslate();
}

void StagesView::refresh()
{
    m_chart->refresh();
    m_model->refresh();
}

bool StagesView::showsStages() const { return m_shown == Shown::Stages; }

QString StagesView::singleGpuMessage()
{
    return tr("Every GPU holds the same plan: the Breakdown tab shows it. The pipeline stages appear here side by side "
              "when the layout splits the model: set Tensor parallel, Pipeline stages, Context parallel or Expert "
              "parallel above 1 in the GPU group of the panel.");
}

QString StagesView::summary() const { return m_summary->text(); }

void StagesView::retranslate()
{
    m_pages->setCurrentIndex(m_shown == Shown::SingleGpu ? 1 : 0);
    m_single->setText(m_shown == Shown::SingleGpu ? singleGpuMessage() : QString());
    if (m_shown != Shown::Stages) {
        m_summary->clear();
        return;
    }
    // The parallel degrees as the CLI and the Search tab abbreviate them.
    QStringList layout{QStringLiteral("tp %1").arg(m_tp), QStringLiteral("pp %1").arg(m_pp)};
    if (m_vpp > 1)
        layout << QStringLiteral("vpp %1").arg(m_vpp);
    if (m_cp > 1)
        layout << QStringLiteral("cp %1").arg(m_cp);
    layout << QStringLiteral("dp %1").arg(m_dp);
    // The routed experts' split, which the rest of the line does not show:
    // ep over the data-parallel ranks, etp only where it is not tp (as the
    // Search tab says it).
    if (m_ep > 1)
        layout << QStringLiteral("ep %1").arg(m_ep);
    if (m_etp != 0 && m_etp != m_tp)
        layout << QStringLiteral("etp %1").arg(m_etp);
    //: %1 the layout, e.g. "tp 8 · pp 4 · dp 2"; %2 the number of the worst stage
    m_summary->setText(tr("Layout %1. The verdict, the breakdown and the timeline show the worst stage, stage %2: "
                          "the one with the most device memory used.")
                           .arg(layout.join(QStringLiteral(" · ")))
                           .arg(m_worstStage));
}

void StagesView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        m_model->refresh();
    }
    QWidget::changeEvent(event);
}
