// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/hubcache.h"

#include "hub/hubid.h"
#include "io/atomicfile.h"

#include <algorithm>
#include <fstream>
#include <system_error>

namespace headroom {

namespace {

namespace fs = std::filesystem;

fs::path underFolder(const fs::path& folder, const std::string& file)
{
    // isSafeRepoFileName was checked by the caller: '/'-separated, no "..".
    return folder / fs::path(file);
}

std::optional<Error> ioError(const fs::path& path, const std::string& what)
{
    return makeError(ErrorCode::IoError, "cannot write the Hugging Face cache: " + what + " " + path.string());
}

std::optional<Error> ensureParent(const fs::path& path)
{
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec)
        return ioError(path.parent_path(), "cannot create the folder (" + ec.message() + ")");
    return std::nullopt;
}

std::optional<Error> writeAtomically(const fs::path& path, std::string_view bytes)
{
    if (auto error = ensureParent(path))
        return error;
    const Result<bool> written = writeFileAtomically(path.string(), bytes);
    if (!written)
        return makeError(ErrorCode::IoError, "cannot write the Hugging Face cache: " + written.error().detail);
    return std::nullopt;
}

bool usableName(const std::string& commit, const std::string& file)
{
    return isCommitHash(commit) && isSafeRepoFileName(file);
}

} // namespace

std::string hubRepoFolderName(const std::string& repo)
{
    std::string name = "models";
    std::size_t start = 0;
    while (start <= repo.size()) {
        const std::size_t end = std::min(repo.find('/', start), repo.size());
        name += "--" + repo.substr(start, end - start);
        start = end + 1;
    }
    return name;
}

std::optional<std::string> normalizedEtag(std::string_view etag)
{
    if (etag.rfind("W/", 0) == 0)
        etag.remove_prefix(2);
    while (!etag.empty() && etag.front() == '"')
        etag.remove_prefix(1);
    while (!etag.empty() && etag.back() == '"')
        etag.remove_suffix(1);
    const bool safe = !etag.empty() && etag.size() <= 128 && etag != "." && etag != ".." &&
                      std::all_of(etag.begin(), etag.end(), [](char c) {
                          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                 c == '-' || c == '_' || c == '.';
                      });
    return safe ? std::optional<std::string>(etag) : std::nullopt;
}

HubCache::HubCache(const std::string& cacheDir, const std::string& repo)
    : m_folder(fs::path(cacheDir) / hubRepoFolderName(repo))
{}

std::optional<std::string> HubCache::commitOf(const std::string& revision) const
{
    if (isCommitHash(revision))
        return revision;
    if (!isSafeRepoFileName(revision))
        return std::nullopt;
    const Result<std::string> text = readFileUpTo(underFolder(m_folder / "refs", revision), 256);
    if (!text)
        return std::nullopt;
    // huggingface_hub writes the bare hash; a hand-edited ref may end in a newline.
    std::string commit = text.value();
    while (!commit.empty() && (commit.back() == '\n' || commit.back() == '\r' || commit.back() == ' '))
        commit.pop_back();
    return isCommitHash(commit) ? std::optional<std::string>(commit) : std::nullopt;
}

std::optional<fs::path> HubCache::snapshotFile(const std::string& commit, const std::string& file) const
{
    if (!usableName(commit, file))
        return std::nullopt;
    const fs::path path = underFolder(m_folder / "snapshots" / commit, file);
    std::error_code ec;
    return fs::is_regular_file(path, ec) ? std::optional<fs::path>(path) : std::nullopt;
}

bool HubCache::knownMissing(const std::string& commit, const std::string& file) const
{
    std::error_code ec;
    return usableName(commit, file) && fs::is_regular_file(underFolder(m_folder / ".no_exist" / commit, file), ec);
}

std::optional<fs::path> HubCache::cachedHeader(const std::string& commit, const std::string& file) const
{
    if (!usableName(commit, file))
        return std::nullopt;
    const fs::path path = underFolder(m_folder / ".headroom" / "safetensors-headers" / commit, file);
    std::error_code ec;
    return fs::is_regular_file(path, ec) ? std::optional<fs::path>(path) : std::nullopt;
}

std::optional<Error> HubCache::storeRef(const std::string& revision, const std::string& commit) const
{
    // A commit hash needs no ref (_cache_commit_hash_for_specific_revision).
    if (revision == commit || !isCommitHash(commit) || !isSafeRepoFileName(revision))
        return std::nullopt;
    if (commitOf(revision) == commit)
        return std::nullopt; // unchanged: a read-only cache stays usable
    return writeAtomically(underFolder(m_folder / "refs", revision), commit);
}

std::optional<Error> HubCache::storeFile(const std::string& commit, const std::string& file, const std::string& etag,
                                         std::string_view bytes) const
{
    if (!usableName(commit, file) || !normalizedEtag(etag) || *normalizedEtag(etag) != etag)
        return makeError(ErrorCode::IoError, "cannot write the Hugging Face cache: unusable names for " + file);
    const fs::path blob = m_folder / "blobs" / etag;
    const fs::path pointer = underFolder(m_folder / "snapshots" / commit, file);
    std::error_code ec;
    if (fs::is_regular_file(pointer, ec))
        return std::nullopt;
    if (!fs::is_regular_file(blob, ec)) {
        if (auto error = writeAtomically(blob, bytes))
            return error;
    } else if (Result<std::string> held = readFileUpTo(blob, bytes.size()); !held || *held != bytes) {
        // A blob is named by its etag, which the Hub derives from the content
        // (git blob hash or LFS sha256), so one etag is one content. Another
        // file under the same etag is not stored over it, nor linked to it:
        // said, and the snapshot left without the file.
        return makeError(ErrorCode::IoError, "cannot write the Hugging Face cache: it holds a different file under "
                                             "the etag " + etag + " that the Hub gave " + file);
    }
    if (auto error = ensureParent(pointer))
        return error;
    // Relative, as huggingface_hub's _create_symlink makes it, so the cache
    // can move: from snapshots/<commit>/<dirs of file>/ up to the repo folder.
    std::string target;
    for (std::size_t depth = 2 + std::count(file.begin(), file.end(), '/'); depth > 0; --depth)
        target += "../";
    target += "blobs/" + etag;
    fs::remove(pointer, ec);
    fs::create_symlink(target, pointer, ec);
    if (ec) // a file system without symlinks: a copy, as huggingface_hub falls back to
        return writeAtomically(pointer, bytes);
    return std::nullopt;
}

std::optional<Error> HubCache::markMissing(const std::string& commit, const std::string& file) const
{
    if (!usableName(commit, file) || knownMissing(commit, file))
        return std::nullopt;
    return writeAtomically(underFolder(m_folder / ".no_exist" / commit, file), "");
}

std::optional<Error> HubCache::storeHeader(const std::string& commit, const std::string& file,
                                           std::string_view bytes) const
{
    if (!usableName(commit, file))
        return std::nullopt;
    return writeAtomically(underFolder(m_folder / ".headroom" / "safetensors-headers" / commit, file), bytes);
}

Result<std::string> readFileUpTo(const fs::path& path, std::uint64_t limit)
{
    std::error_code ec;
    const std::uint64_t size = fs::file_size(path, ec);
    if (ec)
        return makeError(ErrorCode::IoError, "cannot read " + path.string() + ": " + ec.message());
    if (size > limit)
        return makeError(ErrorCode::ResponseTooLarge, path.string() + " is " + std::to_string(size) +
                                                          " bytes, over the limit of " + std::to_string(limit));
    std::ifstream in(path, std::ios::binary);
    std::string text(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), static_cast<std::streamsize>(size)))
        return makeError(ErrorCode::IoError, "cannot read " + path.string());
    return text;
}

} // namespace headroom
