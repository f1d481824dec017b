// SPDX-License-Identifier: GPL-3.0-or-later
// The Validate view and its child process (issues 5 and 6): a normal run
// fills the bars, the table and the timeline with the child's numbers; a
// crash, a hang, an out-of-memory, an unavailable backend, a cancel and a
// malformed result each end in a clear message with the app still running.
// The child is tests/ui/fakes/fake_validator (VALIDATE-PROTOCOL.md) unless the
// real `headroom-cli validate` exists (realCli* below, skipped until then).
#include "io/scenariofile.h"
#include "model/catalog.h"
#include "plan/defaultscenario.h"
#include "runtime/runtime_testmodels.h"
#include "runtime/validate.h"
#include "shell/mainwindow.h"
#include "shell/screenshot.h"
#include "text/memoryunits.h"
#include "validate/validateview.h"
#include "validate/validationrunner.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QtTest>

#include <csignal>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

const QString kFake = QStringLiteral(HEADROOM_FAKE_VALIDATOR_PATH);

// The fake's result for a scenario, read here with Qt's own parser: the
// independent side of "the view shows the child's numbers".
QJsonObject fakeResult(const Scenario& scenario, const QStringList& extra = {})
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("s.headroom.json"));
    if (!writeScenarioFile(scenario, path.toStdString()))
        return {};
    QProcess child;
    child.start(kFake, QStringList{QStringLiteral("validate"), QStringLiteral("--json"), QStringLiteral("--scenario"), path} + extra);
    if (!child.waitForFinished(30000))
        return {};
    return QJsonDocument::fromJson(child.readAllStandardOutput()).object();
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// How the view labels an error: signed percent with one decimal, derived
// here from the two byte counts of the child's result.
QString expectedPercent(double planned, double measured)
{
    const double percent = (measured - planned) / planned * 100.0;
    return (percent < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) + QLocale().toString(std::abs(percent), 'f', 1) +
           QStringLiteral(" %");
}

// A view wired to the fake on the teaching scenario.
struct Fixture {
    ValidateView view;
    QSignalSpy finished{view.runner(), &ValidationRunner::finished};
    QSignalSpy failed{view.runner(), &ValidationRunner::failed};
    QSignalSpy progress{view.runner(), &ValidationRunner::progress};

    explicit Fixture(const QString& executable = kFake)
    {
        view.runner()->setExecutable(executable);
        view.setScenario(teachingScenario().value());
    }
    bool waitDone(int ms = 30000)
    {
        QElapsedTimer timer;
        timer.start();
        while (view.isRunning() && timer.elapsed() < ms)
            QTest::qWait(10);
        return !view.isRunning();
    }
    ValidationRunner::Failure failure() const { return failed.constLast().at(0).value<ValidationRunner::Failure>(); }
    QString failMessage() const { return failed.constLast().at(1).toString(); }
};

} // namespace

class TestUiValidate : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_validate"));
        MemoryUnits::setCurrent(MemoryUnit::GiB);
        QVERIFY2(QFileInfo::exists(kFake), qPrintable(kFake));
    }

    void cleanup()
    {
        qunsetenv("HEADROOM_FAKE_VALIDATOR");
        qunsetenv("HEADROOM_FAKE_VALIDATOR_DELAY_MS");
    }

    void normalRunShowsTheChildsNumbers()
    {
        const QJsonObject expected = fakeResult(teachingScenario().value());
        QCOMPARE(expected.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
        Fixture f;
        // The counters' model stays well-behaved through the clear and the result.
        QAbstractItemModelTester tester(f.view.table()->model(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        f.view.run();
        QVERIFY(f.view.isRunning());
        QVERIFY(!f.view.runButton()->isEnabled());
        QVERIFY(f.view.cancelButton()->isEnabled());
        QVERIFY(f.waitDone());
        QCOMPARE(f.failed.count(), 0);
        QCOMPARE(f.finished.count(), 1);
        QVERIFY(f.progress.count() > 2);  // setup, every event, done
        QCOMPARE(f.view.progressValue(), 1000);
        QVERIFY2(f.view.statusText().contains(QLatin1String("ran to the end")), qPrintable(f.view.statusText()));
        QVERIFY(f.view.runButton()->isEnabled());

        // Bars and their error labels: the child's bytes per category.
        const QJsonObject planned = expected.value(QLatin1String("planned")).toObject().value(QLatin1String("categories")).toObject();
        const QJsonObject measured = expected.value(QLatin1String("measured")).toObject().value(QLatin1String("categories")).toObject();
        QVERIFY(!planned.isEmpty());
        int rows = 1;  // the peak
        for (std::size_t c = 0; c < kCategoryCount; ++c) {
            const auto category = static_cast<Category>(c);
            const QString key = QLatin1String(categoryName(category));
            if (!planned.contains(key) && !measured.contains(key)) {
                QVERIFY(!f.view.plannedBarBytes(category));
                continue;
            }
            ++rows;
            const double p = planned.value(key).toDouble();
            const double m = measured.value(key).toDouble();
            QVERIFY2(near(f.view.plannedBarBytes(category).value_or(-1), p), qPrintable(key));
            QVERIFY2(near(f.view.measuredBarBytes(category).value_or(-1), m), qPrintable(key));
            QCOMPARE(f.view.errorLabel(category), expectedPercent(p, m));
        }
        // The counters table: the peak first, then one row per category shown.
        QCOMPARE(f.view.table()->model()->rowCount(), rows);
        const double plannedPeak = expected.value(QLatin1String("planned")).toObject().value(QLatin1String("peak_bytes")).toDouble();
        const double measuredPeak = expected.value(QLatin1String("measured")).toObject().value(QLatin1String("peak_bytes")).toDouble();
        QCOMPARE(f.view.table()->model()->index(0, 0).data().toString(), MemoryUnits::format(plannedPeak));
        QCOMPARE(f.view.table()->model()->index(0, 1).data().toString(), MemoryUnits::format(measuredPeak));
        QCOMPARE(f.view.table()->model()->index(0, 2).data().toString(),
                 MemoryUnits::formatSigned(measuredPeak - plannedPeak));
        QCOMPARE(f.view.table()->model()->index(0, 3).data().toString(), expectedPercent(plannedPeak, measuredPeak));

        // The measured timeline over the planned one, event by event.
        const QJsonArray events = expected.value(QLatin1String("events")).toArray();
        QVERIFY(events.size() > 10);
        for (int e = 0; e < events.size(); ++e) {
            const QJsonObject event = events[e].toObject();
            QVERIFY(near(f.view.plannedTimelineBytes(e).value_or(-1), event.value(QLatin1String("planned_bytes")).toDouble()));
            QVERIFY(near(f.view.measuredTimelineBytes(e).value_or(-1), event.value(QLatin1String("measured_bytes")).toDouble()));
        }
        QVERIFY(!f.view.measuredTimelineBytes(static_cast<int>(events.size())));
        const auto& report = f.view.report();
        QVERIFY(report.has_value());
        QCOMPARE(report->tokensPerSecond.value_or(-1), expected.value(QLatin1String("tokens_per_second")).toDouble());
    }

    void crashLeavesTheAppResponsive()
    {
        Fixture f;
        f.view.runner()->setInjectFault(QStringLiteral("crash"));
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.failed.count(), 1);
        QCOMPARE(f.failure(), ValidationRunner::Failure::Crashed);
        // std::abort() raises SIGABRT.
        QVERIFY2(f.failMessage().startsWith(QStringLiteral("The validation run crashed (signal %1). The app is unaffected.").arg(SIGABRT)),
                 qPrintable(f.failMessage()));
        QVERIFY(f.view.statusText().contains(QLatin1String("The app is unaffected")));
        // The child's last human line comes with the message.
        QVERIFY(f.failMessage().contains(QLatin1String("not a measurement")));
        // Still responsive: the event loop delivers a timer, and a new run works.
        bool fired = false;
        QTimer::singleShot(0, &f.view, [&fired] { fired = true; });
        QTRY_VERIFY(fired);
        f.view.runner()->setInjectFault(QString());
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.finished.count(), 1);
        QVERIFY(f.view.report().has_value());
    }

    void hangIsStoppedAtTheTimeout()
    {
        Fixture f;
        f.view.runner()->setInjectFault(QStringLiteral("hang"));
        f.view.timeoutBox()->setValue(2);
        QElapsedTimer clock;
        clock.start();
        f.view.run();
        QVERIFY(f.waitDone(15000));
        const qint64 elapsed = clock.elapsed();
        QCOMPARE(f.failure(), ValidationRunner::Failure::TimedOut);
        // Killed at the timeout, not before; the margin is for a loaded 2-core machine.
        QVERIFY2(elapsed >= 1900 && elapsed < 2000 + 3000, qPrintable(QString::number(elapsed)));
        QVERIFY2(f.failMessage().startsWith(QLatin1String("The validation run was stopped after 2 s without finishing.")),
                 qPrintable(f.failMessage()));
        QVERIFY(f.view.runButton()->isEnabled());
    }

    void outOfMemoryIsAMeasuredResult()
    {
        Fixture f;
        f.view.runner()->setInjectFault(QStringLiteral("oom"));
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.failed.count(), 0);
        QCOMPARE(f.finished.count(), 1);
        const auto& report = f.view.report();
        QVERIFY(report.has_value());
        QCOMPARE(report->status, ValidationReport::Status::OutOfMemory);
        QVERIFY2(report->message.startsWith(QLatin1String("out of memory at ")), qPrintable(report->message));
        QVERIFY2(f.view.statusText().contains(report->message), qPrintable(f.view.statusText()));
        QVERIFY(f.view.statusText().contains(QLatin1String("ran out of memory")));
        // The measured line stops where the allocation was refused; the plan goes on.
        int refused = 0;
        while (refused < report->events.size() && report->events[refused].measuredBytes)
            ++refused;
        QVERIFY(refused >= 1 && refused < report->events.size() - 1);
        QVERIFY(f.view.measuredTimelineBytes(refused - 1).has_value());
        QVERIFY(!f.view.measuredTimelineBytes(refused).has_value());
        QVERIFY(f.view.plannedTimelineBytes(refused).has_value());
        QVERIFY(f.view.plannedTimelineBytes(static_cast<int>(report->events.size()) - 1).has_value());
        QVERIFY(report->message.endsWith(report->events[refused].label));
        // A stopped run's peak is not the step's: no error against the plan is claimed.
        QCOMPARE(f.view.table()->model()->index(0, 3).data().toString(), QStringLiteral("—"));
        QCOMPARE(f.view.errorLabel(Category::Weights), QString());
        QCOMPARE(f.view.errorLabel(Category::Activations), QStringLiteral("not measured"));
    }

    void unavailableBackendIsSaidPlainly()
    {
        Fixture f;
        f.view.backendBox()->setCurrentIndex(f.view.backendBox()->findData(QStringLiteral("cuda")));
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.failure(), ValidationRunner::Failure::Unavailable);
        QCOMPARE(f.failMessage(), QStringLiteral("Validation is not available here: no CUDA device was found."));
        QVERIFY(f.view.statusText().contains(QLatin1String("Choose the CPU engine")));
    }

    void deviceListSaysWhenThereIsNoCuda()
    {
        Fixture f;
        QSignalSpy probed(f.view.runner(), &ValidationRunner::devicesProbed);
        f.view.show();  // the probe runs when the tab is first shown
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 15000);
        QVERIFY2(f.view.deviceText().startsWith(
                     QLatin1String("No CUDA device / no CUDA engine in this build: the CPU engine runs the step instead.")),
                 qPrintable(f.view.deviceText()));
        QVERIFY(f.view.deviceText().contains(QLatin1String("this build has no CUDA engine")));

        qputenv("HEADROOM_FAKE_VALIDATOR", "gpu");
        Fixture withGpu;
        QSignalSpy probedGpu(withGpu.view.runner(), &ValidationRunner::devicesProbed);
        withGpu.view.show();
        QTRY_COMPARE_WITH_TIMEOUT(probedGpu.count(), 1, 15000);
        QVERIFY2(withGpu.view.deviceText().startsWith(QLatin1String("CUDA: Fake GPU 24GB (")), qPrintable(withGpu.view.deviceText()));
    }

    void missingCommandIsSaidPlainly()
    {
        Fixture f(QStringLiteral("/nonexistent/headroom-cli"));
        QSignalSpy probed(f.view.runner(), &ValidationRunner::devicesProbed);
        f.view.show();
        QTRY_COMPARE_WITH_TIMEOUT(probed.count(), 1, 15000);
        QVERIFY(f.view.deviceText().startsWith(QLatin1String("No CUDA device / no CUDA engine in this build")));
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.failure(), ValidationRunner::Failure::NotFound);
        QVERIFY2(f.failMessage().startsWith(QLatin1String("Cannot start the validation command /nonexistent/headroom-cli")),
                 qPrintable(f.failMessage()));
        // The view shows the failure, not a run in progress.
        QVERIFY2(f.view.statusText().startsWith(QLatin1String("Cannot start the validation command")), qPrintable(f.view.statusText()));
        QVERIFY(f.view.runButton()->isEnabled());
        QVERIFY(!f.view.cancelButton()->isEnabled());
    }

    void cancelKillsTheChild()
    {
        // 200 ms per event: the whole run would take many seconds.
        qputenv("HEADROOM_FAKE_VALIDATOR_DELAY_MS", "200");
        Fixture f;
        f.view.run();
        QTRY_VERIFY_WITH_TIMEOUT(f.progress.count() >= 2, 15000);
        QVERIFY(f.view.isRunning());
        QVERIFY(f.view.progressText().contains(QLatin1String("%")));
        QElapsedTimer clock;
        clock.start();
        f.view.cancelButton()->click();
        QVERIFY(f.waitDone(5000));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(f.finished.count(), 0);
        QCOMPARE(f.failure(), ValidationRunner::Failure::Cancelled);
        QVERIFY(f.view.statusText().contains(QLatin1String("cancelled")));
        QVERIFY(!f.view.report().has_value());
    }

    void malformedResultIsAnError()
    {
        qputenv("HEADROOM_FAKE_VALIDATOR", "malformed");
        Fixture f;
        f.view.run();
        QVERIFY(f.waitDone());
        QCOMPARE(f.failure(), ValidationRunner::Failure::BadOutput);
        QVERIFY2(f.failMessage().startsWith(QLatin1String("The validation run finished, but its result could not be read: "
                                                          "the result is not valid JSON")),
                 qPrintable(f.failMessage()));
        QVERIFY(!f.view.report().has_value());
    }

    void otherExitStatuses()
    {
        qputenv("HEADROOM_FAKE_VALIDATOR", "exit7");
        {
            Fixture f;
            f.view.run();
            QVERIFY(f.waitDone());
            QCOMPARE(f.failure(), ValidationRunner::Failure::Crashed);
            QVERIFY2(f.failMessage().startsWith(QLatin1String("The validation run crashed (exit status 7).")), qPrintable(f.failMessage()));
            QVERIFY(f.failMessage().contains(QLatin1String("internal failure (fake)")));
        }
        qputenv("HEADROOM_FAKE_VALIDATOR", "badinput");
        {
            Fixture f;
            f.view.run();
            QVERIFY(f.waitDone());
            QCOMPARE(f.failure(), ValidationRunner::Failure::BadInput);
            QCOMPARE(f.failMessage(), QStringLiteral("The validation command refused the scenario: "
                                                     "headroom-cli: scenario: micro_batch must be at least 1"));
        }
    }

    void reportParsingRefusesBadFields_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("the run printed no result");
        QTest::newRow("array") << QByteArray("[1]") << QStringLiteral("the result is not a JSON object");
        QTest::newRow("schema") << QByteArray(R"({"schema":"other/1","status":"ok"})")
                                << QStringLiteral("unexpected schema \"other/1\" (expected headroom.validation/1)");
        QTest::newRow("status") << QByteArray(R"({"schema":"headroom.validation/1","status":"fine"})")
                                << QStringLiteral("unknown status \"fine\"");
        QTest::newRow("negative") << QByteArray(R"({"schema":"headroom.validation/1","status":"ok","planned":{"peak_bytes":-1}})")
                                  << QStringLiteral("missing or invalid planned.peak_bytes");
        QTest::newRow("category") << QByteArray(R"({"schema":"headroom.validation/1","status":"ok","planned":{"peak_bytes":4},)"
                                                R"("measured":{"peak_bytes":4,"categories":{"weights":"x"}}})")
                                  << QStringLiteral("missing or invalid measured.categories.weights");
    }

    void reportParsingRefusesBadFields()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QString why;
        QVERIFY(!ValidationJson::parseReport(json, &why));
        QCOMPARE(why, error);
    }

    void deviceLevelNumbersReachTheView()
    {
        // The engine's own JSON for a CUDA-like run: a CPU validation with
        // device-level numbers filled in as the CUDA backend fills them.
        Scenario s = testing::tinyScenario();
        auto backend = rt::makeCpuBackend();
        auto run = rt::runValidation(s, *backend, {});
        QVERIFY(run.ok());
        rt::ValidationResult result = run.value();
        auto* r = &result;
        rt::DeviceMeasurement& d = r->measured.deviceLevel;
        d.present = true;
        d.othersBytes = 300 * MiB;
        d.contextBytes = 500 * MiB;
        d.workspaceBytes = 32 * MiB;
        d.scratchBytes = 1 * MiB;
        // The device holds the block pool's segments: planned device use is
        // the plan's reserved plus the overheads (runtime/validate.cpp).
        d.usedPeakBytes = d.othersBytes + r->plan.peakReservedBytes + d.overheadBytes() + 10 * MiB;
        const QByteArray json = QByteArray::fromStdString(rt::validationJson(result).dump());
        QString why;
        const auto report = ValidationJson::parseReport(json, &why);
        QVERIFY2(report, qPrintable(why));
        QCOMPARE(*report->deviceUsedMeasured, double(r->plan.peakReservedBytes + d.overheadBytes() + 10 * MiB));
        QCOMPARE(*report->deviceUsedPlanned, double(r->plan.peakReservedBytes + d.overheadBytes()));
        QCOMPARE(*report->deviceOverhead, double(d.overheadBytes()));
        QVERIFY(report->deviceWithinTolerance); // 10 MiB over, within 64 MiB
    }

    void progressLinesAndHumanText()
    {
        const auto p = ValidationJson::parseProgress(
            R"({"progress":0.42,"phase":"backward","event":"backward layer 3","step":1,"steps":3})");
        QVERIFY(p.has_value());
        QCOMPARE(p->fraction, 0.42);
        QCOMPARE(p->phase, QStringLiteral("backward"));
        QCOMPARE(p->event, QStringLiteral("backward layer 3"));
        QCOMPARE(p->steps, 3);
        QVERIFY(!ValidationJson::parseProgress("warning: something human"));
        QVERIFY(!ValidationJson::parseProgress(R"({"phase":"setup"})"));
        QCOMPARE(ValidationJson::parseProgress(R"({"progress":7})")->fraction, 1.0);  // clamped to [0, 1]
    }

    void mainWindowHasTheTab()
    {
        QCOMPARE(MainWindow::viewFromName(QStringLiteral("validate")).value(), MainWindow::View::Validate);
        MainWindow window;
        QVERIFY(window.validateView());
        window.showView(MainWindow::View::Validate);
        QCOMPARE(window.currentChart(), window.validateView()->barsChart());
        // The tab measures what the panel says now.
        window.validateView()->runner()->setExecutable(kFake);
        QSignalSpy finished(window.validateView()->runner(), &ValidationRunner::finished);
        window.validateView()->run();
        QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 30000);
        const auto& report = window.validateView()->report();
        QCOMPARE(report->planned.peakBytes, window.plan()->peakBytes);
    }

    // Writes the Validate tab with a fake result in English and Korean; set
    // HEADROOM_SCREENSHOT_DIR to keep the PNGs for a look.
    void screenshots()
    {
        QTemporaryDir dir;
        const QString outDir = qEnvironmentVariableIsSet("HEADROOM_SCREENSHOT_DIR") ? qEnvironmentVariable("HEADROOM_SCREENSHOT_DIR")
                                                                                    : dir.path();
        const QString resultPath = dir.filePath(QStringLiteral("result.json"));
        QFile result(resultPath);
        QVERIFY(result.open(QIODevice::WriteOnly));
        result.write(QJsonDocument(fakeResult(teachingScenario().value())).toJson());
        result.close();
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("ko")}) {
            ScreenshotRequest request;
            request.output = QDir(outDir).filePath(QStringLiteral("validate-%1.png").arg(language));
            request.view = QStringLiteral("validate");
            request.language = language;
            request.validationResult = resultPath;
            QCOMPARE(Screenshot::take(request), QString());
            QImage image(request.output);
            QCOMPARE(image.size(), QSize(1440, 900));
        }
        ScreenshotRequest bad;
        bad.output = dir.filePath(QStringLiteral("x.png"));
        bad.view = QStringLiteral("validate");
        bad.validationResult = dir.filePath(QStringLiteral("missing.json"));
        QVERIFY(Screenshot::take(bad).startsWith(QLatin1String("cannot read ")));
    }

    // ---- Against the real CLI -------------------------------------------------
    // These use HEADROOM_CLI_PATH (or $HEADROOM_CLI) and skip until
    // `headroom-cli validate` exists in that build; they start passing,
    // unchanged, once the command lands.
    void realCliFaults_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::newRow("none") << QString();
        QTest::newRow("crash") << QStringLiteral("crash");
        QTest::newRow("hang") << QStringLiteral("hang");
        QTest::newRow("oom") << QStringLiteral("oom");
    }

    void realCliFaults()
    {
        QFETCH(QString, fault);
        // HEADROOM_CLI in the environment points at another build's CLI.
        const QString cli = qEnvironmentVariableIsSet("HEADROOM_CLI") ? qEnvironmentVariable("HEADROOM_CLI")
                                                                     : QStringLiteral(HEADROOM_CLI_PATH);
        if (!QFileInfo::exists(cli))
            QSKIP("headroom-cli is not built");
        // The command list of `headroom-cli --help` names validate once it exists.
        QProcess help;
        help.start(cli, {QStringLiteral("--help")});
        if (!help.waitForFinished(30000) ||
            !QString::fromUtf8(help.readAllStandardOutput() + help.readAllStandardError()).contains(QLatin1String("\n  validate ")))
            QSKIP("headroom-cli has no validate command yet (VALIDATE-PROTOCOL.md)");

        // A tiny Llama on the CPU engine (seconds on a loaded 2-core machine):
        // the fault handling, not the model, is under test.
        Scenario small = teachingScenario().value();
        auto model = modelFromJson(nlohmann::json{
            {"config",
             {{"model_type", "llama"}, {"architectures", {"LlamaForCausalLM"}}, {"hidden_size", 64}, {"intermediate_size", 128},
              {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 4}, {"vocab_size", 256},
              {"max_position_embeddings", 256}, {"tie_word_embeddings", false}, {"torch_dtype", "float32"}, {"rms_norm_eps", 1e-5}}}});
        QVERIFY(model);
        small.model = model.value();
        small.train.peft = PeftConfig{};
        small.train.weightQuant = WeightQuant::None;
        small.train.optimizer = Optimizer::AdamW;
        small.train.microBatch = 1;
        small.train.seqLen = 64;
        Fixture f(cli);
        f.view.setScenario(small);
        f.view.backendBox()->setCurrentIndex(f.view.backendBox()->findData(QStringLiteral("cpu")));
        // Within CTest's 300 s per test, all four rows together.
        f.view.timeoutBox()->setValue(fault == QLatin1String("hang") ? 3 : 90);
        f.view.runner()->setInjectFault(fault);
        f.view.run();
        QVERIFY(f.waitDone(100000));
        if (fault.isEmpty() || fault == QLatin1String("oom")) {
            QVERIFY2(f.failed.isEmpty(), qPrintable(f.failed.isEmpty() ? QString() : f.failMessage()));
            QCOMPARE(f.view.report()->status,
                     fault.isEmpty() ? ValidationReport::Status::Ok : ValidationReport::Status::OutOfMemory);
        } else {
            QCOMPARE(f.failure(), fault == QLatin1String("crash") ? ValidationRunner::Failure::Crashed : ValidationRunner::Failure::TimedOut);
        }
    }
};

QTEST_MAIN(TestUiValidate)
#include "test_ui_validate.moc"
