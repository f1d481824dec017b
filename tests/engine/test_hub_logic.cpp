// SPDX-License-Identifier: GPL-3.0-or-later
// The Hub client's logic without a network: ids and URLs, the environment as
// huggingface_hub reads it, what answers mean (status codes, headers, the
// index, Content-Range), the cache's names, and a build without libcurl.
// The same parsers are fuzzed (tests/fuzz/fuzz_hub.cpp); test_hub runs the
// whole client against a local Hub.
#include "hub/hubcache.h"
#include "hub/hubclient.h"
#include "hub/hubid.h"
#include "hub/hubresponse.h"
#include "hub/hubsettings.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <fstream>
#include <map>

using namespace headroom;

namespace {

EnvLookup fakeEnv(std::map<std::string, std::string> values)
{
    return [values = std::move(values)](const char* name) -> std::optional<std::string> {
        const auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
}

HttpResponse answer(int status, std::vector<std::pair<std::string, std::string>> headers = {})
{
    HttpResponse r;
    HttpHead head;
    head.status = status;
    head.headers = std::move(headers);
    r.chain.push_back(head);
    return r;
}

HubRequestContext context(bool token)
{
    return {"https://hub.example", "meta-llama/Llama-3.1-8B", "main", "config.json", token, token ? "HF_TOKEN" : ""};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

class TestHubLogic : public QObject {
    Q_OBJECT

private slots:
    void modelIds_data()
    {
        QTest::addColumn<QByteArray>("id");
        QTest::addColumn<QByteArray>("repo"); // empty: refused
        QTest::addColumn<QByteArray>("revision");
        QTest::newRow("plain") << QByteArray("meta-llama/Llama-3.1-8B") << QByteArray("meta-llama/Llama-3.1-8B")
                               << QByteArray("main");
        QTest::newRow("branch") << QByteArray("acme/m@dev") << QByteArray("acme/m") << QByteArray("dev");
        QTest::newRow("pull request") << QByteArray("acme/m@refs/pr/1") << QByteArray("acme/m")
                                      << QByteArray("refs/pr/1");
        QTest::newRow("commit") << QByteArray("acme/m@0123456789abcdef0123456789abcdef01234567") << QByteArray("acme/m")
                                << QByteArray("0123456789abcdef0123456789abcdef01234567");
        QTest::newRow("no org") << QByteArray("gpt2") << QByteArray("") << QByteArray("");
        QTest::newRow("two slashes") << QByteArray("a/b/c") << QByteArray("") << QByteArray("");
        QTest::newRow("double dash") << QByteArray("acme/a--b") << QByteArray("") << QByteArray("");
        QTest::newRow("dot dot") << QByteArray("acme/a..b") << QByteArray("") << QByteArray("");
        QTest::newRow("space") << QByteArray("acme/a b") << QByteArray("") << QByteArray("");
        QTest::newRow("leading dash") << QByteArray("-acme/m") << QByteArray("") << QByteArray("");
        QTest::newRow("revision escapes") << QByteArray("acme/m@../../etc") << QByteArray("") << QByteArray("");
        QTest::newRow("empty revision") << QByteArray("acme/m@") << QByteArray("") << QByteArray("");
        QTest::newRow("too long") << QByteArray("acme/") + QByteArray(92, 'x') << QByteArray() << QByteArray();
    }
    void modelIds()
    {
        QFETCH(QByteArray, id);
        QFETCH(QByteArray, repo);
        QFETCH(QByteArray, revision);
        const Result<HubModelRef> r = parseHubModelId(id.toStdString());
        QCOMPARE(r.ok(), !repo.isEmpty());
        if (!r) {
            QCOMPARE(r.error().code, ErrorCode::InvalidArgument);
            QVERIFY2(contains(r.error().detail, id.toStdString()), r.error().detail.c_str());
            return;
        }
        QCOMPARE(QByteArray::fromStdString(r->repo), repo);
        QCOMPARE(QByteArray::fromStdString(r->revision), revision);
    }

    void urls()
    {
        // huggingface_hub's hf_hub_url: the revision quoted whole, the file keeping its slashes.
        QCOMPARE(hubResolveUrl("https://huggingface.co/", "acme/m", "refs/pr/1", "sub dir/config.json"),
                 std::string("https://huggingface.co/acme/m/resolve/refs%2Fpr%2F1/sub%20dir/config.json"));
        QCOMPARE(hubRepoPage("http://127.0.0.1:8080", "acme/m"), std::string("http://127.0.0.1:8080/acme/m"));
        QVERIFY(looksLikeHubId("acme/m@v1"));
        QVERIFY(!looksLikeHubId("gpt2"));
        QVERIFY(!looksLikeHubId("/m"));
        QVERIFY(isCommitHash("0123456789abcdef0123456789abcdef01234567"));
        QVERIFY(!isCommitHash("0123456789ABCDEF0123456789abcdef01234567"));
        QVERIFY(!isCommitHash("main"));
        QVERIFY(isSafeRepoFileName("model-00001-of-00002.safetensors"));
        QVERIFY(isSafeRepoFileName("text_encoder/model.safetensors"));
        for (const char* bad : {"", "/etc/passwd", "../x", "a/../b", "a//b", "a\\b", "a/./b", "a/"})
            QVERIFY2(!isSafeRepoFileName(bad), bad);
    }

    void settingsDefaults()
    {
        const HubSettings s = hubSettingsFromEnvironment(fakeEnv({{"HOME", "/home/u"}}));
        QCOMPARE(s.endpoint, std::string("https://huggingface.co"));
        QCOMPARE(s.cacheDir, std::string("/home/u/.cache/huggingface/hub"));
        QVERIFY(s.token.empty());
        QVERIFY(!s.offline);
        QCOMPARE(s.timeoutSeconds, 10L);
    }

    void settingsFromVariables()
    {
        const HubSettings xdg = hubSettingsFromEnvironment(fakeEnv({{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}}));
        QCOMPARE(xdg.cacheDir, std::string("/x/huggingface/hub"));
        const HubSettings home = hubSettingsFromEnvironment(
            fakeEnv({{"HOME", "/h"}, {"HF_HOME", "~/hf"}, {"HF_ENDPOINT", "http://mirror:8080/"}}));
        QCOMPARE(home.cacheDir, std::string("/h/hf/hub"));
        QCOMPARE(home.endpoint, std::string("http://mirror:8080"));
        const HubSettings cache =
            hubSettingsFromEnvironment(fakeEnv({{"HF_HOME", "/hf"}, {"HF_HUB_CACHE", "/elsewhere"}}));
        QCOMPARE(cache.cacheDir, std::string("/elsewhere"));
        const HubSettings timeout = hubSettingsFromEnvironment(fakeEnv({{"HF_HUB_DOWNLOAD_TIMEOUT", "2.5"}}));
        QCOMPARE(timeout.timeoutSeconds, 3L);
        const HubSettings junk = hubSettingsFromEnvironment(fakeEnv({{"HF_HUB_DOWNLOAD_TIMEOUT", "soon"}}));
        QCOMPARE(junk.timeoutSeconds, 10L);
    }

    void offlineValues()
    {
        for (const char* yes : {"1", "ON", "yes", "True"})
            QVERIFY2(hubSettingsFromEnvironment(fakeEnv({{"HF_HUB_OFFLINE", yes}})).offline, yes);
        for (const char* no : {"0", "off", "", "2"})
            QVERIFY2(!hubSettingsFromEnvironment(fakeEnv({{"HF_HUB_OFFLINE", no}})).offline, no);
        QVERIFY(hubSettingsFromEnvironment(fakeEnv({{"TRANSFORMERS_OFFLINE", "1"}})).offline);
        // constants.py: `HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE`: a set HF_HUB_OFFLINE decides.
        QVERIFY(!hubSettingsFromEnvironment(fakeEnv({{"HF_HUB_OFFLINE", "0"}, {"TRANSFORMERS_OFFLINE", "1"}})).offline);
    }

    // HF_TOKEN, else HUGGING_FACE_HUB_TOKEN, else the token file; cleaned as _clean_token does.
    void tokenLookup()
    {
        QTemporaryDir dir;
        const std::string home = dir.path().toStdString();
        std::ofstream(home + "/token") << "  hf_fromfile\r\n";
        std::ofstream(home + "/other-token") << "hf_frompath\n";
        const auto tokenOf = [&](std::map<std::string, std::string> env) {
            env["HF_HOME"] = home;
            const HubSettings s = hubSettingsFromEnvironment(fakeEnv(env));
            return std::make_pair(s.token, s.tokenSource);
        };
        QCOMPARE(tokenOf({{"HF_TOKEN", "hf_env\n"}, {"HUGGING_FACE_HUB_TOKEN", "hf_old"}}),
                 std::make_pair(std::string("hf_env"), std::string("HF_TOKEN")));
        QCOMPARE(tokenOf({{"HUGGING_FACE_HUB_TOKEN", "hf_old"}}).first, std::string("hf_old"));
        QCOMPARE(tokenOf({}), std::make_pair(std::string("hf_fromfile"), "the token file " + home + "/token"));
        QCOMPARE(tokenOf({{"HF_TOKEN_PATH", home + "/other-token"}}).first, std::string("hf_frompath"));
        QCOMPARE(tokenOf({{"HF_TOKEN", "   "}}).first, std::string("hf_fromfile")); // empty after cleaning: none
        QCOMPARE(tokenOf({{"HF_TOKEN_PATH", home + "/absent"}}).first, std::string());
    }

    void etags()
    {
        QCOMPARE(normalizedEtag("\"abc123\"").value_or("-"), std::string("abc123"));
        QCOMPARE(normalizedEtag("W/\"abc123\"").value_or("-"), std::string("abc123"));
        for (const char* bad : {"\"\"", "\"../../x\"", "\"a/b\"", "\"..\""})
            QVERIFY2(!normalizedEtag(bad), bad);
        QCOMPARE(hubRepoFolderName("meta-llama/Llama-3.1-8B"), std::string("models--meta-llama--Llama-3.1-8B"));
    }

    void headers()
    {
        HttpResponse redirected = answer(302, {{"x-repo-commit", "0123456789abcdef0123456789abcdef01234567"},
                                               {"x-linked-etag", "\"sha256hex\""},
                                               {"x-linked-size", "1000"}});
        HttpHead cdn;
        cdn.status = 206;
        cdn.headers = {{"etag", "\"cdn-etag\""}, {"content-range", "bytes 0-99/123456"}};
        redirected.chain.push_back(cdn);
        QCOMPARE(repoCommit(redirected).value_or("-"), std::string("0123456789abcdef0123456789abcdef01234567"));
        QCOMPARE(fileEtag(redirected).value_or("-"), std::string("sha256hex"));
        QCOMPARE(rangedFileSize(redirected).value_or(0), std::uint64_t(123456));
        QVERIFY(!repoCommit(answer(200, {{"x-repo-commit", "main"}})));
        QCOMPARE(rangedFileSize(answer(200, {{"content-length", "77"}})).value_or(0), std::uint64_t(77));
    }

    void contentRanges()
    {
        const auto r = parseContentRange("bytes 0-65535/1234567");
        QVERIFY(r);
        QCOMPARE(r->first, std::uint64_t(0));
        QCOMPARE(r->last, std::uint64_t(65535));
        QCOMPARE(r->total.value_or(0), std::uint64_t(1234567));
        QVERIFY(parseContentRange("bytes 0-9/*") && !parseContentRange("bytes 0-9/*")->total);
        for (const char* bad : {"", "bytes 9-0/100", "bytes 0-99/99", "items 0-1/2", "bytes -1-2/3", "bytes 0-1/x",
                                "bytes 0-99999999999999999999/1"})
            QVERIFY2(!parseContentRange(bad), bad);
    }

    // The errors a user acts on: the page to accept a licence at, and how to give the token.
    void statusErrors()
    {
        const auto gated = hubStatusError(answer(401, {{"x-error-code", "GatedRepo"}}), context(false));
        QVERIFY(gated);
        QCOMPARE(gated->code, ErrorCode::HubAccessDenied);
        QVERIFY(contains(gated->detail, "https://hub.example/meta-llama/Llama-3.1-8B"));
        QVERIFY(contains(gated->detail, "HF_TOKEN"));
        QVERIFY(contains(gated->detail, "huggingface-cli login"));
        const auto refused = hubStatusError(
            answer(401, {{"x-error-message", "Invalid credentials in Authorization header"}}), context(true));
        QVERIFY(refused && contains(refused->detail, "invalid credentials"));
        QCOMPARE(hubStatusError(answer(404, {{"x-error-code", "RevisionNotFound"}}), context(true))->code,
                 ErrorCode::HubNotFound);
        QCOMPARE(hubStatusError(answer(500), context(true))->code, ErrorCode::NetworkError);
        QVERIFY(contains(hubStatusError(answer(429), context(true))->detail, "429"));
        QCOMPARE(hubStatusError(answer(418), context(true))->code, ErrorCode::NetworkError);
        QVERIFY(!hubStatusError(answer(200), context(true)));
        QVERIFY(!hubStatusError(answer(206), context(true)));
        QVERIFY(isMissingEntry(answer(404, {{"x-error-code", "EntryNotFound"}})));
        QVERIFY(isMissingEntry(answer(404)));
        QVERIFY(!isMissingEntry(answer(404, {{"x-error-code", "RepoNotFound"}})));
        QVERIFY(!isMissingEntry(answer(401)));
    }

    void index()
    {
        const auto shards = shardsFromIndex(
            R"({"metadata": {}, "weight_map": {"a": "m-2.safetensors", "b": "m-1.safetensors", "c": "m-2.safetensors"}})",
            "idx", 10);
        QVERIFY(shards);
        QCOMPARE(shards.value(), (std::vector<std::string>{"m-1.safetensors", "m-2.safetensors"}));
        QCOMPARE(shardsFromIndex("[1]", "idx", 10).error().code, ErrorCode::MalformedJson);
        QCOMPARE(shardsFromIndex(R"({"weight_map": {"a": 3}})", "idx", 10).error().code, ErrorCode::MalformedJson);
        QCOMPARE(shardsFromIndex(R"({"weight_map": {}})", "idx", 10).error().code, ErrorCode::MalformedJson);
        QCOMPARE(shardsFromIndex(R"({"weight_map": {"a": "/abs.safetensors"}})", "idx", 10).error().code,
                 ErrorCode::MalformedJson);
        QCOMPARE(shardsFromIndex(R"({"weight_map": {"a": "1", "b": "2", "c": "3"}})", "idx", 2).error().code,
                 ErrorCode::InvalidArgument);
    }

    // A build without libcurl: a clear error unless HF_HUB_OFFLINE lets the cache answer.
    void withoutTransport()
    {
        QTemporaryDir dir;
        HubSettings s;
        s.cacheDir = dir.path().toStdString();
        const Result<HubModelInfo> r = fetchHubModel(parseHubModelId("acme/m").value(), s, nullptr);
        QVERIFY(!r);
        QCOMPARE(r.error().code, ErrorCode::HubUnavailable);
        QVERIFY(contains(r.error().detail, "libcurl"));
        QVERIFY(contains(r.error().detail, "HF_HUB_OFFLINE=1"));
        s.offline = true;
        QCOMPARE(fetchHubModel(parseHubModelId("acme/m").value(), s, nullptr).error().code, ErrorCode::HubOffline);
    }

    void redaction()
    {
        QCOMPARE(redacted("a hf_x b hf_x", "hf_x"), std::string("a [token] b [token]"));
        QCOMPARE(redacted("nothing", ""), std::string("nothing"));
    }

    // Names that would leave the cache folder are never written.
    void cacheRefusesUnsafeNames()
    {
        QTemporaryDir dir;
        const HubCache cache(dir.path().toStdString(), "acme/m");
        const std::string commit = "0123456789abcdef0123456789abcdef01234567";
        QVERIFY(cache.storeFile(commit, "../../escape", "abc", "x"));
        QVERIFY(cache.storeFile(commit, "config.json", "../abc", "x"));
        QVERIFY(cache.storeFile("main", "config.json", "abc", "x"));
        QVERIFY(!cache.storeFile(commit, "config.json", "abc", "{}"));
        QCOMPARE(cache.snapshotFile(commit, "config.json").has_value(), true);
        QVERIFY(!cache.storeRef("../x", commit)); // refused quietly: nothing written
        QVERIFY(!QFileInfo::exists(dir.path() + QStringLiteral("/models--acme--m/x")));
        QVERIFY(!cache.commitOf("main"));
        QVERIFY(!cache.storeRef("main", commit));
        QCOMPARE(cache.commitOf("main").value_or("-"), commit);
    }

    // One etag is one content (the Hub derives it from the bytes): a second
    // file under an etag the cache holds with other bytes is refused, not
    // linked to the first one's blob (fuzz_hub found the mix-up: a
    // safetensors index read back offline as the config.json stored under the
    // same etag). The same bytes again are fine.
    void cacheRefusesAnEtagWithOtherBytes()
    {
        QTemporaryDir dir;
        const HubCache cache(dir.path().toStdString(), "acme/m");
        const std::string commit = "0123456789abcdef0123456789abcdef01234567";
        QVERIFY(!cache.storeFile(commit, "config.json", "abc", "{\"a\": 1}"));
        QVERIFY(!cache.storeFile(commit, "copy.json", "abc", "{\"a\": 1}"));
        const auto error = cache.storeFile(commit, "model.safetensors.index.json", "abc", "{\"weight_map\": {}}");
        QVERIFY(error.has_value());
        QVERIFY2(error->detail.find("different file under the etag abc") != std::string::npos, error->detail.c_str());
        QVERIFY(!cache.snapshotFile(commit, "model.safetensors.index.json").has_value());
    }
};

QTEST_GUILESS_MAIN(TestHubLogic)
#include "test_hub_logic.moc"
