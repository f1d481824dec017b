// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/timelineview.h"

#include "charts/capacityline.h"
#include "plan/tensorlifetime.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QToolTip>

#include <numeric>

using namespace headroom;

namespace {

// Forward/backward layer events come in runs; find a run's first and last index.
std::pair<std::size_t, std::size_t> runOf(const Plan& plan, Phase phase)
{
    std::size_t first = plan.events.size(), last = 0;
    for (std::size_t e = 0; e < plan.events.size(); ++e)
        if (plan.events[e].phase == phase) {
            first = std::min(first, e);
            last = e;
        }
    return {first, last};
}

} // namespace

TimelineView::TimelineView(QWidget* parent)
    : QCustomPlot(parent)
    , m_peakLine(nullptr)
    , m_peakLabel(nullptr)
{
    ChartStyle::apply(this);
    setMinimumSize(360, 260);
    QCPBars* below = nullptr;
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        auto* bars = new QCPBars(xAxis, yAxis);
        // Touching columns read as an area, yet each event stays its own column.
        bars->setWidth(1.0);
        bars->setWidthType(QCPBars::wtPlotCoords);
        bars->setSelectable(QCP::stNone);
        const QColor color = Palette::category(static_cast<Category>(c));
        bars->setBrush(color);
        bars->setPen(QPen(color, 1));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.append(bars);
    }
    m_capacity = std::make_unique<CapacityLine>(this, axisRect());
    m_message = ChartStyle::addCenteredMessage(this, axisRect());

    m_peakLine = new QCPItemStraightLine(this);
    m_peakLine->setPen(QPen(Palette::peakMarker(), 1.5, Qt::DashLine));
    m_peakLine->setLayer(QStringLiteral("overlay"));
    m_peakLabel = new QCPItemText(this);
    m_peakLabel->setLayer(QStringLiteral("overlay"));
    m_peakLabel->setColor(Palette::peakMarker());
    m_peakLabel->setBrush(QColor(255, 255, 255, 220));
    m_peakLabel->setPadding(QMargins(4, 2, 4, 2));
    QFont bold = font();
    bold.setBold(true);
    m_peakLabel->setFont(bold);

    // Legend in a row above the plot: the columns use all the width.
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(0);  // one row: the entries spread over the width
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(8, 4, 8, 0));
    axisRect()->setMinimumMargins(QMargins(8, 8, 12, 8));
    clearPlan();
}

TimelineView::~TimelineView() = default;

void TimelineView::clearPlan()
{
    m_plan.reset();
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    // Hidden, not emptied: an empty legend would cap its layout column's
    // width (QCPLayoutGrid takes the smallest maximum in a column) and
    // squeeze the axis rect.
    legend->setVisible(false);
    m_capacity->setVisible(false);
    m_peakLine->setVisible(false);
    m_peakLabel->setVisible(false);
    xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    xAxis->setLabel(QString());
    m_message->setText(ChartStyle::noPlanMessage());
    m_message->setVisible(true);
    replot();
}

void TimelineView::setPlan(const Plan& plan)
{
    m_plan = plan;
    refresh();
}

void TimelineView::refresh()
{
    if (!m_plan) {
        clearPlan();
        return;
    }
    const Plan& plan = *m_plan;
    m_message->setVisible(false);
    const auto eventCount = static_cast<int>(plan.events.size());
    QVector<double> keys(eventCount);
    std::iota(keys.begin(), keys.end(), 0.0);
    legend->setVisible(true);
    legend->clearItems();
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        QVector<double> values(eventCount);
        bool any = false;
        for (int e = 0; e < eventCount; ++e) {
            values[e] = MemoryUnits::toUnit(static_cast<double>(plan.timeline[static_cast<std::size_t>(e)][c]));
            any = any || plan.timeline[static_cast<std::size_t>(e)][c] > 0;
        }
        m_bars[static_cast<int>(c)]->setData(keys, values, true);
        m_bars[static_cast<int>(c)]->setName(DisplayNames::category(static_cast<Category>(c)));
        if (any)
            m_bars[static_cast<int>(c)]->addToLegend();
    }
    xAxis->setRange(-0.5, eventCount - 0.5);
    xAxis->setLabel(planMode(plan) == Mode::Train ? tr("One training step, event by event") : tr("Prefill, then decode"));
    yAxis->setLabel(ChartStyle::memoryAxisLabel());
    const double capacity = MemoryUnits::toUnit(static_cast<double>(plan.capacityBytes));
    const double peak = MemoryUnits::toUnit(static_cast<double>(plan.peakBytes));
    ChartStyle::setMemoryRange(yAxis, std::max(capacity, peak));
    m_capacity->setVisible(true);
    m_capacity->set(capacity, CapacityLine::label(static_cast<double>(plan.capacityBytes)));
    updateTicks(plan);

    const auto peakKey = static_cast<double>(plan.peakEvent);
    m_peakLine->point1->setCoords(peakKey, 0);
    m_peakLine->point2->setCoords(peakKey, 1);
    m_peakLine->setVisible(true);
    // The label sits above the peak column, on the side with room.
    const bool rightHalf = peakKey > eventCount / 2.0;
    m_peakLabel->position->setCoords(peakKey, peak);
    m_peakLabel->setPositionAlignment((rightHalf ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
    m_peakLabel->setText(tr("Peak: %1 · %2").arg(DisplayNames::event(plan.events[plan.peakEvent]),
                                                 MemoryUnits::format(static_cast<double>(plan.peakBytes))));
    m_peakLabel->setVisible(true);
    replot();
}

void TimelineView::updateTicks(const Plan& plan)
{
    // Event labels are long and the events many (2L + 8): label the regions
    // of the step instead, and let the tooltip name each event.
    auto* ticker = new QCPAxisTickerText;
    const std::size_t last = plan.events.size() - 1;
    ticker->addTick(0, DisplayNames::phase(Phase::Load));
    const auto [forwardFirst, forwardLast] = runOf(plan, Phase::LayerFwd);
    const bool training = planMode(plan) == Mode::Train;
    if (forwardFirst <= forwardLast)
        ticker->addTick((static_cast<double>(forwardFirst) + static_cast<double>(forwardLast)) / 2,
                        training ? tr("forward →") : tr("prefill →"));
    if (training) {
        const auto [backwardFirst, backwardLast] = runOf(plan, Phase::LayerBwd);
        for (std::size_t e = 0; e < plan.events.size(); ++e)
            if (plan.events[e].phase == Phase::LossBwd)
                ticker->addTick(static_cast<double>(e), tr("loss"));
        if (backwardFirst <= backwardLast)
            ticker->addTick((static_cast<double>(backwardFirst) + static_cast<double>(backwardLast)) / 2, tr("← backward"));
        ticker->addTick(static_cast<double>(last), tr("step"));
    } else {
        ticker->addTick(static_cast<double>(last), DisplayNames::phase(Phase::Decode));
    }
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
}

double TimelineView::drawnBytes(Category category, std::size_t event) const
{
    const QCPBars* bars = m_bars[static_cast<int>(category)];
    auto it = bars->data()->findBegin(static_cast<double>(event), false);
    if (it == bars->data()->constEnd() || it->key != static_cast<double>(event))
        return 0;
    return MemoryUnits::fromUnit(it->value);
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    if (!m_plan || !axisRect()->rect().contains(event->position().toPoint())) {
        QToolTip::hideText();
        return;
    }
    const double key = xAxis->pixelToCoord(event->position().x());
    const long index = std::lround(key);
    if (index < 0 || index >= static_cast<long>(m_plan->events.size())) {
        QToolTip::hideText();
        return;
    }
    const auto e = static_cast<std::size_t>(index);
    const CategoryBytes& at = m_plan->timeline[e];
    const double total = static_cast<double>(std::accumulate(at.begin(), at.end(), Bytes{0}));
    QString text = QStringLiteral("<b>%1</b> · %2").arg(DisplayNames::event(m_plan->events[e]), MemoryUnits::format(total));
    for (std::size_t c = kCategoryCount; c-- > 0;)
        if (at[c] > 0)
            text += QStringLiteral("<br><span style='color:%1'>■</span> %2: %3")
                        .arg(Palette::category(static_cast<Category>(c)).name(), DisplayNames::category(static_cast<Category>(c)),
                             MemoryUnits::format(static_cast<double>(at[c])));
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void TimelineView::leaveEvent(QEvent* event)
{
    QToolTip::hideText();
    QCustomPlot::leaveEvent(event);
}

void TimelineView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QCustomPlot::changeEvent(event);
}
