// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/stageschart.h"

#include "charts/capacityline.h"
#include "charts/devicestack.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QLocale>
#include <QToolTip>

#include <algorithm>
#include <cmath>

using namespace headroom;

namespace {

constexpr double kBarWidth = 0.6;

// "20", or with virtual stages the layers of each model chunk: "10 + 10".
QString layersText(const RankPlan& rank)
{
    if (rank.chunkLayers.empty())
        return QLocale().toString(static_cast<qulonglong>(rank.layers));
    QStringList chunks;
    for (std::uint64_t layers : rank.chunkLayers)
        chunks << QLocale().toString(static_cast<qulonglong>(layers));
    return chunks.join(QStringLiteral(" + "));
}

} // namespace

StagesChart::StagesChart(QWidget* parent) : QCustomPlot(parent)
{
    ChartStyle::apply(this);
    setMinimumSize(420, 300);
    // Created first, so drawn first: the stack of categories covers it up to
    // the tensors at the stage's peak, and the rest of device used shows above.
    m_deviceUsed = new QCPBars(xAxis, yAxis);
    m_deviceUsed->setWidth(kBarWidth);
    m_deviceUsed->setSelectable(QCP::stNone);
    m_bars = ChartStyle::addStackedBars(this, static_cast<int>(kCategoryCount), kBarWidth);
    m_capacity = std::make_unique<CapacityLine>(this, axisRect());

    m_worstOutline = new QCPItemRect(this);
    m_worstOutline->setLayer(QStringLiteral("overlay"));
    m_worstOutline->setBrush(Qt::NoBrush);
    m_worstOutline->setClipToAxisRect(true);
    m_message = ChartStyle::addCenteredMessage(this, axisRect());

    // The legend in rows of four above the bars, top segment first like the stacks.
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(4);
    plotLayout()->insertRow(0);
    plotLayout()->addElement(0, 0, legend);
    plotLayout()->setRowStretchFactor(0, 0.001);
    legend->setMargins(QMargins(8, 6, 8, 0));
    legend->setColumnSpacing(16);
    legend->setRowSpacing(2);
    xAxis->setTickLength(0, 0);
    axisRect()->setMinimumMargins(QMargins(8, 16, 12, 8));
    clearPlan();
}

StagesChart::~StagesChart() = default;

void StagesChart::setPlan(const Plan& plan)
{
    m_ranks = plan.ranks;
    m_worst = plan.worstRank;
    m_capacityBytes = plan.capacityBytes;
    m_hasPlan = true;
    refresh();
}

void StagesChart::clearPlan()
{
    m_ranks.clear();
    m_worst = 0;
    m_capacityBytes = 0;
    m_hasPlan = false;
    refresh();
}

void StagesChart::refresh()
{
    m_deviceUsed->data()->clear();
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    for (QCPItemText* label : m_labels)
        removeItem(label);
    m_labels.clear();
    yAxis->setLabel(ChartStyle::memoryAxisLabel());
    const QColor base = palette().color(QPalette::Base);
    m_worstOutline->setPen(QPen(palette().color(QPalette::WindowText), 2));

    if (m_ranks.empty()) {
        // No plan: say so, as the breakdown does. A plan without stages
        // (one GPU's plan for all) is told by the view around the chart.
        // Hidden, not emptied: an empty legend would cap its layout column's
        // width (QCPLayoutGrid takes the smallest maximum) and squeeze the axis rect.
        legend->setVisible(false);
        if (legend->itemCount() == 0)
            m_deviceUsed->addToLegend();
        m_capacity->setVisible(false);
        m_worstOutline->setVisible(false);
        xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
        m_message->setText(m_hasPlan ? QString() : ChartStyle::noPlanMessage());
        m_message->setVisible(!m_hasPlan);
        replot();
        return;
    }
    m_message->setVisible(false);

    // A slot per stage; before the first layout the widget's width stands in for the rect's.
    const int rectWidth = axisRect()->width() > 0 ? axisRect()->width() : width() - 120;
    const auto stages = static_cast<int>(m_ranks.size());
    const int slot = std::max(24, rectWidth / stages);
    const QFontMetrics metrics(xAxis->tickLabelFont());
    QFont bold = font();
    bold.setBold(true);
    const double capacity = MemoryUnits::toUnit(static_cast<double>(m_capacityBytes));
    double top = capacity;
    std::vector<bool> present(kCategoryCount, false);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i < stages; ++i) {
        const RankPlan& rank = m_ranks[static_cast<std::size_t>(i)];
        const bool worst = static_cast<std::size_t>(i) == m_worst;
        const double key = i;
        const double deviceUsed = static_cast<double>(rank.deviceUsedBytes);
        m_deviceUsed->addData(key, MemoryUnits::toUnit(deviceUsed));
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            m_bars[static_cast<int>(c)]->addData(key, MemoryUnits::toUnit(static_cast<double>(rank.breakdown[c])));
            if (rank.breakdown[c] > 0)
                present[c] = true;
        }
        top = std::max(top, MemoryUnits::toUnit(deviceUsed));

        // "Stage 2" over its layers; only the number where the slot is narrow.
        const QString name = tr("Stage %1").arg(rank.stage);
        //: under "Stage 2": its decoder layers, e.g. "20 layers", or its model chunks' layers, "10 + 10 layers"
        const QString layers = rank.layers == 1 ? tr("1 layer") : tr("%1 layers").arg(layersText(rank));
        const int room = slot - 8;
        if (metrics.horizontalAdvance(name) > room)
            ticker->addTick(key, QString::number(rank.stage));
        else if (metrics.horizontalAdvance(layers) > room)
            ticker->addTick(key, name);
        else
            ticker->addTick(key, name + QLatin1Char('\n') + layers);

        // Device used above the bar; the worst stage says so. Where the
        // slots are too narrow for every value, only the worst keeps its label.
        const QString value = MemoryUnits::format(deviceUsed, 1);
        if (!worst && metrics.horizontalAdvance(value) > room)
            continue;
        auto* label = new QCPItemText(this);
        label->setClipToAxisRect(false);
        label->setLayer(QStringLiteral("overlay")); // above the capacity line
        label->position->setCoords(key, MemoryUnits::toUnit(deviceUsed));
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setTextAlignment(Qt::AlignHCenter);
        label->setColor(rank.deviceUsedBytes <= m_capacityBytes ? Palette::fits() : Palette::outOfMemory());
        QColor backdrop = base;
        backdrop.setAlpha(210);
        label->setBrush(backdrop); // the capacity line may pass behind it
        label->setPadding(QMargins(2, 1, 2, 1));
        label->setFont(worst ? bold : font());
        //: above the bar of the stage with the most device memory used: "worst", then its device used
        label->setText(worst ? tr("worst\n%1").arg(value) : value);
        m_labels.append(label);
    }

    // Thin separators in the background color; the device-used bar in the
    // allocator cache's grey (its visible part is the cache and the context).
    m_deviceUsed->setBrush(Palette::allocatorCache());
    m_deviceUsed->setPen(QPen(base, 1));
    m_deviceUsed->setName(tr("Allocator cache and CUDA context, up to device used"));
    legend->clearItems();
    legend->setVisible(true);
    m_deviceUsed->addToLegend();
    for (auto c = static_cast<int>(kCategoryCount) - 1; c >= 0; --c) {
        QCPBars* bars = m_bars[c];
        bars->setBrush(Palette::category(static_cast<Category>(c)));
        bars->setPen(QPen(base, 1));
        bars->setName(DisplayNames::category(static_cast<Category>(c)));
        if (present[static_cast<std::size_t>(c)])
            bars->addToLegend();
        else
            bars->removeFromLegend();
    }

    const double worstKey = static_cast<double>(m_worst);
    const bool hasWorst = m_worst < m_ranks.size();
    m_worstOutline->setVisible(hasWorst);
    if (hasWorst) {
        m_worstOutline->topLeft->setCoords(worstKey - kBarWidth / 2,
                                           MemoryUnits::toUnit(static_cast<double>(m_ranks[m_worst].deviceUsedBytes)));
        m_worstOutline->bottomRight->setCoords(worstKey + kBarWidth / 2, 0);
    }
    xAxis->setTicker(ticker);
    xAxis->setRange(-0.6, stages - 0.4);
    // Room above the tallest bar for its two-line label.
    yAxis->setRange(0, top > 0 ? top * 1.2 : 1.0);
    m_capacity->setVisible(true);
    m_capacity->set(capacity, CapacityLine::label(static_cast<double>(m_capacityBytes)));
    replot();
}

double StagesChart::drawn(const QCPBars* bars, int index)
{
    auto it = bars->data()->findBegin(index, false);
    if (it == bars->data()->constEnd() || it->key != index)
        return 0;
    return MemoryUnits::fromUnit(it->value);
}

double StagesChart::drawnBytes(int index, Category category) const
{
    return drawn(m_bars[static_cast<int>(category)], index);
}

double StagesChart::drawnDeviceUsed(int index) const { return drawn(m_deviceUsed, index); }

int StagesChart::markedWorst() const
{
    if (!m_worstOutline->visible())
        return -1;
    return static_cast<int>(std::lround((m_worstOutline->topLeft->key() + m_worstOutline->bottomRight->key()) / 2));
}

int StagesChart::stageAt(const QPointF& position) const
{
    // The bar and its tick labels below both count as the stage.
    if (m_ranks.empty() || position.x() < axisRect()->left() || position.x() > axisRect()->right() ||
        position.y() < axisRect()->top())
        return -1;
    const long index = std::lround(xAxis->pixelToCoord(position.x()));
    return index >= 0 && index < static_cast<long>(m_ranks.size()) ? static_cast<int>(index) : -1;
}

void StagesChart::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    const int index = stageAt(event->position());
    if (index < 0) {
        QToolTip::hideText();
        return;
    }
    const RankPlan& rank = m_ranks[static_cast<std::size_t>(index)];
    QString text = QStringLiteral("<b>%1</b>").arg(tr("Stage %1").arg(rank.stage).toHtmlEscaped());
    if (static_cast<std::size_t>(index) == m_worst)
        text += QStringLiteral(" · ") + tr("the worst stage: the verdict and the other views show its plan");
    // The category under the pointer, if any.
    for (int c = 0; c < m_bars.size(); ++c)
        if (plottableAt(event->position(), false) == m_bars[c]) {
            const double bytes = static_cast<double>(rank.breakdown[static_cast<std::size_t>(c)]);
            text += QStringLiteral("<br>%1: %2")
                        .arg(DisplayNames::category(static_cast<Category>(c)), MemoryUnits::format(bytes));
        }
    text += QStringLiteral("<br>") + tr("Peak allocated %1 · peak reserved %2")
                                         .arg(MemoryUnits::format(static_cast<double>(rank.peakAllocatedBytes)),
                                              MemoryUnits::format(static_cast<double>(rank.peakReservedBytes)));
    text += QStringLiteral("<br>") + tr("Device used %1 of %2")
                                         .arg(MemoryUnits::format(static_cast<double>(rank.deviceUsedBytes)),
                                              MemoryUnits::format(static_cast<double>(m_capacityBytes)));
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void StagesChart::leaveEvent(QEvent* event)
{
    QToolTip::hideText();
    QCustomPlot::leaveEvent(event);
}

void StagesChart::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        refresh(); // the tick labels follow the slot width
}

void StagesChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QCustomPlot::changeEvent(event);
}
