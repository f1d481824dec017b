// SPDX-License-Identifier: GPL-3.0-or-later
// Reader for the safetensors header (huggingface/safetensors README,
// "Format"): an unsigned little-endian 64-bit N, N bytes of a UTF-8 JSON
// object {name: {"dtype", "shape", "data_offsets": [begin, end]}, optional
// "__metadata__": {string: string}}, then the tensor data, whose offsets are
// relative to the end of the header. Only the header is ever read: a 140 GB
// checkpoint imports as fast as a 1 MB one. Every number in the file is
// untrusted, so every product is checked.
#include "model/safetensors.h"

#include "core/checkedmath.h"

#include <nlohmann/json.hpp>

#include <array>
#include <filesystem>
#include <fstream>
#include <optional>

namespace headroom {

namespace {

using nlohmann::json;

// The reference implementation refuses larger headers too (MAX_HEADER_SIZE
// in safetensors/src/tensor.rs): no real checkpoint comes near it, and it
// bounds what a hostile file can make us allocate.
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

std::optional<std::uint64_t> dtypeBytes(const std::string& dtype)
{
    struct Entry {
        const char* name;
        std::uint64_t bytes;
    };
    static constexpr Entry kDtypes[] = {
        {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
        {"I16", 2},  {"U16", 2}, {"F16", 2}, {"BF16", 2},    {"I32", 4},
        {"U32", 4},  {"F32", 4}, {"F64", 8}, {"I64", 8},     {"U64", 8},
    };
    for (const Entry& e : kDtypes)
        if (dtype == e.name)
            return e.bytes;
    return std::nullopt;
}

Error malformed(std::string detail) { return makeError(ErrorCode::MalformedSafetensors, std::move(detail)); }

std::optional<std::uint64_t> nonNegativeInteger(const json& v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    return std::nullopt; // negative integers, floats, strings...
}

Result<SafetensorsTensor> parseTensor(const std::string& name, const json& entry, std::uint64_t dataSize)
{
    const std::string where = "tensor \"" + name + "\": ";
    if (!entry.is_object())
        return malformed(where + "expected an object, got " + entry.dump());
    SafetensorsTensor t;
    t.name = name;

    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string())
        return malformed(where + "no \"dtype\" string");
    t.dtype = dtype->get<std::string>();
    const std::optional<std::uint64_t> width = dtypeBytes(t.dtype);
    if (!width)
        return malformed(where + "unknown \"dtype\" \"" + t.dtype + "\"");

    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array())
        return malformed(where + "no \"shape\" array");
    t.elements = 1; // a scalar has shape [] and one element
    for (const json& dim : *shape) {
        const std::optional<std::uint64_t> d = nonNegativeInteger(dim);
        if (!d)
            return malformed(where + "\"shape\" " + shape->dump() + " has an entry " + dim.dump()
                             + " that is not a non-negative integer");
        t.shape.push_back(*d);
        t.elements = satMul(t.elements, *d);
        if (t.elements == kSaturated)
            return malformed(where + "\"shape\" " + shape->dump() + " has more elements than 64 bits can count");
    }

    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2)
        return malformed(where + "no \"data_offsets\" [begin, end]");
    const std::optional<std::uint64_t> begin = nonNegativeInteger((*offsets)[0]);
    const std::optional<std::uint64_t> end = nonNegativeInteger((*offsets)[1]);
    if (!begin || !end || *begin > *end)
        return malformed(where + "\"data_offsets\" " + offsets->dump() + " is not a range [begin, end]");
    t.dataBytes = *end - *begin;
    const Bytes expected = satMul(t.elements, *width);
    if (expected == kSaturated || expected != t.dataBytes)
        return malformed(where + "\"data_offsets\" " + offsets->dump() + " span " + std::to_string(t.dataBytes)
                         + " bytes, but " + t.dtype + " " + shape->dump() + " needs "
                         + (expected == kSaturated ? std::string("more than 2^64") : std::to_string(expected)));
    // A truncated download: the header promises bytes the file lacks.
    if (*end > dataSize)
        return malformed(where + "\"data_offsets\" " + offsets->dump() + " end past the data ("
                         + std::to_string(dataSize) + " bytes): the file is truncated");
    return t;
}

// `headerText` is the N header bytes; `dataSize` what follows them in the file.
Result<SafetensorsHeader> parseHeaderJson(const std::string& headerText, std::uint64_t dataSize)
{
    json root;
    try {
        root = json::parse(headerText);
    } catch (const std::exception& e) {
        return malformed(std::string("the header is not valid JSON: ") + e.what());
    }
    if (!root.is_object())
        return malformed(std::string("the header must be a JSON object, not ") + root.type_name());
    SafetensorsHeader header;
    for (const auto& [name, entry] : root.items()) {
        if (name == "__metadata__") {
            if (!entry.is_object())
                return malformed("\"__metadata__\" must be an object of strings");
            for (const auto& [key, value] : entry.items()) {
                if (!value.is_string())
                    return malformed("\"__metadata__\" entry \"" + key + "\" is " + value.dump()
                                     + "; expected a string");
                header.metadata[key] = value.get<std::string>();
            }
            continue;
        }
        Result<SafetensorsTensor> tensor = parseTensor(name, entry, dataSize);
        if (!tensor)
            return tensor.error();
        header.tensors.push_back(std::move(tensor).value());
    }
    return header;
}

std::uint64_t littleEndian64(const unsigned char* bytes)
{
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | bytes[i];
    return v;
}

// Checks N against the limits and the file size (when known); returns N.
Result<std::uint64_t> headerLength(const unsigned char* prefix, std::optional<std::uint64_t> fileSize)
{
    const std::uint64_t n = littleEndian64(prefix);
    if (n > kMaxHeaderBytes)
        return malformed("the header length " + std::to_string(n) + " exceeds the limit of "
                         + std::to_string(kMaxHeaderBytes) + " bytes");
    if (fileSize && n + 8 > *fileSize)
        return malformed("the header length " + std::to_string(n) + " runs past the end of the file (" +
                         std::to_string(*fileSize) + " bytes)");
    return n;
}

} // namespace

Result<SafetensorsHeader> parseSafetensorsHeader(const std::string& fileBytes)
{
    try {
        if (fileBytes.size() < 8)
            return malformed("the file has " + std::to_string(fileBytes.size())
                             + " bytes, fewer than the 8-byte header length");
        const Result<std::uint64_t> n =
            headerLength(reinterpret_cast<const unsigned char*>(fileBytes.data()), fileBytes.size());
        if (!n)
            return n.error();
        return parseHeaderJson(fileBytes.substr(8, *n), fileBytes.size() - 8 - *n);
    } catch (const std::exception& e) { // bad_alloc and the like: never thrown onwards
        return malformed(std::string("the header could not be read: ") + e.what());
    }
}

Result<std::uint64_t> safetensorsHeaderEnd(std::string_view prefix, std::optional<std::uint64_t> fileSize)
{
    if (prefix.size() < 8 || (fileSize && *fileSize < 8))
        return malformed("the file has " + std::to_string(fileSize ? *fileSize : prefix.size()) +
                         " bytes, fewer than the 8-byte header length");
    const Result<std::uint64_t> n = headerLength(reinterpret_cast<const unsigned char*>(prefix.data()), fileSize);
    if (!n)
        return n.error();
    return *n + 8;
}

Result<SafetensorsHeader> parseSafetensorsPrefix(std::string_view prefix, std::optional<std::uint64_t> fileSize)
{
    try {
        const Result<std::uint64_t> end = safetensorsHeaderEnd(prefix, fileSize);
        if (!end)
            return end.error();
        if (prefix.size() < *end)
            return malformed("the header length " + std::to_string(*end - 8) + " runs past the " +
                             std::to_string(prefix.size()) + " bytes read");
        // Unknown size: no data offset can be shown to run past the data.
        const std::uint64_t dataSize = fileSize ? *fileSize - *end : kSaturated;
        return parseHeaderJson(std::string(prefix.substr(8, *end - 8)), dataSize);
    } catch (const std::exception& e) {
        return malformed(std::string("the header could not be read: ") + e.what());
    }
}

Result<SafetensorsHeader> readSafetensorsHeader(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return makeError(ErrorCode::FileNotFound, "no safetensors file at " + path);
    const std::uint64_t fileSize = fs::file_size(path, ec);
    if (ec)
        return makeError(ErrorCode::IoError, path + ": " + ec.message());
    auto withPath = [&](Error e) { return makeError(e.code, path + ": " + e.detail); };
    try {
        if (fileSize < 8)
            return withPath(malformed("the file has " + std::to_string(fileSize)
                                      + " bytes, fewer than the 8-byte header length"));
        std::ifstream in(path, std::ios::binary);
        std::array<unsigned char, 8> prefix{};
        if (!in.read(reinterpret_cast<char*>(prefix.data()), prefix.size()))
            return makeError(ErrorCode::IoError, "cannot read " + path);
        const Result<std::uint64_t> n = headerLength(prefix.data(), fileSize);
        if (!n)
            return withPath(n.error());
        std::string text(static_cast<std::size_t>(*n), '\0');
        if (!in.read(text.data(), static_cast<std::streamsize>(*n)))
            return makeError(ErrorCode::IoError, "cannot read the header of " + path);
        Result<SafetensorsHeader> header = parseHeaderJson(text, fileSize - 8 - *n);
        if (!header)
            return withPath(header.error());
        return header;
    } catch (const std::exception& e) {
        return makeError(ErrorCode::IoError, path + ": " + e.what());
    }
}

} // namespace headroom
