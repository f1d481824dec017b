// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom-cli ... --model ORG/NAME` as a user runs it: the child process
// finds the Hub through HF_ENDPOINT (a Hub on 127.0.0.1, tests/engine/
// fakehub.h), its cache through HF_HOME, its token through HF_TOKEN, and
// HF_HUB_OFFLINE after a fetch. The token is looked for in everything the
// CLI writes: stdout, stderr, every export format, a Chrome trace.
#include "engine/fakehub.h"
#include "engine/hubfixtures.h"

#include "cli/clirun.h"
#include "hub/httptransport.h"

#include <nlohmann/json.hpp>

#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using nlohmann::json;

namespace {

const QByteArray kToken = "hf_CLIsecret0987654321";

using Run = clitest::CliResult;
using clitest::parseJson;
using clitest::words;

// Runs headroom-cli (cli/clirun.h) with `env` added to a clean environment:
// no HF_* of the machine running the tests leaks in.
Run runCli(const QStringList& args, const QMap<QString, QString>& env)
{
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), qEnvironmentVariable("PATH"));
    environment.insert(QStringLiteral("HOME"), env.value(QStringLiteral("HF_HOME")));
    for (auto it = env.begin(); it != env.end(); ++it)
        environment.insert(it.key(), it.value());
    return clitest::runCli(args, {}, environment, 60000);
}

} // namespace

class TestCliHub : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    std::unique_ptr<fakehub::Server> m_server;
    std::vector<hubfixtures::Shard> m_shards;

    QMap<QString, QString> env(bool withToken = true) const
    {
        QMap<QString, QString> e{{QStringLiteral("HF_ENDPOINT"), QString::fromStdString(m_server->url())},
                                 {QStringLiteral("HF_HOME"), m_home.path()}};
        if (withToken)
            e.insert(QStringLiteral("HF_TOKEN"), QString::fromLatin1(kToken));
        return e;
    }

private slots:
    void initTestCase()
    {
        m_server = std::make_unique<fakehub::Server>();
        m_server->addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(m_shards, 256ull << 20));
        fakehub::Repo mamba;
        mamba.commit = hubfixtures::kCommit;
        mamba.files["config.json"] = hubfixtures::smallFile(R"({"model_type": "mamba", "hidden_size": 768})", "1234");
        m_server->addRepo("acme/mamba", mamba);
        m_server->route("/acme/gated/resolve/main/config.json", [](const fakehub::Request& request) {
            return fakehub::Response{request.header("authorization").empty() ? 401 : 403,
                                     {{"X-Error-Code", "GatedRepo"},
                                      {"X-Error-Message", "No access for " + request.header("authorization")}},
                                     "Access restricted",
                                     0,
                                     0};
        });
        m_server->route("/acme/slow/resolve/main/config.json", [](const fakehub::Request&) {
            fakehub::Response r;
            r.delayMs = 10000;
            return r;
        });
    }

    void init()
    {
        if (!headroom::buildHasHubAccess() && QByteArray(QTest::currentTestFunction()) != "withoutLibcurl")
            QSKIP("this build has no libcurl (HEADROOM_HAVE_CURL off)");
    }

    // A build without libcurl says so in one line; with HF_HUB_OFFLINE it
    // plans from a cache laid out as huggingface_hub lays it out (made here
    // by hand: refs/main, a blob, a snapshot link, .no_exist marks).
    void withoutLibcurl()
    {
        if (headroom::buildHasHubAccess())
            QSKIP("this build has libcurl");
        const Run r = runCli(words("plan --model acme/by-hand"), env());
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("headroom-cli: hub-unavailable: "), r.describe());
        QVERIFY2(r.err.contains("HF_HUB_OFFLINE=1"), r.describe());
        QCOMPARE(m_server->requestCount(), std::size_t(0));

        const QString repo = m_home.filePath(QStringLiteral("hub/models--acme--by-hand"));
        const QString commit = QString::fromStdString(hubfixtures::kCommit);
        QVERIFY(QDir().mkpath(repo + QStringLiteral("/refs")) && QDir().mkpath(repo + QStringLiteral("/blobs"))
                && QDir().mkpath(repo + QStringLiteral("/snapshots/") + commit)
                && QDir().mkpath(repo + QStringLiteral("/.no_exist/") + commit));
        const auto write = [](const QString& path, const QByteArray& bytes) {
            QFile f(path);
            return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
        };
        QVERIFY(write(repo + QStringLiteral("/refs/main"), commit.toLatin1()));
        QVERIFY(write(repo + QStringLiteral("/blobs/c0ffee"), hubfixtures::kTinyConfig));
        QVERIFY(QFile::link(QStringLiteral("../../blobs/c0ffee"), repo + QStringLiteral("/snapshots/") + commit
                                                                        + QStringLiteral("/config.json")));
        for (const char* absent : {"model.safetensors.index.json", "model.safetensors"})
            QVERIFY(write(repo + QStringLiteral("/.no_exist/") + commit + QLatin1Char('/') + QLatin1String(absent), ""));
        QMap<QString, QString> offline = env();
        offline.insert(QStringLiteral("HF_HUB_OFFLINE"), QStringLiteral("1"));
        const Run cached = runCli(words("plan --model acme/by-hand --json"), offline);
        QVERIFY2(cached.exitCode == 0, cached.describe());
        QVERIFY2(cached.err.contains("no safetensors"), cached.describe());  // the note, on stderr
        QVERIFY(parseJson(cached.out).is_object());
    }

    // The plan of the Hub model equals the plan of its config.json given
    // locally; the scenario export carries the counts of the headers.
    void planFromTheHub()
    {
        const Run hub = runCli(words("plan --model acme/tiny-llama --json"), env());
        QVERIFY2(hub.exitCode == 0, hub.describe());
        QVERIFY2(!hub.out.contains(kToken) && !hub.err.contains(kToken), hub.describe());
        QTemporaryDir dir;
        QFile config(dir.filePath(QStringLiteral("config.json")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(hubfixtures::kTinyConfig);
        config.close();
        const Run local = runCli(
            {QStringLiteral("plan"), QStringLiteral("--config"), config.fileName(), QStringLiteral("--json")}, env());
        QVERIFY2(local.exitCode == 0, local.describe());
        const json a = parseJson(hub.out), b = parseJson(local.out);
        QVERIFY(a.is_object() && b.is_object());
        for (const char* key : {"parameters", "peak_bytes", "device_used_bytes"})
            QCOMPARE(a.at(key).dump(), b.at(key).dump());

        const Run exported = runCli(words("export --model acme/tiny-llama --format scenario-json"), env());
        QVERIFY2(exported.exitCode == 0, exported.describe());
        const json scenario = parseJson(exported.out);
        const json& spec = scenario.at("model").at("spec");
        QCOMPARE(spec.at("id").get<std::string>(), std::string("acme/tiny-llama"));
        QCOMPARE(spec.at("checkpoint_parameters").get<std::uint64_t>(), hubfixtures::sumOf(m_shards));
        QCOMPARE(spec.at("checkpoint_dtype").get<std::string>(), std::string("BF16"));
        // The commit the files came from, so the saved scenario says which snapshot it planned.
        QCOMPARE(spec.at("revision").get<std::string>(), hubfixtures::kCommit);
        const Run text = runCli(words("plan --model acme/tiny-llama"), env());
        QVERIFY2(text.out.contains("acme/tiny-llama@" + QString::fromStdString(hubfixtures::kCommit.substr(0, 12)).toUtf8()),
                 text.describe());
        // What travelled: headers, never the 256 MiB of weights per shard.
        QVERIFY(m_server->bytesSent("/cdn/") < 3 * 2 * 65536);
    }

    // A catalog id never asks the Hub, even with HF_ENDPOINT set.
    void catalogStaysOffline()
    {
        const std::size_t before = m_server->requestCount();
        const Run r = runCli(words("plan --model meta-llama/Llama-3.1-8B --json"), env());
        QVERIFY2(r.exitCode == 0, r.describe());
        QCOMPARE(m_server->requestCount(), before);
    }

    // HF_HUB_OFFLINE after a fetch: the same plan, not one request.
    void offlineAfterFetch()
    {
        const Run online = runCli(words("plan --model acme/tiny-llama --json"), env());
        QVERIFY2(online.exitCode == 0, online.describe());
        const std::size_t before = m_server->requestCount();
        QMap<QString, QString> offlineEnv = env();
        offlineEnv.insert(QStringLiteral("HF_HUB_OFFLINE"), QStringLiteral("1"));
        const Run offline = runCli(words("plan --model acme/tiny-llama --json"), offlineEnv);
        QVERIFY2(offline.exitCode == 0, offline.describe());
        QCOMPARE(offline.out, online.out);
        QCOMPARE(m_server->requestCount(), before);
        const Run missing = runCli(words("plan --model acme/not-cached"), offlineEnv);
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.startsWith("headroom-cli: hub-offline: "), missing.describe());
        QCOMPARE(m_server->requestCount(), before);
    }

    // One line on stderr that says what to do: the licence page, HF_TOKEN; never the token.
    void gated_data()
    {
        QTest::addColumn<bool>("withToken");
        QTest::newRow("no token") << false;
        QTest::newRow("token without access") << true;
    }
    void gated()
    {
        QFETCH(bool, withToken);
        const Run r = runCli(words("plan --model acme/gated"), env(withToken));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("headroom-cli: hub-access-denied: "), r.describe());
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains(QByteArray::fromStdString(m_server->url()) + "/acme/gated"), r.describe());
        QVERIFY2(r.err.contains(withToken ? "the token from HF_TOKEN" : "HF_TOKEN or huggingface-cli login"),
                 r.describe());
        QVERIFY2(!r.err.contains(kToken) && !r.out.contains(kToken), r.describe());
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("code");
        QTest::newRow("unknown model type") << QByteArray("acme/mamba") << QByteArray("unknown-model-type");
        QTest::newRow("missing repository") << QByteArray("acme/nothing") << QByteArray("hub-access-denied");
        QTest::newRow("bad id") << QByteArray("acme/a--b") << QByteArray("invalid-argument");
        QTest::newRow("timeout") << QByteArray("acme/slow") << QByteArray("network-timeout");
    }
    void errors()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, code);
        QMap<QString, QString> e = env();
        e.insert(QStringLiteral("HF_HUB_DOWNLOAD_TIMEOUT"), QStringLiteral("1"));
        const Run r = runCli({QStringLiteral("plan"), QStringLiteral("--model"), QString::fromLatin1(id)}, e);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.startsWith("headroom-cli: " + code + ": "), r.describe());
        QCOMPARE(r.err.count('\n'), 1);
    }

    // Every export format and a validation trace of the Hub model: no token in any.
    void tokenInNoOutput()
    {
        QTemporaryDir dir;
        for (const char* format :
             {"hf-python", "deepspeed-json", "accelerate-fsdp-yaml", "markdown", "csv", "plan-json", "scenario-json"}) {
            const QString file = dir.filePath(QString::fromLatin1(format));
            const Run r =
                runCli({QStringLiteral("export"), QStringLiteral("--model"), QStringLiteral("acme/tiny-llama"),
                        QStringLiteral("--format"), QString::fromLatin1(format), QStringLiteral("--output"), file},
                       env());
            QVERIFY2(r.exitCode == 0, format + QByteArray(": ") + r.describe());
            QFile written(file);
            QVERIFY(written.open(QIODevice::ReadOnly));
            const QByteArray text = written.readAll();
            QVERIFY2(!text.isEmpty(), format);
            QVERIFY2(!text.contains(kToken), format);
        }
        const QString trace = dir.filePath(QStringLiteral("trace.json"));
        const Run validate = runCli({QStringLiteral("validate"), QStringLiteral("--scenario"),
                                     QStringLiteral(HEADROOM_TEST_DATA "/runtime/tiny-llama.json"),
                                     QStringLiteral("--model"), QStringLiteral("acme/tiny-llama"),
                                     QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--steps"),
                                     QStringLiteral("1"), QStringLiteral("--json"), QStringLiteral("--trace"), trace},
                                    env());
        QVERIFY2(validate.exitCode == 0, validate.describe());
        QVERIFY(!validate.out.contains(kToken) && !validate.err.contains(kToken));
        QFile traceFile(trace);
        QVERIFY(traceFile.open(QIODevice::ReadOnly));
        const QByteArray traceText = traceFile.readAll();
        QVERIFY(traceText.contains("traceEvents"));
        QVERIFY(!traceText.contains(kToken));
    }
};

QTEST_GUILESS_MAIN(TestCliHub)
#include "test_cli_hub.moc"
