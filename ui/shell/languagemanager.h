// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Switches the UI language at run time: Headroom's own translations (compiled
// into :/i18n by qt_add_translations, and installed beside the programs) plus
// Qt's (dialog buttons), and the default locale that formats every number.
#include <QObject>
#include <QStringList>

class QTranslator;

class LanguageManager : public QObject {
    Q_OBJECT

public:
    explicit LanguageManager(QObject* parent = nullptr);
    ~LanguageManager() override;

    static QStringList languages();                   // "en", "ko"
    static QString nativeName(const QString& code);   // "English", "한국어": each in its own language
    static QString systemLanguage();                  // "ko" on a Korean desktop, else "en"
    // Where Headroom's .qm files are looked for, first match wins: the
    // installed share/headroom/translations, then the resources (:/i18n).
    static QStringList translationDirectories();

    // False for an unknown code, or when the translation cannot be loaded;
    // the language is then left as it was.
    bool setLanguage(const QString& code);
    QString language() const { return m_language; }

signals:
    void languageChanged(const QString& code);

private:
    void removeTranslators();

    QTranslator* m_app = nullptr;
    QTranslator* m_qt = nullptr;
    QString m_language = QStringLiteral("en");
};
