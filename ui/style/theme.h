// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// View → Theme: System (the style's own palette), Light or Dark, kept in
// QSettings ("theme"). Applying a theme sets the application palette, the
// signal-color variant (ui/style/palette.h) and restyles every chart in place
// (ChartStyle::restyle), so backgrounds, axes, text and grid follow.
#include <QObject>
#include <QPalette>
#include <QString>

#include <optional>

class QActionGroup;
class QMenu;

class Theme : public QObject {
    Q_OBJECT

public:
    enum class Kind { System, Light, Dark };

    explicit Theme(QObject* parent = nullptr);

    static QString name(Kind kind);  // "system", "light", "dark": the settings value
    static std::optional<Kind> fromName(const QString& name);
    static QPalette lightPalette();
    static QPalette darkPalette();

    Kind current() const { return m_current; }
    // Applies and remembers `kind` (QSettings "theme").
    void setTheme(Kind kind);
    // The saved theme; an unknown value falls back to System and returns a
    // translated warning (else an empty string).
    QString restore();
    // A theme for this process only (headroom --theme, screenshots): restore()
    // applies it instead of the saved one, and nothing is saved.
    static void setOverride(std::optional<Kind> kind);
    // Adds the Theme submenu (System, Light, Dark) to `menu`.
    QMenu* addMenu(QMenu* menu);
    void retranslate();

signals:
    void themeChanged(Kind kind);

private:
    void apply(Kind kind);

    Kind m_current = Kind::System;
    QMenu* m_menu = nullptr;
    QActionGroup* m_group = nullptr;
};
