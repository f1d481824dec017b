// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/jsonfields.h"

#include <cmath>
#include <sstream>
#include <utility>

namespace headroom::jsonfields {

using nlohmann::json;

std::string show(const json& value)
{
    std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
    if (text.size() > 80) {
        std::size_t cut = 77;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
            --cut;  // not inside a UTF-8 sequence
        text = text.substr(0, cut) + "...";
    }
    return text;
}

std::string shownKey(const std::string& key)
{
    for (const char c : key)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '"' || c == '\\')
            return json(key).dump(-1, ' ', false, json::error_handler_t::replace);
    return key;
}

std::string childPath(const std::string& path, const std::string& key)
{
    return path.empty() ? shownKey(key) : path + "." + shownKey(key);
}

Error underPath(const std::string& path, const Error& inner) { return makeError(inner.code, path + ": " + inner.detail); }

Error pathError(ErrorCode code, const std::string& path, const std::string& what)
{
    return makeError(code, path + ": " + what);
}

std::string formatNumber(double v)
{
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
        return std::to_string(static_cast<long long>(v));
    std::ostringstream out;
    out << v;
    return out.str();
}

Fields::Fields(const json& object, std::string path, std::optional<Error>& error)
    : m_object(object), m_path(std::move(path)), m_error(error)
{
}

const json* Fields::find(const char* key) const
{
    const auto it = m_object.find(key);
    return it == m_object.end() ? nullptr : &*it;
}

void Fields::fail(ErrorCode code, const std::string& path, const std::string& what)
{
    if (!m_error)
        m_error = pathError(code, path, what);
}

void Fields::allowOnly(std::initializer_list<const char*> keys)
{
    for (auto it = m_object.begin(); it != m_object.end() && !failed(); ++it) {
        bool known = false;
        for (const char* key : keys)
            known = known || it.key() == key;
        if (!known) {
            std::string list;
            for (const char* key : keys)
                list += (list.empty() ? "" : ", ") + std::string(key);
            fail(ErrorCode::InvalidArgument, pathOf(it.key()), "unknown field; accepted fields here: " + list);
        }
    }
}

void Fields::require(const char* key)
{
    if (!failed() && !has(key))
        fail(ErrorCode::MissingField, pathOf(key), "required field is missing");
}

std::optional<std::uint64_t> Fields::wholeNumber(const json& value)
{
    if (value.is_number_unsigned())
        return value.get<std::uint64_t>();
    if (value.is_number_integer() && value.get<std::int64_t>() >= 0)
        return static_cast<std::uint64_t>(value.get<std::int64_t>());
    return std::nullopt;
}

void Fields::integer(const char* key, std::uint64_t lo, std::uint64_t hi, std::uint64_t& out)
{
    const json* value = find(key);
    if (failed() || !value)
        return;
    const auto v = wholeNumber(*value);
    if (!v || *v < lo || *v > hi) {
        fail(ErrorCode::InvalidArgument, pathOf(key),
             "must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " + show(*value));
        return;
    }
    out = *v;
}

void Fields::bytes(const char* key, Bytes lo, Bytes hi, std::optional<Bytes>& out)
{
    const json* value = find(key);
    if (failed() || !value)
        return;
    const auto v = wholeNumber(*value);
    if (!v || *v < lo || *v > hi) {
        fail(ErrorCode::InvalidArgument, pathOf(key),
             "must be a whole number of bytes between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got "
                 + show(*value));
        return;
    }
    out = *v;
}

void Fields::number(const char* key, double lo, bool loOpen, double hi, bool hiOpen, double& out)
{
    const json* value = find(key);
    if (failed() || !value)
        return;
    bool ok = value->is_number();
    const double v = ok ? value->get<double>() : 0.0;
    ok = ok && std::isfinite(v) && (loOpen ? v > lo : v >= lo) && (hiOpen ? v < hi : v <= hi);
    if (!ok) {
        const std::string range = (loOpen ? "greater than " : "at least ") + formatNumber(lo) + " and "
            + (hiOpen ? "less than " : "at most ") + formatNumber(hi);
        fail(ErrorCode::InvalidArgument, pathOf(key), "must be a number " + range + ", got " + show(*value));
        return;
    }
    out = v;
}

void Fields::boolean(const char* key, bool& out)
{
    const json* value = find(key);
    if (failed() || !value)
        return;
    if (!value->is_boolean()) {
        fail(ErrorCode::InvalidArgument, pathOf(key), "must be true or false, got " + show(*value));
        return;
    }
    out = value->get<bool>();
}

void Fields::string(const char* key, std::string& out, bool allowEmpty)
{
    const json* value = find(key);
    if (failed() || !value)
        return;
    if (!value->is_string() || (!allowEmpty && value->get_ref<const std::string&>().empty())) {
        fail(ErrorCode::InvalidArgument, pathOf(key),
             std::string(allowEmpty ? "must be a string" : "must be a non-empty string") + ", got " + show(*value));
        return;
    }
    out = value->get<std::string>();
}

void Fields::boundedString(const char* key, std::size_t maxBytes, std::string& out, bool allowNull)
{
    const json* value = find(key);
    if (failed() || !value || (allowNull && value->is_null()))
        return;
    if (!value->is_string() || value->get_ref<const std::string&>().size() > maxBytes) {
        fail(ErrorCode::InvalidArgument, pathOf(key),
             "must be a string of at most " + std::to_string(maxBytes) + " bytes" + (allowNull ? " or null" : "")
                 + ", got " + show(*value));
        return;
    }
    out = value->get<std::string>();
}

const json* Fields::object(const char* key)
{
    const json* value = find(key);
    if (failed() || !value)
        return nullptr;
    if (!value->is_object()) {
        fail(ErrorCode::InvalidArgument, pathOf(key), "must be a JSON object, got " + show(*value));
        return nullptr;
    }
    return value;
}

} // namespace headroom::jsonfields
