// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/explainpanel.h"

#include "models/tensorrowmodel.h"
#include "text/displaynames.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTextBrowser>
#include <QTreeView>
#include <QVBoxLayout>

using namespace headroom;

ExplainPanel::ExplainPanel(QWidget* parent)
    : QWidget(parent)
    , m_swatch(new QLabel(this))
    , m_title(new QLabel(this))
    , m_total(new QLabel(this))
    , m_description(new QLabel(this))
    , m_view(new QTreeView(this))
    , m_source(new QTextBrowser(this))
    , m_model(new TensorRowModel(this))
{
    QFont titleFont = m_title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.25);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    const int swatch = QFontMetrics(titleFont).height();
    m_swatch->setFixedSize(swatch, swatch);
    m_total->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_description->setWordWrap(true);
    m_description->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
    m_description->setTextInteractionFlags(Qt::TextSelectableByMouse);

    m_view->setModel(m_model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->header()->setStretchLastSection(false);
    // The name is a row's identity, whole ("weights.layer [MoE layers]" and
    // its dense twin differ only at the end): in a narrow panel the lifetime,
    // last, is the column cut short and scrolled to, not the name.
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_view->header()->setSectionResizeMode(TensorRowModel::Lifetime, QHeaderView::Stretch);
    m_view->header()->setMinimumSectionSize(60);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &ExplainPanel::showSource);

    m_source->setOpenLinks(false);
    m_source->setMinimumHeight(90);
    m_source->setMaximumHeight(160);

    auto* header = new QHBoxLayout;
    header->setSpacing(8);
    header->addWidget(m_swatch);
    header->addWidget(m_title);
    header->addStretch(1);
    header->addWidget(m_total);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 8, 8, 8);
    layout->setSpacing(8);
    layout->addLayout(header);
    layout->addWidget(m_description);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_source);
    layout->addStretch(0);  // takes the height while the table is hidden
    clearPlan();
}

void ExplainPanel::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QWidget::changeEvent(event);
}

void ExplainPanel::setPlan(const Plan& plan)
{
    m_plan = plan;
    refresh();
}

void ExplainPanel::setPlan(const Plan& plan, const DeviceSegment& segment)
{
    m_plan = plan;
    m_segment = segment;
    refresh();
}

void ExplainPanel::clearPlan()
{
    m_plan.reset();
    refresh();
}

void ExplainPanel::setSegment(const DeviceSegment& segment)
{
    m_segment = segment;
    refresh();
}

void ExplainPanel::refresh()
{
    m_swatch->setStyleSheet(QStringLiteral("background: %1; border-radius: 3px;").arg(m_segment.color().name()));
    m_title->setText(m_segment.title());
    if (!m_plan) {
        m_swatch->hide();
        m_title->setText(tr("No plan"));
        m_total->clear();
        m_description->setText(tr("No plan: fix the inputs on the left."));
        m_model->clear();
        m_view->hide();
        m_source->hide();
        return;
    }
    const Plan& plan = *m_plan;
    m_swatch->show();
    const QString peak = DisplayNames::event(plan.events[plan.peakEvent]);
    if (m_segment.kind != DeviceSegment::Kind::Category) {
        // Not tensors: what the device adds, explained from the plan's counters.
        m_view->hide();
        m_source->hide();
        m_model->clear();
        const DeviceSegment shown = [&] {
            for (const DeviceSegment& s : DeviceStack::segments(plan))
                if (s == m_segment)
                    return s;
            return m_segment;
        }();
        m_total->setText(tr("%1 at the peak").arg(MemoryUnits::format(shown.bytes)));
        if (m_segment.kind == DeviceSegment::Kind::AllocatorCache)
            m_description->setText(DeviceStack::allocatorCacheDescription() + QStringLiteral("\n\n") +
                                   tr("Peak reserved %1 · peak allocated %2.")
                                       .arg(MemoryUnits::format(static_cast<double>(plan.peakReservedBytes)),
                                            MemoryUnits::format(static_cast<double>(plan.peakAllocatedBytes))));
        else
            m_description->setText(DeviceStack::contextDescription());
        return;
    }

    const QString previousRow = m_view->currentIndex().isValid()
                                    ? m_model->index(m_view->currentIndex().row(), 0).data().toString()
                                    : QString();
    m_model->setRows(plan, m_segment.category);
    m_view->show();
    m_source->show();
    m_total->setText(tr("%1 at the peak (%2)").arg(MemoryUnits::format(static_cast<double>(m_model->totalAtPeak())), peak));
    m_total->setToolTip(MemoryUnits::formatExact(m_model->totalAtPeak()));
    m_description->setText(DisplayNames::categoryDescription(m_segment.category) + QLatin1Char(' ') +
                           tr("Tensors alive at the peak: %1 of %2; grey rows exist at other moments of the step.")
                               .arg(m_model->liveRowCount())
                               .arg(m_model->rowCount()));
    // Keep the row the reader was looking at when only a number changed.
    int row = 0;
    for (int r = 0; r < m_model->rowCount(); ++r)
        if (m_model->index(r, 0).data().toString() == previousRow)
            row = r;
    if (m_model->rowCount() > 0)
        m_view->setCurrentIndex(m_model->index(row, 0));
    showSource();
}

void ExplainPanel::showSource()
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid()) {
        m_source->setPlainText(m_model->rowCount() == 0 ? tr("Nothing of this category in this plan.") : QString());
        m_sourceHtml.clear();
        return;
    }
    auto cell = [&](int column, int role = Qt::DisplayRole) {
        return m_model->index(current.row(), column).data(role).toString().toHtmlEscaped();
    };
    //: %1 tensor name, %2 bytes per instance, %3 instances alive at the peak, %4 all instances ("32 instances, each layer"), %5 bytes at the peak
    const QString numbers = tr("<b>%1</b>: %2 per instance × %3 alive at the peak (of %4) = %5")
                                .arg(cell(TensorRowModel::Name), cell(TensorRowModel::PerInstance),
                                     cell(TensorRowModel::Instances, TensorRowModel::BytesRole),
                                     cell(TensorRowModel::Instances, Qt::ToolTipRole), cell(TensorRowModel::AtPeak));
    const QString source = m_model->index(current.row(), 0).data(TensorRowModel::SourceRole).toString().toHtmlEscaped();
    const QString html = QStringLiteral("<p>%1</p><p>%2</p>").arg(numbers, source);
    // Laying out a rich-text document is the costly part of a refresh: only
    // when the text changed.
    if (html != m_sourceHtml) {
        m_sourceHtml = html;
        m_source->setHtml(html);
    }
}
