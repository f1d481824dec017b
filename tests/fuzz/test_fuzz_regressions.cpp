// SPDX-License-Identifier: GPL-3.0-or-later
// Replays every input the fuzzers ever crashed on (tests/fuzz/regressions/
// <target>/) and the seed corpora (tests/fuzz/corpus/fuzz_<target>/) through
// the very functions the fuzz targets call (tests/fuzz/fuzzinputs.cpp), in
// the normal build, without clang or sanitizers: each input must end in an
// Error or in plans that keep the fuzz oracles; a crash or an abort fails
// this test. How inputs get here: docs/robustness.md.
#include "fuzz/fuzzinputs.h"

#include <QtCore/QDir>
#include <QtCore/QDirIterator>
#include <QtCore/QFile>
#include <QtTest/QtTest>

#include <string_view>

namespace {

using Replay = void (*)(std::string_view);

struct Target {
    const char* name;
    Replay replay;
};

constexpr Target kTargets[] = {
    {"hfconfig", headroom::fuzz::hfconfigInput},
    {"safetensors", headroom::fuzz::safetensorsInput},
    {"scenario", headroom::fuzz::scenarioInput},
    {"measurement", headroom::fuzz::measurementInput},
    {"hub", headroom::fuzz::hubInput},
};

QString source(const QString& relative) { return QStringLiteral(HEADROOM_SOURCE_DIR "/") + relative; }

} // namespace

class TestFuzzRegressions : public QObject {
    Q_OBJECT

private slots:
    void replay_data()
    {
        QTest::addColumn<int>("target");
        QTest::addColumn<QString>("path");
        int regressions = 0;
        for (int t = 0; t < int(std::size(kTargets)); ++t) {
            const QString name = QString::fromLatin1(kTargets[t].name);
            for (const QString& dir : {source(QStringLiteral("tests/fuzz/regressions/") + name),
                                       source(QStringLiteral("tests/fuzz/corpus/fuzz_") + name)}) {
                QDirIterator it(dir, QDir::Files);
                while (it.hasNext()) {
                    const QString path = it.next();
                    regressions += dir.contains(QStringLiteral("regressions")) ? 1 : 0;
                    const QString row = name + QLatin1Char('/') + QDir(dir).dirName() + QLatin1Char('/')
                                        + QFileInfo(path).fileName();
                    QTest::newRow(row.toUtf8().constData()) << t << path;
                }
            }
        }
        // The seed corpora are in the repository: no rows means a wrong path.
        QVERIFY(QDir(source(QStringLiteral("tests/fuzz/corpus/fuzz_scenario"))).exists());
        qInfo("%d regression inputs", regressions);
    }

    void replay()
    {
        QFETCH(int, target);
        QFETCH(QString, path);
        QFile file(path);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
        const QByteArray bytes = file.readAll();
        // Printed first: if the replay crashes, the log names the input.
        qInfo("replaying %s (%lld bytes)", qPrintable(path), static_cast<long long>(bytes.size()));
        kTargets[target].replay(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "test_fuzz_regressions.moc"
