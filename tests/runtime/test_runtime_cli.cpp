// SPDX-License-Identifier: GPL-3.0-or-later
// headroom-cli validate as the app runs it: a child process, the contract of
// VALIDATE-PROTOCOL.md (progress JSON lines on stderr, one JSON result on
// stdout, exit 0 / 2 / 3, injected faults).
#include <nlohmann/json.hpp>

#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <set>
#include <string>

using nlohmann::json;

namespace {

const QString kScenario = QStringLiteral(HEADROOM_TEST_DATA "/runtime/tiny-llama.json");

struct Run {
    bool finished = false;
    bool crashed = false;
    int exitCode = -1;
    QByteArray out, err;
    QByteArray describe() const { return "exit " + QByteArray::number(exitCode) + "\nstdout: " + out.left(800) + "\nstderr: " + err.left(800); }
};

Run runCli(const QStringList& args, int timeoutMs = 60000)
{
    Run r;
    QProcess p;
    p.start(QStringLiteral(HEADROOM_CLI_PATH), args);
    if (!p.waitForStarted())
        return r;
    r.finished = p.waitForFinished(timeoutMs);
    if (!r.finished) {
        p.kill();
        p.waitForFinished();
    }
    r.crashed = p.exitStatus() == QProcess::CrashExit;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

QStringList validate(QStringList extra)
{
    QStringList args{QStringLiteral("validate"), QStringLiteral("--scenario"), kScenario};
    args.append(extra);
    return args;
}

const std::set<std::string> kCategories{"weights", "gradients", "optimizer-state", "activations",
                                        "logits",  "temporaries", "kv-cache",     "workspace"};

} // namespace

class TestRuntimeCli : public QObject {
    Q_OBJECT
private slots:
    void jsonResultHasTheProtocolShape()
    {
        const Run r = runCli(validate({QStringLiteral("--json"), QStringLiteral("--steps"), QStringLiteral("2")}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("schema").get<std::string>(), std::string("headroom.validation/1"));
        QCOMPARE(j.at("status").get<std::string>(), std::string("ok"));
        QCOMPARE(j.at("backend").get<std::string>(), std::string("cpu"));
        QVERIFY(j.at("device").get<std::string>().starts_with("CPU ("));
        QCOMPARE(j.at("scenario").at("schema").get<std::string>(), std::string("headroom.scenario/1"));
        for (const char* side : {"planned", "measured"}) {
            const json& s = j.at(side);
            QVERIFY(s.at("peak_bytes").get<std::uint64_t>() > 0);
            QVERIFY(!s.at("peak_event").get<std::string>().empty());
            std::set<std::string> keys;
            for (const auto& [k, v] : s.at("categories").items())
                keys.insert(k);
            QVERIFY(keys == kCategories);
        }
        // The tiny scenario is one the engine runs exactly: planned == measured.
        QCOMPARE(j.at("measured").at("peak_bytes"), j.at("planned").at("peak_bytes"));
        // 2 layers: load, embedding, 2 forward, head, loss fwd/bwd, head bwd, 2 backward, embedding bwd, optimizer.
        QCOMPARE(j.at("events").size(), std::size_t(12));
        for (const json& e : j.at("events")) {
            QVERIFY(!e.at("label").get<std::string>().empty());
            QCOMPARE(e.at("measured_bytes"), e.at("planned_bytes"));
        }
        // Tensor by tensor at the peak: the rows of the headroom profile, equal.
        QVERIFY(j.at("peak_tensors").size() > 10);
        for (const json& t : j.at("peak_tensors"))
            QVERIFY2(t.at("planned_bytes") == t.at("measured_bytes"), t.dump().c_str());
        QVERIFY(j.at("step_seconds").get<double>() > 0);
        QVERIFY(j.at("tokens_per_second").get<double>() > 0);
        QCOMPARE(j.at("extrapolated").get<bool>(), false);
        QVERIFY(j.at("notes").is_array());
    }

    void bertClassifierFromConfigAgreesToTheByte()
    {
        // A config.json that says BertForSequenceClassification (2 layers, hidden
        // 128, dropout 0.1, 2 labels), run small: planned == measured at every event.
        const Run r = runCli({QStringLiteral("validate"), QStringLiteral("--backend"), QStringLiteral("cpu"),
                              QStringLiteral("--config"), QStringLiteral(HEADROOM_TEST_DATA "/configs/bert-tiny-cls.json"),
                              QStringLiteral("--peft"), QStringLiteral("none"), QStringLiteral("--weight-quant"),
                              QStringLiteral("none"), QStringLiteral("--optimizer"), QStringLiteral("adamw"),
                              QStringLiteral("--precision"), QStringLiteral("bf16-mixed"), QStringLiteral("--micro-batch"),
                              QStringLiteral("2"), QStringLiteral("--seq-len"), QStringLiteral("16"),
                              QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--json")});
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("status").get<std::string>(), std::string("ok"));
        QCOMPARE(j.at("measured").at("peak_bytes"), j.at("planned").at("peak_bytes"));
        for (const json& e : j.at("events"))
            QCOMPARE(e.at("measured_bytes"), e.at("planned_bytes"));
        QCOMPARE(j.at("extrapolated").get<bool>(), false);
    }

    void humanTableWithoutJson()
    {
        const Run r = runCli(validate({QStringLiteral("--steps"), QStringLiteral("1")}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        QVERIFY(r.out.contains("planned"));
        QVERIFY(r.out.contains("optimizer-state"));
        QVERIFY(r.out.contains("agree to the byte"));
    }

    void progressLinesAreJsonOnStderr()
    {
        const Run r = runCli(validate({QStringLiteral("--json"), QStringLiteral("--progress"), QStringLiteral("--steps"),
                                       QStringLiteral("2")}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        const std::set<std::string> phases{"setup", "warmup", "forward", "loss", "backward", "optimizer", "done"};
        double last = -1;
        std::string lastPhase;
        int lines = 0;
        for (const QByteArray& line : r.err.split('\n')) {
            if (line.isEmpty())
                continue;
            const json p = json::parse(line.toStdString());
            const double progress = p.at("progress").get<double>();
            QVERIFY(progress >= 0 && progress <= 1);
            QVERIFY(progress >= last);
            last = progress;
            lastPhase = p.at("phase").get<std::string>();
            QVERIFY2(phases.count(lastPhase) == 1, lastPhase.c_str());
            QCOMPARE(p.at("steps").get<int>(), 2);
            QVERIFY(p.contains("event") && p.contains("step"));
            ++lines;
        }
        QVERIFY(lines > 20);
        QCOMPARE(lastPhase, std::string("done"));
        QCOMPARE(last, 1.0);
    }

    void traceIsChromeCounterEvents()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("trace.json"));
        const Run r = runCli(validate({QStringLiteral("--steps"), QStringLiteral("1"), QStringLiteral("--trace"), path}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        std::ifstream in(path.toStdString());
        const json trace = json::parse(in);
        std::size_t counters = 0;
        for (const json& e : trace.at("traceEvents")) {
            if (e.at("ph") != "C")
                continue;
            ++counters;
            QVERIFY(e.at("ts").is_number());
            std::set<std::string> keys;
            for (const auto& [k, v] : e.at("args").items())
                keys.insert(k);
            QVERIFY(keys == kCategories);
        }
        QVERIFY(counters > 50);
    }

    void exitStatusesFollowTheProtocol()
    {
        Run r = runCli(validate({QStringLiteral("--backend"), QStringLiteral("cuda")}));
        // Exit 3, one line: a build without the CUDA engine says so; one with it,
        // on a machine without a device (CI, this test's machines), says that.
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("no CUDA engine in this build") || r.err.contains("no CUDA device found"),
                 r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        r = runCli(validate({QStringLiteral("--steps"), QStringLiteral("zero")}));
        QCOMPARE(r.exitCode, 2);
        r = runCli(validate({QStringLiteral("--optimizer"), QStringLiteral("galore")}));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not supported by the cpu backend yet: optimizer galore"), r.err.constData());
        // A BERT regressor (one label, MSELoss) is not in the step program: refused by name.
        r = runCli({QStringLiteral("validate"), QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--model"),
                    QStringLiteral("bert-base-uncased"), QStringLiteral("--head"), QStringLiteral("sequence-classification"),
                    QStringLiteral("--num-labels"), QStringLiteral("1"), QStringLiteral("--peft"), QStringLiteral("none"),
                    QStringLiteral("--weight-quant"), QStringLiteral("none")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not supported by the cpu backend yet: a regression head (num_labels 1, MSELoss)"),
                 r.err.constData());
        r = runCli(validate({QStringLiteral("--inject-fault"), QStringLiteral("sometimes")}));
        QCOMPARE(r.exitCode, 2);
        // A model far beyond the CPU backend is refused, not attempted.
        r = runCli({QStringLiteral("validate"), QStringLiteral("--model"), QStringLiteral("meta-llama/Llama-3.1-8B"),
                    QStringLiteral("--peft"), QStringLiteral("none"), QStringLiteral("--weight-quant"),
                    QStringLiteral("none"), QStringLiteral("--optimizer"), QStringLiteral("adamw")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("small models only"));
    }

    void injectedOutOfMemoryIsAResult()
    {
        const Run r = runCli(validate({QStringLiteral("--json"), QStringLiteral("--inject-fault"), QStringLiteral("oom")}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("status").get<std::string>(), std::string("out_of_memory"));
        // The first activation allocation is the batch in the embedding forward.
        QVERIFY2(j.at("message").get<std::string>().find("embedding forward") != std::string::npos,
                 j.at("message").get<std::string>().c_str());
    }

    void timeoutEndsTheRunWithAnError()
    {
        // 1000 steps take far longer than a second: the run stops at the first
        // event after the limit and still reports (status "error", exit 0).
        const Run r = runCli(validate({QStringLiteral("--json"), QStringLiteral("--steps"), QStringLiteral("1000"),
                                       QStringLiteral("--timeout-s"), QStringLiteral("1")}));
        QVERIFY2(r.finished && r.exitCode == 0, r.describe().constData());
        const json j = json::parse(r.out.toStdString());
        QCOMPARE(j.at("status").get<std::string>(), std::string("error"));
        QVERIFY2(j.at("message").get<std::string>().find("timed out") != std::string::npos,
                 j.at("message").get<std::string>().c_str());
    }

    void injectedCrashAndHang()
    {
        Run r = runCli(validate({QStringLiteral("--progress"), QStringLiteral("--inject-fault"), QStringLiteral("crash")}));
        QVERIFY(r.finished);
        QVERIFY(r.crashed);
        QVERIFY(r.err.startsWith("{\"event\""));  // the first progress line came out before the abort

        QProcess p;
        p.setReadChannel(QProcess::StandardError); // progress lines come on stderr
        p.start(QStringLiteral(HEADROOM_CLI_PATH), validate({QStringLiteral("--progress"), QStringLiteral("--inject-fault"),
                                                             QStringLiteral("hang")}));
        QVERIFY(p.waitForStarted());
        QVERIFY(p.waitForReadyRead(30000));
        QVERIFY(!p.waitForFinished(1500)); // still running: it hangs until killed
        p.kill();
        QVERIFY(p.waitForFinished());
    }
};

QTEST_GUILESS_MAIN(TestRuntimeCli)
#include "test_runtime_cli.moc"
