// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reading the small JSON documents Headroom's formats are (scenario files,
// measurements): UTF-8 paths on every platform, a bounded read so that a
// mistaken path (a checkpoint shard, a device such as /dev/zero) is refused
// instead of read whole, and parse errors as one line with line and column.
#include "core/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace headroom {

// Paths in the API and in files are UTF-8 on every platform.
std::filesystem::path pathFromUtf8(const std::string& path);
std::string utf8FromPath(const std::filesystem::path& path);

// The whole file, at most maxBytes. `kind` names the file in errors ("a
// scenario file"): FileNotFound, or IoError for a folder, a file too large,
// one that cannot be opened or read. Every message starts with the path.
Result<std::string> readBoundedTextFile(const std::string& path, std::uintmax_t maxBytes, const char* kind);

// Empty (or blank) text and text that is not JSON are MalformedJson; the
// message carries nlohmann's line and column without its exception tag.
Result<nlohmann::json> parseJsonDocument(std::string_view text);

} // namespace headroom
