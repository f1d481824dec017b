// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/capacityline.h"

#include "style/palette.h"
#include "text/memoryunits.h"

#include <QCoreApplication>
#include <qcustomplot.h>

CapacityLine::CapacityLine(QCustomPlot* plot, QCPAxisRect* rect)
    : m_line(new QCPItemStraightLine(plot))
    , m_axis(rect->axis(QCPAxis::atRight))
{
    QCPAxis* x = rect->axis(QCPAxis::atBottom);
    QCPAxis* y = rect->axis(QCPAxis::atLeft);
    m_line->setClipAxisRect(rect);
    m_line->point1->setAxes(x, y);
    m_line->point2->setAxes(x, y);
    m_line->setPen(QPen(Palette::capacity(), 2, Qt::DashLine));
    m_line->setLayer(QStringLiteral("overlay"));

    // The right axis mirrors the memory axis and shows one tick: the capacity.
    m_axis->setVisible(true);
    m_axis->setBasePen(Qt::NoPen);
    m_axis->setTickPen(QPen(Palette::capacity(), 2));
    m_axis->setTickLength(0, 6);
    m_axis->setSubTickPen(Qt::NoPen);
    m_axis->grid()->setVisible(false);
    m_axis->setTickLabelColor(Palette::capacity());
    QFont font = plot->font();
    font.setBold(true);
    m_axis->setTickLabelFont(font);
    m_axis->setRange(y->range());
    QObject::connect(y, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), m_axis, qOverload<const QCPRange&>(&QCPAxis::setRange));
}

QString CapacityLine::label(double capacityBytes)
{
    //: the GPU's capacity, shown beside the chart's right edge on two lines
    return QCoreApplication::translate("CapacityLine", "Capacity\n%1").arg(MemoryUnits::format(capacityBytes));
}

void CapacityLine::set(double valueInUnit, const QString& label)
{
    m_line->point1->setCoords(0, valueInUnit);
    m_line->point2->setCoords(1, valueInUnit);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTick(valueInUnit, label);
    m_axis->setTicker(ticker);
}

void CapacityLine::setVisible(bool visible)
{
    m_line->setVisible(visible);
    m_axis->setTickLabels(visible);
    m_axis->setTicks(visible);
}
