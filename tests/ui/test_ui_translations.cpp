// SPDX-License-Identifier: GPL-3.0-or-later
// The Korean translation is complete (no unfinished or empty entries) and is
// compiled into the library's resources.
#include "shell/languagemanager.h"

#include <QFile>
#include <QXmlStreamReader>
#include <QtTest>

class TestUiTranslations : public QObject {
    Q_OBJECT

private slots:
    void koreanTsIsComplete()
    {
        QFile file(QStringLiteral(HEADROOM_SOURCE_DIR "/translations/headroom_ko.ts"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        int messages = 0;
        QString source;
        QStringList problems;
        while (!xml.atEnd()) {
            xml.readNext();
            if (!xml.isStartElement())
                continue;
            if (xml.name() == QLatin1String("TS"))
                QCOMPARE(xml.attributes().value(QLatin1String("language")).toString(), QStringLiteral("ko_KR"));
            if (xml.name() == QLatin1String("source"))
                source = xml.readElementText();
            if (xml.name() != QLatin1String("translation"))
                continue;
            ++messages;
            const QString type = xml.attributes().value(QLatin1String("type")).toString();
            const bool numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
            const QString text = numerus ? QString() : xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (type == QLatin1String("unfinished") || type == QLatin1String("vanished") || type == QLatin1String("obsolete"))
                problems << type + QStringLiteral(": ") + source;
            else if (!numerus && text.trimmed().isEmpty())
                problems << QStringLiteral("empty: ") + source;
            else if (!numerus && source.count(QLatin1Char('%')) != text.count(QLatin1Char('%')))
                problems << QStringLiteral("placeholders differ: ") + source;
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        QVERIFY2(messages > 200, qPrintable(QString::number(messages)));
    }

    void koreanIsCompiledIn()
    {
        LanguageManager languages;
        QVERIFY(languages.setLanguage(QStringLiteral("ko")));
        QCOMPARE(QCoreApplication::translate("DisplayNames", "Optimizer state"), QStringLiteral("옵티마이저 상태"));
        QCOMPARE(QCoreApplication::translate("DisplayNames", "Gradients"), QStringLiteral("그래디언트"));
        QCOMPARE(QLocale().language(), QLocale::Korean);
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
        QCOMPARE(QCoreApplication::translate("DisplayNames", "Gradients"), QStringLiteral("Gradients"));
    }
};

QTEST_MAIN(TestUiTranslations)
#include "test_ui_translations.moc"
