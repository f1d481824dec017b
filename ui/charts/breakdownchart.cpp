// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/breakdownchart.h"

#include "charts/capacityline.h"
#include "style/chartstyle.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QLocale>
#include <QToolTip>

using namespace headroom;

namespace {

constexpr double kBarKey = 1.0;
constexpr double kBarWidth = 0.6;

} // namespace

BreakdownChart::BreakdownChart(QWidget* parent)
    : QCustomPlot(parent)
{
    ChartStyle::apply(this);
    setMinimumSize(320, 360);
    xAxis->setRange(kBarKey - 0.75, kBarKey + 0.75);
    xAxis->setTickLength(0, 0);
    yAxis->setPadding(6);

    m_bars = ChartStyle::addStackedBars(this, DeviceStack::segmentCount(), kBarWidth);
    m_capacity = std::make_unique<CapacityLine>(this, axisRect());
    m_message = ChartStyle::addCenteredMessage(this, axisRect());

    // The legend below the bar in two columns, top segment first like the
    // stack it describes: the bar keeps the width, the panel has height to spare.
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(2);
    plotLayout()->addElement(1, 0, legend);
    plotLayout()->setRowStretchFactor(1, 0.001);
    legend->setMargins(QMargins(8, 0, 8, 6));
    legend->setRowSpacing(2);
    legend->setColumnSpacing(12);
    axisRect()->setMinimumMargins(QMargins(8, 12, 8, 8));

    connect(this, &QCustomPlot::plottableClick, this, [this](QCPAbstractPlottable* plottable, int, QMouseEvent*) {
        const int index = barIndex(plottable);
        if (index >= 0 && index < m_segments.size())
            emit segmentClicked(m_segments[index]);
    });
    clearPlan();
}

BreakdownChart::~BreakdownChart() = default;

int BreakdownChart::barIndex(const QCPAbstractPlottable* plottable) const
{
    for (int i = 0; i < m_bars.size(); ++i)
        if (m_bars[i] == plottable)
            return i;
    return -1;
}

void BreakdownChart::clearPlan()
{
    m_plan.reset();
    m_segments.clear();
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    // Hidden, not emptied: an empty legend would cap its layout column's
    // width (QCPLayoutGrid takes the smallest maximum in a column) and
    // squeeze the axis rect.
    legend->setVisible(false);
    m_capacity->setVisible(false);
    xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_message->setText(ChartStyle::noPlanMessage());
    m_message->setVisible(true);
    replot();
}

void BreakdownChart::setPlan(const Plan& plan)
{
    m_plan = plan;
    refresh();
}

void BreakdownChart::setPlan(const Plan& plan, const DeviceSegment& selected)
{
    m_plan = plan;
    m_selected = selected;
    refresh(); // applies the selection before its one replot
}

void BreakdownChart::refresh()
{
    if (!m_plan) {
        clearPlan();
        return;
    }
    const Plan& plan = *m_plan;
    m_message->setVisible(false);
    m_segments = DeviceStack::segments(plan);
    const double deviceUsed = static_cast<double>(plan.deviceUsedBytes);
    const QLocale locale;
    // Legend entries are added top segment first so the list reads like the bar.
    legend->setVisible(true);
    legend->clearItems();
    for (auto i = m_segments.size() - 1; i >= 0; --i) {
        const DeviceSegment& segment = m_segments[i];
        QCPBars* bars = m_bars[i];
        bars->data()->clear();
        bars->addData(kBarKey, MemoryUnits::toUnit(segment.bytes));
        bars->setBrush(segment.color());
        const double share = deviceUsed > 0 ? 100.0 * segment.bytes / deviceUsed : 0.0;
        //: legend entry on two lines: category, then size and share of device memory used
        bars->setName(tr("%1\n%2 · %3 %").arg(segment.title(), MemoryUnits::format(segment.bytes),
                                               locale.toString(share, 'f', 1)));
        bars->setVisible(segment.bytes > 0);
        if (segment.bytes > 0)
            bars->addToLegend();
    }
    applySelection();

    auto* ticker = new QCPAxisTickerText;
    ticker->addTick(kBarKey, tr("Peak: %1").arg(DisplayNames::event(plan.events[plan.peakEvent])));
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    yAxis->setLabel(ChartStyle::memoryAxisLabel());

    const double capacity = MemoryUnits::toUnit(static_cast<double>(plan.capacityBytes));
    ChartStyle::setMemoryRange(yAxis, std::max(capacity, MemoryUnits::toUnit(deviceUsed)));
    m_capacity->setVisible(true);
    m_capacity->set(capacity, CapacityLine::label(static_cast<double>(plan.capacityBytes)));
    replot();
}

void BreakdownChart::setSelectedSegment(const DeviceSegment& segment)
{
    m_selected = segment;
    applySelection();
    replot();
}

void BreakdownChart::applySelection()
{
    // Thin separators in the background color; the selected segment outlined.
    for (int i = 0; i < m_bars.size() && i < m_segments.size(); ++i) {
        const bool selected = m_segments[i] == m_selected;
        m_bars[i]->setPen(selected ? QPen(palette().color(QPalette::WindowText), 2.5)
                                   : QPen(palette().color(QPalette::Base), 1));
    }
    // Draw the selected segment last so its outline is not covered by a neighbour.
    for (int i = 0; i < m_bars.size() && i < m_segments.size(); ++i)
        if (m_segments[i] == m_selected)
            m_bars[i]->setLayer(QStringLiteral("overlay"));
        else
            m_bars[i]->setLayer(QStringLiteral("main"));
}

double BreakdownChart::segmentBytes(const DeviceSegment& segment) const
{
    for (int i = 0; i < m_segments.size(); ++i)
        if (m_segments[i] == segment)
            return m_bars[i]->data()->isEmpty() ? 0.0 : MemoryUnits::fromUnit(m_bars[i]->data()->constBegin()->value);
    return 0.0;
}

void BreakdownChart::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    const int index = barIndex(plottableAt(event->position(), false));
    if (index < 0 || index >= m_segments.size() || !m_plan) {
        QToolTip::hideText();
        return;
    }
    const DeviceSegment& segment = m_segments[index];
    const double deviceUsed = static_cast<double>(m_plan->deviceUsedBytes);
    const QString text =
        tr("<b>%1</b><br>%2<br>%3<br>%4 % of the %5 device memory used<br><i>Click to explain</i>")
            .arg(segment.title(), MemoryUnits::format(segment.bytes),
                 MemoryUnits::formatExact(static_cast<std::uint64_t>(segment.bytes)),
                 QLocale().toString(deviceUsed > 0 ? 100.0 * segment.bytes / deviceUsed : 0.0, 'f', 1),
                 MemoryUnits::format(deviceUsed));
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void BreakdownChart::leaveEvent(QEvent* event)
{
    QToolTip::hideText();
    QCustomPlot::leaveEvent(event);
}

void BreakdownChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QCustomPlot::changeEvent(event);
}
