// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/atomicfile.h"

#include "io/textfile.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <system_error>

#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace headroom {

namespace {

namespace fs = std::filesystem;

std::string uniqueSuffix()
{
    std::mt19937_64 generator{std::random_device{}() ^
                              static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count())};
    char buffer[17];
    std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(generator()));
    return buffer;
}

} // namespace

// A temporary file beside the target, flushed to disk, then renamed over it:
// on one file system the rename is atomic, so a reader sees the old file or
// the new one, never half of one (POSIX rename(2)).
Result<bool> writeFileAtomically(const std::string& path, std::string_view text)
{
    const fs::path target = pathFromUtf8(path);
    std::error_code ec;
    if (target.filename().empty())
        return makeError(ErrorCode::IoError, path + ": not a file name");
    if (fs::is_directory(target, ec))
        return makeError(ErrorCode::IoError, path + ": is a directory");
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tempName = ".";  // built by appending: GCC 12's -Wrestrict misfires on "." + std::string
    tempName += utf8FromPath(target.filename());
    tempName += ".tmp-";
    tempName += uniqueSuffix();
    const fs::path temp = dir / pathFromUtf8(tempName);
#if defined(_WIN32)
    std::FILE* f = ::_wfopen(temp.c_str(), L"wb");
#else
    std::FILE* f = std::fopen(temp.c_str(), "wb");
#endif
    if (!f)
        return makeError(ErrorCode::IoError, path + ": cannot create a temporary file in " + utf8FromPath(dir));
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fflush(f) == 0 && ok;
#if defined(__unix__) || defined(__APPLE__)
    ok = ::fsync(::fileno(f)) == 0 && ok;
#endif
    ok = std::fclose(f) == 0 && ok;
    if (!ok) {
        fs::remove(temp, ec);
        return makeError(ErrorCode::IoError, path + ": writing the temporary file failed");
    }
    // A replaced file keeps its permissions (the temporary got the umask's).
    if (const auto old = fs::status(target, ec); !ec && fs::is_regular_file(old))
        fs::permissions(temp, old.permissions(), ec);
    fs::rename(temp, target, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(temp, ignored);
        return makeError(ErrorCode::IoError, path + ": " + ec.message());
    }
    return true;
}

} // namespace headroom
