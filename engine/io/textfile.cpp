// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/textfile.h"

#include <fstream>
#include <system_error>
#include <vector>

namespace headroom {

namespace fs = std::filesystem;

fs::path pathFromUtf8(const std::string& path) { return fs::path(std::u8string(path.begin(), path.end())); }

std::string utf8FromPath(const fs::path& path)
{
    const std::u8string u8 = path.u8string();
    return std::string(u8.begin(), u8.end());
}

Result<std::string> readBoundedTextFile(const std::string& path, std::uintmax_t maxBytes, const char* kind)
{
    const fs::path file = pathFromUtf8(path);
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (status.type() == fs::file_type::not_found)
        return makeError(ErrorCode::FileNotFound, path + ": no such file");
    if (ec)
        return makeError(ErrorCode::IoError, path + ": " + ec.message());
    if (fs::is_directory(status))
        return makeError(ErrorCode::IoError, path + ": is a directory, not " + kind);
    const auto size = fs::file_size(file, ec);
    if (!ec && size > maxBytes)
        return makeError(ErrorCode::IoError, path + ": " + std::to_string(size) + " bytes is too large for " + kind);
    std::ifstream in(file, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::IoError, path + ": cannot be opened for reading");
    // A device or a pipe has no size to check beforehand and may never end:
    // read in chunks and stop past the limit.
    std::string text;
    std::vector<char> buffer(64 * 1024);
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > maxBytes)
            return makeError(ErrorCode::IoError,
                             path + ": more than " + std::to_string(maxBytes) + " bytes, too large for " + kind);
    }
    if (in.bad())
        return makeError(ErrorCode::IoError, path + ": read failed");
    return text;
}

Result<nlohmann::json> parseJsonDocument(std::string_view text)
{
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return makeError(ErrorCode::MalformedJson, "the text is empty");
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::parse_error& e) {
        // what() carries line, column and what was expected; drop the
        // library's "[json.exception.parse_error.101] " tag.
        std::string what = e.what();
        if (const auto tag = what.find("] "); what.rfind("[json.exception", 0) == 0 && tag != std::string::npos)
            what.erase(0, tag + 2);
        return makeError(ErrorCode::MalformedJson, what);
    }
}

} // namespace headroom
