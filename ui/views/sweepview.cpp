// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/sweepview.h"

#include "charts/capacityline.h"
#include "document/plandocument.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QLocale>
#include <QProgressBar>
#include <QToolTip>

using namespace headroom;

namespace {

QCPItemStraightLine* verticalLine(QCustomPlot* plot, QCPAxisRect* rect, const QPen& pen)
{
    auto* line = new QCPItemStraightLine(plot);
    line->setClipAxisRect(rect);
    line->point1->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->point2->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    line->setPen(pen);
    line->setLayer(QStringLiteral("overlay"));
    return line;
}

// A label pinned to a line: x in data coordinates, y as a fraction of the rect's height.
QCPItemText* lineLabel(QCustomPlot* plot, QCPAxisRect* rect, const QColor& color)
{
    auto* label = new QCPItemText(plot);
    label->setClipAxisRect(rect);
    label->position->setAxisRect(rect);
    label->position->setAxes(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    label->setColor(color);
    label->setBrush(QColor(255, 255, 255, 220));
    label->setPadding(QMargins(4, 1, 4, 1));
    label->setLayer(QStringLiteral("overlay"));
    return label;
}

// A line's label goes on the side of the line with room: right of it in the
// left part of the range, left of it near the right edge.
Qt::Alignment sideWithRoom(const QCPRange& range, double x, bool preferLeft)
{
    const double position = (x - range.lower) / (range.size() > 0 ? range.size() : 1.0);
    const bool left = position > 0.75 || (preferLeft && position > 0.2);
    return (left ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignTop;
}

} // namespace

SweepView::SweepView(PlanDocument* document, QWidget* parent)
    : QCustomPlot(parent)
    , m_document(document)
    , m_progress(new QProgressBar(this))
{
    ChartStyle::apply(this);
    setMinimumSize(480, 280);
    // Layout: the legend in a row on top, the two axis rects side by side below.
    QCPAxisRect* left = axisRect();
    plotLayout()->take(left);
    plotLayout()->simplify();
    left->insetLayout()->take(legend);
    plotLayout()->addElement(0, 0, legend);
    auto* rects = new QCPLayoutGrid;
    plotLayout()->addElement(1, 0, rects);
    plotLayout()->setRowStretchFactor(0, 0.001);
    rects->addElement(0, 0, left);
    auto* right = new QCPAxisRect(this);
    rects->addElement(0, 1, right);
    m_mapRect = new QCPAxisRect(this);
    rects->addElement(0, 2, m_mapRect);
    rects->setColumnStretchFactors({1.0, 1.0, 0.8});
    // The rects share their top and bottom edges whatever their tick labels.
    auto* margins = new QCPMarginGroup(this);
    left->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    right->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    m_mapRect->setMarginGroup(QCP::msTop | QCP::msBottom, margins);
    legend->setVisible(true);
    legend->setFillOrder(QCPLegend::foColumnsFirst);
    legend->setWrap(0);  // one row: the entries spread over the width
    legend->setMargins(QMargins(8, 4, 8, 0));

    setUpPanel(m_panels[0], left, true);
    setUpPanel(m_panels[1], right, false);
    m_panels[0].result.axis = SweepAxis::MicroBatch;
    m_panels[1].result.axis = SweepAxis::SequenceLength;
    setUpFitMap(m_mapRect);

    m_progress->setVisible(false);
    m_progress->setTextVisible(true);
    connect(m_document, &PlanDocument::sweepProgress, this, [this](int done, int total) {
        m_progress->setRange(0, total);
        m_progress->setValue(done);
    });
    connect(m_document, &PlanDocument::sweepReady, this, &SweepView::showSweep);
    // A new plan: whatever was computing is for the old one and never arrives.
    connect(m_document, &PlanDocument::planChanged, this, [this] { m_progress->setVisible(false); });
}

void SweepView::setUpFitMap(QCPAxisRect* rect)
{
    ChartStyle::applyToAxisRect(this, rect);
    rect->setMinimumMargins(QMargins(8, 8, 12, 8));
    m_map = new QCPColorMap(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    m_map->removeFromLegend();
    m_map->setInterpolate(false);
    m_map->setTightBoundary(false);
    // Two colors: 0 does not fit, 1 fits (the verdict colors, lightened to sit behind the marker).
    QCPColorGradient gradient;
    gradient.clearColorStops();
    gradient.setColorStopAt(0, Palette::outOfMemory().lighter(150));
    gradient.setColorStopAt(1, Palette::fits().lighter(130));
    gradient.setLevelCount(2);
    m_map->setGradient(gradient);
    m_map->setDataRange(QCPRange(0, 1));
    m_mapCurrent = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
    m_mapCurrent->setLineStyle(QCPGraph::lsNone);
    m_mapCurrent->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCrossCircle, palette().color(QPalette::WindowText),
                                                  Qt::white, 12));
    m_mapCurrent->removeFromLegend();
    m_mapMessage = new QCPItemText(this);
    m_mapMessage->setClipAxisRect(rect);
    m_mapMessage->position->setAxisRect(rect);
    m_mapMessage->position->setType(QCPItemPosition::ptAxisRectRatio);
    m_mapMessage->position->setCoords(0.5, 0.45);
    m_mapMessage->setLayer(QStringLiteral("overlay"));
}

void SweepView::drawFitMap()
{
    QCPAxis* x = m_mapRect->axis(QCPAxis::atBottom);
    QCPAxis* y = m_mapRect->axis(QCPAxis::atLeft);
    x->setLabel(tr("Fit map: micro-batch"));
    y->setLabel(m_panels[1].result.mode == Mode::Train ? tr("Sequence length (tokens)") : tr("Prompt length (tokens)"));
    const FitMap& map = m_fitMap;
    const bool ok = !map.error && !map.batches.empty() && !map.sequences.empty();
    m_mapMessage->setVisible(!ok || busy());
    m_mapMessage->setText(busy() ? tr("Computing…") : map.error ? ErrorText::summary(map.error->code) : tr("Nothing to sweep"));
    m_map->setVisible(ok);
    m_mapCurrent->data()->clear();
    if (!ok)
        return;
    const auto nx = static_cast<int>(map.batches.size());
    const auto ny = static_cast<int>(map.sequences.size());
    m_map->data()->setSize(nx, ny);
    m_map->data()->setRange(QCPRange(static_cast<double>(map.batches.front()), static_cast<double>(map.batches.back())),
                            QCPRange(static_cast<double>(map.sequences.front()), static_cast<double>(map.sequences.back())));
    for (int b = 0; b < nx; ++b)
        for (int s = 0; s < ny; ++s)
            m_map->data()->setCell(b, s, map.fitsAt(static_cast<std::size_t>(b), static_cast<std::size_t>(s)) ? 1.0 : 0.0);
    m_map->rescaleAxes();
    m_mapCurrent->addData(static_cast<double>(map.currentBatch), static_cast<double>(map.currentSequence));
}

bool SweepView::busy() const { return m_document->sweepRunning(); }

bool SweepView::waitForResult(int timeoutMs) { return m_document->waitForSweep(timeoutMs); }

void SweepView::placeProgress()
{
    const int width = std::min(260, this->width() / 3);
    m_progress->setGeometry(this->width() - width - 12, 6, width, m_progress->sizeHint().height());
}

void SweepView::resizeEvent(QResizeEvent* event)
{
    QCustomPlot::resizeEvent(event);
    placeProgress();
}

SweepView::~SweepView() = default;

void SweepView::setUpPanel(Panel& panel, QCPAxisRect* rect, bool withLegend)
{
    panel.rect = rect;
    ChartStyle::applyToAxisRect(this, rect);
    rect->setMinimumMargins(QMargins(8, 8, 12, 8));
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    QCPGraph* below = nullptr;
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        auto* graph = addGraph(x, y);
        const QColor color = Palette::category(static_cast<Category>(c));
        graph->setPen(QPen(color.darker(115), 1));
        QColor fill = color;
        fill.setAlpha(210);
        graph->setBrush(fill);
        graph->setSelectable(QCP::stNone);
        // Stacked areas: each category fills down to the one below it.
        if (below)
            graph->setChannelFillGraph(below);
        below = graph;
        panel.layers.append(graph);
        if (!withLegend)
            graph->removeFromLegend();
    }
    panel.deviceUsed = addGraph(x, y);
    panel.deviceUsed->setPen(QPen(palette().color(QPalette::WindowText), 2));
    panel.deviceUsed->setSelectable(QCP::stNone);
    if (!withLegend)
        panel.deviceUsed->removeFromLegend();
    panel.capacity = std::make_unique<CapacityLine>(this, rect);
    panel.currentLine = verticalLine(this, rect, QPen(Palette::peakMarker(), 1.5, Qt::DotLine));
    panel.currentLabel = lineLabel(this, rect, Palette::peakMarker());
    panel.fitLine = verticalLine(this, rect, QPen(Palette::fits(), 2, Qt::DashLine));
    panel.fitLabel = lineLabel(this, rect, Palette::fits());
    panel.message = new QCPItemText(this);
    panel.message->setClipAxisRect(rect);
    panel.message->position->setAxisRect(rect);
    panel.message->position->setType(QCPItemPosition::ptAxisRectRatio);
    panel.message->position->setCoords(0.5, 0.45);
    panel.message->setColor(Palette::outOfMemory());
    panel.message->setLayer(QStringLiteral("overlay"));
}

void SweepView::showSweep()
{
    const std::optional<SweepBundle>& bundle = m_document->sweep();
    if (!bundle)
        return;
    m_panels[0].result = bundle->batch;
    m_panels[1].result = bundle->sequence;
    m_fitMap = bundle->fitMap;
    m_progress->setVisible(false);
    refresh();
}

void SweepView::showCurrent()
{
    if (m_document->sweep()) {
        showSweep();
        return;
    }
    m_document->requestSweep();
    m_progress->setRange(0, 0);  // busy until the first report
    m_progress->setFormat(tr("Computing sweeps and fit map… %p%"));
    placeProgress();
    m_progress->setVisible(true);
    m_progress->raise();
}

const SweepResult& SweepView::result(SweepAxis axis) const
{
    return m_panels[axis == SweepAxis::MicroBatch ? 0 : 1].result;
}

QString SweepView::axisTitle(const SweepResult& result) const
{
    const bool training = result.mode == Mode::Train;
    if (result.axis == SweepAxis::MicroBatch)
        return training ? tr("Micro-batch (sequences per GPU)") : tr("Batch (sequences)");
    return training ? tr("Sequence length (tokens)") : tr("Prompt length (tokens)");
}

void SweepView::refresh()
{
    // One legend for both panels (the left one's graphs), listing only the
    // categories that appear somewhere in the sweep.
    legend->clearItems();
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        QCPGraph* graph = m_panels[0].layers[static_cast<int>(c)];
        graph->setName(DisplayNames::category(static_cast<Category>(c)));
        bool present = false;
        for (const Panel& panel : m_panels)
            for (const SweepPoint& point : panel.result.points)
                present = present || point.breakdown[c] > 0;
        if (present)
            graph->addToLegend();
    }
    m_panels[0].deviceUsed->setName(tr("Device used (nvidia-smi)"));
    m_panels[0].deviceUsed->addToLegend();
    for (Panel& panel : m_panels)
        drawPanel(panel);
    drawFitMap();
    replot();
}

void SweepView::drawPanel(Panel& panel)
{
    const SweepResult& r = panel.result;
    QCPAxis* x = panel.rect->axis(QCPAxis::atBottom);
    QCPAxis* y = panel.rect->axis(QCPAxis::atLeft);
    x->setLabel(axisTitle(r));
    y->setLabel(ChartStyle::memoryAxisLabel());
    const bool ok = !r.error && !r.points.empty();
    panel.message->setVisible(!ok);
    panel.message->setText(r.error ? ErrorText::summary(r.error->code) : tr("Nothing to sweep"));
    for (QCPAbstractItem* marker : std::initializer_list<QCPAbstractItem*>{panel.currentLine, panel.currentLabel,
                                                                            panel.fitLine, panel.fitLabel})
        marker->setVisible(ok);
    panel.capacity->setVisible(ok);
    if (!ok) {
        for (QCPGraph* graph : panel.layers)
            graph->data()->clear();
        panel.deviceUsed->data()->clear();
        return;
    }

    QVector<double> keys, used;
    std::vector<QVector<double>> stacked(kCategoryCount);
    double top = 0;
    for (const SweepPoint& point : r.points) {
        keys.append(static_cast<double>(point.value));
        double cumulative = 0;
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            cumulative += static_cast<double>(point.breakdown[c]);
            stacked[c].append(MemoryUnits::toUnit(cumulative));
        }
        used.append(MemoryUnits::toUnit(static_cast<double>(point.deviceUsedBytes)));
        top = std::max(top, used.back());
    }
    for (std::size_t c = 0; c < kCategoryCount; ++c)
        panel.layers[static_cast<int>(c)]->setData(keys, stacked[c], true);
    panel.deviceUsed->setData(keys, used, true);

    const double capacity = MemoryUnits::toUnit(static_cast<double>(r.capacityBytes));
    x->setRange(keys.front() > 1 ? 0 : 1, keys.back());
    // Past a few times the capacity the interesting part would be squashed flat.
    y->setRange(0, std::min(std::max(capacity, top), 3 * capacity) * 1.12);
    panel.capacity->set(capacity, CapacityLine::label(static_cast<double>(r.capacityBytes)));

    const QLocale locale;
    const auto current = static_cast<double>(r.current);
    panel.currentLine->point1->setCoords(current, 0);
    panel.currentLine->point2->setCoords(current, 1);
    panel.currentLabel->position->setCoords(current, 0.02);
    panel.currentLabel->setPositionAlignment(sideWithRoom(x->range(), current, true));
    panel.currentLabel->setText(tr("now: %1").arg(locale.toString(static_cast<qulonglong>(r.current))));

    const bool found = r.largestFitting && r.largestFitting->found;
    panel.fitLine->setVisible(found);
    if (found) {
        const auto fitting = static_cast<double>(r.largestFitting->value);
        panel.fitLine->point1->setCoords(fitting, 0);
        panel.fitLine->point2->setCoords(fitting, 1);
        panel.fitLabel->position->setCoords(fitting, 0.10);
        panel.fitLabel->setPositionAlignment(sideWithRoom(x->range(), fitting, false));
        panel.fitLabel->setText(tr("largest that fits: %1").arg(locale.toString(static_cast<qulonglong>(r.largestFitting->value))));
    } else {
        panel.fitLabel->position->setCoords((x->range().lower + x->range().upper) / 2, 0.10);
        panel.fitLabel->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        panel.fitLabel->setColor(Palette::outOfMemory());
        panel.fitLabel->setText(tr("even 1 does not fit"));
    }
    if (found)
        panel.fitLabel->setColor(Palette::fits());
}

void SweepView::mouseMoveEvent(QMouseEvent* event)
{
    QCustomPlot::mouseMoveEvent(event);
    for (const Panel& panel : m_panels) {
        if (!panel.rect->rect().contains(event->position().toPoint()) || panel.result.points.empty())
            continue;
        const double key = panel.rect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        // The sampled value nearest the cursor.
        const SweepPoint* nearest = &panel.result.points.front();
        for (const SweepPoint& point : panel.result.points)
            if (std::abs(static_cast<double>(point.value) - key) < std::abs(static_cast<double>(nearest->value) - key))
                nearest = &point;
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("<b>%1 = %2</b><br>Device used %3 (%4)")
                               .arg(axisTitle(panel.result), QLocale().toString(static_cast<qulonglong>(nearest->value)),
                                    MemoryUnits::format(static_cast<double>(nearest->deviceUsedBytes)),
                                    nearest->fits ? tr("fits") : tr("out of memory")),
                           this);
        return;
    }
    if (m_mapRect->rect().contains(event->position().toPoint()) && !m_fitMap.batches.empty()) {
        // The map cell under the cursor: its micro-batch, sequence length and verdict.
        const double bx = m_mapRect->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        const double sy = m_mapRect->axis(QCPAxis::atLeft)->pixelToCoord(event->position().y());
        const auto clampIndex = [](double v, std::size_t n) {
            return static_cast<std::size_t>(std::clamp(std::llround(v), 0LL, static_cast<long long>(n) - 1));
        };
        const std::size_t b = clampIndex(bx - static_cast<double>(m_fitMap.batches.front()), m_fitMap.batches.size());
        const double step = m_fitMap.sequences.size() > 1
                                ? static_cast<double>(m_fitMap.sequences[1] - m_fitMap.sequences[0]) : 1.0;
        const std::size_t s = clampIndex((sy - static_cast<double>(m_fitMap.sequences.front())) / step, m_fitMap.sequences.size());
        const std::size_t cell = s * m_fitMap.batches.size() + b;
        // Cells away from the fit boundary keep the quick estimate's bytes
        // (plan/knobsweep.h); their verdict is the simulation's.
        const bool simulated = cell < m_fitMap.simulated.size() && m_fitMap.simulated[cell] != 0;
        QToolTip::showText(event->globalPosition().toPoint(),
                           (simulated ? tr("<b>%1 × %2 tokens</b><br>Device used %3 (%4)")
                                      : tr("<b>%1 × %2 tokens</b><br>Device used about %3, estimated (%4)"))
                               .arg(QLocale().toString(static_cast<qulonglong>(m_fitMap.batches[b])),
                                    QLocale().toString(static_cast<qulonglong>(m_fitMap.sequences[s])),
                                    MemoryUnits::format(static_cast<double>(m_fitMap.deviceUsedBytes[cell])),
                                    m_fitMap.fits[cell] ? tr("fits") : tr("out of memory")),
                           this);
        return;
    }
    QToolTip::hideText();
}

void SweepView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QCustomPlot::changeEvent(event);
}
