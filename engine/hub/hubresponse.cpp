// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/hubresponse.h"

#include "hub/hubcache.h"
#include "hub/hubid.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>

namespace headroom {

namespace {

std::string quoted(const std::string& text) { return "'" + text + "'"; }

std::string errorCodeHeader(const HttpResponse& response)
{
    return response.chain.empty() ? std::string() : response.final().header("x-error-code").value_or("");
}

} // namespace

std::optional<Error> hubStatusError(const HttpResponse& response, const HubRequestContext& c)
{
    const int status = response.status();
    if (status >= 200 && status < 300)
        return std::nullopt;
    const std::string code = errorCodeHeader(response);
    const std::string page = hubRepoPage(c.endpoint, c.repo);
    const std::string login = "give Headroom your access token with HF_TOKEN or huggingface-cli login";
    if (status == 401 || status == 403) {
        // The Hub answers 401 for a gated, a private and a missing repository
        // alike when no token is sent (hf_raise_for_status, "401 is misleading").
        std::string detail;
        const std::string message =
            response.chain.empty() ? std::string() : response.final().header("x-error-message").value_or("");
        if (code == "GatedRepo" && !c.sentToken)
            detail = c.repo + " is gated: accept its licence at " + page + ", then " + login;
        else if (code == "GatedRepo")
            detail = c.repo + " is gated and the token from " + c.tokenSource +
                     " has no access to it: accept its licence at " + page + " with that account";
        else if (status == 401 && c.sentToken && message == "Invalid credentials in Authorization header")
            detail = "the Hub refused the token from " + c.tokenSource +
                     " (invalid credentials): set HF_TOKEN to a valid token or run huggingface-cli login again";
        else if (c.sentToken)
            detail = "the token from " + c.tokenSource + " gives no access to " + c.repo +
                     ": if it is gated or private, accept its licence or ask for access at " + page +
                     " with that account";
        else
            detail = c.repo +
                     " needs an access token, or does not exist: if it is gated or private, accept its "
                     "licence at " +
                     page + ", then " + login;
        return makeError(ErrorCode::HubAccessDenied, detail);
    }
    if (status == 404) {
        if (code == "RevisionNotFound")
            return makeError(ErrorCode::HubNotFound, c.repo + " has no revision " + quoted(c.revision));
        if (code == "RepoNotFound")
            return makeError(ErrorCode::HubNotFound, "no model " + c.repo + " at " + c.endpoint);
        return makeError(ErrorCode::HubNotFound, c.repo + " has no " + c.file + " at revision " + quoted(c.revision));
    }
    const std::string what = " for " + c.file + " of " + c.repo;
    if (status == 429)
        return makeError(ErrorCode::NetworkError,
                         c.endpoint + " asks to slow down (HTTP 429)" + what + ": try again in a minute");
    if (status >= 500 && status < 600)
        return makeError(ErrorCode::NetworkError, c.endpoint + " answered HTTP " + std::to_string(status) + what +
                                                      ": the Hub may be down; try again later");
    return makeError(ErrorCode::NetworkError, c.endpoint + " answered HTTP " + std::to_string(status) + what +
                                                  ", which the Hub does not answer");
}

bool isMissingEntry(const HttpResponse& response)
{
    if (response.status() != 404)
        return false;
    const std::string code = errorCodeHeader(response);
    return code != "RepoNotFound" && code != "RevisionNotFound";
}

std::optional<std::string> repoCommit(const HttpResponse& response)
{
    const std::optional<std::string> commit = response.anyHeader("x-repo-commit");
    return commit && isCommitHash(*commit) ? commit : std::nullopt;
}

std::optional<std::string> fileEtag(const HttpResponse& response)
{
    std::optional<std::string> etag = response.anyHeader("x-linked-etag");
    if (!etag)
        etag = response.final().header("etag");
    return etag ? normalizedEtag(*etag) : std::nullopt;
}

Result<std::vector<std::string>> shardsFromIndex(std::string_view text, const std::string& where, std::size_t maxShards)
{
    nlohmann::json index;
    try {
        index = nlohmann::json::parse(text);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::MalformedJson, where + " is not valid JSON: " + e.what());
    }
    if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
        return makeError(ErrorCode::MalformedJson, where + " has no \"weight_map\" object");
    std::set<std::string> shards;
    for (const auto& [tensor, file] : index["weight_map"].items()) {
        if (!file.is_string())
            return makeError(ErrorCode::MalformedJson,
                             where + ": the shard of a tensor is " + file.dump() + ", not a file name");
        const std::string& name = file.get_ref<const std::string&>();
        if (!isSafeRepoFileName(name))
            return makeError(ErrorCode::MalformedJson,
                             where + " names a shard outside the repository: " + nlohmann::json(name).dump());
        shards.insert(name);
        if (shards.size() > maxShards)
            return makeError(ErrorCode::InvalidArgument,
                             where + " lists more than " + std::to_string(maxShards) + " shards");
    }
    if (shards.empty())
        return makeError(ErrorCode::MalformedJson, where + " lists no shards");
    return std::vector<std::string>(shards.begin(), shards.end());
}

std::optional<std::uint64_t> parseByteCount(std::string_view value)
{
    if (value.empty() || value.size() > 19 ||
        !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    std::uint64_t n = 0;
    for (const char c : value)
        n = n * 10 + static_cast<std::uint64_t>(c - '0');
    return n;
}

std::optional<ContentRange> parseContentRange(std::string_view value)
{
    constexpr std::string_view kUnit = "bytes ";
    if (value.substr(0, kUnit.size()) != kUnit)
        return std::nullopt;
    value.remove_prefix(kUnit.size());
    const std::size_t dash = value.find('-');
    const std::size_t slash = value.find('/');
    if (dash == std::string_view::npos || slash == std::string_view::npos || dash > slash)
        return std::nullopt;
    const auto first = parseByteCount(value.substr(0, dash));
    const auto last = parseByteCount(value.substr(dash + 1, slash - dash - 1));
    const std::string_view totalText = value.substr(slash + 1);
    if (!first || !last || *first > *last)
        return std::nullopt;
    ContentRange range{*first, *last, std::nullopt};
    if (totalText != "*") {
        range.total = parseByteCount(totalText);
        if (!range.total || *range.total <= *last)
            return std::nullopt;
    }
    return range;
}

std::optional<std::uint64_t> rangedFileSize(const HttpResponse& response)
{
    if (response.chain.empty())
        return std::nullopt;
    if (response.status() == 206) {
        const auto range = parseContentRange(response.final().header("content-range").value_or(""));
        if (range && range->total)
            return range->total;
    } else if (response.status() == 200) {
        if (auto length = parseByteCount(response.final().header("content-length").value_or("")))
            return length;
    }
    return parseByteCount(response.anyHeader("x-linked-size").value_or(""));
}

} // namespace headroom
