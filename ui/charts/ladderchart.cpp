// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/ladderchart.h"

#include "charts/capacityline.h"
#include "charts/devicestack.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QToolTip>

using namespace headroom;

namespace {

constexpr double kBarWidth = 0.62;

// Tick labels are step names ("+ gradient checkpointing"): break them into
// lines no wider than a bar's slot, so neighbours never overlap in any script.
QString wrapped(const QString& text, const QFontMetrics& metrics, int maxWidth)
{
    const QStringList words = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList lines;
    QString line;
    for (const QString& word : words) {
        const QString candidate = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && metrics.horizontalAdvance(candidate) > maxWidth) {
            lines << line;
            line.clear();
        }
        line += (line.isEmpty() ? QString() : QStringLiteral(" ")) + word;
    }
    if (!line.isEmpty())
        lines << line;
    return lines.join(QLatin1Char('\n'));
}

} // namespace

LadderChart::LadderChart(QWidget* parent)
    : QCustomPlot(parent)
    , m_saving(nullptr)
    , m_selection(nullptr)
{
    ChartStyle::apply(this);
    setMinimumSize(420, 300);
    QCPBars* below = nullptr;
    for (int i = 0; i < DeviceStack::segmentCount(); ++i) {
        auto* bars = new QCPBars(xAxis, yAxis);
        bars->setWidth(kBarWidth);
        bars->setSelectable(QCP::stNone);
        bars->setPen(QPen(palette().color(QPalette::Base), 1));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.append(bars);
    }
    m_saving = new QCPBars(xAxis, yAxis);
    m_saving->setWidth(kBarWidth);
    m_saving->setSelectable(QCP::stNone);
    m_saving->setPen(QPen(Palette::saving(), 1, Qt::DashLine));
    m_saving->setBrush(QBrush(Palette::saving(), Qt::BDiagPattern));
    m_saving->moveAbove(below);
    m_capacity = std::make_unique<CapacityLine>(this, axisRect());

    m_selection = new QCPItemRect(this);
    m_selection->setLayer(QStringLiteral("background"));
    m_selection->setPen(Qt::NoPen);
    m_selection->setBrush(palette().color(QPalette::Highlight).lighter(185));
    m_selection->topLeft->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_selection->bottomRight->setTypeY(QCPItemPosition::ptAxisRectRatio);
    m_selection->setClipToAxisRect(true);

    xAxis->setTickLength(0, 0);
    axisRect()->setMinimumMargins(QMargins(8, 16, 12, 8));
    connect(this, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const int step = stepAt(event->position());
        if (step >= 0)
            emit stepClicked(step);
    });
}

LadderChart::~LadderChart() = default;

void LadderChart::setSteps(const std::vector<LadderStep>& steps)
{
    m_steps = steps;
    if (m_selected >= static_cast<int>(m_steps.size()))
        m_selected = -1;
    refresh();
}

void LadderChart::setSelectedStep(int index)
{
    m_selected = index;
    m_selection->setVisible(index >= 0 && index < static_cast<int>(m_steps.size()));
    m_selection->topLeft->setCoords(index + 1 - 0.5, 0);
    m_selection->bottomRight->setCoords(index + 1 + 0.5, 1);
    replot();
}

void LadderChart::refresh()
{
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    m_saving->data()->clear();
    for (QCPItemText* label : m_labels)
        removeItem(label);
    m_labels.clear();
    auto* ticker = new QCPAxisTickerText;
    double top = 0;
    // A slot per step; before the first layout the widget's width stands in for the rect's.
    const int rectWidth = axisRect()->width() > 0 ? axisRect()->width() : width() - 120;
    const int steps = std::max(1, static_cast<int>(m_steps.size()));
    const int slot = std::max(60, rectWidth * 92 / 100 / steps);
    const QFontMetrics metrics(xAxis->tickLabelFont());
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const LadderStep& step = m_steps[i];
        const Plan& plan = step.plan;
        const double key = static_cast<double>(i + 1);
        const QVector<DeviceSegment> segments = DeviceStack::segments(plan);
        for (int s = 0; s < segments.size(); ++s) {
            m_bars[s]->addData(key, MemoryUnits::toUnit(segments[s].bytes));
            m_bars[s]->setBrush(segments[s].color());
        }
        // The block this step removed: from its own top up to the previous top.
        const double saved = step.savingBytes > 0 ? static_cast<double>(step.savingBytes) : 0.0;
        m_saving->addData(key, MemoryUnits::toUnit(saved));
        const double used = static_cast<double>(plan.deviceUsedBytes);
        top = std::max(top, MemoryUnits::toUnit(used + saved));
        ticker->addTick(key, wrapped(DisplayNames::ladderStep(step.technique, step.label), metrics, slot));

        auto* label = new QCPItemText(this);
        label->setClipToAxisRect(false);
        label->setLayer(QStringLiteral("overlay"));  // above the capacity line
        label->position->setCoords(key, MemoryUnits::toUnit(used + saved));
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setTextAlignment(Qt::AlignHCenter);
        label->setColor(plan.fits ? Palette::fits() : Palette::outOfMemory());
        QColor backdrop = palette().color(QPalette::Base); // the theme's chart background (ui/style/theme.h)
        backdrop.setAlpha(210);
        label->setBrush(backdrop);  // the capacity line may pass behind it
        label->setPadding(QMargins(2, 1, 2, 1));
        QFont bold = font();
        bold.setBold(true);
        label->setFont(bold);
        const QString total = MemoryUnits::format(used, 1);
        const QString saving = step.savingBytes == 0 ? tr("no change")
                                                     : MemoryUnits::formatSigned(-static_cast<double>(step.savingBytes), 1);
        label->setText(i == 0 ? total : tr("%1\n%2").arg(total, saving));
        m_labels.append(label);
    }
    xAxis->setTicker(QSharedPointer<QCPAxisTicker>(ticker));
    xAxis->setRange(0.4, static_cast<double>(m_steps.size()) + 0.6);
    yAxis->setLabel(ChartStyle::memoryAxisLabel());
    if (!m_steps.empty()) {
        const Plan& first = m_steps.front().plan;
        const double capacity = MemoryUnits::toUnit(static_cast<double>(first.capacityBytes));
        // Room above the tallest bar for its two-line label.
        yAxis->setRange(0, std::max(capacity, top) * 1.22);
        m_capacity->setVisible(true);
        m_capacity->set(capacity, CapacityLine::label(static_cast<double>(first.capacityBytes)));
    } else {
        m_capacity->setVisible(false);
    }
    setSelectedStep(m_selected);
}

int LadderChart::stepAt(const QPointF& position) const
{
    // The bars and their tick labels below both count as the step.
    if (position.x() < axisRect()->left() || position.x() > axisRect()->right() || position.y() < axisRect()->top())
        return -1;
    const long index = std::lround(xAxis->pixelToCoord(position.x())) - 1;
    return index >= 0 && index < static_cast<long>(m_steps.size()) ? static_cast<int>(index) : -1;
}

void LadderChart::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    const int index = stepAt(event->position());
    if (index < 0) {
        QToolTip::hideText();
        return;
    }
    const LadderStep& step = m_steps[static_cast<std::size_t>(index)];
    const Plan& plan = step.plan;
    QString text =
        QStringLiteral("<b>%1</b><br>").arg(DisplayNames::ladderStep(step.technique, step.label).toHtmlEscaped());
    text += tr("Device used %1 (%2)")
                .arg(MemoryUnits::format(static_cast<double>(plan.deviceUsedBytes)),
                     plan.fits ? tr("fits") : tr("out of memory"));
    if (index > 0)
        text += QStringLiteral("<br>") + tr("Saving of this step: %1").arg(MemoryUnits::format(static_cast<double>(step.savingBytes)));
    text += QStringLiteral("<br><i>") + tr("Click to select, then apply it from the table") + QStringLiteral("</i>");
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

void LadderChart::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    if (event->size().width() != event->oldSize().width())
        refresh();  // the step names are wrapped to the new slot width
}

void LadderChart::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QCustomPlot::changeEvent(event);
}
