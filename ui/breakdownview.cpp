// SPDX-License-Identifier: GPL-3.0-or-later
#include "breakdownview.h"

#include "breakdownchart.h"
#include "explainpanel.h"

#include <QHBoxLayout>
#include <QSplitter>

#include <algorithm>

using namespace headroom;

BreakdownView::BreakdownView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new BreakdownChart(this))
    , m_explain(new ExplainPanel(this))
{
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(m_explain);
    // The bar and its legend need little width; the tensor table needs it all.
    splitter->setStretchFactor(0, 0);
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({420, 600});
    splitter->setChildrenCollapsible(false);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_chart, &BreakdownChart::segmentClicked, this, [this](const DeviceSegment& segment) {
        m_userChoseSegment = true;
        selectSegment(segment);
    });
}

void BreakdownView::setPlan(const Plan& plan)
{
    if (m_userChoseSegment) {
        m_chart->setPlan(plan);
        m_explain->setPlan(plan);
        return;
    }
    // Until the reader picks one, explain the largest category: usually the
    // answer to "what is eating my memory?". Chosen first, so the chart
    // replots and the Explain panel refreshes once per edit, not twice.
    const auto largest = std::max_element(plan.breakdown.begin(), plan.breakdown.end());
    const DeviceSegment segment{DeviceSegment::Kind::Category,
                                static_cast<Category>(std::distance(plan.breakdown.begin(), largest)), 0};
    m_chart->setPlan(plan, segment);
    m_explain->setPlan(plan, segment);
}

void BreakdownView::clearPlan()
{
    m_chart->clearPlan();
    m_explain->clearPlan();
}

void BreakdownView::selectSegment(const DeviceSegment& segment)
{
    m_chart->setSelectedSegment(segment);
    m_explain->setSegment(segment);
}

void BreakdownView::refresh()
{
    m_chart->refresh();
    m_explain->refresh();
}
