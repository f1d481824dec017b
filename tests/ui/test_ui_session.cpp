// SPDX-License-Identifier: GPL-3.0-or-later
// The last session restored on start, autosave and crash recovery: a round
// trip through QSettings, an autosave offered back after a simulated crash
// (autosave present, no clean exit), none after a clean exit, and corrupt
// settings or a corrupt autosave falling back to the defaults with a warning.
// QSettings and QStandardPaths run in test mode (~/.qttest), cleared per test.
#include "charts/ladderchart.h"
#include "charts/timelineview.h"
#include "inputs/scenariopanel.h"
#include "io/scenariofile.h"
#include "plan/defaultscenario.h"
#include "shell/autosave.h"
#include "shell/mainwindow.h"
#include "shell/session.h"
#include "views/ladderview.h"

#include <QSettings>
#include <QSpinBox>
#include <QtTest>

using namespace headroom;

namespace {

QString canonical(const Scenario& s) { return QString::fromStdString(scenarioToText(s)); }

Scenario edited()
{
    Scenario s = teachingScenario().value();
    s.train.microBatch = 3;
    s.hardware.gpu = "a100-80gb";
    return s;
}

// The user's edit: through the panel, as a spin box change.
void editMicroBatch(MainWindow& window, int value)
{
    window.panel()->findChild<QSpinBox*>(QStringLiteral("microBatch"))->setValue(value);
}

} // namespace

class TestUiSession : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_session"));
        QVERIFY(QSettings().fileName().contains(QLatin1String("qttest")));
        QVERIFY(Autosave::path().contains(QLatin1String("qttest")));
    }

    void init()
    {
        QSettings().clear();
        QFile::remove(Autosave::path());
        QFile::remove(Autosave::path() + QStringLiteral(".corrupt"));
    }

    void untitledScenarioAndViewRoundTrip()
    {
        {
            MainWindow window;
            Session session(&window);
            window.setScenario(edited());
            window.setWindowModified(true);
            window.showView(MainWindow::View::Timeline);
            session.save();
        }
        MainWindow window;
        Session session(&window);
        QCOMPARE(session.restore(), QString());
        QCOMPARE(canonical(window.scenario()), canonical(edited()));
        QVERIFY(window.isWindowModified());
        QVERIFY(window.currentFile().isEmpty());
        QCOMPARE(window.currentChart(), static_cast<QCustomPlot*>(window.timelineView()));
    }

    void fileSessionReopensTheFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.headroom.json"));
        {
            MainWindow window;
            Session session(&window);
            window.setScenario(edited());
            QCOMPARE(window.saveFile(path), QString());
            window.showView(MainWindow::View::Ladder);
            session.finish();  // a clean exit
        }
        MainWindow window;
        Session session(&window);
        int asked = 0;
        session.setAsker([&](const QDateTime&) { return ++asked, true; });
        QCOMPARE(session.start(), QStringList());
        QCOMPARE(asked, 0);  // nothing to offer after a clean exit
        QCOMPARE(window.currentFile(), QFileInfo(path).absoluteFilePath());
        QVERIFY(!window.isWindowModified());
        QCOMPARE(canonical(window.scenario()), canonical(edited()));
        QCOMPARE(window.currentChart(), static_cast<QCustomPlot*>(window.ladderView()->chart()));
    }

    void discardedEditsAreNotRestored()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("s.headroom.json"));
        {
            MainWindow window;
            Session session(&window);
            window.setScenario(edited());
            QCOMPARE(window.saveFile(path), QString());
            editMicroBatch(window, 7);  // then "Discard" at the close prompt
            session.finish();
        }
        MainWindow window;
        Session session(&window);
        QCOMPARE(session.restore(), QString());
        QCOMPARE(window.scenario().train.microBatch, 3u);  // the file's
        QVERIFY(!window.isWindowModified());
    }

    void autosaveIsOfferedBackAfterACrash()
    {
        {
            MainWindow window;
            Session session(&window, 20);
            editMicroBatch(window, 5);
            QVERIFY(window.isWindowModified());
            QTRY_VERIFY(Autosave::exists());  // written a moment after the edit
            // No finish(): the process "crashed" here.
        }
        QVERIFY(Autosave::exists());
        MainWindow window;
        Session session(&window);
        QVERIFY(session.pendingAutosave().has_value());
        QDateTime offered;
        session.setAsker([&](const QDateTime& time) { return offered = time, true; });
        QCOMPARE(session.start(), QStringList());
        QVERIFY(offered.isValid());
        QVERIFY(qAbs(offered.secsTo(QDateTime::currentDateTimeUtc())) < 120);
        QCOMPARE(window.scenario().train.microBatch, 5u);
        QVERIFY(window.isWindowModified());  // still unsaved: Save is the user's choice
        session.finish();
        QVERIFY(!Autosave::exists());  // a clean exit removes it
        QVERIFY(!session.pendingAutosave().has_value());
    }

    void declinedAutosaveIsRemoved()
    {
        {
            MainWindow window;
            Session session(&window);
            editMicroBatch(window, 6);
            QCOMPARE(session.autosave()->writeNow(), QString());
        }
        MainWindow window;
        Session session(&window);
        session.setAsker([](const QDateTime&) { return false; });
        session.start();
        QCOMPARE(canonical(window.scenario()), canonical(teachingScenario().value()));
        QVERIFY(!Autosave::exists());
    }

    void savingRemovesTheAutosave()
    {
        QTemporaryDir dir;
        MainWindow window;
        Session session(&window);
        editMicroBatch(window, 9);
        QCOMPARE(session.autosave()->writeNow(), QString());
        QVERIFY(Autosave::exists());
        QCOMPARE(window.saveFile(dir.filePath(QStringLiteral("x.headroom.json"))), QString());
        QVERIFY(!Autosave::exists());
        QVERIFY(!session.autosave()->isScheduled());
    }

    void corruptAutosaveFallsBackWithAWarning()
    {
        QVERIFY(QDir().mkpath(QFileInfo(Autosave::path()).absolutePath()));
        QFile file(Autosave::path());
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"schema\": \"headroom.scenario/1\", \"model\": ");
        file.close();

        MainWindow window;
        Session session(&window);
        session.setAsker([](const QDateTime&) { return true; });
        const QStringList warnings = session.start();
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().contains(QLatin1String("could not be read")), qPrintable(warnings.first()));
        QCOMPARE(canonical(window.scenario()), canonical(teachingScenario().value()));
        QVERIFY(window.plan().has_value());
        QVERIFY(!Autosave::exists());
        QVERIFY(QFile::exists(Autosave::path() + QStringLiteral(".corrupt")));
    }

    void corruptSettingsFallBackWithAWarning()
    {
        {
            QSettings settings;
            settings.setValue(QStringLiteral("session/scenario"), QStringLiteral("{not json"));
            settings.setValue(QStringLiteral("session/view"), QStringLiteral("nowhere"));
            settings.setValue(QStringLiteral("session/file"), QStringLiteral("/nonexistent/gone.headroom.json"));
            settings.setValue(QStringLiteral("session/cleanExit"), QStringLiteral("yesterday-ish"));
        }
        MainWindow window;
        Session session(&window);
        const QStringList warnings = session.start();
        QCOMPARE(warnings.size(), 1);
        QVERIFY2(warnings.first().contains(QLatin1String("nowhere")), qPrintable(warnings.first()));
        QVERIFY2(warnings.first().contains(QLatin1String("gone.headroom.json")), qPrintable(warnings.first()));
        QCOMPARE(canonical(window.scenario()), canonical(teachingScenario().value()));
        QVERIFY(window.currentFile().isEmpty());
        QVERIFY(!session.pendingAutosave().has_value());
    }
};

QTEST_MAIN(TestUiSession)
#include "test_ui_session.moc"
