// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/result.h"

namespace headroom {

const char* errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return "invalid-argument";
    case ErrorCode::UnknownModel: return "unknown-model";
    case ErrorCode::UnknownModelType: return "unknown-model-type";
    case ErrorCode::UnknownGpu: return "unknown-gpu";
    case ErrorCode::MalformedJson: return "malformed-json";
    case ErrorCode::MissingField: return "missing-field";
    case ErrorCode::FileNotFound: return "file-not-found";
    case ErrorCode::IoError: return "io-error";
    case ErrorCode::MalformedSafetensors: return "malformed-safetensors";
    case ErrorCode::UnsupportedCombination: return "unsupported-combination";
    case ErrorCode::Overflow: return "overflow";
    case ErrorCode::HubUnavailable: return "hub-unavailable";
    case ErrorCode::HubAccessDenied: return "hub-access-denied";
    case ErrorCode::HubNotFound: return "hub-not-found";
    case ErrorCode::HubOffline: return "hub-offline";
    case ErrorCode::NetworkError: return "network-error";
    case ErrorCode::NetworkTimeout: return "network-timeout";
    case ErrorCode::TooManyRedirects: return "too-many-redirects";
    case ErrorCode::ResponseTooLarge: return "response-too-large";
    case ErrorCode::Cancelled: return "cancelled";
    }
    return "unknown";
}

} // namespace headroom
