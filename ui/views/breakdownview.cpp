// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/breakdownview.h"

#include "charts/breakdownchart.h"
#include "views/explainpanel.h"

#include <QHBoxLayout>
#include <QSplitter>
#include <QTimer>

#include <algorithm>

using namespace headroom;

BreakdownView::BreakdownView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new BreakdownChart(this))
    , m_explain(new ExplainPanel(this))
    , m_followLargest(new QTimer(this))
{
    m_followLargest->setSingleShot(true);
    m_followLargest->setInterval(kSettleMs);
    connect(m_followLargest, &QTimer::timeout, this, [this] {
        if (m_userChoseSegment)
            return;
        m_autoSegment = m_pendingSegment;
        selectSegment(m_pendingSegment);
    });
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
    const bool inBurst = m_sinceLastPlan.isValid() && m_sinceLastPlan.elapsed() < kSettleMs;
    m_sinceLastPlan.restart();
    if (m_userChoseSegment) {
        m_chart->setPlan(plan);
        m_explain->setPlan(plan);
        return;
    }
    // Until the reader picks one, explain the largest category: usually the
    // answer to "what is eating my memory?". Chosen first, so the chart
    // replots and the Explain panel refreshes once per edit, not twice.
    const auto largest = std::max_element(plan.breakdown.begin(), plan.breakdown.end());
    m_pendingSegment = {DeviceSegment::Kind::Category,
                        static_cast<Category>(std::distance(plan.breakdown.begin(), largest)), 0};
    // While edits come in a burst (a spin box held down, a slider dragged),
    // the panel keeps explaining the category it shows, with this plan's
    // numbers, instead of jumping between categories whose sizes cross; it
    // follows the largest once the edits pause. Replacing the whole panel is
    // the costliest repaint of an edit (docs/benchmarks.md).
    if (m_haveAutoSegment && !(m_pendingSegment == m_autoSegment) && inBurst) {
        m_chart->setPlan(plan, m_autoSegment);
        m_explain->setPlan(plan, m_autoSegment);
        m_followLargest->start();
        return;
    }
    m_followLargest->stop();
    m_autoSegment = m_pendingSegment;
    m_haveAutoSegment = true;
    m_chart->setPlan(plan, m_autoSegment);
    m_explain->setPlan(plan, m_autoSegment);
}

void BreakdownView::clearPlan()
{
    m_followLargest->stop();
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
