// SPDX-License-Identifier: GPL-3.0-or-later
// fuzz_hub: the Hub client (engine/hub/hubclient.h) fed scripted answers in
// place of the network. An input is a list of answers, one per request in
// the order the client asks, separated by a line "=====":
//
//   302                                  a status line starts an answer of the chain
//   x-repo-commit: 0123...               its headers, "name: value"
//   206                                  the next answer (after the redirect)
//   content-range: bytes 0-99/1234
//                                        a blank line, then the last answer's body
//   <body bytes>
//
// Status 0, 1 and 2 stand for a transport failure (no connection, timeout,
// too many redirects). The oracles: no crash, no error or note holding the
// token, one-line errors; what succeeds is planned, and read again from the
// cache it wrote, offline, to the same counts.
#include "fuzzinputs.h"

#include "fuzzplan.h"

#include "hub/hubclient.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace headroom::fuzz {

namespace {

namespace fs = std::filesystem;

const std::string kFuzzToken = "hf_FUZZtoken42";

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz oracle: %s\n", what.c_str());
    std::abort();
}

struct Scripted {
    int failure = -1; // 0..2: a transport failure instead of an answer
    HttpResponse response;
};

std::vector<Scripted> parseScript(std::string_view bytes)
{
    std::vector<Scripted> answers;
    const std::string_view separator = "\n=====\n";
    while (true) {
        const std::size_t end = bytes.find(separator);
        std::string_view block = bytes.substr(0, end);
        Scripted s;
        // Head lines up to the first empty line; the rest is the body.
        while (!block.empty()) {
            const std::size_t eol = block.find('\n');
            const std::string_view line = block.substr(0, eol);
            block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 1);
            if (line.empty())
                break;
            const std::size_t colon = line.find(':');
            if (colon == std::string_view::npos) {
                const int status = std::atoi(std::string(line.substr(0, 4)).c_str());
                if (status >= 0 && status <= 2)
                    s.failure = status;
                HttpHead head;
                head.status = status;
                s.response.chain.push_back(head);
            } else if (!s.response.chain.empty()) {
                std::string_view value = line.substr(colon + 1);
                while (!value.empty() && value.front() == ' ')
                    value.remove_prefix(1);
                s.response.chain.back().headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
            }
        }
        s.response.body = std::string(block);
        if (!s.response.chain.empty())
            answers.push_back(std::move(s));
        if (end == std::string_view::npos)
            return answers;
        bytes.remove_prefix(end + separator.size());
    }
}

// Answers requests from the script, with the transport's own rules: the
// body limit, a ranged request stopping at its length.
class ScriptedTransport final : public HttpTransport {
public:
    explicit ScriptedTransport(std::vector<Scripted> answers) : m_answers(std::move(answers)) {}
    Result<HttpResponse> get(const HttpRequest& request, const TransferControl&) override
    {
        if (m_next >= m_answers.size())
            return makeError(ErrorCode::NetworkError, request.url + ": cannot connect (the script has ended)");
        const Scripted& s = m_answers[m_next++];
        switch (s.failure) {
        case 0: return makeError(ErrorCode::NetworkError, request.url + ": cannot connect");
        case 1: return makeError(ErrorCode::NetworkTimeout, request.url + ": no answer");
        case 2: return makeError(ErrorCode::TooManyRedirects, request.url + ": a redirect loop");
        default: break;
        }
        HttpResponse r = s.response;
        if (r.body.size() > request.maxBodyBytes) {
            if (!request.stopAtLimit)
                return makeError(ErrorCode::ResponseTooLarge, request.url + ": too large");
            r.body.resize(static_cast<std::size_t>(request.maxBodyBytes));
            r.stoppedAtLimit = true;
        }
        return r;
    }

private:
    std::vector<Scripted> m_answers;
    std::size_t m_next = 0;
};

// One cache per process, emptied before each input and removed at exit.
const fs::path& cacheFolder()
{
    static const fs::path* dir = [] {
        // In memory where there is a tmpfs: the cache's writes are flushed to
        // disk (atomicfile.h), which would otherwise set the pace.
        std::error_code noShm;
        const fs::path base = fs::is_directory("/dev/shm", noShm) ? fs::path("/dev/shm") : fs::temp_directory_path();
        auto* d = new fs::path(base / ("headroom-fuzz-hub-" + std::to_string(::getpid())));
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(cacheFolder(), ec);
        });
        return d;
    }();
    return *dir;
}

void checkText(const std::string& text, const char* what)
{
    if (text.find(kFuzzToken) != std::string::npos)
        fail(std::string("the token is in ") + what + ": " + text);
    if (text.empty() || text.find('\n') != std::string::npos)
        fail(std::string(what) + " is empty or not one line: " + text);
}

} // namespace

void hubInput(std::string_view bytes)
{
    std::error_code ec;
    fs::remove_all(cacheFolder(), ec);
    HubSettings settings;
    settings.endpoint = "https://hub.invalid";
    settings.token = kFuzzToken;
    settings.tokenSource = "HF_TOKEN";
    settings.cacheDir = cacheFolder().string();
    settings.maxJsonBytes = 1 << 20;
    const HubModelRef ref{"fuzz/model", "main"};

    ScriptedTransport transport(parseScript(bytes));
    const Result<HubModelInfo> online = fetchHubModel(ref, settings, &transport);
    if (!online) {
        checkText(online.error().detail, "an error");
        return;
    }
    for (const std::string& note : online->notes)
        checkText(note, "a note");
    planVariants(online->model.spec);

    // What was fetched was cached: offline, without a transport, the same model.
    if (!online->notes.empty())
        return; // a cache write failed, or there was nothing to count: said so, nothing more to hold
    settings.offline = true;
    const Result<HubModelInfo> offline = fetchHubModel(ref, settings, nullptr);
    if (!offline)
        fail("fetched, but not readable offline: " + offline.error().detail);
    if (offline->model.storedParameters != online->model.storedParameters ||
        offline->model.spec.hidden != online->model.spec.hidden || offline->commit != online->commit ||
        offline->countsKnown != online->countsKnown)
        fail("offline from the cache differs from what was fetched");
}

} // namespace headroom::fuzz
