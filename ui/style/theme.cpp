// SPDX-License-Identifier: GPL-3.0-or-later
#include "style/theme.h"

#include "style/chartstyle.h"
#include "style/palette.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QSettings>
#include <QStyle>
#include <qcustomplot.h>

namespace {

const QString kSettingsKey = QStringLiteral("theme");
std::optional<Theme::Kind> g_override;

bool isDarkPalette(const QPalette& palette)
{
    // A dark window behind light text; the system palette may be either.
    return palette.color(QPalette::Window).lightness() < palette.color(QPalette::WindowText).lightness();
}

} // namespace

Theme::Theme(QObject* parent)
    : QObject(parent)
{
}

QString Theme::name(Kind kind)
{
    switch (kind) {
    case Kind::System: return QStringLiteral("system");
    case Kind::Light: return QStringLiteral("light");
    case Kind::Dark: return QStringLiteral("dark");
    }
    return QStringLiteral("system");
}

std::optional<Theme::Kind> Theme::fromName(const QString& name)
{
    for (Kind kind : {Kind::System, Kind::Light, Kind::Dark})
        if (name == Theme::name(kind))
            return kind;
    return std::nullopt;
}

QPalette Theme::lightPalette()
{
    // Fusion's own light palette: what the app looks like without a desktop theme.
    QPalette p(QColor(0xEF, 0xEF, 0xEF));
    p.setColor(QPalette::Base, Qt::white);
    p.setColor(QPalette::AlternateBase, QColor(0xF7, 0xF7, 0xF7));
    p.setColor(QPalette::Text, Qt::black);
    p.setColor(QPalette::WindowText, Qt::black);
    p.setColor(QPalette::ButtonText, Qt::black);
    p.setColor(QPalette::PlaceholderText, QColor(0x6E, 0x6E, 0x6E));
    p.setColor(QPalette::Highlight, QColor(0x30, 0x8C, 0xC6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x1A, 0x5F, 0xB4));
    p.setColor(QPalette::ToolTipBase, QColor(0xFF, 0xFF, 0xDC));
    p.setColor(QPalette::ToolTipText, Qt::black);
    return p;
}

QPalette Theme::darkPalette()
{
    // Dark greys rather than black (less glare, as most dark desktop themes);
    // text at about 13:1 contrast on the chart background #1E1E1E.
    QPalette p;
    const QColor window(0x2B, 0x2B, 0x2B), base(0x1E, 0x1E, 0x1E), text(0xE6, 0xE6, 0xE6);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xFF, 0x6E, 0x6E));
    p.setColor(QPalette::Light, QColor(0x4A, 0x4A, 0x4A));
    p.setColor(QPalette::Midlight, QColor(0x3E, 0x3E, 0x3E));
    p.setColor(QPalette::Mid, QColor(0x80, 0x80, 0x80));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x18));
    p.setColor(QPalette::Shadow, Qt::black);
    p.setColor(QPalette::PlaceholderText, QColor(0xA0, 0xA0, 0xA0));
    p.setColor(QPalette::Highlight, QColor(0x3D, 0x8E, 0xD0));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::Link, QColor(0x8A, 0xB4, 0xF8));
    p.setColor(QPalette::LinkVisited, QColor(0xC5, 0x8A, 0xF9));
    p.setColor(QPalette::ToolTipBase, QColor(0x3A, 0x3A, 0x3A));
    p.setColor(QPalette::ToolTipText, text);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, QColor(0x7A, 0x7A, 0x7A));
    return p;
}

void Theme::apply(Kind kind)
{
    const QPalette before = QApplication::palette();
    QPalette palette;
    switch (kind) {
    case Kind::System: palette = QApplication::style()->standardPalette(); break;
    case Kind::Light: palette = lightPalette(); break;
    case Kind::Dark: palette = darkPalette(); break;
    }
    m_current = kind;
    Palette::setDark(isDarkPalette(palette));
    QApplication::setPalette(palette);
    for (QWidget* widget : QApplication::allWidgets())
        if (auto* plot = qobject_cast<QCustomPlot*>(widget)) {
            plot->setPalette(palette);  // at once, not when the change event arrives
            ChartStyle::restyle(plot, before);
        }
    if (m_group)
        for (QAction* action : m_group->actions())
            action->setChecked(action->data().toString() == name(kind));
    emit themeChanged(kind);
}

void Theme::setTheme(Kind kind)
{
    apply(kind);
    QSettings().setValue(kSettingsKey, name(kind));
}

void Theme::setOverride(std::optional<Kind> kind) { g_override = kind; }

QString Theme::restore()
{
    if (g_override) {
        apply(*g_override);
        return QString();
    }
    const QString saved = QSettings().value(kSettingsKey, name(Kind::System)).toString();
    const auto kind = fromName(saved);
    if (!kind) {
        apply(Kind::System);
        return tr("The saved theme \"%1\" is unknown; using the system theme.").arg(saved);
    }
    if (*kind != Kind::System || m_current != Kind::System)
        apply(*kind);
    return QString();
}

QMenu* Theme::addMenu(QMenu* menu)
{
    m_menu = menu->addMenu(QString());
    m_group = new QActionGroup(this);
    for (Kind kind : {Kind::System, Kind::Light, Kind::Dark}) {
        QAction* action = m_menu->addAction(QString());
        action->setCheckable(true);
        action->setData(name(kind));
        action->setChecked(kind == m_current);
        m_group->addAction(action);
        connect(action, &QAction::triggered, this, [this, kind] { setTheme(kind); });
    }
    retranslate();
    return m_menu;
}

void Theme::retranslate()
{
    if (!m_menu)
        return;
    m_menu->setTitle(tr("&Theme"));
    const QList<QAction*> actions = m_group->actions();
    actions[0]->setText(tr("&System"));
    actions[0]->setToolTip(tr("The desktop's colors"));
    actions[1]->setText(tr("&Light"));
    actions[2]->setText(tr("&Dark"));
}
