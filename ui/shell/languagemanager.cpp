// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/languagemanager.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include <memory>

LanguageManager::LanguageManager(QObject* parent)
    : QObject(parent)
{
}

LanguageManager::~LanguageManager() { removeTranslators(); }

QStringList LanguageManager::languages() { return {QStringLiteral("en"), QStringLiteral("ko")}; }

QString LanguageManager::nativeName(const QString& code)
{
    if (code == QLatin1String("ko"))
        return QStringLiteral("한국어");
    return QStringLiteral("English");
}

QString LanguageManager::systemLanguage()
{
    return QLocale::system().language() == QLocale::Korean ? QStringLiteral("ko") : QStringLiteral("en");
}

QStringList LanguageManager::translationDirectories()
{
    // The installed copies (share/headroom/translations beside bin/, see
    // packaging/CMakeLists.txt) come first, so a translator can try a new .qm
    // without rebuilding; the copies compiled into the app always work.
    return {QCoreApplication::applicationDirPath() + QLatin1String("/../share/headroom/translations"),
            QStringLiteral(":/i18n")};
}

void LanguageManager::removeTranslators()
{
    for (QTranslator** translator : {&m_app, &m_qt}) {
        if (*translator) {
            QCoreApplication::removeTranslator(*translator);
            delete *translator;
            *translator = nullptr;
        }
    }
}

bool LanguageManager::setLanguage(const QString& code)
{
    if (!languages().contains(code))
        return false;
    if (code == QLatin1String("en")) {
        // English is the source language: no translator, US number format.
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        removeTranslators();
    } else {
        const QLocale locale(QLocale::Korean, QLocale::SouthKorea);
        auto app = std::make_unique<QTranslator>();
        bool loaded = false;
        for (const QString& directory : translationDirectories()) {
            loaded = app->load(locale, QStringLiteral("headroom"), QStringLiteral("_"), directory);
            if (loaded)
                break;
        }
        if (!loaded)
            return false;
        QLocale::setDefault(locale);
        removeTranslators();
        m_app = app.release();
        QCoreApplication::installTranslator(m_app);
        // Qt's own strings (Save, Discard, Cancel...). Optional: missing on a minimal install.
        auto qt = std::make_unique<QTranslator>();
        if (qt->load(locale, QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
            m_qt = qt.release();
            QCoreApplication::installTranslator(m_qt);
        }
    }
    m_language = code;
    emit languageChanged(code);
    return true;
}
