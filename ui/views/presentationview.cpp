// SPDX-License-Identifier: GPL-3.0-or-later
#include "views/presentationview.h"

#include "text/displaynames.h"
#include "text/errortext.h"
#include "text/memoryunits.h"
#include "views/breakdownview.h"

#include <QCloseEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

using namespace headroom;

namespace {

// Type for the back of a classroom: the app's font scaled up (1.6 is what
// keeps a 1080p projector's tensor table readable at ~10 m, our choice).
constexpr double kFontScale = 1.6;

} // namespace

PresentationView::PresentationView(QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_title(new QLabel(this))
    , m_hint(new QLabel(this))
{
    setObjectName(QStringLiteral("presentation"));
    setAttribute(Qt::WA_DeleteOnClose, false);
    QFont large = font();
    large.setPointSizeF(large.pointSizeF() * kFontScale);
    setFont(large);
    // Created after the font is set: the charts take their fonts when built (ChartStyle::apply).
    m_view = new BreakdownView(this);
    // Large type needs a wider chart (its legend) than the tab's 420 px: about half the screen.
    if (auto* splitter = m_view->findChild<QSplitter*>())
        splitter->setSizes({5, 6});
    QFont titleFont = large;
    titleFont.setPointSizeF(large.pointSizeF() * 1.3);
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    m_hint->setForegroundRole(QPalette::PlaceholderText);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(24, 16, 24, 16);
    layout->addWidget(m_title);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_hint);
    setFocusPolicy(Qt::StrongFocus);
    // The arrow keys belong to the slides, not to the table inside.
    for (QWidget* child : findChildren<QWidget*>())
        child->setFocusPolicy(Qt::NoFocus);
}

void PresentationView::setAnalyses(const Result<Plan>& plan, const Result<std::vector<LadderStep>>& ladder)
{
    m_plan.reset();
    m_steps.clear();
    m_error.clear();
    if (!plan) {
        m_error = ErrorText::message(plan.error());
    } else {
        m_plan = plan.value();
        if (ladder)
            m_steps = ladder.value();
    }
    m_position = -1;
    showPosition();
}

void PresentationView::setPosition(int position)
{
    m_position = std::clamp(position, -1, stepCount() - 1);
    showPosition();
}

const Plan* PresentationView::shownPlan() const
{
    if (m_position >= 0 && m_position < stepCount())
        return &m_steps[static_cast<std::size_t>(m_position)].plan;
    return m_plan ? &*m_plan : nullptr;
}

QString PresentationView::title() const { return m_title->text(); }

void PresentationView::showPosition()
{
    const Plan* plan = shownPlan();
    m_hint->setText(tr("← → step through the technique ladder · Esc leaves presentation mode"));
    if (!plan) {
        m_title->setText(m_error);
        m_view->clearPlan();
        return;
    }
    const QString verdict = plan->fits ? tr("fits") : tr("out of memory");
    const QString used = MemoryUnits::format(static_cast<double>(plan->deviceUsedBytes));
    if (m_position < 0) {
        m_title->setText(tr("Your scenario: %1, %2").arg(used, verdict));
    } else {
        const LadderStep& step = m_steps[static_cast<std::size_t>(m_position)];
        m_title->setText(tr("Step %1 of %2: %3 — %4, %5")
                             .arg(m_position + 1)
                             .arg(stepCount())
                             .arg(DisplayNames::ladderStep(step.technique, step.label), used, verdict));
    }
    m_view->setPlan(*plan);
}

void PresentationView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
    case Qt::Key_Space:
        setPosition(m_position + 1);
        return;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
        setPosition(m_position - 1);
        return;
    case Qt::Key_Escape:
        close();
        return;
    default:
        QWidget::keyPressEvent(event);
    }
}

void PresentationView::closeEvent(QCloseEvent* event)
{
    emit closed();
    QWidget::closeEvent(event);
}

void PresentationView::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange)
        showPosition();
    QWidget::changeEvent(event);
}
