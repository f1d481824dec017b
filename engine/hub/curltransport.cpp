// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/curltransport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <mutex>

namespace headroom {

namespace {

// What the callbacks share with get(): the response being built and why a
// transfer was stopped on purpose.
struct Transfer {
    const HttpRequest* request = nullptr;
    const TransferControl* control = nullptr;
    HttpResponse response;
    bool tooLarge = false;
};

std::string lowered(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

std::string trimmed(std::string_view text)
{
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!text.empty() && space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && space(text.back()))
        text.remove_suffix(1);
    return std::string(text);
}

// One header line of any answer in the chain: "HTTP/1.1 302 Found" starts a
// new answer, "Name: value" adds to the current one.
size_t onHeader(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const std::string_view line(data, size * count);
    if (line.rfind("HTTP/", 0) == 0) {
        HttpHead head;
        const std::size_t space = line.find(' ');
        if (space != std::string_view::npos)
            head.status = std::atoi(std::string(line.substr(space + 1, 3)).c_str());
        t->response.chain.push_back(std::move(head));
        // A redirect's body is dropped by libcurl; only the last answer's reaches onBody.
        t->response.body.clear();
    } else if (const std::size_t colon = line.find(':');
               colon != std::string_view::npos && !t->response.chain.empty()) {
        t->response.chain.back().headers.emplace_back(lowered(trimmed(line.substr(0, colon))),
                                                      trimmed(line.substr(colon + 1)));
    }
    return size * count;
}

size_t onBody(char* data, size_t size, size_t count, void* user)
{
    auto* t = static_cast<Transfer*>(user);
    const std::size_t bytes = size * count;
    std::string& body = t->response.body;
    const std::uint64_t limit = t->request->maxBodyBytes;
    if (body.size() + bytes > limit) {
        body.append(data, static_cast<std::size_t>(limit - body.size()));
        if (t->request->stopAtLimit)
            t->response.stoppedAtLimit = true;
        else
            t->tooLarge = true;
        return 0; // libcurl stops with CURLE_WRITE_ERROR, which get() reads as intended
    }
    body.append(data, bytes);
    if (t->control->onBytes)
        t->control->onBytes(body.size());
    return bytes;
}

int onProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    return static_cast<Transfer*>(user)->control->cancelled() ? 1 : 0; // 1: CURLE_ABORTED_BY_CALLBACK
}

struct EasyDeleter {
    void operator()(CURL* easy) const { curl_easy_cleanup(easy); }
};
struct ListDeleter {
    void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

} // namespace

CurlTransport::CurlTransport()
{
    // Once per process, before any thread uses libcurl (curl_global_init(3)).
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

Result<HttpResponse> CurlTransport::get(const HttpRequest& request, const TransferControl& control)
{
    if (control.cancelled())
        return makeError(ErrorCode::Cancelled, "cancelled");
    std::unique_ptr<CURL, EasyDeleter> easy(curl_easy_init());
    if (!easy)
        return makeError(ErrorCode::NetworkError, "libcurl could not start a transfer");
    CURL* e = easy.get();
    Transfer t;
    t.request = &request;
    t.control = &control;

    std::unique_ptr<curl_slist, ListDeleter> headers;
    for (const std::string& h : request.headers) {
        curl_slist* extended = curl_slist_append(headers.get(), h.c_str());
        if (!extended)
            return makeError(ErrorCode::NetworkError, "libcurl could not build the request");
        headers.release();
        headers.reset(extended);
    }
    char errorText[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(e, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers.get());
    curl_easy_setopt(e, CURLOPT_USERAGENT, "headroom/" HEADROOM_VERSION);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errorText);
    // Only HTTP(S), on the first request and on every redirect: a Location
    // to file:// or another scheme is refused.
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(e, CURLOPT_PROTOCOLS, long(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS, long(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    // Redirects are followed (a renamed repository, the CDN of LFS files);
    // libcurl drops a custom Authorization header when one leads to another
    // host (since 7.58; CURLOPT_UNRESTRICTED_AUTH stays off), as
    // huggingface_hub drops it for the CDN.
    curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(e, CURLOPT_MAXREDIRS, request.maxRedirects);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, request.timeoutSeconds);
    curl_easy_setopt(e, CURLOPT_TIMEOUT, request.totalTimeoutSeconds);
    // A stall: under 1 byte/s for the timeout (an answer that never comes).
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, request.timeoutSeconds);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); // timeouts without SIGALRM: safe on a worker thread
    std::string range;
    if (request.range) {
        range = std::to_string(request.range->first) + "-" + std::to_string(request.range->second);
        curl_easy_setopt(e, CURLOPT_RANGE, range.c_str());
    }
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(e, CURLOPT_XFERINFODATA, &t);
    curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);

    const CURLcode code = curl_easy_perform(e);
    const std::string url = request.url;
    if (code == CURLE_WRITE_ERROR && t.response.stoppedAtLimit)
        return std::move(t.response);
    if (code == CURLE_WRITE_ERROR && t.tooLarge)
        return makeError(ErrorCode::ResponseTooLarge, url + ": the answer is larger than the limit of " +
                                                          std::to_string(request.maxBodyBytes) + " bytes");
    switch (code) {
    case CURLE_OK: break;
    case CURLE_ABORTED_BY_CALLBACK: return makeError(ErrorCode::Cancelled, "cancelled");
    case CURLE_OPERATION_TIMEDOUT:
        return makeError(ErrorCode::NetworkTimeout, url + ": no answer within " +
                                                        std::to_string(request.timeoutSeconds) +
                                                        " s (HF_HUB_DOWNLOAD_TIMEOUT sets the limit)");
    case CURLE_TOO_MANY_REDIRECTS:
        return makeError(ErrorCode::TooManyRedirects,
                         url + ": more than " + std::to_string(request.maxRedirects) + " redirects (a redirect loop)");
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
        return makeError(ErrorCode::NetworkError, url + ": cannot connect (" + std::string(curl_easy_strerror(code)) +
                                                      "); check the network, HF_ENDPOINT and any proxy settings");
    default: {
        // libcurl's message names the problem (a certificate, a reset
        // connection); it never holds request headers.
        const std::string why = errorText[0] ? std::string(errorText) : std::string(curl_easy_strerror(code));
        return makeError(ErrorCode::NetworkError, url + ": " + why);
    }
    }
    if (t.response.chain.empty())
        return makeError(ErrorCode::NetworkError, url + ": no HTTP answer");
    return std::move(t.response);
}

} // namespace headroom
