// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Invalid user input is an expected outcome, not an exception: every fallible
// engine call returns a Result carrying either a value or an Error with a code
// the front ends translate (STYLE.md, "Our own habits").
#include <string>
#include <utility>
#include <variant>

namespace headroom {

enum class ErrorCode {
    InvalidArgument,   // a value is out of its allowed range (negative, zero, absurd)
    UnknownModel,      // a preset id that is not in the catalog
    UnknownModelType,  // a config.json model_type we do not support
    UnknownGpu,        // a GPU id that is not in the catalog
    MalformedJson,     // text that is not valid JSON
    MissingField,      // a required field is absent or has the wrong type
    FileNotFound,
    IoError,
    MalformedSafetensors,
    UnsupportedCombination, // e.g. QLoRA without NF4 weights, LoRA on BERT without targets
    Overflow,          // a size that does not fit in 64 bits even in checked arithmetic
    // The Hugging Face Hub (engine/hub): each failure its own code, so the
    // front ends can say what to do about it.
    HubUnavailable,    // this build has no HTTP client (built without libcurl)
    HubAccessDenied,   // 401/403: a gated or private repository, or a refused token
    HubNotFound,       // 404: no such repository, revision or file
    HubOffline,        // HF_HUB_OFFLINE is set and the file is not in the cache
    NetworkError,      // no connection, TLS failure, or an HTTP answer the Hub should not give (5xx...)
    NetworkTimeout,    // no connection or no data within the timeout
    TooManyRedirects,  // more redirects than the limit (a redirect loop)
    ResponseTooLarge,  // an answer larger than the limit for what was asked (JSON, a safetensors header)
    Cancelled,         // the user cancelled
};

// A stable, untranslated identifier of the code ("invalid-argument"...), used in
// JSON output and as the key the UI maps to a tr() message.
const char* errorCodeName(ErrorCode code);

struct Error {
    ErrorCode code;
    std::string detail;  // names what is wrong: the field, the value, the file
};

template <class T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}             // NOLINT(google-explicit-constructor)
    Result(Error error) : m_value(std::move(error)) {}         // NOLINT(google-explicit-constructor)
    bool ok() const { return std::holds_alternative<T>(m_value); }
    explicit operator bool() const { return ok(); }
    const T& value() const& { return std::get<T>(m_value); }
    T& value() & { return std::get<T>(m_value); }
    T&& value() && { return std::get<T>(std::move(m_value)); }
    const T& operator*() const& { return value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<Error>(m_value); }

private:
    std::variant<T, Error> m_value;
};

inline Error makeError(ErrorCode code, std::string detail) { return Error{code, std::move(detail)}; }

} // namespace headroom
