// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the Hub's answers mean: status codes to errors a user can act on, the
// commit and ETag headers, the safetensors index, Content-Range. Pure
// functions of an HttpResponse, so tests and fuzz_hub feed them anything.
// Conventions: huggingface_hub utils/_http.py hf_raise_for_status (the
// X-Error-Code values) and file_download.py get_hf_file_metadata (headers).
#include "core/result.h"
#include "hub/httptransport.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// Which request an answer belongs to, for the words of its error.
struct HubRequestContext {
    std::string endpoint;
    std::string repo;
    std::string revision;
    std::string file;
    bool sentToken = false;
    std::string tokenSource; // where the token came from (never the token)
};

// nullopt for a 2xx answer; otherwise the error a user can act on:
// 401/403 HubAccessDenied (the repository page where a gated model's licence
// is accepted, and HF_TOKEN / huggingface-cli login), 404 HubNotFound (the
// repository, the revision or the file), 429 and 5xx NetworkError (try
// later), anything else NetworkError with the status.
std::optional<Error> hubStatusError(const HttpResponse& response, const HubRequestContext& context);

// A 404 for a file of a repository and revision that exist (X-Error-Code
// EntryNotFound, or a 404 that names neither the repository nor the revision):
// for optional files (the index, model.safetensors) an answer, not an error.
bool isMissingEntry(const HttpResponse& response);

// X-Repo-Commit, when it is a 40-digit commit hash.
std::optional<std::string> repoCommit(const HttpResponse& response);
// X-Linked-Etag (a file in LFS) or ETag, normalized to a file name (hubcache.h).
std::optional<std::string> fileEtag(const HttpResponse& response);

// model.safetensors.index.json -> its shard files, sorted and unique.
// Errors: MalformedJson (not JSON, no "weight_map" object, a value that is
// not a string, a file name outside the repository), InvalidArgument (more
// than `maxShards` shards). `where` prefixes the details.
Result<std::vector<std::string>> shardsFromIndex(std::string_view text, const std::string& where,
                                                 std::size_t maxShards);

struct ContentRange {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    std::optional<std::uint64_t> total; // "*": unknown
};
// "bytes 0-99/1234" (RFC 9110 §14.4); nullopt when malformed.
std::optional<ContentRange> parseContentRange(std::string_view value);

// A whole number of at most 19 digits; nullopt otherwise.
std::optional<std::uint64_t> parseByteCount(std::string_view value);

// The size of the whole file behind a ranged answer: Content-Range's total
// (206), else Content-Length of a complete 200, else the Hub's X-Linked-Size.
std::optional<std::uint64_t> rangedFileSize(const HttpResponse& response);

} // namespace headroom
