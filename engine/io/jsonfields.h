// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The strict reader of JSON objects that Headroom's file formats share
// (scenario files, model specs, measurements): every field checked for its
// type and range, unknown fields refused, and one-line errors that name the
// field's path ("train.micro_batch: must be an integer between ...").
#include "core/checkedmath.h"
#include "core/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

namespace headroom::jsonfields {

// A value as it appears in the file, for error messages: short, and safe for
// strings holding invalid UTF-8 (dump() would otherwise throw).
std::string show(const nlohmann::json& value);

// A key from the file as an error shows it: as written when it is plain
// printable text, else JSON-quoted, so a newline or control character in a
// key cannot break the one-line error.
std::string shownKey(const std::string& key);

// "parent.key" (or "key" at the top), the key shown as above.
std::string childPath(const std::string& path, const std::string& key);

Error pathError(ErrorCode code, const std::string& path, const std::string& what);

// Another module's error, re-addressed to the JSON path that led to it.
Error underPath(const std::string& path, const Error& inner);

// Runs a reader so that it never throws: a json::exception that slips past
// the checks becomes InvalidArgument, anything else (std::bad_alloc) IoError,
// each prefixed with `where` ("scenario: ...").
template <class T, class Body>
Result<T> guarded(const char* where, Body&& body)
{
    try {
        return body();
    } catch (const nlohmann::json::exception& e) {
        return makeError(ErrorCode::InvalidArgument, std::string(where) + ": " + e.what());
    } catch (const std::exception& e) {
        return makeError(ErrorCode::IoError, std::string(where) + ": " + e.what());
    }
}

// 1000000 rather than 1e+06 in messages about integral bounds.
std::string formatNumber(double v);

// Every name a parse*() function accepts, for "unknown name" errors. The
// enums are scoped (fixed underlying type), so probing past the last
// enumerator is well defined; the *Name() functions answer "?" there.
template <class E>
std::string acceptedNames(const char* (*nameOf)(E))
{
    std::string names;
    for (int i = 0; i < 64; ++i) {
        const std::string name = nameOf(static_cast<E>(i));
        if (name == "?")
            break;
        names += (names.empty() ? "" : ", ") + name;
    }
    return names;
}

// Reads the members of one JSON object. Readers of nested objects share one
// error slot: the first error wins and later reads become no-ops, so a parser
// reads field after field and checks once.
class Fields {
public:
    using json = nlohmann::json;

    Fields(const json& object, std::string path, std::optional<Error>& error);

    bool failed() const { return m_error.has_value(); }
    std::optional<Error>& errorSlot() { return m_error; }
    const std::string& path() const { return m_path; }
    std::string pathOf(const std::string& key) const { return childPath(m_path, key); }
    const json* find(const char* key) const;
    bool has(const char* key) const { return find(key) != nullptr; }
    void fail(ErrorCode code, const std::string& path, const std::string& what);

    // Typos ("micro_batchsize") must not silently fall back to a default: a
    // reader that answers a different question than asked is worse than one
    // that refuses.
    void allowOnly(std::initializer_list<const char*> keys);
    void require(const char* key);

    // An integer in [lo, hi]. Booleans, strings, fractions and numbers written
    // with a decimal point (2.0) are refused: a count is never fractional.
    void integer(const char* key, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out);
    // The same for a byte count, with the message saying so.
    void bytes(const char* key, Bytes lo, Bytes hi, std::optional<Bytes>& out);
    // A number in a range whose ends may be open; integers are accepted (32
    // for 32.0), booleans and strings are not.
    void number(const char* key, double lo, bool loOpen, double hi, bool hiOpen, double& out);
    void boolean(const char* key, bool& out);
    void string(const char* key, std::string& out, bool allowEmpty = true);
    // A string of at most maxBytes; null leaves `out` as it is where allowNull.
    void boundedString(const char* key, std::size_t maxBytes, std::string& out, bool allowNull = false);

    template <class E>
    void enumeration(const char* key, bool (*parse)(const std::string&, E&), const char* (*nameOf)(E), E& out)
    {
        const json* value = find(key);
        if (failed() || !value)
            return;
        E parsed{};
        if (!value->is_string() || !parse(value->get<std::string>(), parsed)) {
            fail(ErrorCode::InvalidArgument, pathOf(key),
                 "unknown name " + show(*value) + "; accepted: " + acceptedNames(nameOf));
            return;
        }
        out = parsed;
    }

    // A member that must be an object, or nullptr when absent (or on error).
    const json* object(const char* key);

private:
    // The integer in `value` if it is a non-negative integer written without a point.
    static std::optional<std::uint64_t> wholeNumber(const json& value);

    const json& m_object;
    std::string m_path;
    std::optional<Error>& m_error;
};

} // namespace headroom::jsonfields
