// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/verdictbar.h"

#include "style/palette.h"
#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/gputext.h"
#include "text/memoryunits.h"

#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>

using namespace headroom;

VerdictBar::VerdictBar(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_verdict(new QLabel(this))
    , m_peak(new QLabel(this))
    , m_notes(new QLabel(this))
    , m_allocated(addCounter(QStringLiteral("allocated")))
    , m_reserved(addCounter(QStringLiteral("reserved")))
    , m_deviceUsed(addCounter(QStringLiteral("deviceUsed")))
{
    QFont verdictFont = m_verdict->font();
    verdictFont.setPointSizeF(verdictFont.pointSizeF() * 1.6);
    verdictFont.setBold(true);
    m_verdict->setFont(verdictFont);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_summary->setForegroundRole(QPalette::PlaceholderText);
    m_peak->setForegroundRole(QPalette::PlaceholderText);
    m_notes->setForegroundRole(QPalette::Link);
    m_notes->setCursor(Qt::WhatsThisCursor);

    auto* left = new QVBoxLayout;
    left->setSpacing(2);
    left->addWidget(m_verdict);
    auto* peakRow = new QHBoxLayout;
    peakRow->addWidget(m_peak);
    peakRow->addWidget(m_notes);
    peakRow->addStretch(1);
    left->addLayout(peakRow);

    auto* row = new QHBoxLayout;
    row->setSpacing(18);
    row->addLayout(left, 1);
    row->addWidget(m_allocated);
    row->addWidget(m_reserved);
    row->addWidget(m_deviceUsed);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 8);
    layout->setSpacing(4);
    layout->addWidget(m_summary);
    layout->addLayout(row);
}

QLabel* VerdictBar::addCounter(const QString& objectName)
{
    auto* counter = new QLabel(this);
    counter->setObjectName(objectName);
    counter->setTextFormat(Qt::RichText);
    counter->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return counter;
}

void VerdictBar::setCounter(QLabel* counter, const QString& caption, double bytes, const QString& toolTip)
{
    // Caption small above, figure large below: read at a glance from the back of a room.
    counter->setText(QStringLiteral("<span style='font-size:small'>%1</span><br><span style='font-size:large; "
                                    "font-weight:600'>%2</span>")
                         .arg(caption.toHtmlEscaped(), MemoryUnits::format(bytes)));
    counter->setToolTip(toolTip + QStringLiteral("\n") + MemoryUnits::formatExact(static_cast<std::uint64_t>(bytes)));
}

void VerdictBar::setPlan(const Scenario& scenario, const Plan& plan)
{
    m_current.emplace(scenario, plan);
    m_problem.clear();
    refresh();
}

void VerdictBar::setProblem(const QString& message)
{
    m_current.reset();
    m_problem = message;
    refresh();
}

QString VerdictBar::verdictText() const { return m_verdict->text(); }

void VerdictBar::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        refresh();
    QWidget::changeEvent(event);
}

void VerdictBar::setVerdictColor(const QColor& color)
{
    // The label's text color through its palette: a style sheet would make Qt
    // re-polish the label each time (bench_ui), and the color changes only
    // when the verdict flips.
    QPalette palette = m_verdict->palette();
    if (palette.color(QPalette::WindowText) == color)
        return;
    palette.setColor(QPalette::WindowText, color);
    m_verdict->setPalette(palette);
}

void VerdictBar::refresh()
{
    const bool havePlan = m_current.has_value();
    for (QLabel* counter : {m_allocated, m_reserved, m_deviceUsed})
        counter->setVisible(havePlan);
    if (!havePlan) {
        m_summary->clear();
        m_verdict->setText(tr("No plan"));
        setVerdictColor(Palette::outOfMemory());
        m_peak->setText(m_problem);
        m_notes->clear();
        return;
    }
    const auto& [scenario, plan] = *m_current;
    QString summary = tr("%1 · %2 parameters").arg(QString::fromStdString(scenario.model.id),
                                                   DisplayNames::parameterCount(static_cast<double>(plan.totalParameters)));
    if (scenario.mode == Mode::Train)
        summary += tr(" (%1 trainable)").arg(DisplayNames::parameterCount(static_cast<double>(plan.trainableParameters)));
    if (scenario.model.approximate)
        summary += tr(" · approximate, scaled from a size");
    //: GPU name × how many
    summary += tr(" · %1 × %2").arg(QString::fromStdString(plan.gpu.name)).arg(scenario.hardware.count);
    summary += tr(" · profile %1").arg(DisplayNames::profile(scenario.profile));
    m_summary->setText(summary);

    const double margin = static_cast<double>(plan.marginBytes);
    m_verdict->setText(plan.fits ? tr("Fits, %1 to spare").arg(MemoryUnits::format(margin))
                                 : tr("Out of memory by %1").arg(MemoryUnits::format(-margin)));
    setVerdictColor(plan.fits ? Palette::fits() : Palette::outOfMemory());
    m_verdict->setToolTip(tr("GPU memory %1 minus device used %2")
                              .arg(MemoryUnits::format(static_cast<double>(plan.capacityBytes)),
                                   MemoryUnits::format(static_cast<double>(plan.deviceUsedBytes))) +
                          QLatin1Char('\n') + GpuText::capacityLine(plan.gpu));
    m_peak->setText(tr("Peak at %1 (event %2 of %3)")
                        .arg(DisplayNames::event(plan.events[plan.peakEvent]))
                        .arg(plan.peakEvent + 1)
                        .arg(plan.events.size()));
    if (plan.notes.empty()) {
        m_notes->clear();
    } else {
        QStringList notes;
        for (const std::string& note : plan.notes)
            notes << QStringLiteral("• ") + ErrorText::note(note);  // translated where the phrasing is known
        m_notes->setText(tr("· assumptions: %1").arg(plan.notes.size()));
        m_notes->setToolTip(notes.join(QLatin1Char('\n')));
    }

    setCounter(m_allocated, tr("Peak allocated"), static_cast<double>(plan.peakAllocatedBytes),
               tr("torch.cuda.max_memory_allocated(): the live tensors at the peak. Checked against PyTorch's own "
                  "allocations in the reference scenarios (docs/validation/reference.md), counted without a GPU."));
    setCounter(m_reserved, tr("Peak reserved"), static_cast<double>(plan.peakReservedBytes),
               tr("torch.cuda.max_memory_reserved(): the caching allocator's segments, rounding and fragmentation included. "
                  "A simulation of PyTorch's allocator, checked against PyTorch's allocation traces replayed through "
                  "it; not yet measured on a GPU."));
    setCounter(m_deviceUsed, tr("Device used (nvidia-smi)"), static_cast<double>(plan.deviceUsedBytes),
               tr("Reserved + managed (paged) memory + CUDA context (%1, NCCL's buffers included where there are "
                  "several GPUs): what nvidia-smi shows. The context was measured on Hopper GPUs (H200); on others it "
                  "is an estimate, and NCCL's buffers are one measurement on A100s.")
                   .arg(MemoryUnits::format(static_cast<double>(plan.contextBytes))));
}
