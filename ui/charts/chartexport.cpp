// SPDX-License-Identifier: GPL-3.0-or-later
#include "charts/chartexport.h"

#include "io/atomicfile.h"
#include "text/errortext.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <qcustomplot.h>

#include <algorithm>

#ifdef HEADROOM_HAVE_SVG
#include <QSvgGenerator>
#endif

QStringList ChartExport::suffixes()
{
    QStringList list{QStringLiteral("png"), QStringLiteral("pdf")};
#ifdef HEADROOM_HAVE_SVG
    list << QStringLiteral("svg");
#endif
    return list;
}

QString ChartExport::fileFilter()
{
    QStringList filters{tr("PNG image (*.png)"), tr("PDF document (*.pdf)")};
#ifdef HEADROOM_HAVE_SVG
    filters << tr("SVG image (*.svg)");
#endif
    return filters.join(QStringLiteral(";;"));
}

double ChartExport::pngScale(const QCustomPlot* plot)
{
    // Twice the chart's size for slides, or the screen's own ratio when it is
    // higher (a 3x phone-class panel), so an export is never softer than the screen.
    return std::max(2.0, plot->devicePixelRatioF());
}

QByteArray ChartExport::render(QCustomPlot* plot, const QString& suffix)
{
    const int width = plot->width(), height = plot->height();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (suffix == QLatin1String("png")) {
        const QPixmap pixmap = plot->toPixmap(width, height, pngScale(plot));
        if (pixmap.isNull() || !pixmap.save(&buffer, "PNG"))
            return {};
    } else if (suffix == QLatin1String("pdf")) {
        // One page the chart's size (in points: 1 px = 1 pt at 72 dpi), vector.
        QPdfWriter writer(&buffer);
        writer.setCreator(QStringLiteral("Headroom"));
        writer.setTitle(QStringLiteral("Headroom"));
        writer.setResolution(72);
        writer.setPageLayout(QPageLayout(QPageSize(QSizeF(width, height), QPageSize::Point), QPageLayout::Portrait, QMarginsF()));
        QCPPainter painter;
        if (!painter.begin(&writer))
            return {};
        painter.setMode(QCPPainter::pmVectorized);
        painter.setMode(QCPPainter::pmNoCaching);
        painter.setMode(QCPPainter::pmNonCosmetic);  // QCP::epNoCosmetic: lines scale with the page
        plot->toPainter(&painter, width, height);
        painter.end();
    } else {
#ifdef HEADROOM_HAVE_SVG
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(QSize(width, height));
        generator.setViewBox(QRect(0, 0, width, height));
        generator.setTitle(QStringLiteral("Headroom"));
        QCPPainter painter;
        if (!painter.begin(&generator))
            return {};
        plot->toPainter(&painter, width, height);
        painter.end();
#endif
    }
    buffer.close();
    return bytes;
}

QString ChartExport::save(QCustomPlot* plot, const QString& path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (!suffixes().contains(suffix))
        return tr("Unknown image format \"%1\": use %2.").arg(suffix, suffixes().join(QStringLiteral(", ")));
    const QByteArray bytes = render(plot, suffix);
    if (bytes.isEmpty())
        return tr("Could not write %1.").arg(path);
    // Atomic, like every file Headroom writes: an old export is never left half-overwritten.
    auto written = headroom::writeFileAtomically(path.toStdString(),
                                                 std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (!written)
        return tr("Could not write %1.").arg(path) + QLatin1Char(' ') + ErrorText::message(written.error());
    return QString();
}
