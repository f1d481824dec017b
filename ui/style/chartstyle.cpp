// SPDX-License-Identifier: GPL-3.0-or-later
#include "style/chartstyle.h"

#include "style/palette.h"
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <QPalette>
#include <qcustomplot.h>

#include <utility>
#include <vector>

void ChartStyle::applyToAxisRect(QCustomPlot* plot, QCPAxisRect* rect)
{
    const QFont font = plot->font();
    QFont labelFont = font;
    labelFont.setBold(true);
    const QColor text = plot->palette().color(QPalette::WindowText);
    const QColor grid = plot->palette().color(QPalette::Mid);
    for (QCPAxis* axis : rect->axes()) {
        axis->setTickLabelFont(font);
        axis->setLabelFont(labelFont);
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->setBasePen(QPen(grid, 1));
        axis->setTickPen(QPen(grid, 1));
        axis->setSubTickPen(Qt::NoPen);
        axis->grid()->setPen(QPen(QColor(grid.red(), grid.green(), grid.blue(), 70), 1, Qt::DotLine));
        axis->grid()->setZeroLinePen(Qt::NoPen);
    }
    rect->axis(QCPAxis::atBottom)->grid()->setVisible(false);
}

void ChartStyle::setRenderingHints(QCustomPlot* plot)
{
    // Raster painting always; asking QCustomPlot to switch OpenGL off when it
    // was built without it only prints a warning, so ask only when it is on.
    if (plot->openGl())
        plot->setOpenGl(false);
    plot->setPlottingHints(QCP::phCacheLabels);
    // The paint buffer at the screen's ratio (QCustomPlot reads it once, at construction).
    plot->setBufferDevicePixelRatio(plot->devicePixelRatioF());
    plot->setAntialiasedElements(QCP::aeAll);
    plot->setNotAntialiasedElements(QCP::aeAxes | QCP::aeGrid);
}

void ChartStyle::apply(QCustomPlot* plot)
{
    plot->setBackground(plot->palette().brush(QPalette::Base));
    setRenderingHints(plot);
    if (plot->axisRect())
        applyToAxisRect(plot, plot->axisRect());
    plot->legend->setFont(plot->font());
    plot->legend->setBrush(Qt::NoBrush);
    plot->legend->setBorderPen(Qt::NoPen);
    plot->legend->setIconSize(14, 14);
}

QString ChartStyle::memoryAxisLabel()
{
    //: chart axis; %1 is GiB or GB
    return QCoreApplication::translate("ChartStyle", "Memory (%1)").arg(MemoryUnits::suffix());
}

QCPItemText* ChartStyle::addCenteredMessage(QCustomPlot* plot, QCPAxisRect* rect)
{
    auto* message = new QCPItemText(plot);
    message->setClipAxisRect(rect);
    message->position->setAxisRect(rect);
    message->position->setType(QCPItemPosition::ptAxisRectRatio);
    message->position->setCoords(0.5, 0.45);
    message->setColor(plot->palette().color(QPalette::PlaceholderText));
    QFont font = plot->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    message->setFont(font);
    message->setLayer(QStringLiteral("overlay"));
    message->setVisible(false);
    return message;
}

QString ChartStyle::noPlanMessage()
{
    return QCoreApplication::translate("ChartStyle", "No plan: see the message above the inputs");
}

void ChartStyle::setMemoryRange(QCPAxis* axis, double topInUnit)
{
    axis->setRange(0, topInUnit > 0 ? topInUnit * 1.12 : 1.0);
}

namespace {

// One color as the new theme has it: a palette role of the old palette
// becomes the same role of the new one, a signal color its other variant.
class Recolor {
public:
    Recolor(const QPalette& before, const QPalette& after)
    {
        for (QPalette::ColorRole role : {QPalette::Base, QPalette::Window, QPalette::WindowText, QPalette::Text,
                                         QPalette::Mid, QPalette::PlaceholderText, QPalette::Highlight})
            m_pairs.emplace_back(before.color(role).rgb(), after.color(role));
    }

    QColor operator()(const QColor& color) const
    {
        for (const auto& [old, now] : m_pairs)
            if (color.rgb() == old) {
                QColor result = now;
                result.setAlpha(color.alpha());  // the grid's translucency stays
                return result;
            }
        return Palette::themed(color);
    }
    QPen operator()(QPen pen) const
    {
        pen.setColor((*this)(pen.color()));
        return pen;
    }
    QBrush operator()(QBrush brush) const
    {
        if (brush.style() != Qt::NoBrush && brush.style() != Qt::TexturePattern)
            brush.setColor((*this)(brush.color()));
        return brush;
    }

private:
    std::vector<std::pair<QRgb, QColor>> m_pairs;
};

} // namespace

void ChartStyle::restyle(QCustomPlot* plot, const QPalette& before)
{
    const Recolor recolor(before, plot->palette());
    plot->setBackground(plot->palette().brush(QPalette::Base));
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(recolor(rect->backgroundBrush()));
        for (QCPAxis* axis : rect->axes()) {
            axis->setTickLabelColor(recolor(axis->tickLabelColor()));
            axis->setLabelColor(recolor(axis->labelColor()));
            axis->setBasePen(recolor(axis->basePen()));
            axis->setTickPen(recolor(axis->tickPen()));
            axis->grid()->setPen(recolor(axis->grid()->pen()));
        }
    }
    for (int i = 0; i < plot->itemCount(); ++i) {
        QCPAbstractItem* item = plot->item(i);
        if (auto* text = qobject_cast<QCPItemText*>(item)) {
            text->setColor(recolor(text->color()));
            text->setPen(recolor(text->pen()));
            text->setBrush(recolor(text->brush()));
        } else if (auto* line = qobject_cast<QCPItemStraightLine*>(item)) {
            line->setPen(recolor(line->pen()));
        } else if (auto* segment = qobject_cast<QCPItemLine*>(item)) {
            segment->setPen(recolor(segment->pen()));
        } else if (auto* box = qobject_cast<QCPItemRect*>(item)) {
            box->setPen(recolor(box->pen()));
            box->setBrush(recolor(box->brush()));
        }
    }
    for (int i = 0; i < plot->plottableCount(); ++i) {
        QCPAbstractPlottable* plottable = plot->plottable(i);
        plottable->setPen(recolor(plottable->pen()));
        plottable->setBrush(recolor(plottable->brush()));
    }
    for (QCPLegend* legend : plot->findChildren<QCPLegend*>()) {
        legend->setTextColor(recolor(legend->textColor()));
        for (int i = 0; i < legend->itemCount(); ++i)
            if (QCPAbstractLegendItem* entry = legend->item(i))
                entry->setTextColor(recolor(entry->textColor()));
    }
    plot->replot();
}

QVector<QCPBars*> ChartStyle::addStackedBars(QCustomPlot* plot, int count, double width)
{
    QVector<QCPBars*> layers;
    QCPBars* below = nullptr;
    for (int i = 0; i < count; ++i) {
        auto* bars = new QCPBars(plot->xAxis, plot->yAxis);
        bars->setWidth(width);
        bars->setSelectable(QCP::stNone);
        bars->setStackingGap(0);
        if (below)
            bars->moveAbove(below);
        below = bars;
        layers.append(bars);
    }
    return layers;
}
