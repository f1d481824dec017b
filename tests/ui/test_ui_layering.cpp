// SPDX-License-Identifier: GPL-3.0-or-later
// The UI's folders are floors (ui/CMakeLists.txt, LAYOUT.md): a file may
// include its own floor and the floors its library links, never one above.
// The linker catches a call that runs up a floor only when the symbol is not
// inline; this reads every #include, so a header-only arrow is caught too.
// The table comes from ui/CMakeLists.txt (HEADROOM_UI_LAYERING), the one
// place it is written, and it is checked to be a ladder without circles.
#include <QDirIterator>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QtTest>

#include <functional>

namespace {

using Floors = QHash<QString, QSet<QString>>; // floor -> floors it may include

Floors layering()
{
    Floors floors;
    for (const QString& entry : QStringLiteral(HEADROOM_UI_LAYERING).split(QLatin1Char('|'))) {
        const QString floor = entry.section(QLatin1Char('='), 0, 0);
        QSet<QString> below;
        for (const QString& name : entry.section(QLatin1Char('='), 1).split(QLatin1Char(','), Qt::SkipEmptyParts))
            below.insert(name);
        floors.insert(floor, below);
    }
    return floors;
}

QString uiDir() { return QStringLiteral(HEADROOM_SOURCE_DIR "/ui"); }

} // namespace

class TestUiLayering : public QObject {
    Q_OBJECT
private slots:
    void tableIsALadder()
    {
        const Floors floors = layering();
        QVERIFY2(floors.size() >= 10, "every ui/ folder is a floor");
        // Depth-first search for a circle in "may include".
        QHash<QString, int> state; // 0 new, 1 on the stack, 2 done
        std::function<bool(const QString&)> circle = [&](const QString& floor) {
            if (state.value(floor) == 1)
                return true;
            if (state.value(floor) == 2)
                return false;
            state[floor] = 1;
            for (const QString& below : floors.value(floor)) {
                if (!floors.contains(below) || circle(below))
                    return true;
            }
            state[floor] = 2;
            return false;
        };
        for (auto it = floors.cbegin(); it != floors.cend(); ++it)
            QVERIFY2(!circle(it.key()), qPrintable(QStringLiteral("circle or unknown floor from ") + it.key()));
    }

    void everyFolderIsAFloor()
    {
        const Floors floors = layering();
        QDirIterator dirs(uiDir(), QDir::Dirs | QDir::NoDotAndDotDot);
        int seen = 0;
        while (dirs.hasNext()) {
            const QString name = QFileInfo(dirs.next()).fileName();
            QVERIFY2(floors.contains(name), qPrintable(QStringLiteral("ui/") + name +
                                                       QStringLiteral(" is not in ui/CMakeLists.txt's floors")));
            ++seen;
        }
        QCOMPARE(seen, floors.size());
        QDir top(uiDir());
        QVERIFY2(top.entryList({QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files).isEmpty(),
                 "ui/ sources live in a floor's folder");
    }

    void noIncludeRunsUpAFloor()
    {
        const Floors floors = layering();
        static const QRegularExpression include(QStringLiteral("^\\s*#\\s*include\\s+\"([a-z]+)/[^\"]+\""),
                                                QRegularExpression::MultilineOption);
        int files = 0, arrows = 0;
        QStringList wrong;
        QDirIterator it(uiDir(), {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const QString floor = QFileInfo(path).dir().dirName();
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(file.readAll());
            ++files;
            for (auto match = include.globalMatch(text); match.hasNext();) {
                const QString target = match.next().captured(1);
                if (!floors.contains(target))
                    continue; // the engine's own folders (plan/, io/...)
                ++arrows;
                if (target != floor && !floors.value(floor).contains(target))
                    wrong << QDir(uiDir()).relativeFilePath(path) + QStringLiteral(" includes ") + target +
                                 QStringLiteral("/");
            }
        }
        QVERIFY(files > 70);
        QVERIFY(arrows > 100);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("; "))));
    }

    // PlanDocument is the UI's one caller of the planner (ISSUE 17): a plan,
    // a ladder, a make-it-fit search, a fit search, a sweep or a layout search
    // anywhere else in ui/ would be a second source of numbers.
    void onlyTheDocumentCallsThePlanner()
    {
        static const QRegularExpression call(QStringLiteral(
            "(?<![\\w:.>])(?:headroom::)?(makePlan|buildLadder|makeItFit|largestMicroBatch|longestSequence|"
            "largestModels|computeSweep|computeFitMap|searchLayouts)\\s*\\("));
        QStringList wrong;
        int documentCalls = 0;
        QDirIterator it(uiDir(), {QStringLiteral("*.h"), QStringLiteral("*.cpp")}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            const bool document = QFileInfo(path).dir().dirName() == QLatin1String("document");
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            int lineNumber = 0;
            for (const QString& line : QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'))) {
                ++lineNumber;
                const QString code = line.section(QStringLiteral("//"), 0, 0);
                const auto match = call.match(code);
                if (!match.hasMatch())
                    continue;
                if (document)
                    ++documentCalls;
                else
                    wrong << QStringLiteral("%1:%2 calls %3")
                                 .arg(QDir(uiDir()).relativeFilePath(path))
                                 .arg(lineNumber)
                                 .arg(match.captured(1));
            }
        }
        QVERIFY2(documentCalls >= 6, "the document plans, ladders, suggests and searches");
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong.join(QStringLiteral("; "))));
    }
};

QTEST_GUILESS_MAIN(TestUiLayering)
#include "test_ui_layering.moc"
