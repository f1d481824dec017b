// SPDX-License-Identifier: GPL-3.0-or-later
// File > Open from Hugging Face Hub against a Hub on 127.0.0.1
// (tests/engine/fakehub.h): the dialog fetches on a worker with progress,
// cancels a slow answer, shows a gated model's error translated; the main
// window puts the model into the scenario as one undo step, and a saved
// scenario holds no token. Every phrasing engine/hub emits is known to
// HubText and has its Korean sentence.
#include "engine/fakehub.h"
#include "engine/hubfixtures.h"

#include "document/plandocument.h"
#include "hub/hubclient.h"
#include "hub/hubresponse.h"
#include "inputs/hubdialog.h"
#include "shell/languagemanager.h"
#include "shell/mainwindow.h"
#include "text/hubtext.h"

#include <QFile>
#include <QProgressBar>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

const QByteArray kToken = "hf_UIsecret1122334455";

bool hasHangul(const QString& text)
{
    for (QChar c : text)
        if (c.unicode() >= 0xAC00 && c.unicode() <= 0xD7A3)
            return true;
    return false;
}

// Finds the modal HubDialog once it is open and hands it to `act`.
class DialogDriver : public QObject {
public:
    DialogDriver(std::function<void(HubDialog*)> act, QObject* parent = nullptr)
        : QObject(parent), m_act(std::move(act))
    {
        startTimer(20);
    }

protected:
    void timerEvent(QTimerEvent* event) override
    {
        if (auto* dialog = qobject_cast<HubDialog*>(QApplication::activeModalWidget())) {
            killTimer(event->timerId());
            m_act(dialog);
        }
    }

private:
    std::function<void(HubDialog*)> m_act;
};

} // namespace

class TestUiHub : public QObject {
    Q_OBJECT

    QTemporaryDir m_home;
    std::unique_ptr<fakehub::Server> m_server;
    std::vector<hubfixtures::Shard> m_shards;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("HeadroomTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_ui_hub"));
        m_server = std::make_unique<fakehub::Server>();
        m_server->addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(m_shards));
        m_server->route("/acme/gated/resolve/main/config.json", [](const fakehub::Request&) {
            return fakehub::Response{403, {{"X-Error-Code", "GatedRepo"}}, "Access restricted", 0, 0};
        });
        m_server->route("/acme/slow/resolve/main/config.json", [](const fakehub::Request&) {
            fakehub::Response r;
            r.delayMs = 10000;
            return r;
        });
        // What importHubModel reads: this process's environment.
        qputenv("HF_ENDPOINT", QByteArray::fromStdString(m_server->url()));
        qputenv("HF_HOME", m_home.path().toUtf8());
        qputenv("HF_TOKEN", kToken);
        qunsetenv("HF_HUB_OFFLINE");
        qunsetenv("HF_HUB_CACHE");
    }

    void dialogFetchesWithProgress()
    {
        if (!buildHasHubAccess())
            QSKIP("this build has no libcurl");
        HubDialog dialog;
        QSignalSpy accepted(&dialog, &QDialog::accepted);
        dialog.setModelId(QStringLiteral("acme/tiny-llama"), QStringLiteral("main"));
        dialog.fetch();
        QVERIFY(dialog.busy());
        QTRY_COMPARE_WITH_TIMEOUT(accepted.count(), 1, 20000);
        QVERIFY(dialog.model().has_value());
        QCOMPARE(dialog.model()->model.storedParameters, hubfixtures::sumOf(m_shards));
        QCOMPARE(dialog.progressBar()->value(), dialog.progressBar()->maximum());
        QCOMPARE(dialog.progressBar()->maximum(), 4); // config, index, two shards
        QVERIFY2(dialog.summary().contains(QLatin1String("acme/tiny-llama")), qPrintable(dialog.summary()));
    }

    // An error stays in the dialog, in the UI language, without the token.
    void gatedErrorTranslated()
    {
        if (!buildHasHubAccess())
            QSKIP("this build has no libcurl");
        LanguageManager languages;
        QVERIFY(languages.setLanguage(QStringLiteral("ko")));
        HubDialog dialog;
        dialog.setModelId(QStringLiteral("acme/gated"));
        dialog.fetch();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.busy(), 20000);
        const QString shown = dialog.statusText();
        QVERIFY2(hasHangul(shown), qPrintable(shown));
        QVERIFY2(shown.contains(QString::fromStdString(m_server->url()) + QStringLiteral("/acme/gated")),
                 qPrintable(shown));
        QVERIFY2(!shown.contains(QString::fromLatin1(kToken)), qPrintable(shown));
        QVERIFY(!dialog.model());
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
    }

    // Cancel stops the fetch within a second and keeps the dialog; a second Cancel closes it.
    void cancelSlowFetch()
    {
        if (!buildHasHubAccess())
            QSKIP("this build has no libcurl");
        HubDialog dialog;
        dialog.show();
        QSignalSpy rejected(&dialog, &QDialog::rejected);
        dialog.setModelId(QStringLiteral("acme/slow"));
        dialog.fetch();
        QTest::qWait(200);
        QElapsedTimer clock;
        clock.start();
        dialog.reject();
        QVERIFY(dialog.isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.busy(), 5000);
        QVERIFY2(clock.elapsed() < 2000, QByteArray::number(clock.elapsed()));
        QCOMPARE(dialog.statusText(), HubText::message(Error{ErrorCode::Cancelled, "cancelled"}));
        QCOMPARE(rejected.count(), 0);
        dialog.reject();
        QCOMPARE(rejected.count(), 1);
    }

    // File > Open from Hugging Face Hub: the model replaces the scenario's,
    // the rest is kept, undo brings the old one back; the saved file names
    // the model and holds no token.
    void mainWindowTakesTheModel()
    {
        if (!buildHasHubAccess())
            QSKIP("this build has no libcurl");
        MainWindow window;
        const Scenario before = window.scenario();
        DialogDriver driver([](HubDialog* dialog) {
            dialog->setModelId(QStringLiteral("acme/tiny-llama"));
            dialog->fetch();
        });
        window.openFromHub();
        const Scenario after = window.scenario();
        QCOMPARE(after.model.id, std::string("acme/tiny-llama"));
        QCOMPARE(after.model.origin, std::string("hub"));
        QCOMPARE(after.model.checkpointParameters, hubfixtures::sumOf(m_shards));
        QCOMPARE(after.train.microBatch, before.train.microBatch);
        QTRY_VERIFY(window.plan().has_value());

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("hub.headroom.json"));
        QCOMPARE(window.saveFile(path), QString());
        QFile saved(path);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray text = saved.readAll();
        QVERIFY(text.contains("acme/tiny-llama"));
        QVERIFY(!text.contains(kToken));

        window.document()->undoStack()->undo();
        QCOMPARE(window.scenario().model.id, before.model.id);
    }

    // Every phrasing engine/hub emits today is matched, and translated.
    void everyPhrasingIsKnown()
    {
        std::vector<Error> errors;
        std::vector<std::string> notes;
        HubRequestContext context{"https://hub.example", "acme/m", "v1", "config.json", false, ""};
        const auto answer = [](int status, std::vector<std::pair<std::string, std::string>> headers) {
            HttpResponse r;
            r.chain.push_back(HttpHead{status, std::move(headers)});
            return r;
        };
        errors.push_back(*hubStatusError(answer(401, {{"x-error-code", "GatedRepo"}}), context));
        errors.push_back(*hubStatusError(answer(401, {}), context));
        errors.push_back(*hubStatusError(answer(404, {{"x-error-code", "RevisionNotFound"}}), context));
        errors.push_back(*hubStatusError(answer(404, {{"x-error-code", "RepoNotFound"}}), context));
        errors.push_back(*hubStatusError(answer(404, {}), context));
        errors.push_back(*hubStatusError(answer(429, {}), context));
        errors.push_back(*hubStatusError(answer(502, {}), context));
        errors.push_back(*hubStatusError(answer(418, {}), context));
        context.sentToken = true;
        context.tokenSource = "the token file /home/u/.cache/huggingface/token";
        errors.push_back(*hubStatusError(answer(403, {{"x-error-code", "GatedRepo"}}), context));
        errors.push_back(*hubStatusError(answer(403, {}), context));
        errors.push_back(*hubStatusError(
            answer(401, {{"x-error-message", "Invalid credentials in Authorization header"}}), context));
        errors.push_back(parseHubModelId("not an id").error());

        QTemporaryDir empty;
        HubSettings offline;
        offline.cacheDir = empty.path().toStdString();
        errors.push_back(fetchHubModel({"acme/m", "main"}, offline, nullptr).error()); // HubUnavailable
        offline.offline = true;
        errors.push_back(fetchHubModel({"acme/m", "main"}, offline, nullptr).error()); // HubOffline

        if (buildHasHubAccess()) {
            // The transport's own phrasings, from libcurl against the local Hub.
            fakehub::Server server;
            server.route("/acme/loop/resolve/main/config.json", [](const fakehub::Request&) {
                return fakehub::Response{302, {{"Location", "/acme/loop/resolve/main/config.json"}}, "", 0, 0};
            });
            server.route("/acme/slow/resolve/main/config.json", [](const fakehub::Request&) {
                fakehub::Response r;
                r.delayMs = 5000;
                return r;
            });
            server.route("/acme/big/resolve/main/config.json", [](const fakehub::Request&) {
                return fakehub::Response{200, {}, "{", 4 << 20, 0};
            });
            fakehub::Repo noCount;
            noCount.commit = hubfixtures::kCommit;
            noCount.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "abcd");
            server.addRepo("acme/bin-only", noCount);
            HubSettings s;
            s.endpoint = server.url();
            s.cacheDir = empty.path().toStdString();
            s.timeoutSeconds = 1;
            s.maxJsonBytes = 1 << 20;
            const auto transport = makeDefaultTransport();
            for (const char* repo : {"acme/loop", "acme/slow", "acme/big"})
                errors.push_back(fetchHubModel({repo, "main"}, s, transport.get()).error());
            const Result<HubModelInfo> bin = fetchHubModel({"acme/bin-only", "main"}, s, transport.get());
            QVERIFY(bin);
            notes.insert(notes.end(), bin->notes.begin(), bin->notes.end());
            server.stop();
            errors.push_back(fetchHubModel({"acme/refused", "main"}, s, transport.get()).error());
        }
        notes.push_back("cannot write the Hugging Face cache: cannot create the folder (Permission denied) /x");

        LanguageManager languages;
        QVERIFY(languages.setLanguage(QStringLiteral("ko")));
        for (const Error& error : errors) {
            const QString known = HubText::knownDetail(error.detail);
            QVERIFY2(!known.isEmpty(), error.detail.c_str());
            QVERIFY2(hasHangul(known), error.detail.c_str());
            QVERIFY2(hasHangul(HubText::message(error)), error.detail.c_str());
        }
        for (const std::string& note : notes)
            QVERIFY2(hasHangul(HubText::note(note)), note.c_str());
        // The names travel: the licence page in the gated sentence.
        QVERIFY(HubText::knownDetail(errors[0].detail).contains(QLatin1String("https://hub.example/acme/m")));
        QVERIFY(languages.setLanguage(QStringLiteral("en")));
        QCOMPARE(HubText::note("something new"), QStringLiteral("something new"));
        QVERIFY(HubText::knownDetail("something new").isEmpty());
    }
};

QTEST_MAIN(TestUiHub)
#include "test_ui_hub.moc"
