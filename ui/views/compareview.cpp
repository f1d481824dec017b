// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/compareview.h"

#include "charts/devicestack.h"
#include "document/plandocument.h"
#include "plan/gpucatalog.h"
#include "style/chartstyle.h"
#include "style/palette.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <qcustomplot.h>

#include <QEvent>
#include <QFontMetrics>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

using namespace headroom;

namespace {

constexpr double kBarWidth = 0.55;

QString gpuName(const Scenario& s)
{
    auto gpu = findGpu(s.hardware.gpu);
    QString name = gpu ? QString::fromStdString(gpu->name) : QString::fromStdString(s.hardware.gpu);
    name.remove(QStringLiteral("NVIDIA ")).remove(QStringLiteral("GeForce "));
    return s.hardware.count > 1 ? QStringLiteral("%1× %2").arg(s.hardware.count).arg(name) : name;
}

QString shortModel(const Scenario& s)
{
    const QString id = QString::fromStdString(s.model.id);
    return id.isEmpty() ? QStringLiteral("model") : id.section(QLatin1Char('/'), -1);
}

// The rows of the settings table: a name and the value of one scenario.
struct Setting {
    const char* name;
    std::function<QString(const Scenario&)> value;
};

QString yesNo(bool b) { return b ? CompareView::tr("yes") : CompareView::tr("no"); }

const std::vector<Setting>& settings()
{
    static const std::vector<Setting> list{
        {QT_TRANSLATE_NOOP("CompareView", "Model"), [](const Scenario& s) { return shortModel(s); }},
        {QT_TRANSLATE_NOOP("CompareView", "GPU"), [](const Scenario& s) { return gpuName(s); }},
        {QT_TRANSLATE_NOOP("CompareView", "Mode"), [](const Scenario& s) { return DisplayNames::mode(s.mode); }},
        {QT_TRANSLATE_NOOP("CompareView", "Sharding"), [](const Scenario& s) { return DisplayNames::sharding(s.hardware.sharding); }},
        {QT_TRANSLATE_NOOP("CompareView", "CPU offload"), [](const Scenario& s) { return yesNo(s.hardware.cpuOffload); }},
        {QT_TRANSLATE_NOOP("CompareView", "Precision"), [](const Scenario& s) {
             return DisplayNames::precision(s.mode == Mode::Train ? s.train.precision : s.inference.precision); }},
        {QT_TRANSLATE_NOOP("CompareView", "Weights"), [](const Scenario& s) {
             return DisplayNames::weightQuant(s.mode == Mode::Train ? s.train.weightQuant : s.inference.weightQuant); }},
        {QT_TRANSLATE_NOOP("CompareView", "Fine-tuning"), [](const Scenario& s) {
             return s.mode != Mode::Train ? QString()
                    : s.train.peft.method == PeftMethod::None
                        ? DisplayNames::peftMethod(s.train.peft.method)
                        : QStringLiteral("%1 r%2").arg(DisplayNames::peftMethod(s.train.peft.method)).arg(s.train.peft.rank); }},
        {QT_TRANSLATE_NOOP("CompareView", "Optimizer"), [](const Scenario& s) {
             return s.mode == Mode::Train ? DisplayNames::optimizer(s.train.optimizer) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Micro-batch × sequence"), [](const Scenario& s) {
             return s.mode == Mode::Train ? QStringLiteral("%1 × %2").arg(s.train.microBatch).arg(s.train.seqLen)
                                          : QStringLiteral("%1 × %2").arg(s.inference.batch).arg(s.inference.promptTokens); }},
        {QT_TRANSLATE_NOOP("CompareView", "Accumulation"), [](const Scenario& s) {
             return s.mode == Mode::Train ? QString::number(s.train.gradAccum) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Checkpointing"), [](const Scenario& s) {
             return s.mode != Mode::Train ? QString()
                    : s.train.checkpointing == Checkpointing::EveryK
                        ? QStringLiteral("%1 (k = %2)").arg(DisplayNames::checkpointing(s.train.checkpointing)).arg(s.train.checkpointEvery)
                        : DisplayNames::checkpointing(s.train.checkpointing); }},
        {QT_TRANSLATE_NOOP("CompareView", "Attention"), [](const Scenario& s) {
             return DisplayNames::attention(s.mode == Mode::Train ? s.train.attention : s.inference.attention); }},
        {QT_TRANSLATE_NOOP("CompareView", "Chunked cross-entropy"), [](const Scenario& s) {
             return s.mode == Mode::Train ? yesNo(s.train.chunkedCrossEntropy) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Activation offload"), [](const Scenario& s) {
             return s.mode == Mode::Train ? yesNo(s.train.activationOffload) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "KV cache"), [](const Scenario& s) {
             return s.mode == Mode::Inference ? DisplayNames::kvCacheDtype(s.inference.kvCacheDtype) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "New tokens"), [](const Scenario& s) {
             return s.mode == Mode::Inference ? QString::number(s.inference.newTokens) : QString(); }},
        {QT_TRANSLATE_NOOP("CompareView", "Profile"), [](const Scenario& s) { return DisplayNames::profile(s.profile); }},
    };
    return list;
}

} // namespace

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
    , m_chart(new QCustomPlot(this))
    , m_table(new QTableWidget(this))
    , m_hint(new QLabel(this))
    , m_unpin(new QPushButton(this))
{
    ChartStyle::apply(m_chart);
    m_chart->setMinimumSize(360, 260);
    QCPBars* below = nullptr;
    for (int i = 0; i < DeviceStack::segmentCount(); ++i) {
        auto* bars = new QCPBars(m_chart->xAxis, m_chart->yAxis);
        bars->setWidth(kBarWidth);
        bars->setSelectable(QCP::stNone);
        bars->setStackingGap(0);
        bars->setPen(QPen(m_chart->palette().color(QPalette::Base), 1));
        if (below)
            bars->moveAbove(below);
        below = bars;
        m_bars.append(bars);
    }
    for (int i = 0; i < kMaxPins; ++i) {
        auto* line = new QCPItemLine(m_chart);
        line->setPen(QPen(Palette::capacity(), 2.5, Qt::DashLine));
        line->setLayer(QStringLiteral("overlay"));
        m_capacityLines.append(line);
        auto* label = new QCPItemText(m_chart);
        label->setColor(Palette::capacity());
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        label->setBrush(QColor(255, 255, 255, 200));
        label->setPadding(QMargins(3, 0, 3, 0));
        label->setLayer(QStringLiteral("overlay"));
        m_capacityLabels.append(label);
    }
    m_empty = ChartStyle::addCenteredMessage(m_chart, m_chart->axisRect());
    m_chart->legend->setVisible(true);
    m_chart->legend->setFillOrder(QCPLegend::foColumnsFirst);
    m_chart->legend->setWrap(0);
    m_chart->plotLayout()->insertRow(0);
    m_chart->plotLayout()->addElement(0, 0, m_chart->legend);
    m_chart->plotLayout()->setRowStretchFactor(0, 0.001);
    m_chart->xAxis->setTickLength(0, 0);

    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::SelectedClicked);
    m_table->setSelectionBehavior(QAbstractItemView::SelectColumns);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_hint->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    m_unpin->setEnabled(false);

    auto* below_ = new QWidget(this);
    auto* belowLayout = new QVBoxLayout(below_);
    belowLayout->setContentsMargins(8, 4, 8, 8);
    belowLayout->addWidget(m_table, 1);
    auto* row = new QHBoxLayout;
    row->addWidget(m_hint, 1);
    row->addWidget(m_unpin);
    belowLayout->addLayout(row);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_chart);
    splitter->addWidget(below_);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setChildrenCollapsible(false);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_table, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
        if (!m_filling && item->row() == 0)
            rename(item->column(), item->text());
    });
    connect(m_table, &QTableWidget::currentCellChanged, this,
            [this](int, int column) { m_unpin->setEnabled(column >= 0 && column < static_cast<int>(m_pins.size())); });
    connect(m_unpin, &QPushButton::clicked, this, [this] { unpin(m_table->currentColumn()); });
    refresh();
}

QString CompareView::defaultName(const Scenario& s)
{
    QString method;
    if (s.mode == Mode::Inference)
        method = tr("inference");
    else if (s.train.peft.method == PeftMethod::None)
        method = tr("full %1").arg(DisplayNames::precision(s.train.precision));
    else
        method = DisplayNames::peftMethod(s.train.peft.method);
    const auto batch = s.mode == Mode::Train ? s.train.microBatch : s.inference.batch;
    const auto tokens = s.mode == Mode::Train ? s.train.seqLen : s.inference.promptTokens;
    return QStringLiteral("%1 · %2 · %3×%4 · %5").arg(shortModel(s), method).arg(batch).arg(tokens).arg(gpuName(s));
}

QString CompareView::pin(const Scenario& scenario, const QString& name)
{
    if (static_cast<int>(m_pins.size()) >= kMaxPins)
        return tr("Four scenarios is the limit: unpin one first.");
    auto plan = PlanDocument::planFor(scenario);
    if (!plan)
        return tr("Cannot pin: %1").arg(ErrorText::message(plan.error()));
    m_pins.push_back({name.trimmed().isEmpty() ? defaultName(scenario) : name.trimmed(), scenario, std::move(plan).value()});
    refresh();
    emit pinsChanged();
    return QString();
}

void CompareView::unpin(int index)
{
    if (index < 0 || index >= static_cast<int>(m_pins.size()))
        return;
    m_pins.erase(m_pins.begin() + index);
    refresh();
    emit pinsChanged();
}

void CompareView::rename(int index, const QString& name)
{
    if (index < 0 || index >= static_cast<int>(m_pins.size()) || name.trimmed().isEmpty())
        return;
    m_pins[static_cast<std::size_t>(index)].name = name.trimmed();
    redraw();
}

double CompareView::drawnBytes(int index, int segment) const
{
    if (segment < 0 || segment >= m_bars.size())
        return 0;
    auto it = m_bars[segment]->data()->findBegin(index + 1, false);
    if (it == m_bars[segment]->data()->constEnd() || it->key != index + 1)
        return 0;
    return MemoryUnits::fromUnit(it->value);
}

void CompareView::refresh()
{
    redraw();
    fillTable();
}

void CompareView::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    // The names are elided to the bars' width: redraw once the chart has its new size.
    QTimer::singleShot(0, this, &CompareView::redraw);
}

void CompareView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QWidget::changeEvent(event);
}

void CompareView::redraw()
{
    const auto count = static_cast<int>(m_pins.size());
    m_empty->setText(tr("Pin scenarios to compare them here (View ▸ Pin Scenario for Comparison, Ctrl+P)."));
    m_empty->setVisible(count == 0);
    m_chart->legend->setVisible(count > 0);
    m_chart->legend->clearItems();
    double top = 0;
    std::vector<bool> present(static_cast<std::size_t>(m_bars.size()), false);
    for (QCPBars* bars : m_bars)
        bars->data()->clear();
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int p = 0; p < count; ++p) {
        const Pin& pin = m_pins[static_cast<std::size_t>(p)];
        const QVector<DeviceSegment> segments = DeviceStack::segments(pin.plan);
        for (int i = 0; i < segments.size() && i < m_bars.size(); ++i) {
            m_bars[i]->addData(p + 1, MemoryUnits::toUnit(segments[i].bytes));
            m_bars[i]->setBrush(segments[i].color());
            m_bars[i]->setName(segments[i].title());
            if (segments[i].bytes > 0)
                present[static_cast<std::size_t>(i)] = true;
        }
        const double capacity = MemoryUnits::toUnit(static_cast<double>(pin.plan.capacityBytes));
        top = std::max({top, capacity, MemoryUnits::toUnit(static_cast<double>(pin.plan.deviceUsedBytes))});
        m_capacityLines[p]->start->setCoords(p + 1 - 0.45, capacity);
        m_capacityLines[p]->end->setCoords(p + 1 + 0.45, capacity);
        m_capacityLabels[p]->position->setCoords(p + 1, capacity);
        m_capacityLabels[p]->setText(tr("capacity %1").arg(MemoryUnits::format(static_cast<double>(pin.plan.capacityBytes))));
        const QString verdict = pin.plan.fits ? tr("fits") : tr("out of memory");
        // Each bar's slot is a quarter of the chart at most: long names are elided (the table has them whole).
        const int slot = std::max(80, (m_chart->width() - 90) / std::max(count, 1) - 16);
        const QString name = QFontMetrics(m_chart->xAxis->tickLabelFont())
                                 .elidedText(QStringLiteral("%1. %2").arg(p + 1).arg(pin.name), Qt::ElideRight, slot);
        ticker->addTick(p + 1, QStringLiteral("%1\n%2 · %3")
                                   .arg(name, MemoryUnits::format(static_cast<double>(pin.plan.deviceUsedBytes)), verdict));
    }
    for (int p = 0; p < kMaxPins; ++p) {
        m_capacityLines[p]->setVisible(p < count);
        m_capacityLabels[p]->setVisible(p < count);
    }
    // Legend top segment first, like the stacks; only what some bar shows.
    for (auto i = m_bars.size() - 1; i >= 0; --i)
        if (present[static_cast<std::size_t>(i)])
            m_bars[i]->addToLegend();
        else
            m_bars[i]->removeFromLegend();
    m_chart->xAxis->setTicker(ticker);
    m_chart->xAxis->setRange(0.4, std::max(count, 1) + 0.6);
    m_chart->yAxis->setLabel(ChartStyle::memoryAxisLabel());
    ChartStyle::setMemoryRange(m_chart->yAxis, top);
    m_chart->replot();
}

void CompareView::fillTable()
{
    m_filling = true;
    const auto count = static_cast<int>(m_pins.size());
    m_hint->setText(count == 0 ? tr("No scenario pinned yet.")
                               : tr("Double-click a name to rename it. Rows below the verdict list only the settings "
                                    "that differ."));
    m_unpin->setText(tr("Unpin"));
    m_unpin->setToolTip(tr("Remove the selected scenario from the comparison"));
    QStringList rows{tr("Name"), tr("Device used"), tr("Margin"), tr("Verdict")};
    std::vector<const Setting*> differing;
    for (const Setting& s : settings()) {
        bool differs = false;
        for (int p = 1; p < count; ++p)
            differs = differs || s.value(m_pins[static_cast<std::size_t>(p)].scenario) != s.value(m_pins[0].scenario);
        if (differs) {
            differing.push_back(&s);
            rows << tr(s.name);
        }
    }
    m_table->clear();
    m_table->setColumnCount(count);
    m_table->setRowCount(static_cast<int>(rows.size()));
    m_table->setVerticalHeaderLabels(rows);
    QStringList columns;
    for (int p = 0; p < count; ++p)
        columns << QString::number(p + 1);
    m_table->setHorizontalHeaderLabels(columns);
    auto readOnly = [](const QString& text) {
        auto* item = new QTableWidgetItem(text);
        item->setFlags(item->flags() & ~Qt::ItemIsEditable);
        return item;
    };
    for (int p = 0; p < count; ++p) {
        const Pin& pin = m_pins[static_cast<std::size_t>(p)];
        m_table->setItem(0, p, new QTableWidgetItem(pin.name));
        m_table->setItem(1, p, readOnly(MemoryUnits::format(static_cast<double>(pin.plan.deviceUsedBytes))));
        m_table->setItem(2, p, readOnly(MemoryUnits::formatSigned(static_cast<double>(pin.plan.marginBytes))));
        auto* verdict = readOnly(pin.plan.fits ? tr("fits") : tr("out of memory"));
        verdict->setForeground(pin.plan.fits ? Palette::fits() : Palette::outOfMemory());
        m_table->setItem(3, p, verdict);
        for (std::size_t r = 0; r < differing.size(); ++r)
            m_table->setItem(static_cast<int>(r) + 4, p, readOnly(differing[r]->value(pin.scenario)));
    }
    m_unpin->setEnabled(m_table->currentColumn() >= 0 && m_table->currentColumn() < count);
    m_filling = false;
}
