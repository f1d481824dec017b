// SPDX-License-Identifier: GPL-3.0-or-later
#include "hub/hubid.h"

#include <algorithm>

namespace headroom {

namespace {

constexpr std::size_t kMaxRepoIdLength = 96; // huggingface_hub validate_repo_id
constexpr std::size_t kMaxRevisionLength = 255;

bool isNameChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
}

// One side of ORG/NAME: the Hub's [\w\-.]+, not starting or ending with '-' or '.'.
bool isRepoPart(std::string_view part)
{
    if (part.empty() || !std::all_of(part.begin(), part.end(), isNameChar))
        return false;
    const auto edge = [](char c) { return c == '-' || c == '.'; };
    return !edge(part.front()) && !edge(part.back());
}

bool isControl(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

} // namespace

bool looksLikeHubId(std::string_view id)
{
    const std::size_t slash = id.find('/');
    return slash != std::string_view::npos && slash > 0 && slash + 1 < id.size();
}

bool isCommitHash(std::string_view revision)
{
    return revision.size() == 40 && std::all_of(revision.begin(), revision.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

bool isSafeRepoFileName(std::string_view name)
{
    if (name.empty() || name.size() > 1024 || name.front() == '/')
        return false;
    if (std::any_of(name.begin(), name.end(), [](char c) { return c == '\\' || c == ':' || isControl(c); }))
        return false;
    std::size_t start = 0;
    while (start <= name.size()) {
        const std::size_t end = std::min(name.find('/', start), name.size());
        const std::string_view part = name.substr(start, end - start);
        if (part.empty() || part == "." || part == "..")
            return false;
        start = end + 1;
    }
    return true;
}

Result<HubModelRef> parseHubModelId(std::string_view id)
{
    const auto invalid = [&](const std::string& why) {
        std::string detail = "'"; // appended piece by piece: GCC 12's -Wrestrict misfires on "'" + std::string
        detail += id;
        detail += "' is not a Hub model id: ";
        detail += why;
        return makeError(ErrorCode::InvalidArgument, detail);
    };
    HubModelRef ref;
    std::string_view repo = id;
    if (const std::size_t at = id.find('@'); at != std::string_view::npos) {
        repo = id.substr(0, at);
        const std::string_view revision = id.substr(at + 1);
        // A revision becomes refs/<revision> in the cache: the file-name rules apply.
        if (revision.size() > kMaxRevisionLength || !isSafeRepoFileName(revision))
            return invalid("the revision after '@' must be a branch, tag or commit hash");
        ref.revision = std::string(revision);
    }
    const std::size_t slash = repo.find('/');
    if (slash == std::string_view::npos || repo.find('/', slash + 1) != std::string_view::npos)
        return invalid("expected ORG/NAME, with one '/'");
    if (repo.size() > kMaxRepoIdLength)
        return invalid("longer than " + std::to_string(kMaxRepoIdLength) + " characters");
    if (!isRepoPart(repo.substr(0, slash)) || !isRepoPart(repo.substr(slash + 1)))
        return invalid("ORG and NAME take letters, digits, '-', '_' and '.', and do not start or end with '-' or '.'");
    // "--" separates the parts of a cache folder name (models--ORG--NAME), so the Hub refuses it.
    if (repo.find("--") != std::string_view::npos || repo.find("..") != std::string_view::npos)
        return invalid("'--' and '..' are not allowed");
    ref.repo = std::string(repo);
    return ref;
}

std::string percentEncode(std::string_view text, bool keepSlash)
{
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : text) {
        const bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                                c == '-' || c == '_' || c == '.' || c == '~' || (keepSlash && c == '/');
        if (unreserved) {
            out += c;
        } else {
            const auto byte = static_cast<unsigned char>(c);
            out += '%';
            out += kHex[byte >> 4];
            out += kHex[byte & 0xf];
        }
    }
    return out;
}

std::string hubResolveUrl(std::string_view endpoint, const std::string& repo, std::string_view revision,
                          std::string_view file)
{
    return hubRepoPage(endpoint, repo) + "/resolve/" + percentEncode(revision, false) + "/" + percentEncode(file, true);
}

std::string hubRepoPage(std::string_view endpoint, const std::string& repo)
{
    std::string base(endpoint);
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    return base + "/" + repo;
}

} // namespace headroom
