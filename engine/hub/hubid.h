// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A model on the Hugging Face Hub as the user names it, "ORG/NAME[@REVISION]",
// and the addresses built from it. The rules follow huggingface_hub
// (utils/_validators.py validate_repo_id; file_download.py hf_hub_url,
// repo_folder_name): what the Hub accepts, and nothing that could step out of
// a cache folder or a URL path.
#include "core/result.h"

#include <string>
#include <string_view>

namespace headroom {

struct HubModelRef {
    std::string repo;              // "meta-llama/Llama-3.1-8B"
    std::string revision = "main"; // a branch, a tag or a commit hash
};

inline constexpr const char* kDefaultHubRevision = "main";

// "ORG/NAME" or "ORG/NAME@REVISION". Error InvalidArgument names what is
// wrong: no slash, characters the Hub refuses ("--", "..", spaces...), more
// than 96 characters, an empty or unsafe revision.
Result<HubModelRef> parseHubModelId(std::string_view id);

// True for an id of the form ORG/NAME[@REVISION] (whether or not it is valid):
// what the CLI sends to the Hub when the catalog does not hold it.
bool looksLikeHubId(std::string_view id);

// A full 40-digit lowercase hexadecimal commit hash (huggingface_hub's
// REGEX_COMMIT_HASH): such a revision never moves, so the cache answers it.
bool isCommitHash(std::string_view revision);

// A repository-relative file name safe to use under a cache folder and in a
// URL: relative, '/'-separated, no empty, "." or ".." component, no
// backslash or control character.
bool isSafeRepoFileName(std::string_view name);

// Percent-encoding of RFC 3986: unreserved characters stay, everything else
// becomes %XX; with `keepSlash` '/' stays too (urllib.parse.quote's safe="/").
std::string percentEncode(std::string_view text, bool keepSlash);

// {endpoint}/{repo}/resolve/{revision}/{file}: the revision quoted whole
// ("refs/pr/1" -> "refs%2Fpr%2F1"), the file with its slashes kept.
std::string hubResolveUrl(std::string_view endpoint, const std::string& repo, std::string_view revision,
                          std::string_view file);

// {endpoint}/{repo}: the repository's page, where a gated model's licence is accepted.
std::string hubRepoPage(std::string_view endpoint, const std::string& repo);

} // namespace headroom
