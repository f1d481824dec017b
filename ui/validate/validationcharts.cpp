// SPDX-License-Identifier: GPL-3.0-or-later
#include "validate/validationcharts.h"

#include "validate/validationcountersmodel.h"

#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

using namespace headroom;

namespace {

constexpr double kPairOffset = 0.2;  // planned left of the category's key, measured right
constexpr double kBarWidth = 0.38;

// The child's event labels are the engine's eventLabel() ("forward layer 3"):
// read back into an Event so they can be shown in the app's language.
std::optional<Event> eventFromLabel(const QString& label)
{
    for (int p = 0; p <= static_cast<int>(Phase::Decode); ++p) {
        const auto phase = static_cast<Phase>(p);
        const QString name = QLatin1String(phaseName(phase));
        if (label == name)
            return Event{phase, -1};
        const QString prefix = name + QStringLiteral(" layer ");
        if (label.startsWith(prefix)) {
            bool ok = false;
            const int layer = label.mid(prefix.size()).toInt(&ok);
            if (ok && layer >= 0)
                return Event{phase, layer};
        }
    }
    return std::nullopt;
}

QString shownEventText(const QString& label)
{
    const auto event = eventFromLabel(label);
    return event ? DisplayNames::event(*event) : label;
}

QCPBars* makeBars(QCustomPlot* plot, const QColor& color, bool planned)
{
    auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
    bars->setWidth(kBarWidth);
    bars->setSelectable(QCP::stNone);
    if (planned) {
        // Planned: the category's color, pale and outlined, so the solid
        // measured bar beside it reads as the real thing.
        QColor pale = color;
        pale.setAlpha(80);
        bars->setBrush(pale);
        bars->setPen(QPen(color, 1.5));
    } else {
        bars->setBrush(color);
        bars->setPen(QPen(color.darker(115), 1));
    }
    bars->removeFromLegend();
    return bars;
}

} // namespace

ValidationCharts::ValidationCharts(QWidget* parent)
    : QWidget(parent)
    , m_bars(new QCustomPlot)
    , m_counters(new ValidationCountersModel(this))
    , m_table(new QTableView)
    , m_timeline(new QCustomPlot)
{
    // Bars: a planned/measured pair per category.
    ChartStyle::apply(m_bars);
    m_bars->setMinimumSize(320, 220);
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        const QColor color = Palette::category(static_cast<Category>(c));
        m_plannedBars[c] = makeBars(m_bars, color, true);
        m_measuredBars[c] = makeBars(m_bars, color, false);
        auto* label = new QCPItemText(m_bars);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setPadding(QMargins(0, 0, 0, 3));
        label->setColor(m_bars->palette().color(QPalette::WindowText));
        label->setVisible(false);
        m_errorLabels[c] = label;
    }
    m_plannedKey = makeBars(m_bars, Palette::saving(), true);
    m_measuredKey = makeBars(m_bars, Palette::saving(), false);
    m_plannedKey->addToLegend();
    m_measuredKey->addToLegend();
    m_bars->legend->setVisible(true);
    m_bars->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_barsMessage = ChartStyle::addCenteredMessage(m_bars, m_bars->axisRect());

    m_table->setModel(m_counters);
    m_table->verticalHeader()->setVisible(true);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    // As wide as its numbers: the chart beside it takes the rest.
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Expanding);

    // Timeline: the planned total per event as a pale area, the measured total as a line over it.
    ChartStyle::apply(m_timeline);
    m_timeline->setMinimumSize(320, 200);
    m_plannedLine = m_timeline->addGraph();
    QColor plannedColor = Palette::saving();
    m_plannedLine->setPen(QPen(plannedColor, 1.5));
    plannedColor.setAlpha(70);
    m_plannedLine->setBrush(plannedColor);
    m_plannedLine->setLineStyle(QCPGraph::lsStepCenter);
    m_measuredLine = m_timeline->addGraph();
    m_measuredLine->setPen(QPen(Palette::category(Category::Weights).darker(130), 2.2));
    m_measuredLine->setLineStyle(QCPGraph::lsStepCenter);
    m_timeline->legend->setVisible(true);
    m_timeline->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    m_timelineMessage = ChartStyle::addCenteredMessage(m_timeline, m_timeline->axisRect());
    m_oomLabel = new QCPItemText(m_timeline);
    m_oomLabel->setColor(Palette::outOfMemory());
    m_oomLabel->setPadding(QMargins(4, 2, 4, 4));
    m_oomLabel->setLayer(QStringLiteral("overlay"));
    m_oomLabel->setVisible(false);

    // A layout, not a splitter: the table follows its contents' width after every result.
    auto* top = new QWidget;
    auto* topLayout = new QHBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_bars, 1);
    topLayout->addWidget(m_table, 0);
    auto* charts = new QSplitter(Qt::Vertical);
    charts->addWidget(top);
    charts->addWidget(m_timeline);
    charts->setChildrenCollapsible(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(charts);
    retranslate();
    clear();
}

QString ValidationCharts::shownEvent(const QString& label) { return shownEventText(label); }

void ValidationCharts::retranslate()
{
    m_plannedKey->setName(tr("Planned"));
    m_measuredKey->setName(tr("Measured"));
    m_plannedLine->setName(tr("Planned"));
    m_measuredLine->setName(tr("Measured"));
}

void ValidationCharts::show(const ValidationReport& report)
{
    drawBars(report);
    drawTable(report);
    drawTimeline(report);
}

void ValidationCharts::clear()
{
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        m_plannedBars[c]->data()->clear();
        m_measuredBars[c]->data()->clear();
        m_errorLabels[c]->setVisible(false);
    }
    m_bars->legend->setVisible(false);
    m_bars->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_bars->yAxis->setLabel(ChartStyle::memoryAxisLabel());
    m_barsMessage->setText(tr("No measurement yet: press Run"));
    m_barsMessage->setVisible(true);
    m_bars->replot();
    m_plannedLine->data()->clear();
    m_measuredLine->data()->clear();
    m_timeline->legend->setVisible(false);
    m_timeline->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
    m_timeline->yAxis->setLabel(ChartStyle::memoryAxisLabel());
    m_timelineMessage->setText(tr("The measured timeline appears here after a run"));
    m_oomLabel->setVisible(false);
    m_timelineMessage->setVisible(true);
    m_timeline->replot();
    m_counters->clear();
}

void ValidationCharts::drawBars(const ValidationReport& report)
{
    auto* ticker = new QCPAxisTickerText;
    double top = 0;
    int key = 0;
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        m_plannedBars[c]->data()->clear();
        m_measuredBars[c]->data()->clear();
        m_errorLabels[c]->setVisible(false);
        const auto planned = report.planned.categories[c];
        const auto measured = report.measured.categories[c];
        // A category both sides leave out or report as zero has nothing to compare.
        if (planned.value_or(0) == 0 && measured.value_or(0) == 0)
            continue;
        const double p = MemoryUnits::toUnit(static_cast<double>(planned.value_or(0)));
        const double m = MemoryUnits::toUnit(static_cast<double>(measured.value_or(0)));
        if (planned)
            m_plannedBars[c]->addData(key - kPairOffset, p);
        if (measured)
            m_measuredBars[c]->addData(key + kPairOffset, m);
        auto* label = m_errorLabels[c];
        label->position->setCoords(key, std::max(p, m));
        // A run stopped by an out-of-memory has no peak to compare: only what is missing is labelled.
        const bool compare = report.status == ValidationReport::Status::Ok;
        label->setText(measured ? ValidationCountersModel::percentText(ValidationCountersModel::relativeError(
                                      static_cast<double>(planned.value_or(0)), static_cast<double>(*measured)))
                                : tr("not measured"));
        label->setVisible(!measured || compare);
        ticker->addTick(key, DisplayNames::category(static_cast<Category>(c)).replace(QLatin1Char(' '), QLatin1Char('\n')));
        top = std::max(top, std::max(p, m));
        ++key;
    }
    m_bars->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    m_bars->xAxis->setRange(-0.6, std::max(key, 1) - 0.4);
    m_bars->xAxis->setLabel(tr("At the peak, per category · labels: measured against planned"));
    m_bars->yAxis->setLabel(ChartStyle::memoryAxisLabel());
    // Room above the tallest pair for its error label.
    ChartStyle::setMemoryRange(m_bars->yAxis, top * 1.08);
    m_bars->legend->setVisible(true);
    m_barsMessage->setVisible(key == 0);
    m_barsMessage->setText(tr("The run reported no categories"));
    m_bars->replot();
}

void ValidationCharts::drawTable(const ValidationReport& report) { m_counters->setReport(report); }

void ValidationCharts::drawTimeline(const ValidationReport& report)
{
    m_plannedLine->data()->clear();
    m_measuredLine->data()->clear();
    double top = 0;
    const auto count = static_cast<int>(report.events.size());
    for (int e = 0; e < count; ++e) {
        const ValidationEvent& event = report.events[e];
        const double planned = MemoryUnits::toUnit(static_cast<double>(event.plannedBytes));
        m_plannedLine->addData(e, planned);
        top = std::max(top, planned);
        if (event.measuredBytes) {
            const double measured = MemoryUnits::toUnit(static_cast<double>(*event.measuredBytes));
            m_measuredLine->addData(e, measured);
            top = std::max(top, measured);
        }
    }
    // Where an out-of-memory stopped the run: the first event without a measurement.
    m_oomLabel->setVisible(false);
    if (report.status == ValidationReport::Status::OutOfMemory)
        for (int e = 0; e < count; ++e)
            if (!report.events[e].measuredBytes) {
                m_oomLabel->position->setCoords(e, MemoryUnits::toUnit(static_cast<double>(report.events[e].plannedBytes)));
                m_oomLabel->setPositionAlignment((e > count / 2 ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignBottom);
                m_oomLabel->setText(tr("✕ out of memory: %1").arg(shownEventText(report.events[e].label)));
                m_oomLabel->setVisible(true);
                break;
            }
    // Regions of the step rather than every event (as the Timeline tab does):
    // events are many and their labels long.
    auto* ticker = new QCPAxisTickerText;
    int forwardFirst = -1, forwardLast = -1, backwardFirst = -1, backwardLast = -1;
    for (int e = 0; e < count; ++e) {
        const auto event = eventFromLabel(report.events[e].label);
        if (!event)
            continue;
        if (event->phase == Phase::LayerFwd) {
            forwardFirst = forwardFirst < 0 ? e : forwardFirst;
            forwardLast = e;
        } else if (event->phase == Phase::LayerBwd) {
            backwardFirst = backwardFirst < 0 ? e : backwardFirst;
            backwardLast = e;
        } else if (event->phase == Phase::LossBwd) {
            ticker->addTick(e, QCoreApplication::translate("TimelineView", "loss"));
        }
    }
    if (forwardFirst >= 0)
        ticker->addTick((forwardFirst + forwardLast) / 2.0, QCoreApplication::translate("TimelineView", "forward →"));
    if (backwardFirst >= 0)
        ticker->addTick((backwardFirst + backwardLast) / 2.0, QCoreApplication::translate("TimelineView", "← backward"));
    m_timeline->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    m_timeline->xAxis->setRange(-0.5, std::max(count, 1) - 0.5);
    m_timeline->xAxis->setLabel(tr("Memory in use at each event of the step: measured over planned"));
    m_timeline->yAxis->setLabel(ChartStyle::memoryAxisLabel());
    ChartStyle::setMemoryRange(m_timeline->yAxis, top);
    m_timeline->legend->setVisible(count > 0);
    m_timelineMessage->setVisible(count == 0);
    m_timelineMessage->setText(tr("The run reported no events"));
    m_timeline->replot();
}

std::optional<double> ValidationCharts::plannedBarBytes(Category category) const
{
    const auto* bars = m_plannedBars[static_cast<std::size_t>(category)];
    if (bars->data()->isEmpty())
        return std::nullopt;
    return MemoryUnits::fromUnit(bars->data()->constBegin()->value);
}

std::optional<double> ValidationCharts::measuredBarBytes(Category category) const
{
    const auto* bars = m_measuredBars[static_cast<std::size_t>(category)];
    if (bars->data()->isEmpty())
        return std::nullopt;
    return MemoryUnits::fromUnit(bars->data()->constBegin()->value);
}

QString ValidationCharts::errorLabel(Category category) const
{
    const auto* label = m_errorLabels[static_cast<std::size_t>(category)];
    return label->visible() ? label->text() : QString();
}

std::optional<double> ValidationCharts::measuredTimelineBytes(int event) const
{
    auto it = m_measuredLine->data()->findBegin(event, false);
    if (it == m_measuredLine->data()->constEnd() || it->key != event)
        return std::nullopt;
    return MemoryUnits::fromUnit(it->value);
}
std::optional<double> ValidationCharts::plannedTimelineBytes(int event) const
{
    auto it = m_plannedLine->data()->findBegin(event, false);
    if (it == m_plannedLine->data()->constEnd() || it->key != event)
        return std::nullopt;
    return MemoryUnits::fromUnit(it->value);
}
