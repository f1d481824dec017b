// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// One model repository in the Hugging Face cache, laid out as huggingface_hub
// lays it out (file_download.py _hf_hub_download_to_cache_dir), so what the
// user downloaded with transformers is found here and what Headroom fetches
// is found by transformers:
//
//   <cache>/models--ORG--NAME/
//     refs/<revision>                  the commit hash a branch or tag named
//     blobs/<etag>                     a file's bytes, named by its ETag
//     snapshots/<commit>/<file>        -> ../../blobs/<etag> (relative symlink)
//     .no_exist/<commit>/<file>        empty: the file is known to be absent
//     .headroom/safetensors-headers/<commit>/<file>
//                                      Headroom's own: a shard's first 8 + N
//                                      bytes (never a whole file, so never a
//                                      blob that huggingface_hub would trust)
//
// huggingface_hub's cache scan reads only refs/ and snapshots/ (utils/
// _cache_manager.py _scan_cached_repo), so .headroom/ is left alone by it and
// deleted with the repository by `huggingface-cli delete-cache`.
#include "core/result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace headroom {

// "ORG/NAME" -> "models--ORG--NAME" (repo_folder_name).
std::string hubRepoFolderName(const std::string& repo);

// An ETag as a file name: W/ and quotes removed (_normalize_etag); nullopt
// unless what is left is 1..128 characters of [A-Za-z0-9._-] and not "." or
// "..", since it names a file under blobs/.
std::optional<std::string> normalizedEtag(std::string_view etag);

class HubCache {
public:
    HubCache(const std::string& cacheDir, const std::string& repo);

    const std::filesystem::path& repoFolder() const { return m_folder; }

    // The commit `revision` stands for: itself when it is a commit hash,
    // else what refs/<revision> holds when that is a commit hash.
    std::optional<std::string> commitOf(const std::string& revision) const;
    // snapshots/<commit>/<file> when it is there (through its link).
    std::optional<std::filesystem::path> snapshotFile(const std::string& commit, const std::string& file) const;
    bool knownMissing(const std::string& commit, const std::string& file) const;
    std::optional<std::filesystem::path> cachedHeader(const std::string& commit, const std::string& file) const;

    // Writers. An error names the path (IoError); the caller goes on without
    // the cache, since what it fetched is still in memory.
    std::optional<Error> storeRef(const std::string& revision, const std::string& commit) const;
    std::optional<Error> storeFile(const std::string& commit, const std::string& file, const std::string& etag,
                                   std::string_view bytes) const;
    std::optional<Error> markMissing(const std::string& commit, const std::string& file) const;
    std::optional<Error> storeHeader(const std::string& commit, const std::string& file, std::string_view bytes) const;

private:
    std::filesystem::path m_folder;
};

// A whole small file, at most `limit` bytes: ResponseTooLarge beyond it
// (a cached file someone replaced), IoError when it cannot be read.
Result<std::string> readFileUpTo(const std::filesystem::path& path, std::uint64_t limit);

} // namespace headroom
