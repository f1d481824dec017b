// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/makeitfitview.h"

#include "style/palette.h"
#include "text/errortext.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

using namespace headroom;

namespace {

enum Column { ChangeColumn, UsedColumn, MarginColumn, CostColumn, ApplyColumn, ColumnCount };

} // namespace

MakeItFitView::MakeItFitView(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(this))
    , m_undo(new QPushButton(this))
    , m_note(new QLabel(this))
{
    m_summary->setWordWrap(true);
    m_summary->setObjectName(QStringLiteral("makeItFitSummary"));
    QFont bigger = m_summary->font();
    bigger.setPointSizeF(bigger.pointSizeF() * 1.15);
    m_summary->setFont(bigger);
    m_note->setWordWrap(true);
    m_note->setForegroundRole(QPalette::PlaceholderText);
    m_table->setColumnCount(ColumnCount);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() * 2);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ChangeColumn, QHeaderView::Stretch);
    m_undo->setEnabled(false);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 10, 12, 10);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_note, 1);
    bottom->addWidget(m_undo, 0, Qt::AlignTop);
    layout->addLayout(bottom);

    connect(m_undo, &QPushButton::clicked, this, [this] {
        if (!m_beforeApply)
            return;
        const Scenario previous = *m_beforeApply;
        m_beforeApply.reset();
        m_undo->setEnabled(false);
        emit applyScenario(previous);
    });
    fill();
}

void MakeItFitView::setSuggestions(const Scenario& scenario, const Result<MakeItFitResult>& result)
{
    m_scenario = scenario;
    if (result) {
        m_result = result.value();
        m_error.clear();
    } else {
        m_result.reset();
        m_error = ErrorText::message(result.error());
    }
    fill();
}

void MakeItFitView::applySuggestion(int index)
{
    if (!m_result || index < 0 || index >= static_cast<int>(m_result->suggestions.size()))
        return;
    m_beforeApply = m_scenario;
    m_undo->setEnabled(true);
    emit applyScenario(m_result->suggestions[static_cast<std::size_t>(index)].scenario);
}

QString MakeItFitView::summary() const { return m_summary->text(); }

void MakeItFitView::refresh() { fill(); }

void MakeItFitView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        fill();
    QWidget::changeEvent(event);
}

void MakeItFitView::fill()
{
    m_table->setHorizontalHeaderLabels(
        {tr("Change"), tr("Device used"), tr("Margin"), tr("Step time (est.)"), QString()});
    m_undo->setText(tr("Undo apply"));
    m_undo->setToolTip(tr("Return the panel to the configuration before the last applied change"));
    m_note->setText(tr("Step-time costs are estimates from published measurements (hover a change for its "
                       "reason); memory comes from the planner. Changes marked \"method\" train differently, "
                       "\"task\" changes what is trained."));
    m_table->setRowCount(0);
    if (!m_result) {
        m_summary->setText(m_error.isEmpty() ? tr("No scenario yet.") : m_error);
        return;
    }
    const MakeItFitResult& r = *m_result;
    if (r.alreadyFits) {
        m_summary->setText(tr("It already fits, with %1 to spare: nothing to change.")
                               .arg(MemoryUnits::format(static_cast<double>(r.baseMarginBytes))));
        return;
    }
    if (r.suggestions.empty()) {
        m_summary->setText(tr("Out of memory by %1, and no combination of up to three changes makes it fit: "
                              "a larger GPU, more GPUs or a smaller model.")
                               .arg(MemoryUnits::format(static_cast<double>(-r.baseMarginBytes))));
        return;
    }
    m_summary->setText(tr("Out of memory by %1. The cheapest changes that make it fit, by estimated step time:")
                           .arg(MemoryUnits::format(static_cast<double>(-r.baseMarginBytes))));
    const QLocale locale;
    m_table->setRowCount(static_cast<int>(r.suggestions.size()));
    for (std::size_t i = 0; i < r.suggestions.size(); ++i) {
        const FitSuggestion& s = r.suggestions[i];
        const auto row = static_cast<int>(i);
        QStringList labels, reasons;
        for (const FitChange& c : s.changes) {
            labels << changeLabel(c);
            reasons << QStringLiteral("<b>%1</b>: %2").arg(changeLabel(c).toHtmlEscaped(), changeReason(c).toHtmlEscaped());
        }
        QString text = labels.join(QStringLiteral(" + "));
        if (s.kind == ChangeKind::Method)
            text += QStringLiteral("  [") + tr("method") + QLatin1Char(']');
        else if (s.kind == ChangeKind::Task)
            text += QStringLiteral("  [") + tr("task") + QLatin1Char(']');
        auto* change = new QTableWidgetItem(text);
        change->setToolTip(reasons.join(QStringLiteral("<br>")));
        m_table->setItem(row, ChangeColumn, change);
        auto* used = new QTableWidgetItem(MemoryUnits::format(static_cast<double>(s.deviceUsedBytes)));
        used->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, UsedColumn, used);
        auto* margin = new QTableWidgetItem(MemoryUnits::formatSigned(static_cast<double>(s.marginBytes)));
        margin->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        margin->setForeground(Palette::fits());
        m_table->setItem(row, MarginColumn, margin);
        const double percent = s.speedCost * 100;
        QString cost = std::abs(percent) < 0.5 ? tr("about the same")
                       : percent > 0            ? tr("%1 % slower").arg(locale.toString(percent, 'f', 0))
                                                : tr("%1 % faster").arg(locale.toString(-percent, 'f', 0));
        auto* costItem = new QTableWidgetItem(cost);
        costItem->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, CostColumn, costItem);
        auto* apply = new QPushButton(tr("Apply"));
        apply->setToolTip(tr("Load this configuration into the panel"));
        connect(apply, &QPushButton::clicked, this, [this, row] { applySuggestion(row); });
        m_table->setCellWidget(row, ApplyColumn, apply);
    }
    m_table->scrollToTop();
}

QString MakeItFitView::changeLabel(const FitChange& c)
{
    const QLocale locale;
    const QString value = locale.toString(static_cast<qulonglong>(c.value));
    const std::string& id = c.id;
    if (id == "flash") return tr("flash attention");
    if (id == "checkpointing") return tr("gradient checkpointing (every layer)");
    if (id == "checkpoint-every") return tr("gradient checkpointing (one layer in %1)").arg(value);
    if (id == "chunked-ce") return tr("chunked cross-entropy");
    if (id == "bf16-mixed") return tr("bf16 mixed precision instead of fp32");
    if (id == "fp16-mixed") return tr("fp16 mixed precision instead of fp32");
    if (id == "bf16") return tr("pure bf16 weights and optimizer");
    if (id == "adamw-8bit") return tr("8-bit AdamW");
    if (id == "paged-adamw-8bit") return tr("paged 8-bit AdamW");
    if (id == "lora") return tr("LoRA (r16, all linear layers)");
    if (id == "qlora") return tr("QLoRA (NF4 base, r16, all linear layers)");
    if (id == "micro-batch") return tr("micro-batch %1 with more accumulation").arg(value);
    if (id == "zero2") return tr("ZeRO-2 sharding");
    if (id == "zero3") return tr("ZeRO-3 / FSDP full sharding");
    if (id == "cpu-offload") return tr("CPU offload of the optimizer");
    if (id == "activation-offload") return tr("activation offload to CPU");
    if (id == "sequence") return tr("sequence length %1").arg(value);
    if (id == "kv-fp8") return tr("fp8 KV cache");
    if (id == "int8-weights") return tr("int8 weights (LLM.int8)");
    if (id == "nf4-weights") return tr("NF4 weights");
    if (id == "batch") return tr("batch %1").arg(value);
    if (id == "prompt") return tr("prompt length %1").arg(value);
    return QString::fromStdString(c.label);
}

QString MakeItFitView::changeReason(const FitChange& c)
{
    const std::string& id = c.id;
    if (id == "flash") return tr("Computes attention in tiles without storing the score matrix; faster as well (Dao et al. 2022).");
    if (id == "checkpointing") return tr("Keeps only each layer's input and recomputes the rest in backward: about one extra forward pass, +33% step time.");
    if (id == "checkpoint-every") return tr("Recomputes some layers in backward: part of the saving of full checkpointing for part of its cost.");
    if (id == "chunked-ce") return tr("Upcasts and differentiates the logits chunk by chunk instead of all at once; the loss is a small part of the step.");
    if (id == "bf16-mixed" || id == "fp16-mixed") return tr("Activations in 16 bits (half of fp32) and tensor-core matmuls: much faster.");
    if (id == "bf16") return tr("No fp32 master weights: parameters, gradients and optimizer states in bf16. Small updates can round away.");
    if (id == "adamw-8bit") return tr("Optimizer moments stored in 8 bits with block-wise scales instead of 32 bits.");
    if (id == "paged-adamw-8bit") return tr("8-bit moments in unified memory that pages to the CPU under pressure instead of failing.");
    if (id == "lora") return tr("Trains small adapters over frozen weights: no gradients or optimizer states for the base weights.");
    if (id == "qlora") return tr("LoRA over a 4-bit base: the frozen weights take about a quarter of bf16; dequantizing them slows every matmul.");
    if (id == "micro-batch") return tr("Fewer sequences at once, more accumulation steps: the same effective batch with smaller activations; smaller matmuls use the GPU less well.");
    if (id == "zero2") return tr("Each GPU keeps its share of the gradients and optimizer states; the same communication as data parallelism.");
    if (id == "zero3") return tr("Parameters sharded too and gathered layer by layer: 1.5× the communication of data parallelism.");
    if (id == "cpu-offload") return tr("Optimizer states (and the step) on the CPU: gradients and parameters cross PCIe every step.");
    if (id == "activation-offload") return tr("Saved activations wait in CPU memory until backward: PCIe transfers every step.");
    if (id == "sequence" || id == "prompt") return tr("Shorter sequences change what the model learns (or reads): a last resort.");
    if (id == "kv-fp8") return tr("Keys and values cached in 8 bits: half of bf16, converted inside the attention kernel.");
    if (id == "int8-weights") return tr("Weights in 8 bits with outliers in 16: half of bf16; slower matmuls.");
    if (id == "nf4-weights") return tr("Weights in 4 bits: about a quarter of bf16; dequantized in every matmul.");
    if (id == "batch") return tr("Fewer sequences at once: a smaller KV cache and activations, fewer sequences per second.");
    return QString::fromStdString(c.reason);
}
