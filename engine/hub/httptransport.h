// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// HTTP GET as the Hub client needs it, behind an interface: the client's
// logic (hubclient.h) is tested and fuzzed with scripted answers, and only
// curltransport.cpp speaks to the network. No Hub knowledge here.
#include "core/result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom {

struct HttpRequest {
    std::string url;
    std::vector<std::string> headers;                             // "Name: value"; may hold a secret: never logged
    std::optional<std::pair<std::uint64_t, std::uint64_t>> range; // bytes first..last, inclusive
    std::uint64_t maxBodyBytes = 0;                               // the most body bytes taken
    // At maxBodyBytes: true stops the transfer and answers with what came
    // (a server that ignores Range); false fails with ResponseTooLarge.
    bool stopAtLimit = false;
    long timeoutSeconds = 10; // to connect, and the longest stall
    long totalTimeoutSeconds = 120;
    long maxRedirects = 10;
};

// One answer's status line and headers; redirects make a chain of them.
struct HttpHead {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers; // names lower-cased, values trimmed
    // The first value of `name` (lower case), or nullopt.
    std::optional<std::string> header(std::string_view name) const;
};

struct HttpResponse {
    std::vector<HttpHead> chain; // every answer, redirects first; never empty when the call succeeds
    std::string body;            // the last answer's body (at most maxBodyBytes)
    bool stoppedAtLimit = false; // stopAtLimit cut the body short
    const HttpHead& final() const { return chain.back(); }
    int status() const { return chain.empty() ? 0 : chain.back().status; }
    // The first value of `name` in any answer of the chain: the Hub's own
    // headers (X-Repo-Commit, X-Linked-Etag) are on the answer that redirects
    // to the CDN, not on the CDN's.
    std::optional<std::string> anyHeader(std::string_view name) const;
};

// Between and during requests: progress in bytes, and the user's cancel.
struct TransferControl {
    const std::atomic<bool>* cancel = nullptr;           // set: stop soon, answer Cancelled
    std::function<void(std::uint64_t received)> onBytes; // the body so far
    bool cancelled() const { return cancel && cancel->load(); }
};

class HttpTransport {
public:
    virtual ~HttpTransport() = default;
    // Any HTTP status is a successful call (the caller interprets it). Errors:
    // NetworkError (no connection, TLS, a malformed answer), NetworkTimeout,
    // TooManyRedirects, ResponseTooLarge, Cancelled; details name the URL,
    // never a header's value.
    virtual Result<HttpResponse> get(const HttpRequest& request, const TransferControl& control) = 0;
};

// The transport of this build: libcurl's, or nullptr when the build has no
// libcurl (HEADROOM_HAVE_CURL off); then only the cache can answer.
std::unique_ptr<HttpTransport> makeDefaultTransport();
bool buildHasHubAccess();

} // namespace headroom
