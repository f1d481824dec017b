// SPDX-License-Identifier: GPL-3.0-or-later
// The main window: first start, files (save/open round trip, malformed files,
// unsaved changes), invalid combinations shown inline, units, the language
// switch at run time, and the offscreen screenshot.
#include "charts/chartexport.h"
#include "inputs/scenariopanel.h"
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "shell/recentfiles.h"
#include "shell/screenshot.h"
#include "text/memoryunits.h"
#include "views/verdictbar.h"

#include <QComboBox>
#include <QMenuBar>
#include <QMessageBox>
#include <QProcess>
#include <QSpinBox>
#include <QtTest>

using namespace headroom;

namespace {

QString canonical(const Scenario& s) { return QString::fromStdString(scenarioToText(s)); }

// Answers the next modal message box (closing it) and remembers its text.
class MessageBoxCloser : public QObject {
public:
    explicit MessageBoxCloser(QObject* parent = nullptr)
        : QObject(parent)
    {
        startTimer(20);
    }
    QString text;
    int seen = 0;

protected:
    void timerEvent(QTimerEvent*) override
    {
        if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) {
            text = box->text();
            ++seen;
            box->reject();
        }
    }
};

} // namespace

class TestUiMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_mainwindow"));
    }

    void firstStartIsTheTeachingScenario()
    {
        MainWindow window;
        QCOMPARE(canonical(window.scenario()), canonical(teachingScenario().value()));
        QVERIFY(window.plan().has_value());
        QVERIFY(!window.isWindowModified());
        QVERIFY2(window.verdict()->verdictText().startsWith(QLatin1String("Fits, ")), qPrintable(window.verdict()->verdictText()));
    }

    void saveAndOpenRoundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("mine.headroom.json"));
        Scenario edited = teachingScenario().value();
        edited.train.microBatch = 3;
        edited.hardware.gpu = "a100-80gb";

        MainWindow window;
        window.setScenario(edited);
        QCOMPARE(window.saveFile(path), QString());
        QVERIFY(!window.isWindowModified());
        QVERIFY(window.windowTitle().contains(QLatin1String("mine.headroom.json")));

        MainWindow other;
        QCOMPARE(other.openFile(path), QString());
        QCOMPARE(canonical(other.scenario()), canonical(edited));
        QCOMPARE(other.currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(other.plan().has_value());
        QCOMPARE(other.plan()->gpu.id, std::string("a100-80gb"));
        // Both the save and the open put the file first in File > Open Recent.
        QCOMPARE(RecentFiles().files().value(0), QFileInfo(path).absoluteFilePath());
    }

    void editsMarkTheWindowModified()
    {
        MainWindow window;
        window.panel()->findChild<QSpinBox*>(QStringLiteral("microBatch"))->setValue(4);
        QVERIFY(window.isWindowModified());
        QTRY_COMPARE(window.plan()->tokensPerMicroBatch, 4u * 2048u);  // re-planned on the next event-loop turn
    }

    void malformedFilesAreErrorsNotCrashes_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not JSON") << QByteArray("{\"schema\": ") << QStringLiteral("JSON");
        QTest::newRow("wrong schema") << QByteArray("{\"schema\": \"something/9\"}") << QString();
        QTest::newRow("unknown preset")
            << QByteArray("{\"schema\": \"headroom.scenario/1\", \"model\": {\"preset\": \"nobody/none\"}}")
            << QStringLiteral("catalog");
        QTest::newRow("binary") << QByteArray("\x00\x01\x02\xff", 4) << QString();
    }

    void malformedFilesAreErrorsNotCrashes()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.headroom.json"));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();

        MainWindow window;
        const QString before = canonical(window.scenario());
        const QString error = window.openFile(path);
        QVERIFY(!error.isEmpty());
        QVERIFY2(error.contains(QLatin1String("bad.headroom.json")), qPrintable(error));
        QVERIFY2(expected.isEmpty() || error.contains(expected), qPrintable(error));
        QCOMPARE(canonical(window.scenario()), before);  // nothing half-loaded
        QVERIFY(window.currentFile().isEmpty());

        // The menu's path shows the same message in a box, and returns.
        MessageBoxCloser closer;
        QVERIFY(!window.openFileInteractive(path));
        QCOMPARE(closer.seen, 1);
        QCOMPARE(closer.text, error);
    }

    void missingFileIsAnError()
    {
        MainWindow window;
        const QString error = window.openFile(QStringLiteral("/nonexistent/x.headroom.json"));
        QVERIFY2(error.contains(QLatin1String("not found")), qPrintable(error));
    }

    void invalidCombinationsAreShownInline()
    {
        MainWindow window;
        Scenario s = teachingScenario().value();
        s.train.weightQuant = WeightQuant::None;  // QLoRA without a 4-bit base
        window.setScenario(s);
        QVERIFY(!window.plan().has_value());
        QVERIFY2(window.panel()->problem().contains(QLatin1String("NF4")), qPrintable(window.panel()->problem()));
        QCOMPARE(window.verdict()->verdictText(), QStringLiteral("No plan"));
        // Fixing the input clears it.
        auto* quant = window.panel()->findChild<QComboBox*>(QStringLiteral("weightQuant"));
        quant->setCurrentIndex(quant->findData(static_cast<int>(WeightQuant::Nf4)));
        window.replanNow();
        QVERIFY(window.plan().has_value());
        QVERIFY(window.panel()->problem().isEmpty());
    }

    void unitsFollowTheViewMenu()
    {
        MainWindow window;
        window.setUnit(MemoryUnit::GB);
        QVERIFY2(window.verdict()->verdictText().endsWith(QLatin1String(" GB to spare")), qPrintable(window.verdict()->verdictText()));
        window.setUnit(MemoryUnit::GiB);
        QVERIFY(window.verdict()->verdictText().endsWith(QLatin1String(" GiB to spare")));
    }

    void languageSwitchesAtRunTime()
    {
        MainWindow window;
        QVERIFY(window.languages()->setLanguage(QStringLiteral("ko")));
        QCoreApplication::processEvents();  // LanguageChange is posted to every widget
        QVERIFY2(window.verdict()->verdictText().contains(QStringLiteral("여유")), qPrintable(window.verdict()->verdictText()));
        QCOMPARE(window.menuBar()->actions().first()->text(), QStringLiteral("파일(&F)"));
        QVERIFY(window.languages()->setLanguage(QStringLiteral("en")));
        QCoreApplication::processEvents();
        QVERIFY(window.verdict()->verdictText().startsWith(QLatin1String("Fits")));
        QVERIFY(!window.languages()->setLanguage(QStringLiteral("xx")));
    }

    void unsavedChangesAreAskedAbout()
    {
        MainWindow window;
        window.show();
        window.panel()->findChild<QSpinBox*>(QStringLiteral("microBatch"))->setValue(4);
        MessageBoxCloser closer;  // answers Cancel
        QVERIFY(!window.close());
        QCOMPARE(closer.seen, 1);
        QVERIFY(window.isVisible());
        window.setWindowModified(false);
        QVERIFY(window.close());
    }

    void chartsExport_data()
    {
        QTest::addColumn<int>("view");
        QTest::newRow("breakdown") << static_cast<int>(MainWindow::View::Breakdown);
        QTest::newRow("stages") << static_cast<int>(MainWindow::View::Stages);
        QTest::newRow("timeline") << static_cast<int>(MainWindow::View::Timeline);
        QTest::newRow("ladder") << static_cast<int>(MainWindow::View::Ladder);
        QTest::newRow("sweep") << static_cast<int>(MainWindow::View::Sweep);
    }

    void chartsExport()
    {
        QFETCH(int, view);
        MainWindow window;
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.showView(static_cast<MainWindow::View>(view));
        QTemporaryDir dir;
        for (const QString& suffix : ChartExport::suffixes()) {
            const QString path = dir.filePath(QStringLiteral("chart.") + suffix);
            QCOMPARE(ChartExport::save(window.currentChart(), path), QString());
            QVERIFY2(QFileInfo(path).size() > 1000, qPrintable(suffix));
        }
        QVERIFY(!ChartExport::save(window.currentChart(), dir.filePath(QStringLiteral("chart.bmp"))).isEmpty());
    }

    void screenshotRendersEveryView_data()
    {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("language");
        for (const char* view : {"breakdown", "stages", "timeline", "ladder", "sweep", "search"}) {
            QTest::newRow(view) << QString::fromLatin1(view) << QStringLiteral("en");
            QTest::newRow(qPrintable(QStringLiteral("%1 ko").arg(QLatin1String(view)))) << QString::fromLatin1(view) << QStringLiteral("ko");
        }
    }

    void screenshotRendersEveryView()
    {
        QFETCH(QString, view);
        QFETCH(QString, language);
        QTemporaryDir dir;
        ScreenshotRequest request;
        request.output = dir.filePath(QStringLiteral("shot.png"));
        request.view = view;
        request.language = language;
        QCOMPARE(Screenshot::take(request), QString());
        const QImage image(request.output);
        QCOMPARE(image.size(), request.size);
    }

    void screenshotErrorsAreOneLine()
    {
        ScreenshotRequest request;
        request.output = QStringLiteral("/tmp/never.png");
        request.view = QStringLiteral("pie");
        QVERIFY(Screenshot::take(request).contains(QLatin1String("pie")));
        request.view = QStringLiteral("breakdown");
        request.scenarioPath = QStringLiteral("/nonexistent.headroom.json");
        const QString error = Screenshot::take(request);
        QVERIFY(!error.isEmpty());
        QVERIFY(!error.contains(QLatin1Char('\n')));
    }

    void theAppExitsTwoOnBadArguments()
    {
        QProcess app;
        app.start(QStringLiteral(HEADROOM_GUI_PATH), {QStringLiteral("--screenshot"), QStringLiteral("/tmp/x.png"),
                                                      QStringLiteral("--view"), QStringLiteral("pie")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 2);
        const QString stderrText = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(stderrText.startsWith(QLatin1String("headroom: unknown view")), qPrintable(stderrText));
        QCOMPARE(stderrText.trimmed().count(QLatin1Char('\n')), 0);

        // A good call renders and says nothing.
        QTemporaryDir dir;
        const QString png = dir.filePath(QStringLiteral("ok.png"));
        app.start(QStringLiteral(HEADROOM_GUI_PATH), {QStringLiteral("--screenshot"), png, QStringLiteral("--view"),
                                                      QStringLiteral("timeline"), QStringLiteral("--lang"), QStringLiteral("ko")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 0);
        QVERIFY(QFileInfo::exists(png));
        QCOMPARE(QString::fromUtf8(app.readAllStandardError()), QString());
    }
};

QTEST_MAIN(TestUiMainWindow)
#include "test_ui_mainwindow.moc"
