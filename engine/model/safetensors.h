// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Reads only the JSON header of a .safetensors file (8-byte little-endian
// length, then that many bytes of JSON): names, dtypes and shapes, never the
// weight data. Format: huggingface/safetensors README, "Format".
#include "core/result.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

struct SafetensorsTensor {
    std::string name;
    std::string dtype;                 // "BF16", "F16", "F32", "U8", "I8", "F8_E4M3"...
    std::vector<std::uint64_t> shape;
    std::uint64_t elements = 0;        // product of shape (checked)
    std::uint64_t dataBytes = 0;       // end - start of data_offsets
};

struct SafetensorsHeader {
    std::vector<SafetensorsTensor> tensors;   // "__metadata__" excluded
    std::map<std::string, std::string> metadata;
};

// Errors: FileNotFound, IoError, MalformedSafetensors (header length larger
// than the file or than 100 MB, invalid JSON, a tensor without dtype/shape/
// data_offsets, offsets inconsistent with dtype x shape).
Result<SafetensorsHeader> readSafetensorsHeader(const std::string& path);

// The same from bytes in memory (for tests and fuzzing).
Result<SafetensorsHeader> parseSafetensorsHeader(const std::string& fileBytes);

// For a file read from its start only (a ranged download, engine/hub):
// how many bytes hold the header, 8 + N, from the first 8 (`prefix` has at
// least 8 bytes). Errors as above; N is checked against `fileSize` when the
// whole file's size is known.
Result<std::uint64_t> safetensorsHeaderEnd(std::string_view prefix, std::optional<std::uint64_t> fileSize);
// The header from the file's first bytes (at least 8 + N of them; more are
// ignored). With `fileSize` the data offsets are checked against the data
// the file holds, as readSafetensorsHeader does; without it (a cached copy
// of a header checked when it was fetched) they are not.
Result<SafetensorsHeader> parseSafetensorsPrefix(std::string_view prefix, std::optional<std::uint64_t> fileSize);

} // namespace headroom
