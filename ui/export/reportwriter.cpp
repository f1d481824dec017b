// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/reportwriter.h"

#include "charts/breakdownchart.h"
#include "charts/devicestack.h"
#include "charts/timelineview.h"
#include "document/plandocument.h"
#include "io/atomicfile.h"
#include "models/tensorrowmodel.h"
#include "plan/fitsearch.h"
#include "plan/ladder.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "style/theme.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/gputext.h"
#include "text/memoryunits.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLocale>
#include <QPageLayout>
#include <QPdfWriter>
#include <QScreen>
#include <QTextDocument>
#include <QUrl>

using namespace headroom;

namespace {

// Print resolution: 300 dpi, the usual for office printers. The charts are
// laid out at a window-like size (kChartSize, so their fonts keep their
// proportions) and drawn at kChartScale times that: about 2050 pixels
// across the 174 mm text width, i.e. about 300 dpi on paper.
constexpr int kResolution = 300;
const QSize kChartSize(820, 440);
constexpr double kChartScale = 2.5;

QString escaped(const QString& text) { return text.toHtmlEscaped(); }

QString bytesText(double bytes) { return MemoryUnits::format(bytes); }

QString row(const QStringList& cells, bool header = false)
{
    const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
    QString html = QStringLiteral("<tr>");
    for (const QString& cell : cells)
        html += QStringLiteral("<%1>%2</%1>").arg(tag, cell);
    return html + QStringLiteral("</tr>");
}

// A chart widget drawn offscreen on a light background (paper), whatever
// the window's theme.
template <class Chart>
QImage chartImage(const Plan& plan)
{
    const bool wasDark = Palette::isDark();
    Palette::setDark(false);
    Chart chart;
    const QPalette before = chart.palette();
    chart.setPalette(Theme::lightPalette());
    ChartStyle::restyle(&chart, before);
    chart.resize(kChartSize);
    chart.setPlan(plan);
    const QImage image = chart.toPixmap(kChartSize.width(), kChartSize.height(), kChartScale).toImage();
    Palette::setDark(wasDark);
    return image;
}

QString scenarioSection(const Scenario& s, const Plan& plan)
{
    QStringList rows;
    auto add = [&](const QString& key, const QString& value) { rows << row({escaped(key), escaped(value)}); };
    add(ReportWriter::tr("Model"), QStringLiteral("%1 (%2)").arg(QString::fromStdString(s.model.id),
                                                                 DisplayNames::parameterCount(static_cast<double>(plan.totalParameters))));
    add(ReportWriter::tr("Mode"), DisplayNames::mode(s.mode));
    add(ReportWriter::tr("Runtime profile"), DisplayNames::profile(s.profile));
    add(ReportWriter::tr("GPU"), ReportWriter::tr("%1 × %2").arg(GpuText::listEntry(plan.gpu)).arg(s.hardware.count));
    add(ReportWriter::tr("Capacity"), GpuText::capacityLine(plan.gpu));
    add(ReportWriter::tr("Sharding"), DisplayNames::sharding(s.hardware.sharding) +
                                          (s.hardware.cpuOffload ? ReportWriter::tr(", CPU offload") : QString()));
    if (s.mode == Mode::Train) {
        const TrainConfig& t = s.train;
        add(ReportWriter::tr("Precision"), DisplayNames::precision(t.precision));
        add(ReportWriter::tr("Weight quantization"), DisplayNames::weightQuant(t.weightQuant));
        add(ReportWriter::tr("Optimizer"), DisplayNames::optimizer(t.optimizer));
        QString peft = DisplayNames::peftMethod(t.peft.method);
        if (t.peft.method != PeftMethod::None)
            peft += ReportWriter::tr(", rank %1, alpha %2").arg(t.peft.rank).arg(t.peft.alpha);
        add(ReportWriter::tr("Adapters (PEFT)"), peft);
        add(ReportWriter::tr("Trainable parameters"), DisplayNames::parameterCount(static_cast<double>(plan.trainableParameters)));
        add(ReportWriter::tr("Micro-batch × sequence length"), QStringLiteral("%1 × %2").arg(t.microBatch).arg(t.seqLen));
        add(ReportWriter::tr("Gradient accumulation"), QString::number(t.gradAccum));
        add(ReportWriter::tr("Gradient checkpointing"), DisplayNames::checkpointing(t.checkpointing));
        add(ReportWriter::tr("Attention"), DisplayNames::attention(t.attention));
    } else {
        const InferenceConfig& i = s.inference;
        add(ReportWriter::tr("Batch"), QString::number(i.batch));
        add(ReportWriter::tr("Prompt + new tokens"), QStringLiteral("%1 + %2").arg(i.promptTokens).arg(i.newTokens));
        add(ReportWriter::tr("Weights"), DisplayNames::precision(i.precision) + QStringLiteral(" · ") + DisplayNames::weightQuant(i.weightQuant));
        add(ReportWriter::tr("KV cache"), DisplayNames::kvCacheDtype(i.kvCacheDtype));
        add(ReportWriter::tr("Attention"), DisplayNames::attention(i.attention));
    }
    return QStringLiteral("<h2>%1</h2><table class=\"kv\">%2</table>").arg(escaped(ReportWriter::tr("Scenario")), rows.join(QString()));
}

QString verdictSection(const Plan& plan)
{
    const double margin = static_cast<double>(plan.marginBytes);
    const QString verdict = plan.fits ? ReportWriter::tr("Fits, %1 to spare").arg(bytesText(margin))
                                      : ReportWriter::tr("Out of memory by %1").arg(bytesText(-margin));
    const QColor color = plan.fits ? QColor(0x2E, 0x7D, 0x32) : QColor(0xC6, 0x28, 0x28);  // Palette's light variants
    QString html = QStringLiteral("<h2>%1</h2><p class=\"verdict\" style=\"color:%2\">%3</p>")
                       .arg(escaped(ReportWriter::tr("Verdict")), color.name(), escaped(verdict));
    QStringList rows;
    rows << row({escaped(ReportWriter::tr("Peak allocated")), bytesText(static_cast<double>(plan.peakAllocatedBytes))});
    rows << row({escaped(ReportWriter::tr("Peak reserved")), bytesText(static_cast<double>(plan.peakReservedBytes))});
    rows << row({escaped(ReportWriter::tr("Device used (nvidia-smi)")), bytesText(static_cast<double>(plan.deviceUsedBytes))});
    rows << row({escaped(ReportWriter::tr("Capacity the plan uses")), bytesText(static_cast<double>(plan.capacityBytes))});
    rows << row({escaped(ReportWriter::tr("Peak at")), escaped(DisplayNames::event(plan.events[plan.peakEvent]))});
    html += QStringLiteral("<table class=\"kv\">%1</table>").arg(rows.join(QString()));
    if (!plan.notes.empty()) {
        html += QStringLiteral("<p><b>%1</b></p><ul>").arg(escaped(ReportWriter::tr("Assumptions")));
        for (const std::string& note : plan.notes)
            html += QStringLiteral("<li>%1</li>").arg(escaped(ErrorText::note(note)));
        html += QStringLiteral("</ul>");
    }
    return html;
}

QString breakdownTable(const Plan& plan)
{
    const double used = static_cast<double>(plan.deviceUsedBytes);
    QStringList rows;
    rows << row({escaped(ReportWriter::tr("Category")), escaped(ReportWriter::tr("At the peak")), escaped(ReportWriter::tr("Share"))}, true);
    const QLocale locale;
    for (const DeviceSegment& segment : DeviceStack::segments(plan)) {
        if (segment.bytes <= 0)
            continue;
        const QString swatch = QStringLiteral("<span style=\"color:%1\">■</span> ").arg(segment.color().name());
        rows << row({swatch + escaped(segment.title()), bytesText(segment.bytes),
                     used > 0 ? locale.toString(100.0 * segment.bytes / used, 'f', 1) + QStringLiteral(" %") : QString()});
    }
    rows << row({QStringLiteral("<b>%1</b>").arg(escaped(ReportWriter::tr("Device used (nvidia-smi)"))),
                 QStringLiteral("<b>%1</b>").arg(bytesText(used)), QString()});
    return QStringLiteral("<table class=\"grid\">%1</table>").arg(rows.join(QString()));
}

QString formulasSection(const Plan& plan)
{
    QString html = QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2><p>%2</p>")
                       .arg(escaped(ReportWriter::tr("Where the numbers come from")),
                            escaped(ReportWriter::tr("Each tensor a training step creates, with its size for this scenario, "
                                                     "how many instances are alive at the peak, and the formula's source.")));
    TensorRowModel model;
    for (std::size_t c = 0; c < kCategoryCount; ++c) {
        const auto category = static_cast<Category>(c);
        model.setRows(plan, category);
        if (model.rowCount() == 0)
            continue;
        html += QStringLiteral("<h3><span style=\"color:%1\">■</span> %2 — %3</h3><p class=\"note\">%4</p>")
                    .arg(Palette::category(category).name(), escaped(DisplayNames::category(category)),
                         bytesText(static_cast<double>(model.totalAtPeak())), escaped(DisplayNames::categoryDescription(category)));
        QStringList rows;
        QStringList header;
        for (int column : {TensorRowModel::Name, TensorRowModel::PerInstance, TensorRowModel::Instances, TensorRowModel::AtPeak})
            header << escaped(model.headerData(column, Qt::Horizontal).toString());
        header << escaped(ReportWriter::tr("Formula and source"));
        rows << row(header, true);
        for (int r = 0; r < model.rowCount(); ++r) {
            auto cell = [&](int column, int role = Qt::DisplayRole) { return escaped(model.index(r, column).data(role).toString()); };
            rows << row({cell(TensorRowModel::Name), cell(TensorRowModel::PerInstance), cell(TensorRowModel::Instances),
                         cell(TensorRowModel::AtPeak), QStringLiteral("<span class=\"source\">%1</span>").arg(cell(0, TensorRowModel::SourceRole))});
        }
        html += QStringLiteral("<table class=\"grid\">%1</table>").arg(rows.join(QString()));
    }
    return html;
}

QString recommendationsSection(const Scenario& scenario, const Plan& plan)
{
    QString html = QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2>").arg(escaped(ReportWriter::tr("Recommendations")));
    if (scenario.mode == Mode::Train) {
        auto ladder = PlanDocument::ladderFor(scenario);
        html += QStringLiteral("<h3>%1</h3><p>%2</p>")
                    .arg(escaped(ReportWriter::tr("Technique ladder")),
                         escaped(ReportWriter::tr("From a naive full fine-tune, one technique after another, with the memory each saves.")));
        if (ladder) {
            QStringList rows;
            rows << row({escaped(ReportWriter::tr("Step")), escaped(ReportWriter::tr("Device used")), escaped(ReportWriter::tr("Saving")),
                         escaped(ReportWriter::tr("Fits"))},
                        true);
            for (const LadderStep& step : ladder.value())
                rows << row({escaped(DisplayNames::ladderStep(step.technique, step.label)),
                             bytesText(static_cast<double>(step.plan.deviceUsedBytes)),
                             step.savingBytes != 0 ? MemoryUnits::formatSigned(-static_cast<double>(step.savingBytes))
                                                   : QString(),
                             step.plan.fits ? escaped(ReportWriter::tr("yes")) : escaped(ReportWriter::tr("no"))});
            html += QStringLiteral("<table class=\"grid\">%1</table>").arg(rows.join(QString()));
        } else {
            html += QStringLiteral("<p>%1</p>").arg(escaped(ErrorText::message(ladder.error())));
        }

        html += QStringLiteral("<h3>%1</h3>").arg(escaped(ReportWriter::tr("Fit search")));
        QStringList rows;
        auto fitRow = [&](const QString& what, const Result<FitResult>& fit, const QString& current) {
            QString value;
            if (!fit)
                value = escaped(ErrorText::message(fit.error()));
            else if (!fit.value().found)
                value = escaped(ReportWriter::tr("not even 1 fits"));
            else
                value = ReportWriter::tr("%1 (device used %2)")
                            .arg(QLocale().toString(static_cast<qulonglong>(fit.value().value)),
                                 bytesText(static_cast<double>(fit.value().deviceUsedBytes)));
            rows << row({escaped(what), current, value});
        };
        rows << row({QString(), escaped(ReportWriter::tr("Now")), escaped(ReportWriter::tr("Largest that fits"))}, true);
        fitRow(ReportWriter::tr("Micro-batch"), PlanDocument::largestMicroBatchFor(scenario),
               QLocale().toString(static_cast<qulonglong>(scenario.train.microBatch)));
        fitRow(ReportWriter::tr("Sequence length"), PlanDocument::longestSequenceFor(scenario),
               QLocale().toString(static_cast<qulonglong>(scenario.train.seqLen)));
        html += QStringLiteral("<table class=\"grid\">%1</table>").arg(rows.join(QString()));
    }

    auto models = PlanDocument::largestModelsFor(scenario);
    html += QStringLiteral("<h3>%1</h3><p>%2</p>")
                .arg(escaped(ReportWriter::tr("Largest model per technique")),
                     escaped(ReportWriter::tr("The largest catalog model, and the largest Llama-like model by size, that fit %1 with these batch settings.")
                                 .arg(QString::fromStdString(plan.gpu.name))));
    if (models) {
        QStringList rows;
        rows << row({escaped(ReportWriter::tr("Techniques")), escaped(ReportWriter::tr("Largest catalog model")),
                     escaped(ReportWriter::tr("Largest by size"))},
                    true);
        for (const ModelFitRow& fit : models.value())
            rows << row({escaped(ErrorText::technique(fit.technique.id, fit.technique.label)),
                         fit.largestPresetId.empty() ? QStringLiteral("—")
                                                     : escaped(QStringLiteral("%1 (%2)").arg(QString::fromStdString(fit.largestPresetId),
                                                                                          DisplayNames::parameterCount(static_cast<double>(fit.largestPresetParameters)))),
                         fit.largestGenericParameters > 0 ? DisplayNames::parameterCount(fit.largestGenericParameters) : QStringLiteral("—")});
        html += QStringLiteral("<table class=\"grid\">%1</table>").arg(rows.join(QString()));
    } else {
        html += QStringLiteral("<p>%1</p>").arg(escaped(ErrorText::message(models.error())));
    }
    return html;
}

QFont reportFont()
{
    // Korean needs a CJK face (fonts-noto-cjk); Latin text keeps a sans face either way.
    QFont font;
    if (QLocale().language() == QLocale::Korean)
        font.setFamilies({QStringLiteral("Noto Sans CJK KR"), QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans")});
    else
        font.setFamilies({QStringLiteral("Noto Sans"), QStringLiteral("DejaVu Sans"), QStringLiteral("Noto Sans CJK KR")});
    font.setPointSizeF(9.5);
    return font;
}

} // namespace

void ReportWriter::build(QTextDocument& document, const Scenario& scenario, const Plan& plan)
{
    document.setDefaultFont(reportFont());
    // The charts span the text width (the page's, or 640 units for a document without pages).
    const qreal pageWidth = document.pageSize().width() > 0 ? document.pageSize().width() : 640 + 2 * document.documentMargin();
    const int imageWidth = static_cast<int>(pageWidth - 2 * document.documentMargin());
    document.setDefaultStyleSheet(QStringLiteral(
        "h1 { font-size: 20pt; margin-bottom: 2pt; } h2 { font-size: 14pt; margin-top: 14pt; } "
        "h3 { font-size: 11pt; margin-top: 10pt; } .date { color: #555555; } .verdict { font-size: 14pt; font-weight: bold; } "
        "table.grid { border-collapse: collapse; } table.grid td, table.grid th { border: 1px solid #BBBBBB; padding: 3px; } "
        "table.grid th { background: #EEEEEE; } table.kv td { padding: 2px 12px 2px 0; } "
        ".source { color: #444444; font-size: 8pt; } .note { color: #444444; }"));
    const QUrl breakdownUrl(QStringLiteral("headroom://breakdown.png"));
    const QUrl timelineUrl(QStringLiteral("headroom://timeline.png"));
    document.addResource(QTextDocument::ImageResource, breakdownUrl, chartImage<BreakdownChart>(plan));
    document.addResource(QTextDocument::ImageResource, timelineUrl, chartImage<TimelineView>(plan));

    const QLocale locale;
    QString html = QStringLiteral("<h1>%1</h1><p class=\"date\">%2 · Headroom %3</p>")
                       .arg(escaped(tr("Headroom memory plan")), escaped(locale.toString(QDateTime::currentDateTime(), QLocale::LongFormat)),
                            QStringLiteral(HEADROOM_VERSION));
    html += scenarioSection(scenario, plan);
    html += verdictSection(plan);
    html += QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2><p><img src=\"%2\" width=\"%3\"></p>")
                .arg(escaped(tr("Breakdown at the peak")), breakdownUrl.toString())
                .arg(imageWidth);
    html += breakdownTable(plan);
    html += QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2><p>%2</p><p><img src=\"%3\" width=\"%4\"></p>")
                .arg(escaped(tr("Memory through one step")),
                     escaped(tr("Memory by category at each event of the step; the dashed line is the peak.")), timelineUrl.toString())
                .arg(imageWidth);
    html += formulasSection(plan);
    html += recommendationsSection(scenario, plan);
    document.setHtml(html);
}

QByteArray ReportWriter::render(const Scenario& scenario, const Plan& plan)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setResolution(kResolution);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Portrait, QMarginsF(18, 16, 18, 16), QPageLayout::Millimeter));
        writer.setTitle(tr("Headroom memory plan"));
        writer.setCreator(QStringLiteral("Headroom %1").arg(QStringLiteral(HEADROOM_VERSION)));
        // Laid out in screen units on the page's text area (QTextDocument's
        // default dpi, the screen's logical dpi), which print() scales to the
        // writer; without a page size it would add its own 2 cm margins.
        QTextDocument document;
        const QScreen* screen = QGuiApplication::primaryScreen();
        const qreal dpi = screen ? screen->logicalDotsPerInchX() : 96.0;
        document.setPageSize(writer.pageLayout().paintRect(QPageLayout::Inch).size() * dpi);
        build(document, scenario, plan);
        document.print(&writer);
    }
    buffer.close();
    return bytes;
}

QString ReportWriter::write(const Scenario& scenario, const Plan& plan, const QString& path)
{
    const QByteArray pdf = render(scenario, plan);
    if (pdf.isEmpty())
        return tr("Could not draw the report.");
    auto written = writeFileAtomically(path.toStdString(), std::string_view(pdf.constData(), static_cast<std::size_t>(pdf.size())));
    if (!written)
        return tr("Cannot write %1. %2").arg(QFileInfo(path).fileName(), ErrorText::message(written.error()));
    return QString();
}
