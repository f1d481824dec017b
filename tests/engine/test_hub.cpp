// SPDX-License-Identifier: GPL-3.0-or-later
// The Hub client against a Hub on 127.0.0.1 (fakehub.h) through the real
// libcurl transport: what it fetches and what it leaves alone (the weights),
// the cache it writes and reads back offline, and every way an answer can go
// wrong. Skipped where the build has no libcurl; test_hub_logic covers the
// parts that need no network.
#include "engine/fakehub.h"
#include "engine/hubfixtures.h"

#include "hub/hubcache.h"
#include "hub/hubclient.h"
#include "model/safetensors.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace headroom;
namespace fs = std::filesystem;
using hubfixtures::kCommit;

namespace {

const std::string kToken = "hf_SECRETtoken0123456789";

std::string readAll(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

QByteArray describe(const Result<HubModelInfo>& r)
{
    if (r)
        return "ok";
    return QByteArray(errorCodeName(r.error().code)) + ": " + QByteArray::fromStdString(r.error().detail);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

class TestHub : public QObject {
    Q_OBJECT

    std::unique_ptr<HttpTransport> m_transport;
    std::unique_ptr<QTemporaryDir> m_home;

    HubSettings settingsFor(const fakehub::Server& server, const std::string& token = "") const
    {
        HubSettings s;
        s.endpoint = server.url();
        s.cacheDir = (m_home->path() + QStringLiteral("/hub")).toStdString();
        s.token = token;
        s.tokenSource = token.empty() ? "" : "HF_TOKEN";
        s.timeoutSeconds = 5;
        return s;
    }
    Result<HubModelInfo> fetch(const std::string& id, const HubSettings& s, const HubFetchControl& control = {})
    {
        Result<HubModelRef> ref = parseHubModelId(id);
        if (!ref)
            return ref.error();
        return fetchHubModel(ref.value(), s, m_transport.get(), control);
    }
    fs::path repoFolder(const std::string& repo) const
    {
        return fs::path(m_home->path().toStdString()) / "hub" / hubRepoFolderName(repo);
    }

private slots:
    void initTestCase()
    {
        m_transport = makeDefaultTransport();
        if (!m_transport)
            QSKIP("this build has no libcurl (HEADROOM_HAVE_CURL off)");
    }
    void init() { m_home = std::make_unique<QTemporaryDir>(); }

    // config.json, the index and two shard headers: the counts are the sums
    // over the tensors served, the token goes to the Hub and not to the CDN,
    // and the weights stay on the server.
    void shardedModel()
    {
        fakehub::Server server;
        std::vector<hubfixtures::Shard> shards;
        const std::uint64_t weights = 512ull << 20; // each shard 512 MiB larger than its header
        server.addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(shards, weights));
        std::vector<HubProgress> steps;
        HubFetchControl control;
        control.onProgress = [&](const HubProgress& p) { steps.push_back(p); };

        const Result<HubModelInfo> r = fetch("acme/tiny-llama", settingsFor(server, kToken), control);
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, hubfixtures::sumOf(shards));
        QCOMPARE(r->model.spec.checkpointParameters, hubfixtures::sumOf(shards));
        QCOMPARE(r->model.spec.checkpointDtype, std::string("BF16"));
        QCOMPARE(r->model.elementsByDtype.at("F32"),
                 shards[0].elementsByDtype.at("F32") + shards[1].elementsByDtype.at("F32"));
        QCOMPARE(r->model.shardCount, std::uint64_t(2));
        QVERIFY(r->countsKnown);
        QCOMPARE(r->commit, kCommit);
        QCOMPARE(r->model.spec.id, std::string("acme/tiny-llama"));
        QCOMPARE(r->model.spec.origin, std::string("hub"));
        QCOMPARE(r->model.spec.revision, kCommit);  // saved with the scenario (test_scenariofile)
        QCOMPARE(r->model.spec.hidden, std::uint64_t(64));
        QCOMPARE(r->fetched.size(), std::size_t(4));
        QVERIFY(r->notes.empty());

        // Only the headers travelled: at most the first range of each shard.
        QVERIFY2(server.bytesSent("/cdn/") <= 2 * kFirstHeaderRange,
                 QByteArray::number(qulonglong(server.bytesSent("/cdn/"))));
        for (const fakehub::Request& request : server.requests()) {
            const bool cdn = request.path.rfind("/cdn/", 0) == 0;
            // By commit once config.json named it: one snapshot, even if main moves.
            if (!cdn && !contains(request.path, "config.json"))
                QVERIFY2(contains(request.path, "/resolve/" + kCommit + "/"), request.path.c_str());
            QCOMPARE(request.header("authorization"), cdn ? std::string() : "Bearer " + kToken);
            if (cdn)
                QVERIFY(!request.header("range").empty());
        }
        // Progress: each file named before it is read, the total growing once the index is read.
        QVERIFY(steps.size() >= 4);
        QCOMPARE(steps[0].file, std::string("config.json"));
        QCOMPARE(steps[1].file, std::string("model.safetensors.index.json"));
        QCOMPARE(steps[2].file, shards[0].file);
        QCOMPARE(steps[2].total, std::size_t(4));
        QCOMPARE(steps.back().done, std::size_t(4));
    }

    // huggingface_hub's layout: refs/main, blobs named by ETag, snapshot links
    // into them; the headers under .headroom/, never as blobs.
    void cacheLayout()
    {
        fakehub::Server server;
        std::vector<hubfixtures::Shard> shards;
        const fakehub::Repo repo = hubfixtures::shardedTinyLlama(shards);
        server.addRepo("acme/tiny-llama", repo);
        QVERIFY2(fetch("acme/tiny-llama", settingsFor(server)), "fetch failed");

        const fs::path folder = repoFolder("acme/tiny-llama");
        QCOMPARE(folder.filename().string(), std::string("models--acme--tiny-llama"));
        QCOMPARE(readAll(folder / "refs" / "main"), kCommit);
        for (const char* file : {"config.json", "model.safetensors.index.json"}) {
            const fs::path link = folder / "snapshots" / kCommit / file;
            QVERIFY2(fs::is_symlink(link), link.c_str());
            const std::string etag = repo.files.at(file).etag;
            QCOMPARE(fs::read_symlink(link).string(), "../../blobs/" + etag);
            QCOMPARE(readAll(folder / "blobs" / etag), repo.files.at(file).bytes);
        }
        for (const hubfixtures::Shard& shard : shards) {
            QVERIFY(!fs::exists(folder / "snapshots" / kCommit / shard.file));
            QVERIFY(!fs::exists(folder / "blobs" / repo.files.at(shard.file).etag));
            QCOMPARE(readAll(folder / ".headroom" / "safetensors-headers" / kCommit / shard.file), shard.header);
        }
        // No temporary file left behind.
        for (const auto& entry : fs::recursive_directory_iterator(folder))
            QVERIFY2(!contains(entry.path().filename().string(), ".tmp"), entry.path().c_str());
    }

    // After one fetch, HF_HUB_OFFLINE answers from the cache alone: same
    // counts, not one request more; with an empty cache it says what is missing.
    void offlineAfterFetch()
    {
        fakehub::Server server;
        std::vector<hubfixtures::Shard> shards;
        server.addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(shards));
        HubSettings s = settingsFor(server);
        const Result<HubModelInfo> online = fetch("acme/tiny-llama", s);
        QVERIFY2(online, describe(online));
        const std::size_t requests = server.requestCount();

        s.offline = true;
        const Result<HubModelInfo> offline = fetch("acme/tiny-llama", s);
        QVERIFY2(offline, describe(offline));
        QCOMPARE(server.requestCount(), requests);
        QCOMPARE(offline->model.storedParameters, online->model.storedParameters);
        QCOMPARE(offline->model.spec.hidden, online->model.spec.hidden);
        QCOMPARE(offline->commit, kCommit);
        QVERIFY(offline->fetched.empty());
        QVERIFY(offline->countsKnown);
        // Without a transport at all (a build without libcurl), offline works the same.
        const Result<HubModelInfo> bare = fetchHubModel(parseHubModelId("acme/tiny-llama").value(), s, nullptr);
        QVERIFY2(bare, describe(bare));
        QCOMPARE(bare->model.storedParameters, online->model.storedParameters);

        const Result<HubModelInfo> other = fetch("acme/never-fetched", s);
        QVERIFY(!other);
        QCOMPARE(other.error().code, ErrorCode::HubOffline);
        QVERIFY2(contains(other.error().detail, "HF_HUB_OFFLINE"), other.error().detail.c_str());
        QVERIFY2(contains(other.error().detail, "acme/never-fetched"), other.error().detail.c_str());
        QCOMPARE(server.requestCount(), requests);
    }

    // A commit hash is answered by the cache without asking; a Hub that cannot
    // be reached leaves the revision's cached files in use, with a note.
    void cacheAnswersWithoutTheHub()
    {
        std::vector<hubfixtures::Shard> shards;
        HubSettings s;
        std::uint64_t expected = 0;
        {
            fakehub::Server server;
            server.addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(shards));
            s = settingsFor(server);
            const Result<HubModelInfo> r = fetch("acme/tiny-llama", s);
            QVERIFY2(r, describe(r));
            expected = r->model.storedParameters;
        } // the server is gone: its port refuses connections
        const Result<HubModelInfo> byCommit = fetch("acme/tiny-llama@" + kCommit, s);
        QVERIFY2(byCommit, describe(byCommit));
        QCOMPARE(byCommit->model.storedParameters, expected);
        QVERIFY(byCommit->notes.empty());

        const Result<HubModelInfo> byBranch = fetch("acme/tiny-llama", s);
        QVERIFY2(byBranch, describe(byBranch));
        QCOMPARE(byBranch->model.storedParameters, expected);
        QCOMPARE(byBranch->notes.size(), std::size_t(1));
        QVERIFY2(contains(byBranch->notes[0], "could not be reached"), byBranch->notes[0].c_str());

        const Result<HubModelInfo> unknown = fetch("acme/other", s);
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().code, ErrorCode::NetworkError);
    }

    // A Hub that answers 503 is "down": the cache answers, with a note; a 403
    // is an answer about the model and is shown, cache or not.
    void hubDownUsesTheCacheButNotOnDenial()
    {
        fakehub::Server server;
        std::vector<hubfixtures::Shard> shards;
        server.addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(shards));
        const HubSettings s = settingsFor(server);
        QVERIFY2(fetch("acme/tiny-llama", s), "first fetch failed");
        int status = 503;
        server.route("/acme/tiny-llama/resolve/main/config.json", [&](const fakehub::Request&) {
            return fakehub::Response{status, {}, "down", 0, 0};
        });
        const Result<HubModelInfo> down = fetch("acme/tiny-llama", s);
        QVERIFY2(down, describe(down));
        QCOMPARE(down->model.storedParameters, hubfixtures::sumOf(shards));
        QCOMPARE(down->notes.size(), std::size_t(1));
        QVERIFY2(contains(down->notes[0], "HTTP 503"), down->notes[0].c_str());
        status = 403;
        const Result<HubModelInfo> denied = fetch("acme/tiny-llama", s);
        QVERIFY(!denied);
        QCOMPARE(denied.error().code, ErrorCode::HubAccessDenied);
    }

    // A cache that transformers filled (whole shards, linked from snapshots)
    // is read offline: the headers of the user's own files.
    void userCacheFromHuggingfaceHub()
    {
        const std::vector<hubfixtures::Shard> shards = {
            hubfixtures::buildShard("model.safetensors", hubfixtures::tinyLlamaTensors(0, 1, true, true))};
        const fs::path folder = repoFolder("acme/downloaded");
        fs::create_directories(folder / "refs");
        fs::create_directories(folder / "blobs");
        fs::create_directories(folder / "snapshots" / kCommit);
        std::ofstream(folder / "refs" / "main", std::ios::binary) << kCommit;
        std::ofstream(folder / "blobs" / "c0ffee", std::ios::binary) << hubfixtures::kTinyConfig;
        {
            std::ofstream weights(folder / "blobs" / "5afe", std::ios::binary);
            weights << shards[0].header << std::string(std::size_t(shards[0].fileSize - shards[0].header.size()), '\0');
        }
        fs::create_symlink("../../blobs/c0ffee", folder / "snapshots" / kCommit / "config.json");
        fs::create_symlink("../../blobs/5afe", folder / "snapshots" / kCommit / "model.safetensors");
        fs::create_directories(folder / ".no_exist" / kCommit);
        std::ofstream(folder / ".no_exist" / kCommit / "model.safetensors.index.json");

        HubSettings s;
        s.cacheDir = (m_home->path() + QStringLiteral("/hub")).toStdString();
        s.offline = true;
        const Result<HubModelInfo> r = fetch("acme/downloaded", s);
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, shards[0].elements);
        QVERIFY(r->countsKnown);
    }

    // One model.safetensors and no index: the index's absence is cached as
    // huggingface_hub caches it (.no_exist), and offline knows it.
    void singleFileModel()
    {
        fakehub::Server server;
        const hubfixtures::Shard shard =
            hubfixtures::buildShard("model.safetensors", hubfixtures::tinyLlamaTensors(0, 1, true, true));
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "3333");
        repo.files["model.safetensors"] = hubfixtures::lfsFile(shard, "cccc");
        server.addRepo("acme/single", repo);
        HubSettings s = settingsFor(server);
        const Result<HubModelInfo> r = fetch("acme/single", s);
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, shard.elements);
        QVERIFY(
            fs::is_regular_file(repoFolder("acme/single") / ".no_exist" / kCommit / "model.safetensors.index.json"));
        s.offline = true;
        const Result<HubModelInfo> offline = fetch("acme/single", s);
        QVERIFY2(offline, describe(offline));
        QCOMPARE(offline->model.storedParameters, shard.elements);
    }

    // No safetensors at all (a pytorch_model.bin repository): the config alone, said so.
    void noSafetensors()
    {
        fakehub::Server server;
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "4444");
        server.addRepo("acme/bin-only", repo);
        const Result<HubModelInfo> r = fetch("acme/bin-only", settingsFor(server));
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, std::uint64_t(0));
        QVERIFY(!r->countsKnown);
        QCOMPARE(r->notes.size(), std::size_t(1));
        QVERIFY2(contains(r->notes[0], "no safetensors"), r->notes[0].c_str());
    }

    // A header longer than the first range: a second range request for the rest.
    void longHeader()
    {
        fakehub::Server server;
        const hubfixtures::Shard shard = hubfixtures::buildShard(
            "model.safetensors", hubfixtures::tinyLlamaTensors(0, 1, true, true), std::size_t(kFirstHeaderRange) * 2);
        QVERIFY(shard.header.size() > kFirstHeaderRange);
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "5555");
        repo.files["model.safetensors"] = hubfixtures::lfsFile(shard, "dddd", 64ull << 20);
        server.addRepo("acme/long", repo);
        const Result<HubModelInfo> r = fetch("acme/long", settingsFor(server));
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, shard.elements);
        QVERIFY(server.bytesSent("/cdn/") < 2 * shard.header.size() + kFirstHeaderRange);
    }

    // A CDN that ignores Range and starts sending the whole 1 GiB file: the
    // client stops after what it asked for.
    void rangeIgnored()
    {
        fakehub::Server server;
        const hubfixtures::Shard shard =
            hubfixtures::buildShard("model.safetensors", hubfixtures::tinyLlamaTensors(0, 1, true, true));
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "6666");
        repo.files["model.safetensors"] = hubfixtures::lfsFile(shard, "eeee", 1ull << 30);
        repo.files["model.safetensors"].ignoreRange = true;
        server.addRepo("acme/no-range", repo);
        const Result<HubModelInfo> r = fetch("acme/no-range", settingsFor(server));
        QVERIFY2(r, describe(r));
        QCOMPARE(r->model.storedParameters, shard.elements);
        server.stop(); // every answer finished: the count is final
        // What the socket buffers took before the client hung up, not the file.
        QVERIFY2(server.bytesSent("/cdn/") < (64ull << 20), QByteArray::number(qulonglong(server.bytesSent("/cdn/"))));
    }

    // Gated and private repositories: the error names the page where the
    // licence is accepted and how to give the token, never the token.
    void accessDenied_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("errorCode");
        QTest::addColumn<bool>("withToken");
        QTest::addColumn<QString>("expected");
        QTest::newRow("gated, no token") << 401 << QStringLiteral("GatedRepo") << false << QStringLiteral("HF_TOKEN");
        QTest::newRow("gated, token without access")
            << 403 << QStringLiteral("GatedRepo") << true << QStringLiteral("the token from HF_TOKEN");
        QTest::newRow("private or missing, no token")
            << 401 << QStringLiteral("RepoNotFound") << false << QStringLiteral("HF_TOKEN");
        QTest::newRow("forbidden with token") << 403 << QString() << true << QStringLiteral("the token from HF_TOKEN");
    }
    void accessDenied()
    {
        QFETCH(int, status);
        QFETCH(QString, errorCode);
        QFETCH(bool, withToken);
        QFETCH(QString, expected);
        fakehub::Server server;
        // The server echoes what it was sent, as a hostile or buggy one might.
        server.route("/meta-llama/Gated-7B/resolve/main/config.json", [&](const fakehub::Request& request) {
            fakehub::Response r;
            r.status = status;
            if (!errorCode.isEmpty())
                r.headers.emplace_back("X-Error-Code", errorCode.toStdString());
            r.headers.emplace_back("X-Error-Message", "Access denied for " + request.header("authorization"));
            r.body = "Access to model meta-llama/Gated-7B is restricted. " + request.header("authorization");
            return r;
        });
        const Result<HubModelInfo> r = fetch("meta-llama/Gated-7B", settingsFor(server, withToken ? kToken : ""));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::HubAccessDenied);
        const std::string& detail = r.error().detail;
        QVERIFY2(contains(detail, server.url() + "/meta-llama/Gated-7B"), detail.c_str());
        QVERIFY2(contains(detail, expected.toStdString()), detail.c_str());
        QVERIFY2(!contains(detail, kToken), detail.c_str());
        QCOMPARE(server.requests().at(0).header("authorization"), withToken ? "Bearer " + kToken : std::string());
    }

    void notFound_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<QString>("named");
        QTest::newRow("repository") << QStringLiteral("acme/missing") << QStringLiteral("no model acme/missing");
        QTest::newRow("revision") << QStringLiteral("acme/tiny-llama@v9") << QStringLiteral("no revision 'v9'");
        QTest::newRow("config.json") << QStringLiteral("acme/empty") << QStringLiteral("has no config.json");
    }
    void notFound()
    {
        QFETCH(QString, id);
        QFETCH(QString, named);
        fakehub::Server server;
        std::vector<hubfixtures::Shard> shards;
        server.addRepo("acme/tiny-llama", hubfixtures::shardedTinyLlama(shards));
        server.addRepo("acme/empty", fakehub::Repo{kCommit, {}});
        // With a token the Hub answers a missing repository 404 (401 without).
        server.route("/acme/missing/resolve/main/config.json", [](const fakehub::Request&) {
            return fakehub::Response{404, {{"X-Error-Code", "RepoNotFound"}}, "Repository not found", 0, 0};
        });
        const Result<HubModelInfo> r = fetch(id.toStdString(), settingsFor(server, kToken));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::HubNotFound);
        QVERIFY2(contains(r.error().detail, named.toStdString()), r.error().detail.c_str());
    }

    // Each limit has its own error: redirects, time, size.
    void redirectLoop()
    {
        fakehub::Server server;
        const std::string path = "/acme/loop/resolve/main/config.json";
        server.route(path, [&](const fakehub::Request&) {
            return fakehub::Response{302, {{"Location", path}}, "", 0, 0};
        });
        const Result<HubModelInfo> r = fetch("acme/loop", settingsFor(server));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::TooManyRedirects);
        QVERIFY2(contains(r.error().detail, "redirect"), r.error().detail.c_str());
    }

    void slowAnswer()
    {
        fakehub::Server server;
        server.route("/acme/slow/resolve/main/config.json", [](const fakehub::Request&) {
            fakehub::Response r;
            r.delayMs = 10000;
            return r;
        });
        HubSettings s = settingsFor(server);
        s.timeoutSeconds = 1;
        QElapsedTimer clock;
        clock.start();
        const Result<HubModelInfo> r = fetch("acme/slow", s);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::NetworkTimeout);
        QVERIFY2(clock.elapsed() < 5000, QByteArray::number(clock.elapsed()));
        QVERIFY2(contains(r.error().detail, "HF_HUB_DOWNLOAD_TIMEOUT"), r.error().detail.c_str());
    }

    void hugeAnswer()
    {
        fakehub::Server server;
        fakehub::Repo repo;
        repo.commit = kCommit;
        fakehub::RepoFile huge = hubfixtures::smallFile("{\"model_type\": \"llama\", \"x\": \"", "7777");
        huge.size = 64ull << 20; // 64 MiB of config.json
        repo.files["config.json"] = huge;
        server.addRepo("acme/huge", repo);
        HubSettings s = settingsFor(server);
        s.maxJsonBytes = 1 << 20;
        const Result<HubModelInfo> r = fetch("acme/huge", s);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::ResponseTooLarge);
        QVERIFY2(contains(r.error().detail, std::to_string(s.maxJsonBytes)), r.error().detail.c_str());
        QVERIFY(!fs::exists(repoFolder("acme/huge") / "blobs"));
    }

    // A shard whose header claims 40 MB: refused before asking for it.
    void hugeHeader()
    {
        fakehub::Server server;
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(hubfixtures::kTinyConfig, "8888");
        std::string prefix(8, '\0');
        const std::uint64_t claimed = 40'000'000;
        for (int i = 0; i < 8; ++i)
            prefix[std::size_t(i)] = char((claimed >> (8 * i)) & 0xff);
        fakehub::RepoFile shard;
        shard.bytes = prefix + "{";
        shard.size = claimed + 1000;
        shard.lfs = true;
        shard.etag = "ffff";
        repo.files["model.safetensors"] = shard;
        server.addRepo("acme/huge-header", repo);
        HubSettings s = settingsFor(server);
        s.maxJsonBytes = 1 << 20;
        const Result<HubModelInfo> r = fetch("acme/huge-header", s);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::ResponseTooLarge);
        QVERIFY2(contains(r.error().detail, "model.safetensors"), r.error().detail.c_str());
        QVERIFY(server.bytesSent("/cdn/") <= kFirstHeaderRange);
    }

    // What the repository holds is checked like any file: bad JSON, a model
    // type we do not plan, a shard name that would leave the cache.
    void badContent_data()
    {
        QTest::addColumn<QByteArray>("config");
        QTest::addColumn<QByteArray>("index");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("named");
        QTest::newRow("config not JSON") << QByteArray("{\"model_type\": ") << QByteArray()
                                         << int(ErrorCode::MalformedJson)
                                         << QStringLiteral("acme/bad: config.json is not valid JSON");
        QTest::newRow("unknown model_type")
            << QByteArray(R"({"model_type": "mamba", "hidden_size": 8})") << QByteArray()
            << int(ErrorCode::UnknownModelType) << QStringLiteral("\"mamba\"");
        QTest::newRow("index not JSON") << QByteArray(hubfixtures::kTinyConfig) << QByteArray("{\"weight_map\": [")
                                        << int(ErrorCode::MalformedJson)
                                        << QStringLiteral("model.safetensors.index.json is not valid JSON");
        QTest::newRow("index shard outside")
            << QByteArray(hubfixtures::kTinyConfig)
            << QByteArray(R"({"weight_map": {"w": "../../../../escape.safetensors"}})") << int(ErrorCode::MalformedJson)
            << QStringLiteral("outside the repository");
    }
    void badContent()
    {
        QFETCH(QByteArray, config);
        QFETCH(QByteArray, index);
        QFETCH(int, code);
        QFETCH(QString, named);
        fakehub::Server server;
        fakehub::Repo repo;
        repo.commit = kCommit;
        repo.files["config.json"] = hubfixtures::smallFile(config.toStdString(), "9999");
        if (!index.isEmpty())
            repo.files["model.safetensors.index.json"] = hubfixtures::smallFile(index.toStdString(), "9998");
        server.addRepo("acme/bad", repo);
        const Result<HubModelInfo> r = fetch("acme/bad", settingsFor(server));
        QVERIFY(!r);
        QCOMPARE(errorCodeName(r.error().code), errorCodeName(ErrorCode(code)));
        QVERIFY2(contains(r.error().detail, named.toStdString()), r.error().detail.c_str());
        QVERIFY(!fs::exists(fs::path(m_home->path().toStdString()) / "escape.safetensors"));
    }

    // Not a Hub: an answer without X-Repo-Commit.
    void notAHub()
    {
        fakehub::Server server;
        server.route("/acme/plain/resolve/main/config.json", [](const fakehub::Request&) {
            return fakehub::Response{200, {{"ETag", "\"abc\""}}, hubfixtures::kTinyConfig, 0, 0};
        });
        const Result<HubModelInfo> r = fetch("acme/plain", settingsFor(server));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::NetworkError);
        QVERIFY2(contains(r.error().detail, "X-Repo-Commit"), r.error().detail.c_str());
    }

    void serverError()
    {
        fakehub::Server server;
        server.route("/acme/down/resolve/main/config.json", [](const fakehub::Request&) {
            return fakehub::Response{503, {}, "Service Unavailable", 0, 0};
        });
        const Result<HubModelInfo> r = fetch("acme/down", settingsFor(server));
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::NetworkError);
        QVERIFY2(contains(r.error().detail, "HTTP 503"), r.error().detail.c_str());
    }

    void connectionRefused()
    {
        HubSettings s;
        {
            fakehub::Server server;
            s = settingsFor(server);
        }
        const Result<HubModelInfo> r = fetch("acme/tiny-llama", s);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::NetworkError);
        QVERIFY2(contains(r.error().detail, "cannot connect"), r.error().detail.c_str());
    }

    // Cancel from another thread while the Hub takes its time.
    void cancelDuringRequest()
    {
        fakehub::Server server;
        server.route("/acme/slow/resolve/main/config.json", [](const fakehub::Request&) {
            fakehub::Response r;
            r.delayMs = 10000;
            return r;
        });
        std::atomic<bool> cancel{false};
        HubFetchControl control;
        control.cancel = &cancel;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            cancel = true;
        });
        QElapsedTimer clock;
        clock.start();
        const Result<HubModelInfo> r = fetch("acme/slow", settingsFor(server), control);
        canceller.join();
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::Cancelled);
        QVERIFY2(clock.elapsed() < 4000, QByteArray::number(clock.elapsed()));
    }
};

QTEST_GUILESS_MAIN(TestHub)
#include "test_hub.moc"
